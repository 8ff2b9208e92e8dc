"""Canopy's public JSON API (mounted at /api/env/lms): the only surface pages and agents touch.

Handlers are thin: they call `service` (which refuses with `SiteError`) and emit one typed
semantic event per meaningful action (`EVENTS`; also in docs/sites/lms.md).
"""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter

from humantrace.environments.lms import service
from humantrace.environments.lms.models import (
    ME,
    Announcement,
    Assignment,
    Conversation,
    Course,
    LmsState,
    Quiz,
)
from humantrace.environments.lms.schemas import (
    AnnouncementDetail,
    AnnouncementPage,
    AnnouncementView,
    AssignmentDetail,
    AssignmentGroup,
    AssignmentList,
    AssignmentRow,
    AttemptResult,
    AttemptView,
    CalendarEntry,
    CalendarMonth,
    Completion,
    ConversationResult,
    ConversationRow,
    ConversationView,
    CourseCard,
    CourseGrades,
    CourseHome,
    CourseList,
    Dashboard,
    DiscussionDetail,
    DiscussionList,
    DiscussionRow,
    EventResult,
    GradeRow,
    Inbox,
    ItemResult,
    ItemView,
    Me,
    MessageView,
    ModuleView,
    NewAnswer,
    NewConversation,
    NewEvent,
    NewMessage,
    NewReply,
    NewSubmission,
    People,
    QuestionView,
    QuizDetail,
    QuizInfo,
    QuizList,
    QuizRow,
    ReplyResult,
    ReplyView,
    SubmissionResult,
    TodoItem,
)
from humantrace.environments.sessions import EnvSessionDep
from humantrace.environments.sitekit import SiteError, add_sign_in_again, find_or_404, page_of, state_of

EVENTS: dict[str, tuple[str, ...]] = {
    "announcement_read": ("announcement_id", "course_id"),
    "item_completed": ("item_id", "done"),
    "submission_made": ("assignment_id", "submission_id", "attempt", "file_name", "late"),
    "quiz_started": ("quiz_id", "attempt_id"),
    "quiz_answered": ("attempt_id", "question_id", "choice"),
    "quiz_submitted": ("quiz_id", "attempt_id", "score", "status"),
    "reply_posted": ("discussion_id", "reply_id", "parent_id"),
    "event_created": ("event_id", "title", "starts_at"),
    "event_deleted": ("event_id",),
    "message_sent": ("conversation_id", "recipient_ids", "subject", "new_conversation"),
    "conversation_archived": ("conversation_id",),
    "signed_in": (),
}
ANNOUNCEMENTS_PAGE = 5
INBOX_PAGE = 12

router = APIRouter()


def lms(env: EnvSessionDep) -> LmsState:
    return state_of(env, LmsState)


def _course_percent(state: LmsState, crs: Course, now: datetime) -> tuple[int, int, list[GradeRow]]:
    rows: list[GradeRow] = []
    earned = possible = 0
    for asg in (a for a in state.assignments if a.course_id == crs.id):
        status = service.assignment_status(state, asg, now)
        last = service.latest(state, asg.id)
        score = last.score if last is not None else None
        if status == "missing":
            score = 0
        if score is not None:
            earned += score
            possible += asg.points
        rows.append(
            GradeRow(
                kind="assignment",
                id=asg.id,
                title=asg.title,
                group=asg.group,
                due_at=asg.due_at,
                points=asg.points,
                score=score,
                status=status,
            )
        )
    for quiz in (q for q in state.quizzes if q.course_id == crs.id):
        best = service.best_score(state, quiz.id)
        closed = now > service.parse(quiz.due_at)
        if best is None and closed:
            best = 0
        if best is not None:
            earned += best
            possible += quiz.points
        rows.append(
            GradeRow(
                kind="quiz",
                id=quiz.id,
                title=quiz.title,
                group="Quizzes",
                due_at=quiz.due_at,
                points=quiz.points,
                score=best,
                status="graded" if service.attempts_of(state, quiz.id) else ("missing" if closed else "open"),
            )
        )
    rows.sort(key=lambda r: (r.due_at, r.title))
    return earned, possible, rows


def _card(state: LmsState, crs: Course, now: datetime) -> CourseCard:
    earned, possible, _ = _course_percent(state, crs, now)
    return CourseCard(
        id=crs.id,
        code=crs.code,
        title=crs.title,
        term=crs.term,
        color=crs.color,
        instructor=service.name_of(state, crs.instructor_id),
        current=crs.current,
        unread_announcements=sum(1 for a in state.announcements if a.course_id == crs.id and not a.read),
        grade_percent=round(100 * earned / possible, 1) if possible else None,
    )


def _announcement(state: LmsState, item: Announcement) -> AnnouncementView:
    return AnnouncementView(
        **item.model_dump(),
        author_name=service.name_of(state, item.author_id),
        course_code=service.course(state, item.course_id).code,
    )


def _unread(state: LmsState) -> int:
    convs = {c.id for c in state.conversations if not c.archived}
    return len({m.conversation_id for m in state.messages if not m.read and m.conversation_id in convs})


@router.get("/me", response_model=Me)
def me(env: EnvSessionDep) -> Me:
    state = lms(env)
    person = state.profile[0]
    return Me(
        signed_in=person.signed_in,
        name=person.full_name,
        email=person.email,
        today=env.now().date().isoformat(),
        now=env.now_iso(),
        unread_messages=_unread(state),
    )


add_sign_in_again(router, lambda env: lms(env).profile[0], "student")


@router.get("/dashboard", response_model=Dashboard)
def dashboard(env: EnvSessionDep) -> Dashboard:
    state, now = lms(env), env.now()
    codes = {c.id: c.code for c in state.courses}
    todo: list[TodoItem] = []
    for asg in state.assignments:
        status = service.assignment_status(state, asg, now)
        due = service.parse(asg.due_at)
        if status in ("open", "overdue") and (due - now).days < 14:
            todo.append(
                TodoItem(
                    kind="assignment",
                    id=asg.id,
                    course_id=asg.course_id,
                    course_code=codes[asg.course_id],
                    title=asg.title,
                    due_at=asg.due_at,
                    points=asg.points,
                    status=status,
                )
            )
    for quiz in state.quizzes:
        due = service.parse(quiz.due_at)
        if now <= due and (due - now).days < 14 and not service.attempts_of(state, quiz.id):
            todo.append(
                TodoItem(
                    kind="quiz",
                    id=quiz.id,
                    course_id=quiz.course_id,
                    course_code=codes[quiz.course_id],
                    title=quiz.title,
                    due_at=quiz.due_at,
                    points=quiz.points,
                    status="open",
                )
            )
    todo.sort(key=lambda t: (t.due_at, t.title))
    recent = sorted(state.announcements, key=lambda a: a.posted_at, reverse=True)[:5]
    return Dashboard(
        courses=[_card(state, c, now) for c in state.courses if c.current],
        todo=todo,
        announcements=[_announcement(state, a) for a in recent],
    )


@router.get("/courses", response_model=CourseList)
def courses(env: EnvSessionDep) -> CourseList:
    state, now = lms(env), env.now()
    return CourseList(courses=[_card(state, c, now) for c in state.courses])


@router.get("/courses/{course_id}", response_model=CourseHome)
def course_home(course_id: str, env: EnvSessionDep) -> CourseHome:
    state = lms(env)
    crs = service.course(state, course_id)
    modules = []
    for module in sorted((m for m in state.modules if m.course_id == crs.id), key=lambda m: m.position):
        items = sorted((i for i in state.module_items if i.module_id == module.id), key=lambda i: i.position)
        modules.append(ModuleView(module=module, items=items, locked=module.unlock_at is not None))
    open_items = [i for m in modules if not m.locked for i in m.items]
    return CourseHome(
        course=crs,
        instructor=service.person(state, crs.instructor_id),
        ta=service.person(state, crs.ta_id) if crs.ta_id else None,
        modules=modules,
        progress_done=sum(1 for i in open_items if i.completed),
        progress_total=len(open_items),
    )


@router.get("/items/{item_id}", response_model=ItemView)
def item(item_id: str, env: EnvSessionDep) -> ItemView:
    state = lms(env)
    found = find_or_404(state, "module_items", item_id, "That module item does not exist.")
    module = find_or_404(state, "modules", found.module_id, "That module does not exist.")
    if module.unlock_at is not None:
        raise SiteError(409, f"{module.title} is locked until {module.unlock_at[:10]}.")
    siblings = sorted(
        (i for i in state.module_items if i.course_id == found.course_id),
        key=lambda i: (next(m.position for m in state.modules if m.id == i.module_id), i.position),
    )
    unlocked = {m.id for m in state.modules if m.unlock_at is None}
    siblings = [i for i in siblings if i.module_id in unlocked]
    index = siblings.index(found)
    return ItemView(
        course=service.course(state, found.course_id),
        module=module,
        item=found,
        prev_id=siblings[index - 1].id if index > 0 else None,
        next_id=siblings[index + 1].id if index + 1 < len(siblings) else None,
    )


@router.post("/items/{item_id}/complete", response_model=ItemResult)
def complete(item_id: str, body: Completion, env: EnvSessionDep) -> ItemResult:
    found = service.set_completed(lms(env), item_id, body.done)
    env.emit("item_completed", item_id=found.id, done=found.completed)
    return ItemResult(item=found, toast="Marked as done." if found.completed else "Marked as not done.")


@router.get("/courses/{course_id}/announcements", response_model=AnnouncementPage)
def announcements(course_id: str, env: EnvSessionDep, page: int = 1) -> AnnouncementPage:
    state = lms(env)
    crs = service.course(state, course_id)
    found = sorted(
        (a for a in state.announcements if a.course_id == crs.id), key=lambda a: a.posted_at, reverse=True
    )
    chunk, page, pages = page_of(found, page, ANNOUNCEMENTS_PAGE)
    return AnnouncementPage(
        course=crs, items=[_announcement(state, a) for a in chunk], page=page, pages=pages, total=len(found)
    )


@router.get("/announcements/{announcement_id}", response_model=AnnouncementDetail)
def announcement(announcement_id: str, env: EnvSessionDep) -> AnnouncementDetail:
    state = lms(env)
    found = find_or_404(state, "announcements", announcement_id, "That announcement was removed.")
    if not found.read:
        found.read = True
        env.emit("announcement_read", announcement_id=found.id, course_id=found.course_id)
    return AnnouncementDetail(
        course=service.course(state, found.course_id), announcement=_announcement(state, found)
    )


def _assignment_row(state: LmsState, asg: Assignment, now: datetime) -> AssignmentRow:
    last = service.latest(state, asg.id)
    return AssignmentRow(
        id=asg.id,
        title=asg.title,
        group=asg.group,
        due_at=asg.due_at,
        points=asg.points,
        status=service.assignment_status(state, asg, now),
        score=last.score if last is not None else None,
    )


@router.get("/courses/{course_id}/assignments", response_model=AssignmentList)
def assignments(course_id: str, env: EnvSessionDep) -> AssignmentList:
    state, now = lms(env), env.now()
    crs = service.course(state, course_id)
    mine = sorted((a for a in state.assignments if a.course_id == crs.id), key=lambda a: (a.due_at, a.title))
    groups = []
    for name in ("Homework", "Labs", "Projects", "Exams"):
        rows = [_assignment_row(state, a, now) for a in mine if a.group == name]
        if rows:
            groups.append(AssignmentGroup(name=name, rows=rows))
    return AssignmentList(course=crs, groups=groups)


def _assignment_detail(state: LmsState, asg: Assignment, now: datetime) -> AssignmentDetail:
    subs = service.submissions_of(state, asg.id)
    return AssignmentDetail(
        course=service.course(state, asg.course_id),
        assignment=asg,
        submissions=subs,
        status=service.assignment_status(state, asg, now),
        attempts_left=max(0, asg.allowed_attempts - len(subs)),
        locked=bool(asg.lock_at and now > service.parse(asg.lock_at)),
    )


@router.get("/assignments/{assignment_id}", response_model=AssignmentDetail)
def assignment(assignment_id: str, env: EnvSessionDep) -> AssignmentDetail:
    state = lms(env)
    return _assignment_detail(state, service.assignment(state, assignment_id), env.now())


@router.post("/assignments/{assignment_id}/submissions", response_model=SubmissionResult, status_code=201)
def submit(assignment_id: str, body: NewSubmission, env: EnvSessionDep) -> SubmissionResult:
    made = service.submit(
        lms(env),
        env.new_id,
        assignment_id=assignment_id,
        body=body.body,
        file_name=body.file_name,
        comment=body.comment,
        now=env.now(),
    )
    env.emit(
        "submission_made",
        assignment_id=assignment_id,
        submission_id=made.id,
        attempt=made.attempt,
        file_name=made.file_name,
        late=made.late,
    )
    late = " It was marked late." if made.late else ""
    return SubmissionResult(submission=made, toast=f"Submitted (attempt {made.attempt}).{late}")


def _quiz_info(quiz: Quiz) -> QuizInfo:
    return QuizInfo(
        id=quiz.id,
        course_id=quiz.course_id,
        title=quiz.title,
        description=quiz.description,
        points=quiz.points,
        due_at=quiz.due_at,
        time_limit_minutes=quiz.time_limit_minutes,
        allowed_attempts=quiz.allowed_attempts,
        question_count=len(quiz.questions),
    )


def _quiz_row(state: LmsState, quiz: Quiz, now: datetime) -> QuizRow:
    attempts = service.attempts_of(state, quiz.id)
    running = next((a.id for a in attempts if a.status == "in_progress"), None)
    return QuizRow(
        **_quiz_info(quiz).model_dump(),
        attempts_used=len(attempts),
        best_score=service.best_score(state, quiz.id),
        in_progress_id=running,
        closed=now > service.parse(quiz.due_at),
    )


@router.get("/courses/{course_id}/quizzes", response_model=QuizList)
def quizzes(course_id: str, env: EnvSessionDep) -> QuizList:
    state, now = lms(env), env.now()
    crs = service.course(state, course_id)
    found = sorted((q for q in state.quizzes if q.course_id == crs.id), key=lambda q: q.due_at)
    return QuizList(course=crs, quizzes=[_quiz_row(state, q, now) for q in found])


@router.get("/quizzes/{quiz_id}", response_model=QuizDetail)
def quiz(quiz_id: str, env: EnvSessionDep) -> QuizDetail:
    state, now = lms(env), env.now()
    found = service.quiz(state, quiz_id)
    for attempt in service.attempts_of(state, quiz_id):
        if service.expire_if_due(state, attempt, now):
            env.emit(
                "quiz_submitted",
                quiz_id=quiz_id,
                attempt_id=attempt.id,
                score=attempt.score,
                status=attempt.status,
            )
    return QuizDetail(
        course=service.course(state, found.course_id),
        quiz=_quiz_row(state, found, now),
        attempts=service.attempts_of(state, quiz_id),
    )


@router.post("/quizzes/{quiz_id}/attempts", response_model=AttemptResult, status_code=201)
def start(quiz_id: str, env: EnvSessionDep) -> AttemptResult:
    state = lms(env)
    before = {a.id for a in state.quiz_attempts}
    made = service.start_attempt(state, env.new_id, quiz_id, env.now())
    if made.id not in before:
        env.emit("quiz_started", quiz_id=quiz_id, attempt_id=made.id)
        return AttemptResult(attempt=made, toast=f"Attempt {made.attempt} started. The timer is running.")
    return AttemptResult(attempt=made, toast="Resuming your attempt in progress.")


def _attempt_view(state: LmsState, attempt_id: str, now: datetime) -> AttemptView:
    attempt = service.attempt(state, attempt_id)
    found = service.quiz(state, attempt.quiz_id)
    closed = attempt.status != "in_progress"
    remaining = int((service.parse(attempt.deadline_at) - now).total_seconds())
    return AttemptView(
        course=service.course(state, found.course_id),
        quiz=_quiz_info(found),
        attempt=attempt,
        questions=[
            QuestionView(
                id=q.id,
                prompt=q.prompt,
                choices=q.choices,
                points=q.points,
                correct=(attempt.answers.get(q.id) == q.answer) if closed else None,
            )
            for q in found.questions
        ],
        remaining_seconds=0 if closed else max(0, remaining),
    )


@router.get("/attempts/{attempt_id}", response_model=AttemptView)
def attempt(attempt_id: str, env: EnvSessionDep) -> AttemptView:
    state, now = lms(env), env.now()
    found = service.attempt(state, attempt_id)
    if service.expire_if_due(state, found, now):
        env.emit(
            "quiz_submitted",
            quiz_id=found.quiz_id,
            attempt_id=found.id,
            score=found.score,
            status=found.status,
        )
    return _attempt_view(state, attempt_id, now)


@router.put("/attempts/{attempt_id}/answers", response_model=AttemptResult)
def answer(attempt_id: str, body: NewAnswer, env: EnvSessionDep) -> AttemptResult:
    made = service.answer(lms(env), attempt_id, body.question_id, body.choice, env.now())
    env.emit("quiz_answered", attempt_id=attempt_id, question_id=body.question_id, choice=body.choice)
    return AttemptResult(attempt=made, toast="Answer saved.")


@router.post("/attempts/{attempt_id}/submit", response_model=AttemptResult)
def submit_attempt(attempt_id: str, env: EnvSessionDep) -> AttemptResult:
    state = lms(env)
    made = service.submit_attempt(state, attempt_id, env.now())
    env.emit("quiz_submitted", quiz_id=made.quiz_id, attempt_id=made.id, score=made.score, status=made.status)
    total = service.quiz(state, made.quiz_id).points
    late = " Time had run out: only answers saved in time were graded." if made.status == "timed_out" else ""
    return AttemptResult(attempt=made, toast=f"Quiz submitted. Score: {made.score} / {total}.{late}")


@router.get("/courses/{course_id}/grades", response_model=CourseGrades)
def grades(course_id: str, env: EnvSessionDep) -> CourseGrades:
    state = lms(env)
    crs = service.course(state, course_id)
    earned, possible, rows = _course_percent(state, crs, env.now())
    return CourseGrades(
        course=crs,
        rows=rows,
        earned=earned,
        possible=possible,
        percent=round(100 * earned / possible, 1) if possible else None,
    )


@router.get("/courses/{course_id}/discussions", response_model=DiscussionList)
def discussions(course_id: str, env: EnvSessionDep) -> DiscussionList:
    state = lms(env)
    crs = service.course(state, course_id)
    rows = []
    for disc in (d for d in state.discussions if d.course_id == crs.id):
        replies = [r for r in state.replies if r.discussion_id == disc.id]
        rows.append(
            DiscussionRow(
                **disc.model_dump(),
                author_name=service.name_of(state, disc.author_id),
                reply_count=len(replies),
                last_reply_at=max((r.created_at for r in replies), default=None),
            )
        )
    rows.sort(key=lambda r: (not r.pinned, r.last_reply_at or r.created_at), reverse=False)
    rows.sort(key=lambda r: not r.pinned)
    return DiscussionList(course=crs, discussions=rows)


@router.get("/discussions/{discussion_id}", response_model=DiscussionDetail)
def discussion(discussion_id: str, env: EnvSessionDep) -> DiscussionDetail:
    state = lms(env)
    disc = find_or_404(state, "discussions", discussion_id, "That discussion does not exist.")
    replies = sorted(
        (r for r in state.replies if r.discussion_id == disc.id), key=lambda r: (r.created_at, r.id)
    )
    return DiscussionDetail(
        course=service.course(state, disc.course_id),
        discussion=disc,
        author_name=service.name_of(state, disc.author_id),
        replies=[
            ReplyView(**r.model_dump(), author_name=service.name_of(state, r.author_id)) for r in replies
        ],
    )


@router.post("/discussions/{discussion_id}/replies", response_model=ReplyResult, status_code=201)
def post_reply(discussion_id: str, body: NewReply, env: EnvSessionDep) -> ReplyResult:
    state = lms(env)
    made = service.reply(
        state,
        env.new_id,
        discussion_id=discussion_id,
        body=body.body,
        parent_id=body.parent_id,
        now=env.now(),
    )
    env.emit("reply_posted", discussion_id=discussion_id, reply_id=made.id, parent_id=made.parent_id)
    return ReplyResult(
        reply=ReplyView(**made.model_dump(), author_name=service.name_of(state, ME)),
        toast="Your reply was posted.",
    )


@router.get("/calendar", response_model=CalendarMonth)
def calendar(env: EnvSessionDep, month: str = "") -> CalendarMonth:
    state, now = lms(env), env.now()
    month = month if len(month) == 7 and month[4] == "-" else now.date().isoformat()[:7]
    courses = {c.id: c for c in state.courses}
    entries: list[CalendarEntry] = []
    for event in state.events:
        if event.starts_at.startswith(month):
            crs = courses.get(event.course_id or "")
            entries.append(
                CalendarEntry(
                    id=event.id,
                    kind=event.kind,
                    title=event.title,
                    starts_at=event.starts_at,
                    ends_at=event.ends_at,
                    location=event.location,
                    course_id=event.course_id,
                    course_code=crs.code if crs else None,
                    color=crs.color if crs else "#4b5563",
                    link=None,
                )
            )
    for asg in state.assignments:
        if asg.due_at.startswith(month):
            crs = courses[asg.course_id]
            entries.append(
                CalendarEntry(
                    id=asg.id,
                    kind="assignment",
                    title=asg.title,
                    starts_at=asg.due_at,
                    ends_at=asg.due_at,
                    location="",
                    course_id=crs.id,
                    course_code=crs.code,
                    color=crs.color,
                    link=f"/assignments/{asg.id}",
                )
            )
    for quiz in state.quizzes:
        if quiz.due_at.startswith(month):
            crs = courses[quiz.course_id]
            entries.append(
                CalendarEntry(
                    id=quiz.id,
                    kind="quiz",
                    title=quiz.title,
                    starts_at=quiz.due_at,
                    ends_at=quiz.due_at,
                    location="",
                    course_id=crs.id,
                    course_code=crs.code,
                    color=crs.color,
                    link=f"/quizzes/{quiz.id}",
                )
            )
    entries.sort(key=lambda e: (e.starts_at, e.title))
    return CalendarMonth(
        month=month, entries=entries, courses=[_card(state, c, now) for c in state.courses if c.current]
    )


@router.post("/calendar/events", response_model=EventResult, status_code=201)
def create_event(body: NewEvent, env: EnvSessionDep) -> EventResult:
    made = service.add_event(
        lms(env),
        env.new_id,
        title=body.title,
        date=body.date,
        start=body.start,
        end=body.end,
        location=body.location,
        course_id=body.course_id,
    )
    env.emit("event_created", event_id=made.id, title=made.title, starts_at=made.starts_at)
    return EventResult(event=made, toast=f"{made.title} added to your calendar.")


@router.delete("/calendar/events/{event_id}", response_model=EventResult)
def delete_event(event_id: str, env: EnvSessionDep) -> EventResult:
    gone = service.delete_event(lms(env), event_id)
    env.emit("event_deleted", event_id=event_id)
    return EventResult(event=gone, toast=f"{gone.title} deleted.")


def _conversation_row(state: LmsState, conv: Conversation) -> ConversationRow:
    conv_id = conv.id
    msgs = sorted(
        (m for m in state.messages if m.conversation_id == conv_id), key=lambda m: (m.sent_at, m.id)
    )
    crs = state.find("courses", conv.course_id) if conv.course_id else None
    return ConversationRow(
        id=conv.id,
        subject=conv.subject,
        course_code=crs.code if crs else None,
        with_names=[service.name_of(state, p) for p in conv.participant_ids if p != ME],
        last_at=msgs[-1].sent_at if msgs else "",
        preview=msgs[-1].body[:90] if msgs else "",
        unread=any(not m.read for m in msgs),
        starred=conv.starred,
        archived=conv.archived,
        count=len(msgs),
    )


@router.get("/inbox", response_model=Inbox)
def inbox(env: EnvSessionDep, folder: str = "inbox", page: int = 1) -> Inbox:
    state = lms(env)
    if folder not in ("inbox", "sent", "archived", "unread"):
        raise SiteError(404, "There is no such folder.")
    rows = [_conversation_row(state, c) for c in state.conversations]
    sent_ids = {m.conversation_id for m in state.messages if m.author_id == ME}
    keep = {
        "inbox": lambda r: not r.archived,
        "unread": lambda r: r.unread and not r.archived,
        "archived": lambda r: r.archived,
        "sent": lambda r: r.id in sent_ids,
    }[folder]
    rows = sorted((r for r in rows if keep(r)), key=lambda r: (r.last_at, r.id), reverse=True)
    chunk, page, pages = page_of(rows, page, INBOX_PAGE)
    return Inbox(
        folder=folder,
        conversations=chunk,
        page=page,
        pages=pages,
        total=len(rows),
    )


def _conversation(state: LmsState, conv_id: str) -> ConversationView:
    conv = find_or_404(state, "conversations", conv_id, "That conversation does not exist.")
    msgs = sorted(
        (m for m in state.messages if m.conversation_id == conv.id), key=lambda m: (m.sent_at, m.id)
    )
    crs = state.find("courses", conv.course_id) if conv.course_id else None
    return ConversationView(
        conversation=conv,
        course_code=crs.code if crs else None,
        participants=[
            state.find("people", p) for p in conv.participant_ids if p != ME and state.find("people", p)
        ],
        messages=[
            MessageView(**m.model_dump(), author_name=service.name_of(state, m.author_id)) for m in msgs
        ],
    )


@router.get("/conversations/{conversation_id}", response_model=ConversationView)
def conversation(conversation_id: str, env: EnvSessionDep) -> ConversationView:
    state = lms(env)
    view = _conversation(state, conversation_id)
    for message in state.messages:
        if message.conversation_id == conversation_id and not message.read:
            message.read = True
    return view


@router.post("/conversations", response_model=ConversationResult, status_code=201)
def compose(body: NewConversation, env: EnvSessionDep) -> ConversationResult:
    conv = service.send_new(
        lms(env),
        env.new_id,
        recipient_ids=body.recipient_ids,
        course_id=body.course_id,
        subject=body.subject,
        body=body.body,
        now=env.now(),
    )
    env.emit(
        "message_sent",
        conversation_id=conv.id,
        recipient_ids=body.recipient_ids,
        subject=conv.subject,
        new_conversation=True,
    )
    return ConversationResult(conversation=conv, toast="Message sent.")


@router.post("/conversations/{conversation_id}/messages", response_model=ConversationResult, status_code=201)
def reply_message(conversation_id: str, body: NewMessage, env: EnvSessionDep) -> ConversationResult:
    state = lms(env)
    service.send_reply(state, env.new_id, conversation_id, body.body, env.now())
    conv: Conversation = find_or_404(
        state, "conversations", conversation_id, "That conversation does not exist."
    )
    env.emit(
        "message_sent",
        conversation_id=conv.id,
        recipient_ids=[p for p in conv.participant_ids if p != ME],
        subject=conv.subject,
        new_conversation=False,
    )
    return ConversationResult(conversation=conv, toast="Reply sent.")


@router.post("/conversations/{conversation_id}/archive", response_model=ConversationResult)
def archive(conversation_id: str, env: EnvSessionDep) -> ConversationResult:
    conv = find_or_404(lms(env), "conversations", conversation_id, "That conversation does not exist.")
    conv.archived = True
    env.emit("conversation_archived", conversation_id=conv.id)
    return ConversationResult(conversation=conv, toast="Conversation archived.")


@router.get("/people", response_model=People)
def people(env: EnvSessionDep, course_id: str = "") -> People:
    """Who the student can write to: a course's instructor and TA first, then classmates."""
    state = lms(env)
    staff_ids: list[str] = []
    for crs in state.courses:
        if crs.current and (not course_id or crs.id == course_id):
            staff_ids += [crs.instructor_id] + ([crs.ta_id] if crs.ta_id else [])
    staff = [service.person(state, p) for p in staff_ids]
    students = sorted((p for p in state.people if p.role == "Student"), key=lambda p: p.name)
    return People(people=staff + students)
