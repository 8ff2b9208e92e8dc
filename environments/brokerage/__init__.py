"""Northbeam, the brokerage environment: accounts and buying power, equity orders, positions,
watchlists, transfers, recurring investments, price alerts and documents.

Importing this package registers its seed builders (`builders`) and defines `ENVIRONMENT`.
"""

from __future__ import annotations

from humantrace.environments.brokerage import builders  # noqa: F401  (registers builders)
from humantrace.environments.brokerage.api import router as api_router
from humantrace.environments.brokerage.models import BrokerageState
from humantrace.environments.brokerage.pages import router as page_router
from humantrace.environments.brokerage.seed import build_default_state
from humantrace.environments.registry import Environment
from humantrace.environments.ui import UIProfile

ENVIRONMENT = Environment(
    env_id="brokerage",
    title="Northbeam",
    state_model=BrokerageState,
    package="humantrace.environments.brokerage",
    api_router=api_router,
    page_router=page_router,
    build_default_state=build_default_state,
    # `signed_in` flips when someone signs out and back in, which is not a task outcome.
    ignore_fields={"profile": {"signed_in"}},
    # Account numbers are the investor's secret: the recorder masks them like a password.
    mask_selectors=(".account-number",),
    ui_profiles=(
        UIProfile(
            name="custom-controls",
            title="Custom controls",
            description="Every select is a custom listbox; the order quantity has − and + buttons.",
            controls={"select": "custom", "counter": "stepper"},
            classes=("select", "counter"),
        ),
        UIProfile(
            name="side-menu",
            title="Side menu",
            description="The main menu is a drawer behind a Menu button instead of a bar of links.",
            controls={"navigation": "side-menu"},
            classes=("navigation",),
        ),
    ),
)
