"""Staywell, the booking environment: destination search, hotel pages with rooms and rates,
booking with saved cards, trips to change or cancel under their policy, saved lists and reviews.

Importing this package registers its seed builders and server mutations (`builders`, `mutations`)
and defines `ENVIRONMENT` for the registry.
"""

from __future__ import annotations

from humantrace.environments.booking import builders, mutations  # noqa: F401  (registers builders and mutations)
from humantrace.environments.booking.api import router as api_router
from humantrace.environments.booking.models import BookingState
from humantrace.environments.booking.pages import router as page_router
from humantrace.environments.booking.seed import build_default_state
from humantrace.environments.registry import Environment
from humantrace.environments.ui import UIProfile

ENVIRONMENT = Environment(
    env_id="booking",
    title="Staywell",
    state_model=BookingState,
    package="humantrace.environments.booking",
    api_router=api_router,
    page_router=page_router,
    build_default_state=build_default_state,
    # `signed_in` flips when someone signs out and back in, which is not a task outcome.
    ignore_fields={"account": {"signed_in"}},
    ui_profiles=(
        UIProfile(
            name="custom-controls",
            title="Custom controls",
            description=(
                "Selects (sort, guests, room type, rate, review score, card expiry) are custom "
                "listboxes; confirmations (saved, updated, cancelled) appear in the page, not as toasts."
            ),
            controls={"select": "custom", "confirmation": "inline"},
            classes=("select", "confirmation"),
        ),
        UIProfile(
            name="date-inputs",
            title="Date inputs",
            description=(
                "Check-in and check-out are two native date inputs (typed, or picked with the "
                "browser's calendar) instead of date buttons opening a two-month calendar."
            ),
            controls={"date": "native"},
            classes=("date",),
        ),
    ),
)
