"""Threadline's UI profiles (environments/forum, docs/ui-variants/forum.md) on real pages:
`custom-controls` (the report reason is a custom listbox, Save/Reply/Report show only an icon)
and `modal-forms` (reply, report and new-message forms open in a modal dialog).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from humantrace.environments.forum.oracles import comment_by, open_post, ready
from humantrace.environments.oracles import choose

pytestmark = [pytest.mark.browser, pytest.mark.all_sites]

POST = "Regrouting a shower: epoxy or cement grout?"  # forum-004's post, with u/velvetkite's comment


def _open(lab_server, context, task_id, profile):
    info = lab_server.create(task_id, "clean", 42, ui_profile=profile)
    page = context.new_page()
    page.goto(lab_server.base_url + info["enter_url"])
    ready(page)
    return page


def test_default_forms_open_in_the_page_with_a_native_select(lab_server, context):
    page = _open(lab_server, context, "forum-004", "default")
    open_post(page, POST)
    comment = comment_by(page, "velvetkite")
    comment.get_by_role("button", name="Report", exact=True).click()
    assert comment.get_by_role("form", name="Report").is_visible()
    assert comment.locator("select#reason-" + comment.get_attribute("data-comment")).is_visible()
    assert page.get_by_role("dialog").count() == 0


def test_custom_controls_report_through_a_listbox_and_icon_buttons(lab_server, context):
    page = _open(lab_server, context, "forum-004", "custom-controls")
    open_post(page, POST)
    comment = comment_by(page, "velvetkite")
    actions = comment.locator(":scope > .c-actions")
    report = actions.get_by_role("button", name="Report", exact=True)
    assert report.inner_text().strip() == "⚑" and report.get_attribute("title") == "Report"
    assert actions.get_by_role("button", name="Reply", exact=True).inner_text().strip() == "↩"
    report.click()
    form = page.get_by_role("form", name="Report", exact=True)
    assert not form.locator("select").is_visible()
    reason = form.get_by_role("combobox", name="Reason", exact=True)
    assert reason.inner_text() == "Choose a reason"
    reason.click()
    assert form.get_by_role("option").all_inner_texts()[1:3] == ["Spam", "Harassment"]
    page.keyboard.press("Escape")
    choose(form, "Reason", "Spam")
    assert form.locator("select").input_value() == "spam" and reason.inner_text() == "Spam"
    form.get_by_role("button", name="Submit report").click()
    expect(page.locator("#notice .notice")).to_have_text("Thanks. Your report was sent to the moderators.")
    # Save turns into Unsave: still an icon, its new words its name
    save = actions.get_by_role("button", name="Save", exact=True)
    assert save.inner_text().strip() == "★"
    save.click()
    expect(actions.get_by_role("button", name="Unsave", exact=True)).to_have_text("★")


def test_modal_forms_reply_and_report_in_a_dialog(lab_server, context):
    page = _open(lab_server, context, "forum-004", "modal-forms")
    open_post(page, POST)
    comment = comment_by(page, "velvetkite")
    comment.locator(":scope > .c-actions").get_by_role("button", name="Reply", exact=True).click()
    dialog = page.get_by_role("dialog", name="Write a reply")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_label("Reply to u/velvetkite")).to_be_focused()
    page.keyboard.press("Escape")  # closes it, nothing sent
    expect(page.get_by_role("dialog")).to_have_count(0)
    comment.locator(":scope > .c-actions").get_by_role("button", name="Report", exact=True).click()
    dialog = page.get_by_role("dialog", name="Report this comment")
    dialog.get_by_role("button", name="Submit report").click()  # no reason: the error shows in the dialog
    expect(dialog.get_by_role("alert")).to_have_text("Choose a reason for your report.")
    choose(dialog, "Reason", "Spam")
    dialog.get_by_role("button", name="Submit report").click()
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(page.locator("#app #notice")).to_have_text("Thanks. Your report was sent to the moderators.")
    comment.locator(":scope > .c-actions").get_by_role("button", name="Reply", exact=True).click()
    page.get_by_role("dialog").get_by_label("Reply to u/velvetkite").fill("Thanks, reported.")
    page.get_by_role("dialog").get_by_role("button", name="Reply", exact=True).click()
    page.wait_for_load_state("load")
    ready(page)
    expect(comment_by(page, "quietfern")).to_contain_text("Thanks, reported.")


def test_modal_forms_a_message_link_opens_the_compose_dialog(lab_server, context):
    page = _open(lab_server, context, "forum-004", "modal-forms")
    page.goto(page.url.split("/env/forum")[0] + "/env/forum/messages?to=riverlark")
    dialog = page.get_by_role("dialog", name="New message")
    expect(dialog).to_be_visible()
    assert dialog.get_by_label("To").input_value() == "riverlark"
    dialog.get_by_label("Subject").fill("Hello")
    dialog.get_by_label("Message", exact=True).fill("Nice post about the seed swap.")
    dialog.get_by_role("button", name="Send").click()
    expect(page.locator("#notice .notice")).to_have_text("Message sent to u/riverlark.")
    expect(page.get_by_role("dialog")).to_have_count(0)
    assert "Hello" in page.get_by_role("main").inner_text()  # in Sent
    page.get_by_role("button", name="New message").click()  # the sidebar button opens it again
    expect(page.get_by_role("dialog", name="New message")).to_be_visible()
