"""Northbeam's UI profiles on real pages: the custom listboxes and quantity stepper still place the
order the ticket shows, and the side menu reaches every section (docs/ui-variants/brokerage.md)."""

from __future__ import annotations

import pytest

from humantrace.environments.brokerage import oracle_steps as steps
from humantrace.environments.oracles import choose

pytestmark = [pytest.mark.browser, pytest.mark.all_sites]


def _open(lab_server, context, profile: str, path: str):
    info = lab_server.create("brokerage-001", "clean", 42, ui_profile=profile)
    page = context.new_page()
    page.goto(lab_server.base_url + info["enter_url"])
    steps.ready(page)
    if path:
        page.goto(f"{lab_server.base_url}/env/brokerage{path}")
        steps.ready(page)
    return page


def test_custom_controls_drive_the_same_ticket(lab_server, context):
    page = _open(lab_server, context, "custom-controls", "/quote/NBTM")
    assert page.locator("#order-side").is_hidden()  # the native select keeps the value, out of sight
    choose(page, "Action", "Sell")
    choose(page, "Order type", "Limit")
    assert page.get_by_label("Limit price").is_visible()  # the ticket listened to the listbox
    page.get_by_role("button", name="Increase quantity").click()
    page.get_by_role("button", name="Increase quantity").click()
    page.get_by_role("button", name="Decrease quantity").click()
    assert page.get_by_label("Quantity (shares)").input_value() == "1"
    page.get_by_label("Limit price").fill("130.00")
    assert "Estimated proceeds: $130.00" in page.locator(".estimate").inner_text()
    page.get_by_role("button", name="Review order").click()
    review = page.locator("dialog[open]")
    assert "Sell 1 NBTM" in review.inner_text() and "Limit at $130.00" in review.inner_text()


def test_the_side_menu_is_a_drawer_that_reaches_every_section(lab_server, context):
    page = _open(lab_server, context, "side-menu", "")
    menu = page.get_by_role("navigation", name="Main")
    button = page.get_by_role("button", name="Menu", exact=True)
    assert not menu.is_visible() and button.get_attribute("aria-expanded") == "false"
    button.click()
    assert menu.is_visible() and button.get_attribute("aria-expanded") == "true"
    page.keyboard.press("Escape")
    assert not menu.is_visible()
    steps.nav(page, "Orders")
    assert page.url.endswith("/env/brokerage/orders")
    assert page.get_by_role("heading", level=1).first.inner_text() == "Orders"
