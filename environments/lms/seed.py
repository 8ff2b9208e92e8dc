"""Canopy's default state and the helpers the task builders share.

`build_default_state` enrols the student in five current courses and one finished one, each with
ten weekly modules, readings, assignments (graded with rubric scores when past, open when
upcoming), three timed quizzes, announcements, discussions with classmates' replies and a
timetable on the calendar; the inbox holds conversations with instructors, TAs and classmates.
Every random draw goes through `ctx.rng` in a fixed order, so the same seed gives the same term.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from humantrace.environments.lms.models import (
    ME,
    Announcement,
    Assignment,
    CalendarEvent,
    Conversation,
    Course,
    Criterion,
    Discussion,
    LmsState,
    Message,
    Module,
    ModuleItem,
    Person,
    Profile,
    Question,
    Quiz,
    QuizAttempt,
    Reply,
    RubricScore,
    Submission,
)
from humantrace.environments.seeding import SeedContext, SeedError, to_iso

LmsContext = SeedContext[LmsState]

STUDENT_NAME = "Riley Chen"
STUDENT_EMAIL = "riley.chen@westbrook.edu"
TERM = "Spring 2026"
WEEKS = 10

FIRST = (
    "Amara",
    "Ben",
    "Carlos",
    "Dana",
    "Elif",
    "Farah",
    "Gabriel",
    "Hana",
    "Ivan",
    "Jasmine",
    "Kofi",
    "Lena",
    "Mateo",
    "Nadia",
    "Omar",
    "Priya",
    "Quinn",
    "Rosa",
    "Samir",
    "Tara",
    "Umar",
    "Vera",
    "Wes",
    "Xin",
    "Yusuf",
    "Zoe",
    "Aiden",
    "Bea",
    "Chloe",
    "Diego",
)
LAST = (
    "Abbott",
    "Banerjee",
    "Castillo",
    "Dubois",
    "Eriksen",
    "Fischer",
    "Garcia",
    "Haddad",
    "Ito",
    "Jensen",
    "Kowalski",
    "Larsen",
    "Mensah",
    "Novak",
    "Okafor",
    "Petrov",
    "Quintero",
    "Rossi",
    "Santos",
    "Tanaka",
    "Ueda",
    "Varga",
    "Walsh",
    "Yilmaz",
    "Zhang",
)

# code, title, instructor, color, topics (one per week)
COURSES: tuple[tuple[str, str, str, str, tuple[str, ...]], ...] = (
    (
        "BIO 201",
        "Cell Biology",
        "Dr. Helen Marsh",
        "#2e7d5b",
        (
            "Cells and microscopy",
            "Membranes and transport",
            "Proteins and enzymes",
            "Cellular respiration",
            "Photosynthesis",
            "The cytoskeleton",
            "Cell signalling",
            "The cell cycle",
            "Meiosis and genetics",
            "Stem cells and differentiation",
        ),
    ),
    (
        "HIST 110",
        "World History since 1500",
        "Prof. Daniel Osei",
        "#8a4b2a",
        (
            "The world in 1500",
            "Atlantic exchanges",
            "Empires of gunpowder",
            "Revolutions",
            "Industrialisation",
            "Nations and nationalism",
            "Imperialism",
            "The world wars",
            "Decolonisation",
            "Globalisation",
        ),
    ),
    (
        "CS 150",
        "Introduction to Programming",
        "Dr. Priya Raman",
        "#2f5fb3",
        (
            "Values and variables",
            "Conditionals",
            "Loops",
            "Functions",
            "Lists and dictionaries",
            "Files and exceptions",
            "Classes",
            "Recursion",
            "Searching and sorting",
            "Testing",
        ),
    ),
    (
        "STAT 220",
        "Applied Statistics",
        "Prof. Ingrid Solberg",
        "#7b3fa0",
        (
            "Describing data",
            "Probability",
            "Random variables",
            "The normal distribution",
            "Sampling",
            "Confidence intervals",
            "Hypothesis tests",
            "Comparing two groups",
            "Regression",
            "Categorical data",
        ),
    ),
    (
        "ENG 105",
        "Academic Writing",
        "Dr. Marcus Bell",
        "#b0413e",
        (
            "Reading critically",
            "Summary and paraphrase",
            "Building a thesis",
            "Paragraphs",
            "Using sources",
            "Citation styles",
            "Counterargument",
            "Revision",
            "Style and clarity",
            "Final portfolio",
        ),
    ),
)
PAST_COURSE = ("PSY 101", "Introduction to Psychology", "Dr. Laura Kim", "#5a6b7a")
GROUPS = ("Homework", "Labs", "Projects")
RUBRIC = (
    ("Understanding", "Shows a correct grasp of the week's ideas"),
    ("Evidence", "Supports claims with data, sources or worked steps"),
    ("Organisation", "Is clearly structured and easy to follow"),
    ("Presentation", "Is formatted as asked and free of errors"),
)
FEEDBACK = (
    "Good work overall. Look again at the second part.",
    "Clear and well organised. Watch your units.",
    "Solid effort; the evidence section needs more detail.",
    "Excellent. A model answer.",
    "Some gaps in the reasoning; come to office hours if you want to go over it.",
)
REPLIES = (
    "Thanks, this helped me a lot with the reading.",
    "I had the same question. Does anyone know if it counts for the midterm?",
    "I think the key point is in section 2 of the chapter.",
    "Good summary. I'd add that the example in the lecture shows the opposite case.",
    "Could someone share their notes from Tuesday? I missed the second half.",
    "I found the practice problems at the end of the chapter useful for this.",
    "Agree with the post above, the slides explain it better than the book.",
    "Is the deadline for this Friday or Sunday?",
)


def at(day: datetime, hour: int, minute: int = 0) -> str:
    return to_iso(day.replace(hour=hour, minute=minute, second=0, microsecond=0))


def term_start(ctx: LmsContext) -> datetime:
    """Monday of the term's first week: six weeks before the session starts."""
    now: datetime = ctx.now
    monday = now - timedelta(days=now.weekday())
    return (monday - timedelta(weeks=6)).replace(hour=0, minute=0, second=0, microsecond=0)


def course(ctx: LmsContext, ref: str) -> Course:
    """A course by id, code or title."""
    state = ctx.state
    found = state.find("courses", ref) or next(
        (c for c in state.courses if ref in (c.code, c.title, f"{c.code} {c.title}")), None
    )
    if found is None:
        raise SeedError(f"no course {ref!r}")
    return found


def person_named(ctx: LmsContext, name: str) -> Person:
    found = next((p for p in ctx.state.people if p.name == name), None)
    if found is None:
        raise SeedError(f"no person {name!r}")
    return found


def _person(ctx: LmsContext, name: str, role: str) -> Person:
    handle = name.lower().replace("dr. ", "").replace("prof. ", "").replace(" ", ".")
    made = Person(id=ctx.new_id("per"), name=name, role=role, email=f"{handle}@westbrook.edu")
    ctx.state.people.append(made)
    return made


def add_assignment(
    ctx: LmsContext,
    crs: Course,
    *,
    title: str,
    due: datetime,
    points: int,
    group: str = "Homework",
    types: list[str] | None = None,
    attempts: int = 1,
    description: str = "",
    lock_days: int | None = 3,
) -> Assignment:
    made = Assignment(
        id=ctx.new_id("asg"),
        course_id=crs.id,
        title=title,
        description=description
        or f"Complete the {title.lower()} as described in this week's module. Show your reasoning.",
        group=group,
        points=points,
        due_at=at(due, 23, 59),
        lock_at=at(due + timedelta(days=lock_days), 23, 59) if lock_days is not None else None,
        submission_types=types or ["text", "file"],
        allowed_attempts=attempts,
        rubric=[
            Criterion(name=name, description=text, points=points // 4 + (points % 4 if i == 0 else 0))
            for i, (name, text) in enumerate(RUBRIC)
        ],
    )
    ctx.state.assignments.append(made)
    return made


def grade(
    ctx: LmsContext, asg: Assignment, *, when: datetime, fraction: float, file_name: str | None = None
) -> Submission:
    """A graded first attempt at `asg` scoring about `fraction` of its points, rubric row by row."""
    rng = ctx.rng
    scores = []
    for criterion in asg.rubric:
        got = max(0, min(criterion.points, round(criterion.points * (fraction + rng.uniform(-0.12, 0.08)))))
        scores.append(RubricScore(criterion=criterion.name, points=got))
    made = Submission(
        id=ctx.new_id("sub"),
        assignment_id=asg.id,
        attempt=1,
        body="" if file_name else "My answers are below.\n\n1. ...\n2. ...",
        file_name=file_name,
        submitted_at=to_iso(when),
        score=sum(s.points for s in scores),
        rubric_scores=scores,
        feedback=_feedback_for(
            sum(s.points for s in scores) / max(1, asg.points), rng.randrange(len(FEEDBACK))
        ),
        graded_at=to_iso(when + timedelta(days=4)),
    )
    ctx.state.submissions.append(made)
    return made


def _feedback_for(share: float, draw: int) -> str:
    """A comment that fits the score (praise for the best work, pointers for the weakest), picked
    by `draw`."""
    if share >= 0.9:
        band = (FEEDBACK[3], FEEDBACK[1])
    elif share >= 0.75:
        band = (FEEDBACK[0], FEEDBACK[2])
    else:
        band = (FEEDBACK[4], FEEDBACK[2])
    return band[draw % len(band)]


def questions_for(ctx: LmsContext, topic: str, count: int) -> list[Question]:
    rng = ctx.rng
    out = []
    for index in range(count):
        right = rng.randrange(4)
        choices = [f"Statement {letter} about {topic.lower()}" for letter in "ABCD"]
        choices[right] = f"The correct statement about {topic.lower()} ({index + 1})"
        out.append(
            Question(
                id=f"q{index + 1}",
                prompt=f"Question {index + 1}: which statement about {topic.lower()} is true?",
                choices=choices,
                answer=right,
            )
        )
    return out


def add_quiz(
    ctx: LmsContext,
    crs: Course,
    *,
    title: str,
    due: datetime,
    questions: list[Question],
    minutes: int = 20,
    attempts: int = 2,
) -> Quiz:
    made = Quiz(
        id=ctx.new_id("quiz"),
        course_id=crs.id,
        title=title,
        description=f"{len(questions)} questions, {minutes} minutes once you start. Your best attempt counts.",
        points=sum(q.points for q in questions),
        due_at=at(due, 23, 59),
        time_limit_minutes=minutes,
        allowed_attempts=attempts,
        questions=questions,
    )
    ctx.state.quizzes.append(made)
    return made


def _classmates(ctx: LmsContext) -> list[Person]:
    names = sorted({f"{f} {ln}" for f in FIRST for ln in LAST})
    picked = ctx.rng.sample(names, 30)
    return [_person(ctx, name, "Student") for name in picked]


def _build_course(
    ctx: LmsContext, index: int, spec: tuple[str, str, str, str, tuple[str, ...]], classmates: list[Person]
) -> None:
    state = ctx.state
    rng = ctx.rng
    code, title, teacher_name, color, topics = spec
    start = term_start(ctx)
    teacher = _person(ctx, teacher_name, "Instructor")
    ta = _person(ctx, f"{rng.choice(FIRST)} {rng.choice(LAST)}", "Teaching assistant")
    crs = Course(
        id=ctx.new_id("crs"),
        code=code,
        title=title,
        term=TERM,
        instructor_id=teacher.id,
        ta_id=ta.id,
        color=color,
        description=f"{title}: {topics[0].lower()} to {topics[-1].lower()}. Weekly readings, "
        f"assignments and quizzes; see the syllabus in Week 1.",
    )
    state.courses.append(crs)
    now: datetime = ctx.now
    class_days = ((0, 2), (1, 3), (0, 3), (1, 4), (2, 4))[index]
    hour = (9, 11, 13, 14, 10)[index]
    for week, topic in enumerate(topics):
        week_start = start + timedelta(weeks=week)
        module = Module(
            id=ctx.new_id("mod"),
            course_id=crs.id,
            title=f"Week {week + 1}: {topic}",
            position=week + 1,
            unlock_at=at(week_start, 8) if week_start > now else None,
        )
        state.modules.append(module)
        done = week_start + timedelta(days=6) < now
        items: list[ModuleItem] = []

        def item(kind: str, name: str, ref: str | None = None, body: str = "") -> None:
            items.append(
                ModuleItem(
                    id=ctx.new_id("itm"),
                    module_id=module.id,
                    course_id=crs.id,
                    kind=kind,
                    title=name,
                    ref_id=ref,
                    body=body,
                    position=len(items) + 1,
                    completed=done and rng.random() < 0.9,
                )
            )

        if week == 0:
            item(
                "page",
                "Syllabus",
                body=f"{code} {title}, {TERM}. Instructor: {teacher.name} ({teacher.email}). "
                f"Teaching assistant: {ta.name}. Grades: homework 40%, labs and projects 30%, quizzes 30%. "
                "Late work loses 10% a day and is not accepted after the lock date.",
            )
        item(
            "page",
            f"Reading: {topic}",
            body=f"Read the chapter on {topic.lower()} and the lecture notes. "
            "Key ideas are summarised in the slides; the practice questions at the end are not graded.",
        )
        item("file", f"Lecture slides - week {week + 1}.pdf")
        if week < 9:
            due = week_start + timedelta(days=4)
            group = GROUPS[week % 3]
            noun = {"Homework": "Problem set", "Labs": "Lab report", "Projects": "Project milestone"}[group]
            asg = add_assignment(
                ctx,
                crs,
                title=f"{noun} {week // 3 + 1 if group != 'Homework' else week + 1}: {topic}",
                due=due,
                points=(20, 30, 50)[week % 3],
                group=group,
                attempts=2 if group == "Labs" else 1,
            )
            item("assignment", asg.title, asg.id)
            if due + timedelta(days=1) < now and rng.random() < 0.92:
                grade(
                    ctx,
                    asg,
                    when=due - timedelta(hours=rng.randint(2, 40)),
                    fraction=rng.uniform(0.7, 1.0),
                    file_name=f"{code.replace(' ', '').lower()}_week{week + 1}.pdf"
                    if rng.random() < 0.5
                    else None,
                )
        if week in (2, 5, 8):
            quiz = add_quiz(
                ctx,
                crs,
                title=f"Quiz {week // 3 + 1}: {topic}",
                due=week_start + timedelta(days=5),
                questions=questions_for(ctx, topic, 5),
                minutes=(15, 20, 30)[week // 3],
            )
            item("quiz", quiz.title, quiz.id)
            if week_start + timedelta(days=6) < now:
                started = week_start + timedelta(days=3, hours=19)
                answers = {
                    q.id: (q.answer if rng.random() < 0.8 else (q.answer + 1) % 4) for q in quiz.questions
                }
                state.quiz_attempts.append(
                    QuizAttempt(
                        id=ctx.new_id("att"),
                        quiz_id=quiz.id,
                        attempt=1,
                        started_at=to_iso(started),
                        deadline_at=to_iso(started + timedelta(minutes=quiz.time_limit_minutes)),
                        submitted_at=to_iso(started + timedelta(minutes=quiz.time_limit_minutes - 3)),
                        answers=answers,
                        score=sum(q.points for q in quiz.questions if answers[q.id] == q.answer),
                        status="submitted",
                    )
                )
        if week in (0, 3, 7):
            topic_title = "Introduce yourself" if week == 0 else f"Week {week + 1} questions: {topic}"
            disc = Discussion(
                id=ctx.new_id("dsc"),
                course_id=crs.id,
                title=topic_title,
                body="Say hello: your name, your major and one thing you hope to learn in this course."
                if week == 0
                else f"Post your questions about {topic.lower()} here. Answer each other too.",
                author_id=teacher.id,
                created_at=at(week_start, 9),
                pinned=week == 0,
            )
            state.discussions.append(disc)
            item("discussion", disc.title, disc.id)
            if week_start < now:
                for n in range(rng.randint(4, 12)):
                    when = week_start + timedelta(hours=10 + n * 7 + rng.randint(0, 5))
                    if when >= now:
                        break
                    author = rng.choice(classmates)
                    body = (
                        f"Hi everyone, I'm {author.name.split()[0]}. I'm majoring in "
                        f"{rng.choice(['biology', 'history', 'economics', 'computer science', 'nursing'])}."
                        if week == 0
                        else rng.choice(REPLIES)
                    )
                    state.replies.append(
                        Reply(
                            id=ctx.new_id("rep"),
                            discussion_id=disc.id,
                            author_id=author.id,
                            body=body,
                            created_at=to_iso(when),
                        )
                    )
        state.module_items.extend(items)
        for day in class_days:
            meet = week_start + timedelta(days=day)
            state.events.append(
                CalendarEvent(
                    id=ctx.new_id("evt"),
                    course_id=crs.id,
                    title=f"{code} lecture",
                    kind="class",
                    starts_at=at(meet, hour),
                    ends_at=at(meet, hour + 1, 15),
                    location=f"{rng.choice(['Hall', 'Science Center', 'Library'])} {rng.randint(101, 340)}",
                )
            )
        office = week_start + timedelta(days=(class_days[0] + 1) % 5)
        state.events.append(
            CalendarEvent(
                id=ctx.new_id("evt"),
                course_id=crs.id,
                title=f"{code} office hours ({ta.name})",
                kind="office_hours",
                starts_at=at(office, 15),
                ends_at=at(office, 16),
                location="Online",
            )
        )
    midterm = start + timedelta(weeks=7, days=class_days[1])
    state.events.append(
        CalendarEvent(
            id=ctx.new_id("evt"),
            course_id=crs.id,
            title=f"{code} midterm exam",
            kind="exam",
            starts_at=at(midterm, hour),
            ends_at=at(midterm, hour + 2),
            location="Main Hall 1",
        )
    )
    for n, (headline, body) in enumerate(
        (
            ("Welcome to the course", f"Welcome to {title}! Start with the syllabus in Week 1."),
            ("Office hours this week", f"{ta.name} holds office hours online this week as usual."),
            ("Quiz 1 is open", "Quiz 1 opens on Monday and is due Saturday night. You have two attempts."),
            ("Grades for the first assignments are posted", "Check the rubric comments on your submissions."),
            ("Reminder: late work policy", "Work submitted after the due date loses 10% a day."),
            ("Midterm review session", "We'll review for the midterm in next week's Thursday class."),
            ("Room change", "This Wednesday's lecture is in the Library, room 214."),
            ("Project guidelines posted", "The project guidelines are in the Week 6 module."),
        )
    ):
        posted = start + timedelta(days=n * 5 + rng.randint(0, 2), hours=8 + rng.randint(0, 9))
        if posted >= now:
            break
        state.announcements.append(
            Announcement(
                id=ctx.new_id("ann"),
                course_id=crs.id,
                title=headline,
                body=body,
                author_id=teacher.id if n % 3 else teacher.id,
                posted_at=to_iso(posted),
                read=posted < now - timedelta(days=4),
            )
        )


def _inbox(ctx: LmsContext, classmates: list[Person]) -> None:
    state = ctx.state
    rng = ctx.rng
    now: datetime = ctx.now
    subjects = (
        "Question about the reading",
        "Group project meeting",
        "Your lab report",
        "Notes from class",
        "Extension request",
        "Study group this week?",
        "Office hours moved",
        "Re: midterm topics",
        "Feedback on your draft",
        "Missing submission",
        "Course evaluation reminder",
        "Slides from lecture",
    )
    for n in range(26):
        crs = state.courses[n % len(COURSES)]
        staff = [p for p in state.people if p.id in (crs.instructor_id, crs.ta_id)]
        other = rng.choice(staff if n % 3 == 0 else classmates)
        conv = Conversation(
            id=ctx.new_id("cnv"),
            subject=subjects[n % len(subjects)],
            course_id=crs.id,
            participant_ids=[ME, other.id],
            archived=n > 22,
        )
        state.conversations.append(conv)
        first = now - timedelta(days=40 - n * 1.5, hours=rng.randint(0, 8))
        count = rng.randint(1, 3)
        for m in range(count):
            author = other.id if m % 2 == 0 else ME
            state.messages.append(
                Message(
                    id=ctx.new_id("msg"),
                    conversation_id=conv.id,
                    author_id=author,
                    body=rng.choice(
                        (
                            "Hi Riley, just following up on this. Let me know what you think.",
                            "Thanks! That works for me.",
                            "Could we meet after class on Thursday?",
                            "I've attached my notes in the course files.",
                            "Sure, see you then.",
                        )
                    ),
                    sent_at=to_iso(first + timedelta(hours=m * 5)),
                    read=not (n >= 20 and author != ME),
                )
            )


def build_default_state(ctx: LmsContext) -> None:
    """The term every task starts from (then the task's builders add its situation)."""
    state = ctx.state
    state.profile.append(
        Profile(id="profile", full_name=STUDENT_NAME, email=STUDENT_EMAIL, student_number="W2318846")
    )
    classmates = _classmates(ctx)
    for index, spec in enumerate(COURSES):
        _build_course(ctx, index, spec, classmates)
    code, title, teacher_name, color = PAST_COURSE
    teacher = _person(ctx, teacher_name, "Instructor")
    state.courses.append(
        Course(
            id=ctx.new_id("crs"),
            code=code,
            title=title,
            term="Fall 2025",
            instructor_id=teacher.id,
            color=color,
            description="An introduction to the science of mind and behaviour.",
            current=False,
        )
    )
    _inbox(ctx, classmates)
