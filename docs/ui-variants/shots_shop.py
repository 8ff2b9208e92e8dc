"""Screenshots of Brightcart's UI profiles for docs/ui-variants/shop.md.

Run: PYTHONPATH=$PWD .venv/bin/python docs/ui-variants/shots_shop.py
"""

from __future__ import annotations

from playwright.sync_api import Page
from shots import Shot, take

PENS = "/search?q=Gel+Ink+Pens"


def open_pens(page: Page) -> None:
    page.locator("#results a.title", has_text="Gel Ink Pens").first.click()
    page.get_by_role("button", name="Add to cart", exact=True).wait_for()
    page.wait_for_load_state("networkidle")


def open_sort(page: Page) -> None:
    page.get_by_role("combobox", name="Sort by", exact=True).click()


def to_list_end(page: Page) -> None:
    """Scroll to the end of the list: pages show their page buttons, the endless list loads the
    rest as it comes into view, until it says it shows everything."""
    for _ in range(4):
        page.keyboard.press("End")
        page.wait_for_load_state("networkidle")
    total = page.locator("#count").inner_text().split()[0]
    if page.locator("html[data-ui-list=infinite]").count():
        page.get_by_text(f"Showing {total} of {total}").wait_for()


def cart_ready(page: Page) -> None:
    page.locator("#lines .line").first.wait_for()


SHOTS = [
    Shot("shop-001", "default", "/search", "shop-default-sort.png"),
    Shot("shop-001", "custom-controls", "/search", "shop-custom-controls-sort.png", open_sort),
    Shot("shop-001", "default", PENS, "shop-default-quantity.png", open_pens),
    Shot("shop-001", "custom-controls", PENS, "shop-custom-controls-quantity.png", open_pens),
    Shot("shop-001", "default", "/search", "shop-default-pages.png", to_list_end),
    Shot("shop-001", "infinite-list", "/search", "shop-infinite-list-load-more.png", to_list_end),
    Shot("shop-001", "infinite-list", PENS, "shop-infinite-list-buy-box.png", open_pens),
    Shot("shop-006", "default", "/cart", "shop-default-cart.png", cart_ready),
    Shot("shop-006", "infinite-list", "/cart", "shop-infinite-list-cart.png", cart_ready),
]

if __name__ == "__main__":
    take(SHOTS)
