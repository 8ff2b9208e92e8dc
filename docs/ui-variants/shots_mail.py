"""Screenshots of Parcel Mail's UI profiles for docs/ui-variants/mail.md.

Run: PYTHONPATH=$PWD .venv/bin/python docs/ui-variants/shots_mail.py
"""

from __future__ import annotations

from playwright.sync_api import Page
from shots import Shot, take


def _select_first(page: Page) -> None:
    page.locator("li.row input.check").first.check()


def _open_label_menu(page: Page) -> None:
    _select_first(page)
    page.get_by_role("combobox", name="Label as", exact=True).click()


def _to_list_end(page: Page) -> None:
    page.get_by_role("button", name="Load more conversations").scroll_into_view_if_needed()


def _older(page: Page) -> None:
    page.get_by_role("button", name="Older", exact=True).scroll_into_view_if_needed()


take(
    [
        Shot("mail-006", "default", "/", "mail-default-toolbar.png", _select_first),
        Shot("mail-006", "custom-controls", "/", "mail-custom-controls-toolbar.png", _select_first),
        Shot("mail-006", "default", "/", "mail-default-label-menu.png", _open_label_menu),
        Shot("mail-006", "custom-controls", "/", "mail-custom-controls-label-menu.png", _open_label_menu),
        Shot("mail-006", "default", "/", "mail-default-pages.png", _older),
        Shot("mail-006", "load-more", "/", "mail-load-more.png", _to_list_end),
    ]
)
