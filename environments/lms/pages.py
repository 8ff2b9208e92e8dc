"""Canopy's pages (mounted at /env/lms): HTML shells whose data `canopy.js` fetches.

Every page is `lms/base.html` with a page name, a title and a few `data-` values taken from the URL
(a course, assignment, quiz, attempt or conversation id). Nothing session-specific is rendered here.
"""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response

from humantrace.environments.sitekit import PageSpec, SitePages

ENV_ID = "lms"
PAGES = SitePages(ENV_ID)
router = PAGES.router
SCRIPT = "pages.js"

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


PAGES.add("/", PageSpec("dashboard", "Dashboard", SCRIPT, "dashboard"))
PAGES.add("/courses", PageSpec("courses", "Courses", SCRIPT, "courses"))
PAGES.add("/calendar", PageSpec("calendar", "Calendar", SCRIPT, "calendar"))
PAGES.add("/inbox", PageSpec("inbox", "Inbox", SCRIPT, "inbox"))
PAGES.add("/inbox/{conversation_id}", PageSpec("conversation", "Conversation", SCRIPT, "inbox"))
PAGES.add("/grades", PageSpec("all-grades", "Grades", SCRIPT, "grades"))


PAGES.add("/courses/{course_id}", COURSE_PAGES[""])


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
