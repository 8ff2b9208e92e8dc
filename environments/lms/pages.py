"""Canopy's pages (mounted at /env/lms): HTML shells whose data `canopy.js` fetches.

Every page is `lms/base.html` with a page name, a title and a few `data-` values taken from the URL
(a course, assignment, quiz, attempt or conversation id). Nothing session-specific is rendered here.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from environments.sitekit import PageSpec, SitePages

ENV_ID = "lms"
router = APIRouter(include_in_schema=False)
PAGES = SitePages(ENV_ID)
SCRIPT = "pages.js"

DASHBOARD = PageSpec("dashboard", "Dashboard", SCRIPT, "dashboard")
COURSES = PageSpec("courses", "Courses", SCRIPT, "courses")
CALENDAR = PageSpec("calendar", "Calendar", SCRIPT, "calendar")
INBOX = PageSpec("inbox", "Inbox", SCRIPT, "inbox")
CONVERSATION = PageSpec("conversation", "Conversation", SCRIPT, "inbox")
GRADES = PageSpec("all-grades", "Grades", SCRIPT, "grades")
COURSE_PAGES = {
    "": PageSpec("modules", "Modules", SCRIPT, "courses"),
    "announcements": PageSpec("announcements", "Announcements", SCRIPT, "courses"),
    "assignments": PageSpec("assignments", "Assignments", SCRIPT, "courses"),
    "quizzes": PageSpec("quizzes", "Quizzes", SCRIPT, "courses"),
    "discussions": PageSpec("discussions", "Discussions", SCRIPT, "courses"),
    "grades": PageSpec("grades", "Grades", SCRIPT, "courses"),
}
ITEMS = {
    "items": PageSpec("item", "Module item", SCRIPT, "courses"),
    "announcements": PageSpec("announcement", "Announcement", SCRIPT, "courses"),
    "assignments": PageSpec("assignment", "Assignment", SCRIPT, "courses"),
    "quizzes": PageSpec("quiz", "Quiz", SCRIPT, "courses"),
    "attempts": PageSpec("attempt", "Quiz attempt", SCRIPT, "courses"),
    "discussions": PageSpec("discussion", "Discussion", SCRIPT, "courses"),
}


@router.get("/")
def dashboard(request: Request) -> Response:
    return PAGES.render(request, DASHBOARD)


@router.get("/courses")
def courses(request: Request) -> Response:
    return PAGES.render(request, COURSES)


@router.get("/calendar")
def calendar(request: Request) -> Response:
    return PAGES.render(request, CALENDAR)


@router.get("/inbox")
def inbox(request: Request) -> Response:
    return PAGES.render(request, INBOX)


@router.get("/inbox/{conversation_id}")
def conversation(request: Request, conversation_id: str) -> Response:
    return PAGES.render(request, CONVERSATION, conversation=conversation_id)


@router.get("/grades")
def grades(request: Request) -> Response:
    return PAGES.render(request, GRADES)


@router.get("/courses/{course_id}")
def course_home(request: Request, course_id: str) -> Response:
    return PAGES.render(request, COURSE_PAGES[""], course=course_id)


@router.get("/courses/{course_id}/{section}")
def course_section(request: Request, course_id: str, section: str) -> Response:
    spec = COURSE_PAGES.get(section) or COURSE_PAGES[""]
    return PAGES.render(request, spec, course=course_id)


@router.get("/{kind}/{entity_id}")
def entity(request: Request, kind: str, entity_id: str) -> Response:
    spec = ITEMS.get(kind)
    if spec is None:
        return PAGES.render(request, PageSpec("missing", "Page not found", SCRIPT))
    return PAGES.render(request, spec, entity=entity_id)
