"""Parcel Mail's UI profiles in Chromium: `custom-controls` (select=custom, button=icon on the
conversation toolbar) and `load-more` (list=load-more instead of Newer/Older pages) offer the same
functions as the default build, through other controls."""

from __future__ import annotations

import re

import pytest

from humantrace.environments import ui
from humantrace.environments.oracles import choose

pytestmark = [pytest.mark.browser, pytest.mark.all_sites]


@pytest.fixture
def live(server_factory, sqlite_url, port):
    return server_factory(sqlite_url, port)


def _inbox(live, context, profile):
    info = live.create("mail-006", "clean", 42, ui_profile=profile)
    page = context.new_page()
    page.goto(live.base_url + info["enter_url"])
    page.locator("#threads[data-loaded=true]").wait_for()
    return page


def test_mail_declares_its_profiles():
    assert ui.profile_names("mail") == ["default", "custom-controls", "load-more"]
    assert ui.classes_of("mail", "custom-controls") == ("select", "button")
    assert ui.classes_of("mail", "load-more") == ("list",)


def test_custom_controls_label_a_conversation_with_icon_buttons_and_a_listbox(live, context):
    page = _inbox(live, context, "custom-controls")
    toolbar = page.get_by_role("toolbar", name="Conversation actions")
    archive = toolbar.get_by_role("button", name="Archive", exact=True)
    assert archive.inner_text().strip() == "▤" and archive.get_attribute("title") == "Archive"
    assert toolbar.get_by_role("button", name="Mark as read", exact=True).inner_text().strip() == "✓"
    assert not page.locator("select#label-menu").is_visible()
    row = (
        page.locator("li.row")
        .filter(has=page.locator(".subject", has_text=re.compile(r"^Invoice INV-")))
        .first
    )
    subject = row.locator(".subject").inner_text()
    row.locator("input.check").check()
    with page.expect_response(lambda r: "/messages/actions/label_add" in r.url):
        choose(page, "Label as", "Receipts")
    page.locator("li.row", has_text=subject).locator(".chip", has_text="Receipts").wait_for()
    # the icon buttons act: archiving the labelled conversation takes it out of the inbox
    page.locator("li.row", has_text=subject).locator("input.check").check()
    toolbar.get_by_role("button", name="Archive", exact=True).click()
    page.get_by_text(re.compile(r"archived", re.I)).first.wait_for()
    assert page.locator("li.row", has_text=subject).count() == 0


def test_load_more_reveals_the_next_conversations_under_the_list(live, context):
    page = _inbox(live, context, "default")
    assert page.get_by_role("button", name="Older", exact=True).is_enabled()
    page.close()
    page = _inbox(live, context, "load-more")
    assert page.get_by_role("button", name="Older", exact=True).count() == 0
    rows = page.locator("li.row")
    assert rows.count() == 25 and page.locator(".toolbar .range").inner_text() == "25 of 31"
    rows.nth(3).locator("input.check").check()
    more = page.get_by_role("button", name="Load more conversations")
    more.click()
    page.locator("li.row").nth(30).wait_for()
    assert rows.count() == 31 and page.locator(".toolbar .range").inner_text() == "31 of 31"
    assert page.get_by_role("button", name="Load more conversations").count() == 0
    assert rows.nth(3).locator("input.check").is_checked()  # the selection survives
    # keyboard users carry on reading at the first new conversation
    assert page.evaluate(
        "document.activeElement.closest('li.row') === document.querySelectorAll('li.row')[25]"
    )
