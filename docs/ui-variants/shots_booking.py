"""Screenshots of Staywell's UI profiles for docs/ui-variants/booking.md.

Run: PYTHONPATH=$PWD .venv/bin/python docs/ui-variants/shots_booking.py
"""

from __future__ import annotations

import re

from playwright.sync_api import Page
from shots import Shot, take

from humantrace.environments.booking import oracle_steps as steps


def _calendar(page: Page) -> None:
    page.get_by_role("button", name=re.compile(r"^Check-in date")).first.click()


def _date_fields(page: Page) -> None:
    page.get_by_label("Check-in", exact=True).first.fill("2026-04-14")
    page.get_by_label("Check-out", exact=True).first.click()


def _paris(page: Page) -> None:
    steps.choose_destination(page, "Paris")
    page.wait_for_timeout(300)
    page.keyboard.press("Escape")
    page.get_by_role("button", name="Search", exact=True).click()
    page.wait_for_url(re.compile(r"/search\?"))
    steps.results_ready(page)


def _sort_menu(page: Page) -> None:
    _paris(page)
    page.get_by_role("combobox", name="Sort by", exact=True).click()


def _saved(page: Page) -> None:
    _paris(page)
    page.locator("#results a[href*='/hotel/']").first.click()
    steps.hotel_ready(page)
    page.locator("#save-wrap .save-btn").click()
    page.get_by_role("dialog", name="Save to a list").get_by_role("checkbox").first.check()
    page.get_by_text(re.compile(r"^Saved to")).first.wait_for()
    page.keyboard.press("Escape")
    page.evaluate("window.scrollTo(0, 0)")


take(
    [
        Shot("booking-005", "default", "/", "booking-default-dates.png", _calendar),
        Shot("booking-005", "date-inputs", "/", "booking-date-inputs-dates.png", _date_fields),
        Shot("booking-005", "default", "/", "booking-default-sort.png", _sort_menu),
        Shot("booking-005", "custom-controls", "/", "booking-custom-controls-sort.png", _sort_menu),
        Shot("booking-001", "default", "/", "booking-default-confirmation.png", _saved),
        Shot("booking-001", "custom-controls", "/", "booking-custom-controls-confirmation.png", _saved),
    ]
)
