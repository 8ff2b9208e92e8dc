"""Larkspur Health's UI profiles (environments/portal, docs/ui-variants/portal.md) on real pages:
`custom-controls` (selects are custom listboxes, the answer to a write is a status line in the page)
and `tabs-typeahead` (medications and billing lists are tabs, the care team, department and
pharmacy are type-ahead fields). The default build answers writes with the kit's toasts.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from humantrace.environments import ui
from humantrace.environments.portal import oracle_steps as steps

pytestmark = [pytest.mark.browser, pytest.mark.all_sites]


def _open(lab_server, context, task_id: str, profile: str, condition: str = "clean") -> Page:
    info = lab_server.create(task_id, condition, 42, ui_profile=profile)
    page = context.new_page()
    page.goto(lab_server.base_url + info["enter_url"])
    steps.ready(page)
    return page


def test_portal_declares_its_profiles_and_they_start_from_the_same_state(lab_server):
    assert ui.profile_names("portal") == ["default", "custom-controls", "tabs-typeahead"]
    assert ui.classes_of("portal", "custom-controls") == ("select", "confirmation")
    assert ui.classes_of("portal", "tabs-typeahead") == ("tabs", "autocomplete")
    infos = {
        name: lab_server.create("portal-014", "intervention", 42, ui_profile=name)
        for name in ui.profile_names("portal")
    }
    assert {info["initial_sha256"] for info in infos.values()} == {infos["default"]["initial_sha256"]}


def test_default_answers_are_toasts_and_an_expired_session_offers_sign_in(lab_server, context):
    page = _open(lab_server, context, "portal-014", "default", "intervention")
    steps.open_visit(page, "Skin check", "Dr. Irene Castillo")
    text = steps.cancel_visit(page, "Feeling better")  # the session expires on this write
    assert page.get_by_role("combobox", name="Reason").evaluate("el => el.tagName") == "SELECT"
    alert = page.locator(".toasts").get_by_role("alert")
    expect(alert).to_contain_text(text)
    assert steps.relogin_if_needed(page)  # the toast's "Sign in", the shared sign-in page, back here
    steps.ready(page)
    assert steps.cancel_visit(page, "Feeling better") == "Your visit was cancelled."
    expect(page.locator(".toasts").get_by_role("status")).to_have_text(
        re.compile(r"^Your visit was cancelled\.")
    )
    expect(page.get_by_role("main")).to_contain_text("Cancelled")


def test_custom_controls_choose_by_keyboard_and_confirm_in_the_page(lab_server, context):
    page = _open(lab_server, context, "portal-001", "custom-controls")
    steps.open_visit(page, "Skin check", "Dr. Irene Castillo")
    page.get_by_role("button", name="Cancel visit").click()
    reason = page.get_by_role("combobox", name="Reason", exact=True)
    assert reason.evaluate("el => el.tagName") == "BUTTON"
    reason.focus()
    page.keyboard.press("ArrowDown")  # opens the listbox on the chosen option
    listbox = page.get_by_role("listbox", name="Reason")
    expect(listbox.get_by_role("option")).to_have_count(6)
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(reason).to_have_text("Schedule conflict")
    expect(listbox).to_have_count(0)
    page.get_by_role("button", name="Cancel this visit").click()
    steps.confirm(page, "Yes, cancel visit")
    status = page.get_by_role("status").filter(has_text="Your visit was cancelled.")
    expect(status).to_have_class("ui-confirmation")  # the kit's status line above the page
    assert page.locator(".toasts .toast").count() == 0
    expect(page.get_by_role("main")).to_contain_text("Schedule conflict")  # the visit's cancel reason


def test_tabs_switch_lists_by_click_and_arrow_keys(lab_server, context):
    page = _open(lab_server, context, "portal-002", "tabs-typeahead")
    steps.nav(page, "Medications")
    tablist = page.get_by_role("tablist", name="Medication lists")
    tabs = tablist.get_by_role("tab")
    expect(tabs).to_have_text(["Current medications", "Refill requests", "Past medications"])
    current = tablist.get_by_role("tab", name="Current medications")
    expect(current).to_have_attribute("aria-selected", "true")
    expect(page.get_by_role("tabpanel", name="Current medications")).to_be_visible()
    expect(page.get_by_role("table", name="Current medications")).to_be_visible()
    expect(page.get_by_role("table", name="Past medications")).to_have_count(0)  # hidden panel
    current.focus()
    page.keyboard.press("ArrowRight")
    refills = tablist.get_by_role("tab", name="Refill requests")
    expect(refills).to_be_focused()
    expect(refills).to_have_attribute("aria-selected", "true")
    expect(page.get_by_role("tabpanel", name="Refill requests")).to_be_visible()
    expect(page.get_by_role("table", name="Current medications")).to_have_count(0)
    page.keyboard.press("End")
    expect(tablist.get_by_role("tab", name="Past medications")).to_have_attribute("aria-selected", "true")
    tablist.get_by_role("tab", name="Current medications").click()
    expect(page.get_by_role("table", name="Current medications")).to_be_visible()


def test_typeahead_filters_and_picks_the_care_team(lab_server, context):
    page = _open(lab_server, context, "portal-004", "tabs-typeahead")
    steps.nav(page, "Messages")
    steps.go(page, "New message")
    to = page.get_by_role("combobox", name="To", exact=True)
    assert to.evaluate("el => el.tagName") == "INPUT"
    to.fill("bill")
    listbox = page.get_by_role("listbox", name="To")
    expect(listbox.get_by_role("option")).to_have_text(["Billing Office"])
    page.keyboard.press("ArrowDown")
    expect(to).to_have_attribute("aria-activedescendant", re.compile(r"."))
    page.keyboard.press("Enter")
    expect(to).to_have_value("Billing Office")
    expect(to).to_have_attribute("aria-expanded", "false")
    page.get_by_label("Subject", exact=True).fill("New mailing address")
    page.get_by_label("Message", exact=True).fill("Please send my bills to 1450 Birch Lane.")
    page.get_by_role("button", name="Send message").last.click()
    assert steps.notice(page) == "Message sent to Billing Office."
    expect(page.get_by_role("heading", level=1)).to_have_text("New mailing address")  # the new conversation
