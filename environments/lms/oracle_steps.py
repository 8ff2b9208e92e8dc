"""What a competent Canopy student does, step by step, in Playwright (used by `oracles.py`).

Every step acts through the UI and waits for the page's own content, the way a person waits. Steps
that write read the page's answer (the toast) afterwards, so the oracles can recover from a failed
request, an expired session or a refused change the way a careful person would.
"""

from __future__ import annotations

import re
import time

from playwright.sync_api import FilePayload, Locator, Page, expect

from humantrace.environments.oracles import app_loaded, choose, ready_or_reload, sign_in_again

LONG = 20_000
SEND_WAIT_S = 60  # how long a sent message may take to open its conversation


def loaded(page: Page) -> None:
    for _ in range(3):
        try:
            app_loaded(page, LONG)
            return
        except Exception as error:  # noqa: BLE001
            if "context was destroyed" not in str(error):
                raise  # a navigation in between (a page that moves on by itself) is waited out again
    raise AssertionError("the page kept navigating")


def ready(page: Page) -> None:
    """`loaded`; a loading cover that never goes away is dealt with by reloading, a dialog over the
    page by closing it."""
    ready_or_reload(page, loaded, close=("No thanks", "Close"))


def nav(page: Page, name: str) -> None:
    label = re.compile("^" + re.escape(name) + r"( \d+)?$")  # the inbox link carries an unread count
    page.get_by_role("navigation", name="Main").get_by_role("link", name=label).click()
    ready(page)


def open_course(page: Page, code: str, section: str = "") -> None:
    nav(page, "Courses")
    page.locator("#app table").get_by_role("link", name=re.compile("^" + re.escape(code) + ":")).first.click()
    ready(page)
    if section:
        course_section(page, section)


def course_section(page: Page, section: str) -> None:
    """Open a section of the course shown: a link of the course menu, or (UI profile tabs=tablist)
    a tab above the course's content."""
    tab = page.get_by_role("tab", name=section, exact=True)
    if tab.count():
        tab.click()
        expect(tab).to_have_attribute("aria-selected", "true", timeout=LONG)
    else:
        page.get_by_role("navigation", name="Course").get_by_role("link", name=section, exact=True).click()
    ready(page)


def clear_toasts(page: Page) -> None:
    page.evaluate("() => document.querySelectorAll('.toast').forEach((t) => t.remove())")


def toast(page: Page) -> str:
    found = page.locator(".toasts .toast").last
    found.wait_for(timeout=LONG)
    return str(found.inner_text())


def confirm(page: Page, button: str) -> None:
    dialog = page.locator("dialog.modal[open]")
    dialog.wait_for(timeout=LONG)
    dialog.get_by_role("button", name=button, exact=True).click()


def relogin_if_needed(page: Page) -> bool:
    """After a session expiry: press the toast's "Sign in" and sign in; True if it was needed."""
    if not sign_in_again(
        page, page.locator(".toast").get_by_role("button", name="Sign in"), only_visible=False
    ):
        return False
    ready(page)
    return True


def compose(page: Page, *, course_label: str, person: str, subject: str, body: str) -> None:
    """Write a new message from the inbox; sends again after a refusal (nothing was sent then)."""
    nav(page, "Inbox")
    for _ in range(3):
        clear_toasts(page)
        page.get_by_role("button", name="Compose").click()
        dialog = page.locator("dialog.modal[open]")
        choose(dialog, "Course", re.compile(re.escape(course_label)))
        pick_person(dialog, person)
        dialog.get_by_label("Subject").fill(subject)
        dialog.get_by_label("Message").fill(body)
        dialog.get_by_role("button", name="Send").click()
        # Sent: the dialog closes and the conversation opens. Refused: a notice says why and the
        # form stays. The wait is by the clock, generous: on a loaded machine the conversation can
        # take many seconds to arrive.
        deadline = time.monotonic() + SEND_WAIT_S
        while time.monotonic() < deadline:
            if "/inbox/cnv-" in page.url:
                ready(page)
                return
            try:
                if page.locator(".toasts .toast").count() and dialog.count():
                    break
            except Exception:  # noqa: BLE001  (the page is navigating to the conversation)
                pass
            page.wait_for_timeout(100)
        if "/inbox/cnv-" in page.url or not dialog.count():
            # The message went (the dialog is gone): wait for its conversation.
            page.wait_for_url(re.compile(r"/inbox/cnv-"), timeout=SEND_WAIT_S * 1000)
            ready(page)
            return
        dialog.get_by_role("button", name="Cancel").click()
        if relogin_if_needed(page):  # the session expired: sign in, back to the inbox, write again
            nav(page, "Inbox")
    raise AssertionError("the message was never sent")


def pick_person(dialog: Locator, person: str) -> None:
    """Choose the recipient whose entry contains `person` once the course's people are in: from the
    list, or (UI profile autocomplete=type-ahead) by typing it and picking the suggestion."""
    to = dialog.get_by_role("combobox", name="To", exact=True)
    expect(to).to_be_enabled(timeout=LONG)
    if to.evaluate("el => el.tagName") == "INPUT":
        to.fill(person.strip("()"))
        dialog.get_by_role("listbox", name="To").get_by_role(
            "option", name=re.compile(re.escape(person))
        ).first.click()
        expect(to).to_have_value(re.compile(re.escape(person)))
        return
    choose(dialog, "To", re.compile(re.escape(person)))


def staff_name(page: Page, code: str, role: str) -> str:
    """The instructor's or TA's name from the course's home page."""
    open_course(page, code)
    line = page.locator(".course-banner p.staff").inner_text()
    found = re.search(role + r": ([^·]+)", line)
    assert found, line
    return found.group(1).strip()


def submit_assignment(page: Page, *, file_name: str | None = None, text: str = "", comment: str = "") -> str:
    """On an assignment page: fill the form, confirm and submit until the toast says it is in."""
    for _ in range(3):
        attempts = page.locator("article.submission").count()
        clear_toasts(page)
        if file_name:
            upload: FilePayload = {
                "name": file_name,
                "mimeType": "application/octet-stream",
                "buffer": b"work",
            }
            page.get_by_label("Attach a file").set_input_files(files=[upload])
        if text:
            page.get_by_label("Text entry").fill(text)
        if comment:
            page.get_by_label("Comment for your instructor (optional)").fill(comment)
        page.get_by_role("button", name="Submit assignment").click()
        confirm(page, "Submit")
        said = toast(page)
        if said.startswith("Submitted"):
            page.locator("article.submission").nth(attempts).wait_for(timeout=LONG)
            return said
        if not relogin_if_needed(page):
            page.reload()
            ready(page)
        if page.locator("article.submission").count() > attempts:
            return said  # it went through after all: never submit twice
    raise AssertionError("the assignment was never submitted")
