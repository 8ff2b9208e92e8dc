"""What a competent Larkspur Health patient does, step by step, in Playwright (used by `oracles.py`).

Every step acts through the UI and waits for the page's own content. Steps that book, pay or send
read the page's answer afterwards, so the oracles can recover from a failed request, an expired
session, a refusal or an extra confirmation the way a careful person would.
"""

from __future__ import annotations

import re
from datetime import datetime

from playwright.sync_api import Locator, Page

from humantrace.environments.oracles import app_loaded, choose, sign_in_again

LONG = 20_000
BASE = "/env/portal"


def ready(page: Page) -> None:
    """Wait until the page's main content has replaced its loading indicator."""
    app_loaded(page, LONG)


def dismiss_overlay(page: Page) -> None:
    """Close a promotional box that covers the page (if one shows up within a moment)."""
    overlay = page.locator("div[role=dialog]")
    try:
        overlay.first.wait_for(state="visible", timeout=1500)
    except Exception:
        return
    overlay.first.get_by_role("button").last.click()


def nav(page: Page, name: str) -> None:
    page.get_by_role("navigation", name="Main").get_by_role("link", name=name, exact=True).click()
    ready(page)


def go(page: Page, path: str) -> None:
    """Follow an in-site link by its visible text."""
    page.get_by_role("link", name=path, exact=True).first.click()
    ready(page)


def confirm(page: Page, button: str | re.Pattern[str]) -> None:
    """Confirm the site's own dialog; an extra "are you sure" box in front of it is confirmed first."""
    either = page.locator("dialog[open], div[role=dialog]")
    either.first.wait_for(timeout=LONG)
    extra = page.locator("div[role=dialog]")
    if extra.count() and extra.first.is_visible():
        extra.first.get_by_role("button").last.click()
    dialog = page.locator("dialog[open]")
    dialog.wait_for(timeout=LONG)
    dialog.get_by_role("button", name=button).click()


# The answer to a write: the kit's toast, or under confirmation=inline its status line in the page.
ANSWERS = ".toasts .toast, .ui-confirmation .ui-confirmation-message"


def notice(page: Page, timeout: float = LONG) -> str:
    """The text of the latest answer to a write (success or error; earlier ones go when a write starts)."""
    found = page.locator(ANSWERS).last
    found.wait_for(timeout=timeout)
    return str(found.locator("span").first.inner_text())


def chosen(page: Page, label: str) -> str:
    """The visible text of the option chosen in the select named `label`, whichever build shows."""
    box = page.get_by_role("combobox", name=label, exact=True)
    return str(
        box.evaluate(
            "el => el.tagName === 'SELECT' ? el.options[el.selectedIndex].textContent"
            " : el.tagName === 'INPUT' ? el.value : el.textContent"
        )
    ).strip()


def relogin_if_needed(page: Page) -> bool:
    """After a session expiry: press "Sign in" (on the answer, or on a page that failed to load)
    and sign in; True if it was needed."""
    trigger = page.locator(ANSWERS).get_by_role("button", name="Sign in", exact=True)
    trigger = trigger.or_(page.locator("#app").get_by_role("link", name="Sign in", exact=True))
    if not sign_in_again(page, trigger):
        return False
    ready(page)
    return True


def open_visit(page: Page, reason: str, clinician: str | None = None) -> None:
    """From any page: the details of an upcoming visit by its reason (and clinician)."""
    nav(page, "Appointments")
    card = page.locator("article.visit", has_text=reason)
    if clinician:
        card = card.filter(has_text=clinician)
    card.first.get_by_role("link", name=re.compile(r"^Details")).click()
    ready(page)


def cancel_visit(page: Page, reason: str) -> str:
    """On a visit's page: cancel it for `reason`; returns the answer."""
    page.get_by_role("button", name="Cancel visit").click()
    choose(page, "Reason", reason)
    page.get_by_role("button", name="Cancel this visit").click()
    confirm(page, "Yes, cancel visit")
    return notice(page)


def book(
    page: Page,
    *,
    department: str,
    clinician: str,
    visit_type: str,
    reason: str,
    from_hour: int = 0,
    skip_days: tuple[str, ...] = (),
    overlay: bool = False,
) -> str:
    """Schedule the clinician's first open time of a visit type (at or after `from_hour`, on a day
    not in `skip_days`, as the page writes days); returns the answer."""
    page.goto(page.url.split(BASE)[0] + BASE + "/appointments/new")
    ready(page)
    if overlay:
        dismiss_overlay(page)
    choose(page, "Department", department)
    page.wait_for_url(re.compile(r"department="))
    ready(page)
    page.get_by_role("button", name=f"See times for {clinician}", exact=True).click()
    page.wait_for_url(re.compile(r"provider="))
    ready(page)
    choose(page, "Visit type", visit_type)
    page.wait_for_url(re.compile(r"type="))
    ready(page)
    pick_slot(page, page.locator("#times"), from_hour=from_hour, skip_days=skip_days)
    page.get_by_label("Reason for visit").fill(reason)
    page.get_by_role("button", name="Review visit").click()
    confirm(page, re.compile(r"^(Book visit|Send request)$"))
    return notice(page)


def hour_of(text: str) -> int:
    """The hour (0-23) of a time written like "1:30 PM"."""
    moment = datetime.strptime(text.strip(), "%I:%M %p")
    return moment.hour


def pick_slot(page: Page, area: Locator, *, from_hour: int = 0, skip_days: tuple[str, ...] = ()) -> None:
    """Click the first open time in `area` at or after `from_hour`, on a day not in `skip_days`."""
    area.locator(".slot").first.wait_for(timeout=LONG)
    for day in area.locator(".day").all():
        if day.locator("h3").inner_text().strip() in skip_days:
            continue
        for slot in day.locator(".slot").all():
            if hour_of(slot.inner_text().split("\n")[0]) >= from_hour:
                slot.click()
                return
    raise AssertionError("no open time fits")


def table_rows(page: Page, label: str) -> list[list[str]]:
    """The cell texts of each row of a table named `label`."""
    table = page.get_by_role("table", name=label)
    return [row.locator("td").all_inner_texts() for row in table.locator("tbody tr").all()]


def parse_day(text: str) -> datetime:
    return datetime.strptime(text.strip(), "%b %d, %Y")


def amount(text: str) -> int:
    return int(re.sub(r"[^\d]", "", text))


def pay(page: Page, number: str, card: str) -> str:
    """On the billing page: pay statement `number` in full with a saved card; returns the answer."""
    page.get_by_role("button", name=f"Pay statement {number}").click()
    choose(page, "Pay with", re.compile("^" + re.escape(card)))
    page.get_by_role("button", name="Review payment").click()
    confirm(page, re.compile(r"^Pay \$"))
    return notice(page)


def pay_until_paid(page: Page, number: str, card: str) -> None:
    """Pay a statement; after a refusal or failure, re-read the statements and pay only if still owed."""
    for _ in range(3):
        text = pay(page, number, card)
        if text.startswith("Payment of"):
            return
        page.wait_for_timeout(2500)  # "too many requests": wait as asked before trying again
        page.reload()
        ready(page)
        dismiss_overlay(page)
        row = page.locator("tr", has=page.get_by_text(number, exact=True))
        if row.get_by_text("Paid", exact=True).count():
            return
    raise AssertionError(f"statement {number} was never paid")
