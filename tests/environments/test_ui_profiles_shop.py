"""Brightcart's UI profiles on real pages: `custom-controls` (custom listboxes for selects, a
quantity stepper) and `infinite-list` (results that load as you scroll, icon-only buttons) do what
the default build does, and the default build is unchanged."""

from __future__ import annotations

import re

import pytest

from humantrace.environments import ui
from humantrace.environments.oracles import choose

pytestmark = [pytest.mark.browser, pytest.mark.all_sites]


def _open(lab_server, context, profile: str, path: str, ready: str):
    info = lab_server.create("shop-001", "clean", 42, ui_profile=profile)
    page = context.new_page()
    page.goto(lab_server.base_url + info["enter_url"])
    page.goto(f"{lab_server.base_url}/env/shop{path}")
    page.locator(ready).first.wait_for()
    return page


def _prices(page) -> list[float]:
    texts = page.locator("#results .product-card .price > span:first-child").all_inner_texts()
    return [float(re.sub(r"[^0-9.]", "", text)) for text in texts]


def test_the_shop_declares_two_profiles_besides_the_default(lab):
    assert ui.profile_names("shop") == ["default", "custom-controls", "infinite-list"]
    assert ui.classes_of("shop", "custom-controls") == ("select", "counter")
    assert ui.classes_of("shop", "infinite-list") == ("list", "button")


def test_default_build_has_native_selects_pages_and_labelled_buttons(lab_server, context):
    page = _open(lab_server, context, "default", "/search", "#results .product-card")
    assert page.locator("select#sort").is_visible()
    assert page.get_by_role("button", name="Page 2", exact=True).is_visible()
    assert page.get_by_role("button", name="Load more").count() == 0
    page.locator("#results a.title").first.click()
    add = page.get_by_role("button", name="Add to cart", exact=True)
    assert add.inner_text().strip() == "Add to cart"
    assert page.get_by_role("combobox", name="Quantity", exact=True).evaluate("el => el.tagName") == "SELECT"


def test_custom_controls_sort_with_a_listbox_and_count_with_a_stepper(lab_server, context):
    page = _open(lab_server, context, "custom-controls", "/search", "#results .product-card")
    assert not page.locator("select#sort").is_visible()
    sort = page.get_by_role("combobox", name="Sort by", exact=True)
    assert sort.evaluate("el => el.tagName") == "BUTTON"
    choose(page, "Sort by", "Price: low to high")
    page.wait_for_url(re.compile(r"sort=price_asc"))
    page.locator("#results .product-card").first.wait_for()
    assert sort.inner_text() == "Price: low to high"
    prices = _prices(page)
    assert prices == sorted(prices) and len(prices) > 5

    page.goto(f"{lab_server.base_url}/env/shop/search?q=Gel+Ink+Pens")
    page.locator("#results a.title", has_text="Gel Ink Pens").first.click()
    quantity = page.get_by_role("spinbutton", name="Quantity", exact=True)
    decrease = page.get_by_role("button", name="Decrease quantity", exact=True)
    assert quantity.input_value() == "1" and decrease.is_disabled()
    page.get_by_role("button", name="Increase quantity", exact=True).click()
    page.get_by_role("button", name="Increase quantity", exact=True).click()
    assert quantity.input_value() == "3" and decrease.is_enabled()
    name = page.locator("h1.product-title").inner_text().strip()
    page.get_by_role("button", name="Add to cart", exact=True).click()
    page.locator(".toast.success").first.wait_for()
    page.goto(f"{lab_server.base_url}/env/shop/cart")
    line = page.locator("#lines .line").filter(has=page.get_by_role("link", name=name, exact=True))
    assert line.locator("output").inner_text().strip() == "3"


def test_infinite_list_loads_more_results_instead_of_pages(lab_server, context):
    page = _open(lab_server, context, "infinite-list", "/search", "#results .product-card")
    cards = page.locator("#results .product-card")
    total = int(page.locator("#count").inner_text().split()[0])
    assert total > 48 and cards.count() == 24
    assert page.get_by_role("button", name="Page 2").count() == 0
    assert page.get_by_role("status").filter(has_text=f"Showing 24 of {total}").count() == 1
    page.get_by_role("button", name="Load more", exact=True).click()
    page.get_by_text(f"Showing 48 of {total}").wait_for()
    assert cards.count() == 48
    # scrolling to the end of the list loads the rest without a click
    page.get_by_role("button", name="Load more", exact=True).scroll_into_view_if_needed()
    page.get_by_text(f"Showing {total} of {total}").wait_for()
    assert cards.count() == total and page.get_by_role("button", name="Load more").count() == 0
    names = page.locator("#results a.title").all_inner_texts()
    assert len(set(names)) == len(names)  # each page once, in order


def test_infinite_list_buttons_are_icons_named_by_their_words(lab_server, context):
    page = _open(lab_server, context, "infinite-list", "/search?q=Gel+Ink+Pens", "#results .product-card")
    page.locator("#results a.title", has_text="Gel Ink Pens").first.click()
    add = page.get_by_role("button", name="Add to cart", exact=True)
    add.wait_for()
    assert add.inner_text().strip() == "⊕" and add.get_attribute("title") == "Add to cart"
    wish = page.get_by_role("button", name=re.compile("Add to wishlist"))
    assert wish.inner_text().strip() == "♥"
    page.get_by_text("Hello, Jordan").wait_for()  # the header has read the account and the cart
    before = page.locator("#cart-count").text_content()
    add.click()
    page.wait_for_function(f"document.getElementById('cart-count').textContent !== {before!r}")
    page.goto(f"{lab_server.base_url}/env/shop/cart")
    line = page.locator("#lines .line").filter(has=page.get_by_role("link", name="Gel Ink Pens, 12-pack"))
    delete = line.get_by_role("button", name="Delete", exact=True)
    assert delete.inner_text().strip() == "⌫" and delete.get_attribute("aria-label") == "Delete"
    delete.click()
    line.wait_for(state="detached")
