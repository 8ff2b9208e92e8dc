"""Screenshots of Larkspur Health's UI profiles for docs/ui-variants/portal.md.

Run: PYTHONPATH=$PWD .venv/bin/python docs/ui-variants/shots_portal.py
"""

from __future__ import annotations

from playwright.sync_api import Page
from shots import Shot, take

from humantrace.environments.portal import oracle_steps as steps


def _department(page: Page) -> None:
    steps.ready(page)
    page.get_by_role("combobox", name="Department", exact=True).click()


def _department_typed(page: Page) -> None:
    steps.ready(page)
    page.get_by_role("combobox", name="Department", exact=True).fill("derm")
    page.keyboard.press("ArrowDown")


def _medications(page: Page) -> None:
    steps.ready(page)


def _tab_keys(page: Page) -> None:
    steps.ready(page)
    page.get_by_role("tab", name="Current medications").focus()
    page.keyboard.press("ArrowRight")


def _saved_access(page: Page) -> None:
    steps.ready(page)
    page.get_by_role("button", name="Save access for Daniel Park").click()
    steps.notice(page)


take(
    [
        Shot("portal-005", "default", "/appointments/new", "portal-default-select.png", _department),
        Shot(
            "portal-005",
            "custom-controls",
            "/appointments/new",
            "portal-custom-controls-select.png",
            _department,
        ),
        Shot(
            "portal-005",
            "tabs-typeahead",
            "/appointments/new",
            "portal-tabs-typeahead-autocomplete.png",
            _department_typed,
        ),
        Shot("portal-002", "default", "/medications", "portal-default-tabs.png", _medications),
        Shot("portal-002", "tabs-typeahead", "/medications", "portal-tabs-typeahead-tabs.png", _tab_keys),
        Shot("portal-009", "default", "/sharing", "portal-default-confirmation.png", _saved_access),
        Shot(
            "portal-009",
            "custom-controls",
            "/sharing",
            "portal-custom-controls-confirmation.png",
            _saved_access,
        ),
    ]
)
