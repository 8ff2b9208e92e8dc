"""Seed builders for Canopy's task situations (registered as `lms.<name>`).

Each builder adds one situation to the default term and returns named outputs that task files
bind to targets. Days are counted from the session's virtual start.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from environments.lms.models import CalendarEvent, ModuleItem, Question, Submission
from environments.lms.seed import LmsContext, add_assignment, add_quiz, at, course, state_of, term_start
from environments.seeding import SeedError, builder, to_iso


@builder("lms.refs")
def refs(ctx: LmsContext) -> dict[str, Any]:
    """Ids of the courses, their instructors and TAs (by course code) and of the discussions."""
    state = state_of(ctx)
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
    state = state_of(ctx)
    asg = state.find("assignments", assignment_id)
    if asg is None:
        raise SeedError(f"no assignment {assignment_id}")
    from environments.lms.models import RubricScore

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
    state = state_of(ctx)
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
        state_of(ctx).events.append(made)
        ids.append(made.id)
    return {"event_ids": ids}


@builder("lms.lowest_graded")
def lowest_graded(ctx: LmsContext, *, course_code: str) -> dict[str, Any]:
    """The graded assignment of a course with the lowest share of its points (a tie is a SeedError)."""
    state = state_of(ctx)
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
    state = state_of(ctx)
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
    state = state_of(ctx)
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
    from environments.lms.models import ME, Conversation, Message

    state = state_of(ctx)
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
    from environments.lms.models import ME, Conversation, Message

    state = state_of(ctx)
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
