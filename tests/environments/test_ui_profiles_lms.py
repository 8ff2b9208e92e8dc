"""Canopy's UI profiles in Chromium: `course-tabs` (tabs=tablist: a course's sections are tabs that
switch in the page) and `type-ahead` (autocomplete=type-ahead: a new message's recipient is typed
and picked from suggestions; select=custom: the other selects are custom listboxes) offer the same
functions as the default build, through other controls, from the same state."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from humantrace.environments import ui
from humantrace.environments.lms import oracle_steps as steps
from humantrace.environments.oracles import choose

pytestmark = [pytest.mark.browser, pytest.mark.all_sites]


@pytest.fixture
def live(server_factory, sqlite_url, port):
    return server_factory(sqlite_url, port)


def _open(live, context, profile, task_id="lms-001"):
    info = live.create(task_id, "clean", 42, ui_profile=profile)
    page = context.new_page()
    page.goto(live.base_url + info["enter_url"])
    steps.ready(page)
    return page


def test_lms_declares_its_profiles_and_every_one_starts_from_the_same_state(live):
    assert ui.profile_names("lms") == ["default", "course-tabs", "type-ahead"]
    assert ui.classes_of("lms", "course-tabs") == ("tabs",)
    assert ui.classes_of("lms", "type-ahead") == ("autocomplete", "select")
    infos = {
        name: live.create("lms-004", "intervention", 42, ui_profile=name) for name in ui.profile_names("lms")
    }
    assert {info["initial_sha256"] for info in infos.values()} == {infos["default"]["initial_sha256"]}


def test_course_tabs_switch_sections_in_the_page_by_click_and_keyboard(live, context):
    page = _open(live, context, "course-tabs")
    steps.open_course(page, "BIO 201")
    assert not page.get_by_role("navigation", name="Course").is_visible()  # no side menu of links
    tabs = page.get_by_role("tablist", name="BIO 201 sections")
    home = tabs.get_by_role("tab", name="Home", exact=True)
    expect(home).to_have_attribute("aria-selected", "true")
    expect(page.get_by_role("tabpanel", name="Home")).to_contain_text("BIO 201")
    page.evaluate("window.stayedHere = true")  # gone if a tab loaded another page
    tabs.get_by_role("tab", name="Assignments", exact=True).click()
    expect(page.get_by_role("tabpanel", name="Assignments").get_by_role("heading", level=1)).to_have_text(
        "Assignments"
    )
    expect(home).to_have_attribute("aria-selected", "false")
    assert page.url.endswith("/assignments")
    # the keyboard: arrows move between tabs (wrapping), Enter opens the focused one
    tabs.get_by_role("tab", name="Assignments", exact=True).focus()
    page.keyboard.press("ArrowRight")
    expect(tabs.get_by_role("tab", name="Quizzes", exact=True)).to_be_focused()
    page.keyboard.press("Enter")
    expect(tabs.get_by_role("tab", name="Quizzes", exact=True)).to_have_attribute("aria-selected", "true")
    expect(page.get_by_role("tabpanel", name="Quizzes").get_by_role("heading", level=1)).to_have_text(
        "Quizzes"
    )
    page.keyboard.press("End")
    expect(tabs.get_by_role("tab", name="Grades", exact=True)).to_be_focused()
    page.keyboard.press("ArrowRight")
    expect(home).to_be_focused()
    assert page.evaluate("window.stayedHere") is True
    # a section's own address shows that tab selected
    page.reload()
    steps.ready(page)
    expect(page.get_by_role("tab", name="Quizzes", exact=True)).to_have_attribute("aria-selected", "true")


def test_default_build_keeps_the_course_menu_of_links(live, context):
    page = _open(live, context, "default")
    steps.open_course(page, "BIO 201", "Quizzes")
    assert page.get_by_role("tab").count() == 0
    expect(
        page.get_by_role("navigation", name="Course").get_by_role("link", name="Quizzes", exact=True)
    ).to_have_attribute("aria-current", "page")


def test_type_ahead_recipient_is_typed_and_picked_and_the_message_goes_to_them(live, context):
    page = _open(live, context, "type-ahead", "lms-004")
    steps.nav(page, "Inbox")
    page.get_by_role("button", name="Compose").click()
    dialog = page.get_by_role("dialog", name="New message")
    to = dialog.get_by_role("combobox", name="To", exact=True)
    expect(to).to_be_disabled()  # until a course is chosen
    course = dialog.get_by_role("combobox", name="Course", exact=True)
    assert course.evaluate("el => el.tagName") == "BUTTON"  # select=custom: a listbox, not a select
    choose(dialog, "Course", re.compile(r"^HIST 110"))
    expect(course).to_contain_text("HIST 110")
    expect(to).to_be_enabled()
    assert to.get_attribute("aria-autocomplete") == "list"
    to.fill("instr")
    suggestions = dialog.get_by_role("listbox", name="To").get_by_role("option")
    expect(suggestions).to_have_count(1)
    expect(suggestions.first).to_contain_text("(Instructor)")
    to.press("Escape")  # closes the suggestions, not the dialog
    expect(dialog.get_by_role("listbox", name="To")).to_be_hidden()
    expect(dialog).to_be_visible()
    to.press("ArrowDown")  # opens them again, the first one active
    expect(suggestions.first).to_have_attribute("aria-selected", "true")
    to.press("Enter")
    expect(to).to_have_value(re.compile(r"\(Instructor\)$"))
    expect(dialog.get_by_role("listbox", name="To")).to_be_hidden()
    instructor = to.input_value().rsplit(" (", 1)[0]
    dialog.get_by_label("Subject").fill("Question about the essay")
    dialog.get_by_label("Message").fill("Could you say more about the sources we may use?")
    dialog.get_by_role("button", name="Send").click()
    page.wait_for_url(re.compile(r"/inbox/cnv-"))
    steps.ready(page)
    expect(page.locator("#app")).to_contain_text(f"With {instructor} (Instructor)")
    # typing a name that no one has offers nothing to pick
    steps.nav(page, "Inbox")
    page.get_by_role("button", name="Compose").click()
    choose(dialog, "Course", re.compile(r"^HIST 110"))
    expect(to).to_be_enabled()
    to.fill("Nobody Atall")
    expect(dialog.get_by_role("status")).to_have_text("No one matches “Nobody Atall”")
    expect(dialog.get_by_role("listbox", name="To")).to_be_hidden()
