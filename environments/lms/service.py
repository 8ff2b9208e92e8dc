"""Canopy's rules: submissions and their attempts, timed quiz attempts, module progress,
discussion replies, the calendar and the inbox.

A quiz attempt's deadline is its start on the session's virtual clock plus the time limit; an
answer saved or an attempt submitted after it closes the attempt as `timed_out`, graded on what was
saved in time. Nothing here reads the wall clock: `now` always comes from the session.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from humantrace.environments.lms.models import (
    ME,
    Assignment,
    CalendarEvent,
    Conversation,
    Course,
    LmsState,
    Message,
    ModuleItem,
    Person,
    Quiz,
    QuizAttempt,
    Reply,
    Submission,
)
from humantrace.environments.seeding import to_iso
from humantrace.environments.sitekit import SiteError, find_or_404

NewId = Callable[[str], str]  # the session's `env.new_id`: never reuses an id of the initial snapshot
GRACE_SECONDS = 30  # a submit that left the browser as the timer reached zero still counts


def parse(moment: str) -> datetime:
    return datetime.fromisoformat(moment.replace("Z", "+00:00"))


def course(state: LmsState, course_id: str) -> Course:
    found: Course = find_or_404(
        state, "courses", course_id, "That course does not exist or you are not enrolled."
    )
    return found


def person(state: LmsState, person_id: str) -> Person:
    found: Person = find_or_404(state, "people", person_id, "That person is not in your courses.")
    return found


def name_of(state: LmsState, person_id: str) -> str:
    if person_id == ME:
        return state.profile[0].full_name
    found = state.find("people", person_id)
    return found.name if found is not None else "Former user"


def assignment(state: LmsState, assignment_id: str) -> Assignment:
    found: Assignment = find_or_404(state, "assignments", assignment_id, "That assignment does not exist.")
    return found


def quiz(state: LmsState, quiz_id: str) -> Quiz:
    found: Quiz = find_or_404(state, "quizzes", quiz_id, "That quiz does not exist.")
    return found


def submissions_of(state: LmsState, assignment_id: str) -> list[Submission]:
    return sorted((s for s in state.submissions if s.assignment_id == assignment_id), key=lambda s: s.attempt)


def latest(state: LmsState, assignment_id: str) -> Submission | None:
    mine = submissions_of(state, assignment_id)
    return mine[-1] if mine else None


def assignment_status(state: LmsState, asg: Assignment, now: datetime) -> str:
    """graded | submitted | late | missing | open | closed."""
    last = latest(state, asg.id)
    if last is not None:
        if last.score is not None:
            return "graded"
        return "late" if last.late else "submitted"
    if asg.lock_at and now > parse(asg.lock_at):
        return "missing"
    if now > parse(asg.due_at):
        return "overdue"
    return "open"


def submit(
    state: LmsState,
    new_id: NewId,
    *,
    assignment_id: str,
    body: str,
    file_name: str,
    comment: str,
    now: datetime,
) -> Submission:
    asg = assignment(state, assignment_id)
    body, file_name = body.strip(), file_name.strip()
    if asg.lock_at and now > parse(asg.lock_at):
        raise SiteError(409, f"{asg.title} is locked: submissions closed on {asg.lock_at[:10]}.")
    if body and "text" not in asg.submission_types:
        raise SiteError(422, "This assignment only accepts a file upload.")
    if file_name and "file" not in asg.submission_types:
        raise SiteError(422, "This assignment only accepts a text entry.")
    if not body and not file_name:
        raise SiteError(422, "Write your answer or attach a file before submitting.")
    if file_name and not any(
        file_name.lower().endswith(ext) for ext in (".pdf", ".docx", ".txt", ".py", ".zip")
    ):
        raise SiteError(422, "Attach a .pdf, .docx, .txt, .py or .zip file.")
    done = submissions_of(state, asg.id)
    if len(done) >= asg.allowed_attempts:
        raise SiteError(
            409,
            f"You have used all {asg.allowed_attempts} attempt{'s' if asg.allowed_attempts > 1 else ''} "
            f"for {asg.title}.",
        )
    made = Submission(
        id=new_id("sub"),
        assignment_id=asg.id,
        attempt=len(done) + 1,
        body=body,
        file_name=file_name or None,
        comment=comment.strip(),
        submitted_at=to_iso(now),
        late=now > parse(asg.due_at),
    )
    state.submissions.append(made)
    return made


def attempts_of(state: LmsState, quiz_id: str) -> list[QuizAttempt]:
    return sorted((a for a in state.quiz_attempts if a.quiz_id == quiz_id), key=lambda a: a.attempt)


def close_attempt(state: LmsState, attempt: QuizAttempt, now: datetime) -> None:
    """Grade an attempt on its saved answers; past the deadline (and the grace) it is `timed_out`."""
    found = quiz(state, attempt.quiz_id)
    late = now > parse(attempt.deadline_at) + timedelta(seconds=GRACE_SECONDS)
    attempt.status = "timed_out" if late else "submitted"
    attempt.submitted_at = attempt.deadline_at if late else to_iso(now)
    attempt.score = sum(q.points for q in found.questions if attempt.answers.get(q.id) == q.answer)


def expire_if_due(state: LmsState, attempt: QuizAttempt, now: datetime) -> bool:
    """Close an in-progress attempt whose time ran out; True if it did."""
    if attempt.status == "in_progress" and now > parse(attempt.deadline_at) + timedelta(
        seconds=GRACE_SECONDS
    ):
        close_attempt(state, attempt, now)
        return True
    return False


def start_attempt(state: LmsState, new_id: NewId, quiz_id: str, now: datetime) -> QuizAttempt:
    found = quiz(state, quiz_id)
    attempts = attempts_of(state, quiz_id)
    for attempt in attempts:
        expire_if_due(state, attempt, now)
        if attempt.status == "in_progress":
            return attempt  # resume, never a second clock
    if now > parse(found.due_at):
        raise SiteError(409, f"{found.title} closed on {found.due_at[:10]}.")
    if len(attempts) >= found.allowed_attempts:
        raise SiteError(409, f"You have used all {found.allowed_attempts} attempts for {found.title}.")
    made = QuizAttempt(
        id=new_id("att"),
        quiz_id=found.id,
        attempt=len(attempts) + 1,
        started_at=to_iso(now),
        deadline_at=to_iso(now + timedelta(minutes=found.time_limit_minutes)),
    )
    state.quiz_attempts.append(made)
    return made


def attempt(state: LmsState, attempt_id: str) -> QuizAttempt:
    found: QuizAttempt = find_or_404(state, "quiz_attempts", attempt_id, "That quiz attempt does not exist.")
    return found


def answer(state: LmsState, attempt_id: str, question_id: str, choice: int, now: datetime) -> QuizAttempt:
    made = attempt(state, attempt_id)
    if expire_if_due(state, made, now):
        raise SiteError(
            409, "Time is up: this attempt was submitted with the answers saved before the limit."
        )
    if made.status != "in_progress":
        raise SiteError(409, "This attempt has already been submitted.")
    question = next((q for q in quiz(state, made.quiz_id).questions if q.id == question_id), None)
    if question is None:
        raise SiteError(404, "That question is not part of this quiz.")
    if not 0 <= choice < len(question.choices):
        raise SiteError(422, "Choose one of the answers shown.")
    made.answers = {**made.answers, question_id: choice}
    return made


def submit_attempt(state: LmsState, attempt_id: str, now: datetime) -> QuizAttempt:
    made = attempt(state, attempt_id)
    if made.status != "in_progress":
        raise SiteError(409, "This attempt has already been submitted.")
    close_attempt(state, made, now)
    return made


def best_score(state: LmsState, quiz_id: str) -> int | None:
    scores = [a.score for a in attempts_of(state, quiz_id) if a.score is not None]
    return max(scores) if scores else None


def set_completed(state: LmsState, item_id: str, done: bool) -> ModuleItem:
    item: ModuleItem = find_or_404(state, "module_items", item_id, "That module item does not exist.")
    module = find_or_404(state, "modules", item.module_id, "That module does not exist.")
    if module.unlock_at is not None:
        raise SiteError(409, f"{module.title} is locked until {module.unlock_at[:10]}.")
    item.completed = done
    return item


def reply(
    state: LmsState, new_id: NewId, *, discussion_id: str, body: str, parent_id: str | None, now: datetime
) -> Reply:
    disc = find_or_404(state, "discussions", discussion_id, "That discussion does not exist.")
    if disc.locked:
        raise SiteError(409, "This discussion is closed for replies.")
    if not body.strip():
        raise SiteError(422, "Write something before posting.")
    if parent_id and not any(r.id == parent_id and r.discussion_id == disc.id for r in state.replies):
        raise SiteError(404, "The reply you answered was removed.")
    made = Reply(
        id=new_id("rep"),
        discussion_id=disc.id,
        author_id=ME,
        body=body.strip(),
        created_at=to_iso(now),
        parent_id=parent_id or None,
    )
    state.replies.append(made)
    return made


def add_event(
    state: LmsState,
    new_id: NewId,
    *,
    title: str,
    date: str,
    start: str,
    end: str,
    location: str,
    course_id: str | None,
) -> CalendarEvent:
    if not title.strip():
        raise SiteError(422, "Give the event a title.")
    if course_id:
        course(state, course_id)
    if end <= start:
        raise SiteError(422, "The event must end after it starts.")
    made = CalendarEvent(
        id=new_id("evt"),
        course_id=course_id or None,
        title=title.strip(),
        starts_at=f"{date}T{start}:00Z",
        ends_at=f"{date}T{end}:00Z",
        location=location.strip(),
        kind="personal",
    )
    state.events.append(made)
    return made


def delete_event(state: LmsState, event_id: str) -> CalendarEvent:
    found: CalendarEvent = find_or_404(state, "events", event_id, "That event does not exist.")
    if found.kind != "personal":
        raise SiteError(409, "Course events are set by your instructor; you can only delete your own events.")
    state.events.remove(found)
    return found


def send_new(
    state: LmsState,
    new_id: NewId,
    *,
    recipient_ids: list[str],
    course_id: str | None,
    subject: str,
    body: str,
    now: datetime,
) -> Conversation:
    if not recipient_ids:
        raise SiteError(422, "Choose at least one recipient.")
    for rid in recipient_ids:
        person(state, rid)
    if not subject.strip():
        raise SiteError(422, "Add a subject.")
    if not body.strip():
        raise SiteError(422, "Write a message before sending.")
    if course_id:
        course(state, course_id)
    conv = Conversation(
        id=new_id("cnv"),
        subject=subject.strip(),
        course_id=course_id or None,
        participant_ids=[ME, *recipient_ids],
    )
    state.conversations.append(conv)
    state.messages.append(
        Message(
            id=new_id("msg"),
            conversation_id=conv.id,
            author_id=ME,
            body=body.strip(),
            sent_at=to_iso(now),
        )
    )
    return conv


def send_reply(state: LmsState, new_id: NewId, conversation_id: str, body: str, now: datetime) -> Message:
    conv: Conversation = find_or_404(
        state, "conversations", conversation_id, "That conversation does not exist."
    )
    if not body.strip():
        raise SiteError(422, "Write a message before sending.")
    made = Message(
        id=new_id("msg"),
        conversation_id=conv.id,
        author_id=ME,
        body=body.strip(),
        sent_at=to_iso(now),
    )
    state.messages.append(made)
    conv.archived = False
    return made
