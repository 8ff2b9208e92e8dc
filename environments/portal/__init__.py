"""Larkspur Health, the patient portal environment: appointments under the clinic's policy,
messages with care teams, prescriptions and refills, test results, bills and payments, insurance
cards, forms and proxy access for a family member.

Importing this package registers its seed builders (`builders`) and defines `ENVIRONMENT`.
"""

from __future__ import annotations

from humantrace.environments.portal import builders  # noqa: F401  (registers builders)
from humantrace.environments.portal.api import router as api_router
from humantrace.environments.portal.models import PortalState
from humantrace.environments.portal.pages import router as page_router
from humantrace.environments.portal.seed import build_default_state
from humantrace.environments.registry import Environment
from humantrace.environments.ui import UIProfile

ENVIRONMENT = Environment(
    env_id="portal",
    title="Larkspur Health",
    state_model=PortalState,
    package="humantrace.environments.portal",
    api_router=api_router,
    page_router=page_router,
    build_default_state=build_default_state,
    # `signed_in` flips when someone signs out and back in, which is not a task outcome.
    ignore_fields={"profile": {"signed_in"}},
    # Dates of birth, medical record numbers, insurance member ids and card numbers are the
    # patient's secrets: the recorder masks what is typed into (or shown in) these like a password.
    mask_selectors=(".dob", ".mrn", ".member-id", ".card-number"),
    ui_profiles=(
        UIProfile(
            name="custom-controls",
            title="Custom controls",
            description=(
                "Every select is a custom listbox behind a combobox button; the answer to a write "
                "(booked, paid, sent) appears in a status line above the page instead of a toast."
            ),
            controls={"select": "custom", "confirmation": "inline"},
            classes=("select", "confirmation"),
        ),
        UIProfile(
            name="tabs-typeahead",
            title="Tabs and type-ahead",
            description=(
                "Medications and billing show their lists as tabs instead of stacked sections; the "
                "department, care team and pharmacy are type-ahead fields instead of selects."
            ),
            controls={"tabs": "tablist", "autocomplete": "typeahead"},
            classes=("tabs", "autocomplete"),
        ),
    ),
)
