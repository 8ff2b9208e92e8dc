"""Seed builders for Canopy's task situations (registered as `lms.<name>`).

Each builder adds one situation to the default term and returns named outputs that task files
bind to targets. Days are counted from the session's virtual start.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from humantrace.environments.lms.models import CalendarEvent, ModuleItem, Question, Submission
from humantrace.environments.lms.seed import LmsContext, add_assignment, add_quiz, at, course, term_start
from humantrace.environments.seeding import SeedError, builder, to_iso


@builder("lms.refs")
def refs(ctx: LmsContext) -> dict[str, Any]:
    """Ids of the courses, their instructors and TAs (by course code) and of the discussions."""
    state = ctx.state
    names = {p.id: p.name for p in state.people}
    return {
        "course_ids": {c.code: c.id for c in state.courses},
        "instructor_ids": {c.code: c.instructor_id for c in state.courses},
        "instructor_names": {c.code: names[c.instructor_id] for c in state.courses},
        "ta_ids": {c.code: c.ta_id for c in state.courses if c.ta_id},
        "ta_names": {c.code: names[c.ta_id] for c in state.courses if c.ta_id},
        "intro_ids": {
            c.code: d.id
            for c in state.courses
            for d in state.discussions
            if d.course_id == c.id and d.title == "Introduce yourself"
        },
    }


@builder("lms.day")
def day(ctx: LmsContext, *, days: int) -> dict[str, Any]:
    """The date `days` after the session starts, as ISO text and as a person reads it."""
    moment = ctx.now + timedelta(days=days)
    return {"date": moment.date().isoformat(), "date_text": f"{moment:%A} {moment.day} {moment:%B}"}


@builder("lms.assignment")
def plant_assignment(
    ctx: LmsContext,
    *,
    course_code: str,
    title: str,
    due_days: int,
    points: int = 30,
    group: str = "Labs",
    types: list[str] | None = None,
    attempts: int = 1,
) -> dict[str, Any]:
    """An assignment due `due_days` after the session starts (negative: already past)."""
    crs = course(ctx, course_code)
    made = add_assignment(
        ctx,
        crs,
        title=title,
        due=ctx.now + timedelta(days=due_days),
        points=points,
        group=group,
        types=types,
        attempts=attempts,
        lock_days=7,
    )
    return {"assignment_id": made.id, "course_id": crs.id}


@builder("lms.graded_attempt")
def graded_attempt(
    ctx: LmsContext, *, assignment_id: str, file_name: str, scores: dict[str, int], feedback: str
) -> dict[str, Any]:
    """A graded first attempt with the rubric points given per criterion; names the lowest one."""
    state = ctx.state
    asg = state.find("assignments", assignment_id)
    if asg is None:
        raise SeedError(f"no assignment {assignment_id}")
    from humantrace.environments.lms.models import RubricScore

    rows = [RubricScore(criterion=c.name, points=scores[c.name]) for c in asg.rubric]
    ranked = sorted(
        rows, key=lambda r: r.points / next(c.points for c in asg.rubric if c.name == r.criterion)
    )
    if len(ranked) > 1 and ranked[0].points == ranked[1].points:
        raise SeedError("one criterion must score strictly lowest")
    made = Submission(
        id=ctx.new_id("sub"),
        assignment_id=asg.id,
        attempt=1,
        file_name=file_name,
        submitted_at=ctx.ago(days=3),
        score=sum(r.points for r in rows),
        rubric_scores=rows,
        feedback=feedback,
        graded_at=ctx.ago(days=1),
    )
    state.submissions.append(made)
    return {"submission_id": made.id, "lowest_criterion": ranked[0].criterion}


@builder("lms.quiz_with_notes")
def quiz_with_notes(
    ctx: LmsContext,
    *,
    course_code: str,
    title: str,
    notes_title: str,
    facts: list[list[str]],
    minutes: int = 15,
) -> dict[str, Any]:
    """A quiz due in 5 days whose questions (prompt, right answer, three wrong ones) are answered by a
    study-notes page in the course's current module."""
    crs = course(ctx, course_code)
    rng = ctx.rng
    questions = []
    for index, (prompt, right, *wrong) in enumerate(facts):
        choices = list(wrong)
        place = rng.randrange(len(choices) + 1)
        choices.insert(place, right)
        questions.append(Question(id=f"q{index + 1}", prompt=prompt, choices=choices, answer=place))
    made = add_quiz(
        ctx,
        crs,
        title=title,
        due=ctx.now + timedelta(days=5),
        questions=questions,
        minutes=minutes,
        attempts=1,
    )
    state = ctx.state
    week = (ctx.now - term_start(ctx)).days // 7
    module = next(m for m in state.modules if m.course_id == crs.id and m.position == week + 1)
    position = max(i.position for i in state.module_items if i.module_id == module.id) + 1
    notes = "Study notes for the quiz.\n" + "\n".join(f"- {prompt} {right}." for prompt, right, *_ in facts)
    state.module_items.append(
        ModuleItem(
            id=ctx.new_id("itm"),
            module_id=module.id,
            course_id=crs.id,
            kind="page",
            title=notes_title,
            body=notes,
            position=position,
        )
    )
    state.module_items.append(
        ModuleItem(
            id=ctx.new_id("itm"),
            module_id=module.id,
            course_id=crs.id,
            kind="quiz",
            title=made.title,
            ref_id=made.id,
            position=position + 1,
        )
    )
    return {"quiz_id": made.id, "points": made.points, "answers": [right for _, right, *_ in facts]}


@builder("lms.personal_events")
def personal_events(ctx: LmsContext, *, events: list[dict[str, Any]]) -> dict[str, Any]:
    """The student's own events: `{title, days, start, end}` each (`days` after the session start)."""
    ids = []
    for spec in events:
        moment = ctx.now + timedelta(days=spec["days"])
        hour, minute = (int(p) for p in spec["start"].split(":"))
        end_hour, end_minute = (int(p) for p in spec["end"].split(":"))
        made = CalendarEvent(
            id=ctx.new_id("evt"),
            title=spec["title"],
            kind="personal",
            location=spec.get("location", ""),
            starts_at=at(moment, hour, minute),
            ends_at=at(moment, end_hour, end_minute),
        )
        ctx.state.events.append(made)
        ids.append(made.id)
    return {"event_ids": ids}


@builder("lms.lowest_graded")
def lowest_graded(ctx: LmsContext, *, course_code: str) -> dict[str, Any]:
    """The graded assignment of a course with the lowest share of its points (a tie is a SeedError)."""
    state = ctx.state
    crs = course(ctx, course_code)
    graded = []
    for asg in (a for a in state.assignments if a.course_id == crs.id):
        last = max(
            (s for s in state.submissions if s.assignment_id == asg.id), key=lambda s: s.attempt, default=None
        )
        if last is not None and last.score is not None:
            graded.append((last.score / asg.points, asg))
    graded.sort(key=lambda pair: pair[0])
    if len(graded) < 2 or graded[0][0] == graded[1][0]:
        raise SeedError("the course needs one strictly lowest graded assignment")
    return {"lowest_title": graded[0][1].title, "lowest_id": graded[0][1].id}


@builder("lms.regrade")
def regrade(ctx: LmsContext, *, assignment_title: str, fraction: float) -> dict[str, Any]:
    """Set the graded score of an assignment (by title) to `fraction` of its points, rubric row by row."""
    state = ctx.state
    asg = next((a for a in state.assignments if a.title == assignment_title), None)
    if asg is None:
        raise SeedError(f"no assignment {assignment_title!r}")
    last = max(
        (s for s in state.submissions if s.assignment_id == asg.id), key=lambda s: s.attempt, default=None
    )
    if last is None:
        raise SeedError(f"{assignment_title!r} has no submission")
    for row in last.rubric_scores:
        row.points = int(next(c.points for c in asg.rubric if c.name == row.criterion) * fraction)
    last.score = sum(r.points for r in last.rubric_scores)
    return {"assignment_id": asg.id}


@builder("lms.week_module")
def week_module(ctx: LmsContext, *, course_code: str) -> dict[str, Any]:
    """The current week's module of a course: its title, item ids and its assignment."""
    state = ctx.state
    crs = course(ctx, course_code)
    week = (ctx.now - term_start(ctx)).days // 7
    module = next(m for m in state.modules if m.course_id == crs.id and m.position == week + 1)
    items = sorted((i for i in state.module_items if i.module_id == module.id), key=lambda i: i.position)
    for item in items:
        item.completed = False
    asg = next((i for i in items if i.kind == "assignment"), None)
    if asg is None:
        raise SeedError(f"{module.title} has no assignment")
    return {
        "module_title": module.title,
        "item_ids": [i.id for i in items],
        "assignment_id": asg.ref_id,
        "assignment_title": asg.title,
        "due_at": to_iso(ctx.now),
    }


@builder("lms.partner_request")
def partner_request(ctx: LmsContext, *, course_code: str) -> dict[str, Any]:
    """An unread message from a course's instructor asking for the lab partner's name: the classmate
    who posted first in the course's "Introduce yourself" discussion."""
    from humantrace.environments.lms.models import ME, Conversation, Message

    state = ctx.state
    crs = course(ctx, course_code)
    intro = next(d for d in state.discussions if d.course_id == crs.id and d.title == "Introduce yourself")
    first = min((r for r in state.replies if r.discussion_id == intro.id), key=lambda r: (r.created_at, r.id))
    partner = next(p for p in state.people if p.id == first.author_id)
    teacher = next(p for p in state.people if p.id == crs.instructor_id)
    conv = Conversation(
        id=ctx.new_id("cnv"),
        subject="Lab partners for next week",
        course_id=crs.id,
        participant_ids=[ME, teacher.id],
    )
    state.conversations.append(conv)
    state.messages.append(
        Message(
            id=ctx.new_id("msg"),
            conversation_id=conv.id,
            author_id=teacher.id,
            sent_at=ctx.ago(hours=5),
            read=False,
            body="Hi Riley, for next week's lab you'll work with the classmate who posted first in our "
            '"Introduce yourself" discussion. Please reply with their full name so I can confirm the pairs.',
        )
    )
    return {"conversation_id": conv.id, "partner_name": partner.name, "instructor_id": teacher.id}


@builder("lms.decoy_partner_message")
def decoy_partner_message(ctx: LmsContext, *, course_code: str) -> dict[str, Any]:
    """A newer unread message from the course's TA about lab partners (not the one to answer)."""
    from humantrace.environments.lms.models import ME, Conversation, Message

    state = ctx.state
    crs = course(ctx, course_code)
    if crs.ta_id is None:
        raise SeedError(f"{course_code} has no TA")
    conv = Conversation(
        id=ctx.new_id("cnv"),
        subject="Lab partners: room change",
        course_id=crs.id,
        participant_ids=[ME, crs.ta_id],
    )
    state.conversations.append(conv)
    state.messages.append(
        Message(
            id=ctx.new_id("msg"),
            conversation_id=conv.id,
            author_id=crs.ta_id,
            sent_at=ctx.ago(hours=2),
            read=False,
            body="Hi Riley, lab pairs will work in room 214 next week. No need to reply.",
        )
    )
    return {"decoy_conversation_id": conv.id}


@builder("lms.conversation")
def plant_conversation(
    ctx: LmsContext,
    *,
    subject: str,
    from_name: str,
    body: str,
    course_code: str | None = None,
    hours_ago: float = 3,
) -> dict[str, Any]:
    """An unread conversation started by `from_name` (a person of the term)."""
    from humantrace.environments.lms.models import ME, Conversation, Message
    from humantrace.environments.lms.seed import person_named

    state = ctx.state
    sender = person_named(ctx, from_name)
    conv = Conversation(
        id=ctx.new_id("cnv"),
        subject=subject,
        course_id=course(ctx, course_code).id if course_code else None,
        participant_ids=[ME, sender.id],
    )
    state.conversations.append(conv)
    state.messages.append(
        Message(
            id=ctx.new_id("msg"),
            conversation_id=conv.id,
            author_id=sender.id,
            body=body,
            sent_at=ctx.ago(hours=hours_ago),
            read=False,
        )
    )
    return {"conversation_id": conv.id, "sender_id": sender.id}


@builder("lms.item")
def find_item(ctx: LmsContext, *, course_code: str, title: str) -> dict[str, Any]:
    """A module item of a course by its title (left not done)."""
    crs = course(ctx, course_code)
    found = next((i for i in ctx.state.module_items if i.course_id == crs.id and i.title == title), None)
    if found is None:
        raise SeedError(f"no item {title!r} in {course_code}")
    found.completed = False
    return {"item_id": found.id, "course_id": crs.id}


@builder("lms.assignment_named")
def assignment_named(ctx: LmsContext, *, course_code: str, title: str) -> dict[str, Any]:
    crs = course(ctx, course_code)
    found = next((a for a in ctx.state.assignments if a.course_id == crs.id and a.title == title), None)
    if found is None:
        raise SeedError(f"no assignment {title!r} in {course_code}")
    return {"assignment_id": found.id}


@builder("lms.classmate_post")
def classmate_post(
    ctx: LmsContext,
    *,
    course_code: str,
    discussion_prefix: str,
    author: str,
    body: str,
    hours_ago: float = 20,
) -> dict[str, Any]:
    """A classmate's top-level post in a course discussion whose title starts with the prefix."""
    from humantrace.environments.lms.models import Person, Reply

    state = ctx.state
    crs = course(ctx, course_code)
    disc = next(
        (d for d in state.discussions if d.course_id == crs.id and d.title.startswith(discussion_prefix)),
        None,
    )
    if disc is None:
        raise SeedError(f"no discussion {discussion_prefix!r} in {course_code}")
    person = next((p for p in state.people if p.name == author), None)
    if person is None:
        person = Person(
            id=ctx.new_id("per"),
            name=author,
            role="Student",
            email=author.lower().replace(" ", ".") + "@westbrook.edu",
        )
        state.people.append(person)
    made = Reply(
        id=ctx.new_id("rep"),
        discussion_id=disc.id,
        author_id=person.id,
        body=body,
        created_at=ctx.ago(hours=hours_ago),
    )
    state.replies.append(made)
    return {"discussion_id": disc.id, "discussion_title": disc.title, "reply_id": made.id}


@builder("lms.lowest_course")
def lowest_course(ctx: LmsContext) -> dict[str, Any]:
    """The current course with the lowest grade so far (a tie is a SeedError), as the grades page computes it."""
    from humantrace.environments.lms.service import assignment_status, attempts_of, best_score, latest, parse

    state = ctx.state
    now = ctx.now
    ranked = []
    for crs in (c for c in state.courses if c.current):
        earned = possible = 0
        for asg in (a for a in state.assignments if a.course_id == crs.id):
            last = latest(state, asg.id)
            score = last.score if last is not None else None
            if assignment_status(state, asg, now) == "missing":
                score = 0
            if score is not None:
                earned, possible = earned + score, possible + asg.points
        for quiz in (q for q in state.quizzes if q.course_id == crs.id):
            best = best_score(state, quiz.id)
            if best is None and now > parse(quiz.due_at) and not attempts_of(state, quiz.id):
                best = 0
            if best is not None:
                earned, possible = earned + best, possible + quiz.points
        ranked.append((round(100 * earned / possible, 1) if possible else 100.0, crs))
    ranked.sort(key=lambda pair: pair[0])
    if ranked[0][0] == ranked[1][0]:
        raise SeedError("two courses tie for the lowest grade")
    return {"course_code": ranked[0][1].code, "course_id": ranked[0][1].id}


@builder("lms.in_progress_attempt")
def in_progress_attempt(
    ctx: LmsContext, *, quiz_id: str, minutes_ago: int, answers: dict[str, int]
) -> dict[str, Any]:
    """An attempt started `minutes_ago` minutes before the session with some answers saved (as
    offsets from the right choice: 0 right, 1 the next choice)."""
    from humantrace.environments.lms.models import QuizAttempt

    state = ctx.state
    quiz = state.find("quizzes", quiz_id)
    if quiz is None:
        raise SeedError(f"no quiz {quiz_id}")
    started = ctx.now - timedelta(minutes=minutes_ago)
    saved = {}
    for q in quiz.questions:
        if q.id in answers:
            saved[q.id] = (q.answer + answers[q.id]) % len(q.choices)
    made = QuizAttempt(
        id=ctx.new_id("att"),
        quiz_id=quiz.id,
        attempt=1,
        started_at=to_iso(started),
        deadline_at=to_iso(started + timedelta(minutes=quiz.time_limit_minutes)),
        answers=saved,
    )
    state.quiz_attempts.append(made)
    return {"attempt_id": made.id}


@builder("lms.overdue")
def overdue(
    ctx: LmsContext, *, course_code: str, title: str, locked_title: str, locked_course: str
) -> dict[str, Any]:
    """One assignment overdue but still open for late work, one past its lock (missing for good);
    any other overdue work of the term is handed in (graded), so exactly one can still be submitted."""
    state = ctx.state
    from humantrace.environments.lms.service import assignment_status

    for asg in list(state.assignments):
        if assignment_status(state, asg, ctx.now) == "overdue":
            state.submissions.append(
                Submission(
                    id=ctx.new_id("sub"),
                    assignment_id=asg.id,
                    attempt=1,
                    body="My answers.",
                    submitted_at=to_iso(ctx.now - timedelta(days=4)),
                )
            )
    open_late = add_assignment(
        ctx,
        course(ctx, course_code),
        title=title,
        due=ctx.now - timedelta(days=2),
        points=20,
        group="Homework",
        types=["text"],
        lock_days=5,
    )
    add_assignment(
        ctx,
        course(ctx, locked_course),
        title=locked_title,
        due=ctx.now - timedelta(days=9),
        points=20,
        group="Homework",
        types=["text"],
        lock_days=3,
    )
    crs = course(ctx, course_code)
    return {"assignment_id": open_late.id, "title": open_late.title, "instructor_id": crs.instructor_id}


@builder("lms.clashing_events")
def clashing_events(ctx: LmsContext, *, course_code: str) -> dict[str, Any]:
    """Four personal events this week: two overlap a lecture of the course, two do not."""
    state = ctx.state
    crs = course(ctx, course_code)
    from humantrace.environments.lms.service import parse

    week_end = ctx.now + timedelta(days=9)
    lectures = sorted(
        (
            e
            for e in state.events
            if e.course_id == crs.id and e.kind == "class" and ctx.now < parse(e.starts_at) < week_end
        ),
        key=lambda e: e.starts_at,
    )
    if len(lectures) < 2:
        raise SeedError("the course needs two lectures in the coming week")
    made = []
    for index, (lecture, title) in enumerate(zip(lectures[:2], ("Dentist", "Coffee with Sam"), strict=True)):
        start = parse(lecture.starts_at) + timedelta(minutes=30)
        made.append(
            CalendarEvent(
                id=ctx.new_id("evt"),
                title=title,
                kind="personal",
                starts_at=to_iso(start),
                ends_at=to_iso(start + timedelta(hours=1)),
            )
        )
        free = parse(lecture.starts_at) + timedelta(hours=5 + index)
        made.append(
            CalendarEvent(
                id=ctx.new_id("evt"),
                title=("Bike repair", "Call home")[index],
                kind="personal",
                starts_at=to_iso(free),
                ends_at=to_iso(free + timedelta(minutes=45)),
            )
        )
    state.events.extend(made)
    return {"clash_ids": [made[0].id, made[2].id], "free_ids": [made[1].id, made[3].id]}
