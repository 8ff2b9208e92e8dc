"""What a competent Northbeam user does, step by step, in Playwright (used by `oracles.py`).

Every step acts through the UI and waits for the page's own content, the way a person waits.
Steps that move money read the page's answer afterwards, so the oracles can recover from a failed
request, an expired session or a refused order the way a careful person would.
"""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Locator, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from humantrace.environments.oracles import app_loaded, choose, ready_or_reload, sign_in_again
from humantrace.environments.oracles import notice as notice

LONG = 20_000


def loaded(page: Page) -> None:
    """Wait until the page's main content has replaced its loading indicator."""
    app_loaded(page, LONG)


def ready(page: Page) -> None:
    """`loaded`, and a loading cover that never goes away is dealt with by reloading."""
    ready_or_reload(page, loaded)


def nav(page: Page, name: str) -> None:
    """Go to a section from the main menu (a bar of links, or a drawer behind "Menu")."""
    menu = page.get_by_role("navigation", name="Main")
    if not menu.is_visible():
        page.get_by_role("button", name="Menu", exact=True).click()
    menu.get_by_role("link", name=name, exact=True).click()
    ready(page)


def relogin_if_needed(page: Page) -> bool:
    """After a session expiry: follow "Sign in again" and sign in; True if it was needed."""
    if not sign_in_again(page, page.get_by_role("link", name="Sign in again")):
        return False
    ready(page)
    return True


def open_quote(page: Page, symbol: str) -> None:
    """Search the symbol from the header and open its quote page."""
    search = page.get_by_role("searchbox", name="Search stocks and ETFs").first
    search.fill(symbol)
    search.press("Enter")
    ready(page)
    page.locator("#app table").get_by_role("link", name=symbol, exact=True).click()
    ready(page)
    heading = page.get_by_role("heading", level=1).inner_text()
    assert heading.startswith(symbol + " "), heading


def choose_account(page: Page, label: str, account_name: str) -> None:
    """Pick the account named `account_name` in the select labelled `label` (native or custom)."""
    choose(page, label, re.compile(re.escape(account_name)))


def confirm(page: Page, button: str | re.Pattern[str]) -> None:
    dialog = page.locator("dialog[open]")
    dialog.wait_for(timeout=LONG)
    dialog.get_by_role("button", name=button).click()


def place_order(
    page: Page,
    *,
    account_name: str,
    side: str,
    quantity: int,
    order_type: str = "market",
    limit: str | None = None,
) -> str:
    """Fill the ticket on a quote page, review and place; returns the notice."""
    choose_account(page, "Account", account_name)
    choose(page, "Action", value=side)
    choose(page, "Order type", value=order_type)
    page.get_by_label("Quantity (shares)").fill(str(quantity))
    if limit is not None:
        page.get_by_label("Limit price").fill(limit)
    page.get_by_role("button", name="Review order").click()
    confirm(page, "Place order")
    return notice(page)


def place_order_until_done(page: Page, **order: Any) -> str:
    """Place an order; after an expired session or a refused attempt, re-read and place it again."""
    for _ in range(3):
        text = place_order(page, **order)
        if re.search(r"^(Bought|Sold|Your limit order)", text):
            return text
        if relogin_if_needed(page):
            continue
        page.reload()
        ready(page)
    raise AssertionError(f"the order was never placed: {text}")


def watchlist_section(page: Page, name: str) -> Locator:
    return page.locator("section.panel", has=page.get_by_role("heading", name=name, exact=True))


def transfer_rows(page: Page) -> int:
    return int(page.locator("#app table tbody tr").count())


def click_working(page: Page, name: str, outcome: Locator, timeout: int = 2500) -> None:
    """Click the button `name`; when nothing happens (a look-alike that does nothing), the next one."""
    buttons = page.get_by_role("button", name=name, exact=True)
    for index in range(buttons.count()):
        buttons.nth(index).click()
        try:
            outcome.first.wait_for(timeout=timeout)
            return
        except PlaywrightTimeout:
            continue
    raise AssertionError(f"no {name!r} button did anything")


def table_row(page: Page, text: str) -> Locator:
    """The row of the page's table that mentions `text`."""
    return page.locator("#app tbody tr", has_text=text)


def dollars(text: str) -> str:
    """ "$2,375.50" -> "2375.50" (what the amount fields take)."""
    return re.sub(r"[^\d.]", "", text)
