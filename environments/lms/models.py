"""Canopy's state: one typed collection per kind of entity.

Points are whole numbers, moments are ISO-8601 UTC strings from the session's virtual clock (a
quiz attempt's deadline is its start plus the time limit on that clock, never the wall clock).
The signed-in student is `Profile`; the people they meet (instructors, TAs, classmates) are
`Person`s, and everything the student writes has `author_id == "me"`.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from humantrace.environments.state import Entity, EnvState, state_helper

ME = "me"


class Part(BaseModel):
    """A nested part of an entity (a rubric criterion, a question): closed like an entity."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class Person(Entity):
    name: str
    role: str  # Instructor | Teaching assistant | Student
    email: str


class Course(Entity):
    code: str
    title: str
    term: str
    instructor_id: str
    ta_id: str | None = None
    color: str
    description: str
    current: bool = True


class Module(Entity):
    course_id: str
    title: str
    position: int
    unlock_at: str | None = None


class ModuleItem(Entity):
    """One entry of a module: a reading page, an assignment, a quiz, a file or a link."""

    module_id: str
    course_id: str
    kind: str  # page | assignment | quiz | file | discussion
    title: str
    ref_id: str | None = None  # the assignment, quiz or discussion it opens
    body: str = ""
    position: int
    completed: bool = False


class Announcement(Entity):
    course_id: str
    title: str
    body: str
    author_id: str
    posted_at: str
    read: bool = False


class Criterion(Part):
    """A rubric row: what is judged and how many points it is worth."""

    name: str
    description: str
    points: int


class Assignment(Entity):
    course_id: str
    title: str
    description: str
    group: str  # Homework | Labs | Projects | Exams
    points: int
    due_at: str
    lock_at: str | None = None  # no submissions after this moment
    submission_types: list[str]  # text | file
    allowed_attempts: int = 1
    rubric: list[Criterion] = []


class RubricScore(Part):
    criterion: str
    points: int
    comment: str = ""


class Submission(Entity):
    """One attempt at an assignment; the newest attempt is the one that is graded."""

    assignment_id: str
    attempt: int
    body: str = ""
    file_name: str | None = None
    comment: str = ""
    submitted_at: str
    late: bool = False
    score: int | None = None
    rubric_scores: list[RubricScore] = []
    feedback: str = ""
    graded_at: str | None = None


class Question(Part):
    id: str
    prompt: str
    choices: list[str]
    answer: int  # index of the right choice (never sent to a page)
    points: int = 1


class Quiz(Entity):
    course_id: str
    title: str
    description: str
    points: int
    due_at: str
    time_limit_minutes: int
    allowed_attempts: int
    questions: list[Question]


class QuizAttempt(Entity):
    quiz_id: str
    attempt: int
    started_at: str
    deadline_at: str
    submitted_at: str | None = None
    answers: dict[str, int] = {}
    score: int | None = None
    status: str = "in_progress"  # in_progress | submitted | timed_out


class Discussion(Entity):
    course_id: str
    title: str
    body: str
    author_id: str
    created_at: str
    pinned: bool = False
    locked: bool = False


class Reply(Entity):
    discussion_id: str
    author_id: str
    body: str
    created_at: str
    parent_id: str | None = None


class CalendarEvent(Entity):
    course_id: str | None = None  # None: the student's own event
    title: str
    starts_at: str
    ends_at: str
    location: str = ""
    kind: str  # class | office_hours | exam | personal


class Conversation(Entity):
    subject: str
    course_id: str | None = None
    participant_ids: list[str]
    archived: bool = False
    starred: bool = False


class Message(Entity):
    conversation_id: str
    author_id: str
    body: str
    sent_at: str
    read: bool = True


class Profile(Entity):
    full_name: str
    email: str
    student_number: str
    signed_in: bool = True


class LmsState(EnvState):
    """Everything one student sees in Canopy."""

    people: list[Person] = []
    courses: list[Course] = []
    modules: list[Module] = []
    module_items: list[ModuleItem] = []
    announcements: list[Announcement] = []
    assignments: list[Assignment] = []
    submissions: list[Submission] = []
    quizzes: list[Quiz] = []
    quiz_attempts: list[QuizAttempt] = []
    discussions: list[Discussion] = []
    replies: list[Reply] = []
    events: list[CalendarEvent] = []
    conversations: list[Conversation] = []
    messages: list[Message] = []
    profile: list[Profile] = []

    @state_helper
    def latest_submission_file(self, assignment_id: str) -> str | None:
        """The attached file name of the newest submission of an assignment (None when none)."""
        mine = [s for s in self.submissions if s.assignment_id == assignment_id]
        return max(mine, key=lambda s: s.attempt).file_name if mine else None

    @state_helper
    def my_replies(self, discussion_id: str) -> list[str]:
        """The bodies of the student's own replies in a discussion, oldest first."""
        return [r.body for r in self.replies if r.discussion_id == discussion_id and r.author_id == ME]
