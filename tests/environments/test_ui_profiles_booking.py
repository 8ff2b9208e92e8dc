"""Staywell's UI profiles in Chromium: `custom-controls` (select=custom, confirmation=inline) and
`date-inputs` (date=native: check-in and check-out as native date inputs instead of the calendar
buttons) offer the same functions as the default build, through other controls."""

from __future__ import annotations

import re
from datetime import date, timedelta

import pytest

from humantrace.environments import ui
from humantrace.environments.booking import oracle_steps as steps
from humantrace.environments.oracles import choose

pytestmark = [pytest.mark.browser, pytest.mark.all_sites]


@pytest.fixture
def live(server_factory, sqlite_url, port):
    return server_factory(sqlite_url, port)


def _open(live, context, profile):
    info = live.create("booking-001", "clean", 42, ui_profile=profile)
    with live.public(info["session_id"]) as api:
        today = date.fromisoformat(api.get("/api/env/booking/me").json()["today"])
    page = context.new_page()
    page.goto(live.base_url + info["enter_url"])
    steps.loaded(page)
    return page, info, today


def test_booking_declares_its_profiles():
    assert ui.profile_names("booking") == ["default", "custom-controls", "date-inputs"]
    assert ui.classes_of("booking", "custom-controls") == ("select", "confirmation")
    assert ui.classes_of("booking", "date-inputs") == ("date",)


def test_date_inputs_are_typed_checked_and_searched_with(live, context):
    page, info, today = _open(live, context, "date-inputs")
    assert page.get_by_role("button", name=re.compile(r"^Check-in date")).count() == 0
    check_in, check_out = (
        page.get_by_label("Check-in", exact=True),
        page.get_by_label("Check-out", exact=True),
    )
    assert check_in.get_attribute("type") == "date"
    check_in.fill((today - timedelta(days=2)).isoformat())  # the past is refused, and the field says why
    assert check_in.evaluate("el => el.validationMessage") == "Check-in can't be in the past."
    start, end = today + timedelta(days=10), today + timedelta(days=13)
    check_in.fill(start.isoformat())
    check_out.fill((start + timedelta(days=40)).isoformat())  # more than 30 nights
    assert "1 to 30 nights" in check_out.evaluate("el => el.validationMessage")
    check_out.fill(end.isoformat())
    assert check_in.evaluate("el => el.validity.valid") and check_out.evaluate("el => el.validity.valid")
    steps.choose_destination(page, "Paris")
    page.get_by_role("button", name="Search", exact=True).click()
    page.wait_for_url(re.compile(r"/search\?"))
    steps.results_ready(page)
    assert f"check_in={start.isoformat()}" in page.url and f"check_out={end.isoformat()}" in page.url
    # the results page's bar shows the stay in its date inputs
    assert page.get_by_label("Check-in", exact=True).input_value() == start.isoformat()
    assert page.get_by_label("Check-out", exact=True).input_value() == end.isoformat()


def test_custom_controls_sort_with_a_listbox_and_confirm_in_the_page(live, context):
    page, _, _ = _open(live, context, "custom-controls")
    steps.choose_destination(page, "Paris")
    page.keyboard.press("Escape")  # the calendar opens by itself after a destination is picked
    page.get_by_role("button", name="Search", exact=True).click()
    page.wait_for_url(re.compile(r"/search\?"))
    steps.results_ready(page)
    assert not page.locator("select#sort").is_visible()
    choose(page, "Sort by", "Guest rating (highest first)")
    page.wait_for_url(re.compile(r"sort=rating"))
    steps.results_ready(page)
    assert (
        page.get_by_role("combobox", name="Sort by", exact=True).inner_text()
        == "Guest rating (highest first)"
    )
    page.locator('#results a[href*="/hotel/"]').first.click()
    steps.hotel_ready(page)
    page.locator("#save-wrap .save-btn").click()
    page.get_by_role("dialog", name="Save to a list").get_by_role(
        "checkbox", name=re.compile(r"^Summer \(")
    ).check()
    page.locator(".ui-confirmation[role=status]").get_by_text("Saved to “Summer”").wait_for()
    assert page.locator(".toasts .toast").count() == 0
