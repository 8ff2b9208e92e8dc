"""Parcel Mail, the webmail environment: folders, labels, conversations, compose, contacts,
filters and settings for one person's mailbox.

Importing this package registers its seed builders and server mutations (`builders`, `mutations`)
and defines `ENVIRONMENT` for the registry.
"""

from __future__ import annotations

from humantrace.environments.mail import builders, mutations  # noqa: F401  (registers builders and mutations)
from humantrace.environments.mail.api import router as api_router
from humantrace.environments.mail.models import MailState
from humantrace.environments.mail.pages import router as page_router
from humantrace.environments.mail.seed import build_default_state
from humantrace.environments.registry import Environment
from humantrace.environments.ui import UIProfile

ENVIRONMENT = Environment(
    env_id="mail",
    title="Parcel Mail",
    state_model=MailState,
    package="humantrace.environments.mail",
    api_router=api_router,
    page_router=page_router,
    build_default_state=build_default_state,
    # `previous_folder` is bookkeeping for Restore; the folder itself carries the meaning.
    ignore_fields={"emails": {"previous_folder"}},
    ui_profiles=(
        UIProfile(
            name="custom-controls",
            title="Custom controls",
            description=(
                "Selects (Label as, filter and settings menus) are custom listboxes; the conversation "
                "toolbar's actions are icon-only buttons named by their words."
            ),
            controls={"select": "custom", "button": "icon"},
            classes=("select", "button"),
        ),
        UIProfile(
            name="load-more",
            title="Load more",
            description=(
                "Conversation lists (folders, labels, search) show a Load more button under the "
                "conversations instead of Newer/Older pages."
            ),
            controls={"list": "load-more"},
            classes=("list",),
        ),
    ),
)
