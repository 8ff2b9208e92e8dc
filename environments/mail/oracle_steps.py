"""What a competent person does in Parcel Mail, as small Playwright steps the oracles combine.

Every step acts through the page (clicks and typing) and checks what the page then shows, the way
a careful person re-reads a list after acting; `settle` waits for the page's data to be loaded.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING

from playwright.sync_api import Error as PlaywrightError

from humantrace.environments.oracles import choose

if TYPE_CHECKING:
    from collections.abc import Callable

    from playwright.sync_api import Locator, Page

LOAD_TIMEOUT = 20_000


def settle(page: Page) -> None:
    """Wait until the current page's main data has been fetched and drawn."""
    page.locator("[data-loaded=true]").first.wait_for(timeout=LOAD_TIMEOUT)


def follow(page: Page, locator: Locator) -> None:
    """Click a link and wait for the next page and its data."""
    with page.expect_navigation():
        locator.click()
    settle(page)


def home(page: Page, base_url: str = "") -> None:
    """Go to the inbox through the sidebar."""
    follow(
        page, page.get_by_role("navigation", name="Folders").get_by_role("link", name=re.compile(r"^Inbox"))
    )


def open_folder(page: Page, name: str) -> None:
    """Open a folder (Inbox, Sent, Drafts, Archive, Trash, Spam, Starred) from the sidebar."""
    follow(
        page, page.get_by_role("navigation", name="Folders").get_by_role("link", name=re.compile(rf"^{name}"))
    )


def open_nav(page: Page, name: str) -> None:
    """Open Contacts or Settings from the sidebar."""
    follow(page, page.get_by_role("navigation", name="More").get_by_role("link", name=name))


def search(page: Page, text: str) -> None:
    """Search mail from the top bar and wait for the results (however slow)."""
    box = page.get_by_role("searchbox", name="Search mail")
    box.fill(text)
    with page.expect_navigation():
        box.press("Enter")
    page.locator("#threads[data-loaded=true]").wait_for(timeout=30_000)


def rows(page: Page, subject: str | None = None, who: str | None = None) -> Locator:
    """Conversation rows, narrowed by exact subject and/or by who the row starts with."""
    found = page.locator("li.row")
    if subject is not None:
        found = found.filter(has=page.locator(".subject", has_text=re.compile(rf"^{re.escape(subject)}$")))
    if who is not None:
        found = found.filter(has=page.locator(".who", has_text=re.compile(rf"^{re.escape(who)}(,|\d|$)")))
    return found


def open_conversation(page: Page, subject: str, who: str | None = None) -> None:
    """Open the conversation with this subject from the current list."""
    with page.expect_navigation():
        rows(page, subject, who).first.locator(".gist").click()
    page.locator("#messages[data-loaded=true]").wait_for(timeout=LOAD_TIMEOUT)


def message(page: Page, sender: str, index: int = -1) -> Locator:
    """A message card in the open conversation, by sender name (the last one by default)."""
    cards = page.locator("article.message").filter(has=page.locator(".msg-from strong", has_text=sender))
    return cards.last if index == -1 else cards.nth(index)


def toolbar(page: Page, name: str) -> Locator:
    """A button of the conversation toolbar."""
    return page.get_by_role("toolbar", name="Conversation actions").get_by_role(
        "button", name=name, exact=True
    )


def select_rows(page: Page, found: Locator) -> int:
    """Tick the checkbox of every row in `found`; returns how many."""
    count = found.count()
    for index in range(count):
        found.nth(index).locator("input.check").check()
    return count


def label_as(page: Page, label: str) -> None:
    """Apply a label with the toolbar's "Label as" menu and wait for the list or thread to redraw."""
    with page.expect_response(lambda r: "/messages/actions/label_add" in r.url):
        choose(page, "Label as", label)
    page.wait_for_timeout(400)
    settle(page)


def show_more(page: Page) -> bool:
    """Show the next conversations of the list: the Older page, or Load more under the list (UI
    profile list=load-more); False when the list has no more."""
    older = page.get_by_role("button", name="Older", exact=True)
    if older.count():
        if not older.is_enabled():
            return False
        older.click()
        settle(page)
        return True
    more = page.get_by_role("button", name="Load more conversations")
    if not more.count():
        return False
    shown = page.locator("li.row").count()
    more.click()
    wait_for(page, lambda: page.locator("li.row").count() > shown, timeout=LOAD_TIMEOUT / 1000)
    return True


def has_label(page: Page, name: str) -> bool:
    """Whether the mailbox has a label `name` (the sidebar's Labels list, once loaded)."""
    nav = page.get_by_role("navigation", name="Labels")
    wait_for(page, lambda: nav.get_by_role("link").count() > 0, timeout=LOAD_TIMEOUT / 1000)
    return nav.get_by_role("link", name=re.compile(rf"^{re.escape(name)}(\s*\d+)?$")).count() > 0


def close_dialogs(page: Page, *names: str) -> None:
    """Dismiss promotions or dialogs that cover the page, pressing the first button named in `names`."""
    for name in names:
        button = page.get_by_role("dialog").get_by_role("button", name=name, exact=True)
        if button.count() and button.first.is_visible():
            button.first.click()
            page.wait_for_timeout(200)


def fill_recipients(page: Page, field: str, addresses: list[str]) -> None:
    """Type addresses into To, Cc or Bcc (opening Cc/Bcc when hidden)."""
    box = page.get_by_role("combobox", name=field, exact=True)
    if not box.is_visible():
        page.get_by_role("button", name="Cc/Bcc").click()
    current = box.input_value().strip().rstrip(",")
    joined = ", ".join([part for part in [current, *addresses] if part])
    box.fill(joined)
    box.press("Escape")


def write_on_top(page: Page, text: str) -> None:
    """Type `text` above whatever the editor already holds (quote, signature)."""
    body = page.get_by_label("Message", exact=True)
    body.fill(text + "\n" + body.input_value())


def send(page: Page, *, attempts: int = 4) -> None:
    """Press Send and make sure the message went: after an error, read it and press Send again;
    after a session expiry, sign in again and let the caller redo its edits (raises Expired)."""
    for _ in range(attempts):
        page.locator("#send").click()
        outcome = wait_for(page, lambda: "/compose" not in page.url or _alert(page) is not None, timeout=30)
        if outcome and "/compose" not in page.url:
            settle(page)
            return
        alert = _alert(page)
        text = alert.inner_text() if alert is not None else ""
        if alert is not None and ("sign in" in text.lower() or "expired" in text.lower()):
            alert.get_by_role("button", name="Sign in").click()
            page.get_by_role("button", name="Sign in").click()
            page.locator("#send").wait_for(timeout=LOAD_TIMEOUT)
            raise Expired()
        if alert is not None:
            alert.get_by_role("button", name="Dismiss").click()
        page.wait_for_timeout(800)
    raise AssertionError("the message could not be sent")


class Expired(Exception):
    """The session expired while sending; the editor was reopened after signing in again."""


def _alert(page: Page) -> Locator | None:
    """The last error toast on the page, or None; None too while Send's navigation replaces the
    page (counting then meets a destroyed execution context, and the caller polls again)."""
    found = page.locator(".toast.error")
    try:
        return found.last if found.count() else None
    except PlaywrightError as error:
        if "context was destroyed" in str(error) or "navigat" in str(error):
            return None
        raise


def wait_for(page: Page, condition: Callable[[], object], *, timeout: float = 10) -> bool:
    """Poll `condition()` until it is true or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        page.wait_for_timeout(150)
    return bool(condition())


def reload(page: Page) -> None:
    """Reload the page and wait for its data."""
    page.reload()
    settle(page)


def contact_row(page: Page, name: str) -> Locator:
    """The contacts table row of `name` (exact)."""
    return page.locator("tr[data-id]").filter(
        has=page.locator(".contact-name", has_text=re.compile(rf"^{re.escape(name)}$"))
    )


def add_contact(page: Page, *, name: str, email: str, company: str = "") -> None:
    """Add a contact from the Contacts page, saving again after a failure or a rate limit."""
    page.get_by_role("button", name="New contact").click()
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_label("Email", exact=True).fill(email)
    page.get_by_label("Company", exact=True).fill(company)
    for _ in range(5):
        page.get_by_role("button", name="Save contact").click()
        if wait_for(
            page, lambda: page.locator("#contact-form").count() == 0 or _alert(page) is not None, timeout=20
        ):
            if page.locator("#contact-form").count() == 0:
                break
        alert = _alert(page)
        text = alert.inner_text() if alert is not None else ""
        wait = re.search(r"in (\d+) s", text)
        alert.get_by_role("button", name="Dismiss").click() if alert is not None else None
        page.wait_for_timeout((int(wait.group(1)) + 0.5) * 1000 if wait else 800)
    settle(page)
    contact_row(page, name).wait_for(timeout=LOAD_TIMEOUT)


def create_label(page: Page, name: str) -> None:
    """Create a label on Settings › Labels (unless it exists)."""
    follow(page, page.get_by_role("link", name="Manage labels"))
    if page.locator("#labels a", has_text=re.compile(rf"^{re.escape(name)}$")).count():
        return
    page.get_by_label("Label name").fill(name)
    page.get_by_role("button", name="Create label").click()
    page.locator("#labels a", has_text=re.compile(rf"^{re.escape(name)}$")).wait_for(timeout=LOAD_TIMEOUT)
