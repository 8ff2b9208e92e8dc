"""Screenshots of Threadline's UI profiles for docs/ui-variants/forum.md.

Run: PYTHONPATH=$PWD .venv/bin/python docs/ui-variants/shots_forum.py
"""

from __future__ import annotations

from playwright.sync_api import Page
from shots import Shot, take

from humantrace.environments.forum.oracles import comment_by, open_post, ready

POST = "Regrouting a shower: epoxy or cement grout?"


def _comment(page: Page) -> None:
    ready(page)
    open_post(page, POST)
    comment_by(page, "velvetkite").scroll_into_view_if_needed()


def _report(page: Page) -> None:
    _comment(page)
    comment_by(page, "velvetkite").get_by_role("button", name="Report", exact=True).click()
    page.get_by_role("combobox", name="Reason", exact=True).scroll_into_view_if_needed()


def _report_open(page: Page) -> None:
    _report(page)
    page.get_by_role("combobox", name="Reason", exact=True).click()


def _reply(page: Page) -> None:
    _comment(page)
    comment_by(page, "velvetkite").locator(":scope > .c-actions").get_by_role(
        "button", name="Reply", exact=True
    ).click()
    page.get_by_label("Reply to u/velvetkite").fill("Thanks for the tip!")


def _messages(page: Page) -> None:
    ready(page)


take(
    [
        Shot("forum-004", "default", "", "forum-default-actions.png", _comment),
        Shot("forum-004", "custom-controls", "", "forum-custom-controls-actions.png", _comment),
        Shot("forum-004", "default", "", "forum-default-report.png", _report),
        Shot("forum-004", "custom-controls", "", "forum-custom-controls-report.png", _report_open),
        Shot("forum-004", "modal-forms", "", "forum-modal-forms-report.png", _report),
        Shot("forum-004", "default", "", "forum-default-reply.png", _reply),
        Shot("forum-004", "modal-forms", "", "forum-modal-forms-reply.png", _reply),
        Shot("forum-004", "default", "/messages?to=riverlark", "forum-default-message.png", _messages),
        Shot(
            "forum-004", "modal-forms", "/messages?to=riverlark", "forum-modal-forms-message.png", _messages
        ),
        Shot("forum-004", "modal-forms", "/messages", "forum-modal-forms-messages-page.png", _messages),
    ]
)
