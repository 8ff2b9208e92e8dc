"""Screenshots of Canopy's UI profiles for docs/ui-variants/lms.md.

Run: PYTHONPATH=$PWD .venv/bin/python docs/ui-variants/shots_lms.py
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect
from shots import Shot, take

from humantrace.environments.lms import oracle_steps as steps
from humantrace.environments.oracles import choose


def _assignments(page: Page) -> None:
    steps.ready(page)
    steps.open_course(page, "BIO 201", "Assignments")


def _compose(page: Page) -> None:
    steps.ready(page)
    steps.nav(page, "Inbox")
    page.get_by_role("button", name="Compose").click()


def _course_menu(page: Page) -> None:
    _compose(page)
    page.get_by_role("dialog").get_by_role("combobox", name="Course", exact=True).click()


def _recipient(page: Page) -> None:
    _compose(page)
    dialog = page.get_by_role("dialog")
    choose(dialog, "Course", re.compile(r"^HIST 110"))
    to = dialog.get_by_role("combobox", name="To", exact=True)
    expect(to).to_be_enabled()
    if to.evaluate("el => el.tagName") == "INPUT":
        to.fill("a")
        to.press("ArrowDown")
    else:
        to.focus()


take(
    [
        Shot("lms-001", "default", "/", "lms-default-sections.png", _assignments),
        Shot("lms-001", "course-tabs", "/", "lms-course-tabs-sections.png", _assignments),
        Shot("lms-004", "default", "/", "lms-default-recipient.png", _recipient),
        Shot("lms-004", "type-ahead", "/", "lms-type-ahead-recipient.png", _recipient),
        Shot("lms-004", "type-ahead", "/", "lms-type-ahead-course.png", _course_menu),
    ]
)
