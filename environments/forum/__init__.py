"""Threadline, the forum environment: communities, posts (text, link, image), threaded comments,
votes, saved items, subscriptions, moderation reports, profiles, direct messages and search.

Importing this package registers its seed builders (`builders`) and defines `ENVIRONMENT`.
"""

from __future__ import annotations

from humantrace.environments.forum import builders  # noqa: F401  (registers builders)
from humantrace.environments.forum.api import router as api_router
from humantrace.environments.forum.models import ForumState
from humantrace.environments.forum.pages import router as page_router
from humantrace.environments.forum.seed import build_default_state
from humantrace.environments.registry import Environment
from humantrace.environments.ui import UIProfile

ENVIRONMENT = Environment(
    env_id="forum",
    title="Threadline",
    state_model=ForumState,
    package="humantrace.environments.forum",
    api_router=api_router,
    page_router=page_router,
    build_default_state=build_default_state,
    # `signed_in` flips when someone signs out and back in, which is not a task outcome.
    ignore_fields={"profile": {"signed_in"}, "messages": {"read"}},
    ui_profiles=(
        UIProfile(
            name="custom-controls",
            title="Custom controls",
            description=(
                "The report reason is a custom listbox; Save, Reply, Report, Search and Send show only"
                " an icon, their words are their accessible names (the vote arrows are icons already)."
            ),
            controls={"select": "custom", "button": "icon"},
            classes=("select", "button"),
        ),
        UIProfile(
            name="modal-forms",
            title="Modal forms",
            description=(
                "Reply, report and new-message forms open in a modal dialog instead of in the page"
                " (a link to message someone opens it on arrival)."
            ),
            controls={"form": "modal"},
            classes=("form",),
        ),
    ),
)
