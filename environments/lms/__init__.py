"""Canopy, the learning management system: courses with weekly modules, announcements,
assignments with due dates, attempts and rubric grades, timed quizzes, discussions, a calendar and
an inbox, for one student in one term.

Importing this package registers its seed builders (`builders`) and defines `ENVIRONMENT`.
"""

from __future__ import annotations

from humantrace.environments.lms import builders  # noqa: F401  (registers builders)
from humantrace.environments.lms.api import router as api_router
from humantrace.environments.lms.models import LmsState
from humantrace.environments.lms.pages import router as page_router
from humantrace.environments.lms.seed import build_default_state
from humantrace.environments.registry import Environment
from humantrace.environments.ui import UIProfile

ENVIRONMENT = Environment(
    env_id="lms",
    title="Canopy",
    state_model=LmsState,
    package="humantrace.environments.lms",
    api_router=api_router,
    page_router=page_router,
    build_default_state=build_default_state,
    # `signed_in` flips when someone signs out and back in; opening a thread marks it read: neither
    # is a task outcome.
    ignore_fields={"profile": {"signed_in"}, "messages": {"read"}, "announcements": {"read"}},
    # The student number identifies a person: the recorder masks it like a password.
    mask_selectors=(".student-number",),
    ui_profiles=(
        UIProfile(
            name="course-tabs",
            title="Course tabs",
            description=(
                "A course's sections (Home, Announcements, Assignments, Quizzes, Discussions, "
                "Grades) are a tab list above its content that switches in the page, instead of "
                "a side menu of links to separate pages."
            ),
            controls={"tabs": "tablist"},
            classes=("tabs",),
        ),
        UIProfile(
            name="type-ahead",
            title="Type-ahead",
            description=(
                "A new message's recipient is typed and picked from suggestions instead of chosen "
                "from a list; the other selects (course, event course) are custom listboxes."
            ),
            controls={"autocomplete": "type-ahead", "select": "custom"},
            classes=("autocomplete", "select"),
        ),
    ),
)
