"""Request bodies and response models of Canopy's public API."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from humantrace.environments.lms.models import (
    Announcement,
    Assignment,
    CalendarEvent,
    Conversation,
    Course,
    Discussion,
    Message,
    Module,
    ModuleItem,
    Person,
    QuizAttempt,
    Reply,
    Submission,
)
from humantrace.environments.responses import Answer, Ok  # noqa: F401  (Ok: the sites' shared answer)


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewSubmission(Body):
    body: str = Field(default="", max_length=20_000)
    file_name: str = Field(default="", max_length=120)
    comment: str = Field(default="", max_length=1000)


class NewAnswer(Body):
    question_id: str
    choice: int


class Completion(Body):
    done: bool


class NewReply(Body):
    body: str = Field(max_length=5000)
    parent_id: str | None = None


class NewEvent(Body):
    title: str = Field(max_length=80)
    date: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")
    start: str = Field(pattern=r"^\d{2}:\d{2}$")
    end: str = Field(pattern=r"^\d{2}:\d{2}$")
    location: str = Field(default="", max_length=80)
    course_id: str | None = None


class NewConversation(Body):
    recipient_ids: list[str]
    course_id: str | None = None
    subject: str = Field(max_length=120)
    body: str = Field(max_length=5000)


class NewMessage(Body):
    body: str = Field(max_length=5000)


class Me(Answer):
    signed_in: bool
    name: str
    email: str
    today: str
    now: str
    unread_messages: int


class CourseCard(Answer):
    id: str
    code: str
    title: str
    term: str
    color: str
    instructor: str
    current: bool
    unread_announcements: int
    grade_percent: float | None


class TodoItem(Answer):
    kind: str  # assignment | quiz
    id: str
    course_id: str
    course_code: str
    title: str
    due_at: str
    points: int
    status: str


class AnnouncementView(Announcement):
    author_name: str
    course_code: str


class Dashboard(Answer):
    courses: list[CourseCard]
    todo: list[TodoItem]
    announcements: list[AnnouncementView]


class CourseList(Answer):
    courses: list[CourseCard]


class ModuleView(Answer):
    module: Module
    items: list[ModuleItem]
    locked: bool


class CourseHome(Answer):
    course: Course
    instructor: Person
    ta: Person | None
    modules: list[ModuleView]
    progress_done: int
    progress_total: int


class ItemView(Answer):
    course: Course
    module: Module
    item: ModuleItem
    prev_id: str | None
    next_id: str | None


class ItemResult(Answer):
    item: ModuleItem
    toast: str


class AnnouncementPage(Answer):
    course: Course
    items: list[AnnouncementView]
    page: int
    pages: int
    total: int


class AnnouncementDetail(Answer):
    course: Course
    announcement: AnnouncementView


class AssignmentRow(Answer):
    id: str
    title: str
    group: str
    due_at: str
    points: int
    status: str
    score: int | None


class AssignmentGroup(Answer):
    name: str
    rows: list[AssignmentRow]


class AssignmentList(Answer):
    course: Course
    groups: list[AssignmentGroup]


class AssignmentDetail(Answer):
    course: Course
    assignment: Assignment
    submissions: list[Submission]
    status: str
    attempts_left: int
    locked: bool


class SubmissionResult(Answer):
    submission: Submission
    toast: str


class QuizInfo(Answer):
    id: str
    course_id: str
    title: str
    description: str
    points: int
    due_at: str
    time_limit_minutes: int
    allowed_attempts: int
    question_count: int


class QuizRow(QuizInfo):
    attempts_used: int
    best_score: int | None
    in_progress_id: str | None
    closed: bool


class QuizList(Answer):
    course: Course
    quizzes: list[QuizRow]


class QuizDetail(Answer):
    course: Course
    quiz: QuizRow
    attempts: list[QuizAttempt]


class QuestionView(Answer):
    id: str
    prompt: str
    choices: list[str]
    points: int
    correct: bool | None  # after the attempt is closed: whether the saved answer was right


class AttemptView(Answer):
    course: Course
    quiz: QuizInfo
    attempt: QuizAttempt
    questions: list[QuestionView]
    remaining_seconds: int


class AttemptResult(Answer):
    attempt: QuizAttempt
    toast: str


class GradeRow(Answer):
    kind: str
    id: str
    title: str
    group: str
    due_at: str
    points: int
    score: int | None
    status: str


class CourseGrades(Answer):
    course: Course
    rows: list[GradeRow]
    earned: int
    possible: int
    percent: float | None


class DiscussionRow(Discussion):
    author_name: str
    reply_count: int
    last_reply_at: str | None


class DiscussionList(Answer):
    course: Course
    discussions: list[DiscussionRow]


class ReplyView(Reply):
    author_name: str


class DiscussionDetail(Answer):
    course: Course
    discussion: Discussion
    author_name: str
    replies: list[ReplyView]


class ReplyResult(Answer):
    reply: ReplyView
    toast: str


class CalendarEntry(Answer):
    id: str
    kind: str  # class | office_hours | exam | personal | assignment | quiz
    title: str
    starts_at: str
    ends_at: str
    location: str
    course_id: str | None
    course_code: str | None
    color: str
    link: str | None


class CalendarMonth(Answer):
    month: str
    entries: list[CalendarEntry]
    courses: list[CourseCard]


class EventResult(Answer):
    event: CalendarEvent
    toast: str


class ConversationRow(Answer):
    id: str
    subject: str
    course_code: str | None
    with_names: list[str]
    last_at: str
    preview: str
    unread: bool
    starred: bool
    archived: bool
    count: int


class Inbox(Answer):
    folder: str
    conversations: list[ConversationRow]
    page: int
    pages: int
    total: int


class MessageView(Message):
    author_name: str


class ConversationView(Answer):
    conversation: Conversation
    course_code: str | None
    participants: list[Person]
    messages: list[MessageView]


class ConversationResult(Answer):
    conversation: Conversation
    toast: str


class People(Answer):
    people: list[Person]
