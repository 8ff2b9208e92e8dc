"""What a site itself gets wrong distorts the people recorded on it. On every site's clean start
page, every picker, menu and dialog opens fully inside a 1366x768 viewport and unclipped by any
ancestor, and every visible text and primary button meets WCAG AA contrast (a11y/*.js)."""

from __future__ import annotations

from pathlib import Path

import pytest

from humantrace.environments.sites import SITES as SITE_NAMES

pytestmark = [pytest.mark.browser, pytest.mark.all_sites]

HERE = Path(__file__).parent / "a11y"
CONTRAST = (HERE / "contrast.js").read_text()
POPUPS = (HERE / "popups.js").read_text()
SITES = tuple(SITE_NAMES)  # every website (a new one joins without a change here)
# What opens a picker, menu or dialog: buttons that say so, and the date and guest pickers.
TRIGGERS = "[aria-haspopup]:not([disabled]), .sb-trigger, button[data-opens]"
COMBOBOXES = "input[role=combobox]"


@pytest.fixture
def site_server(server_factory, sqlite_url, port):
    return server_factory(sqlite_url, port)


def _start_page(server, context, env_id: str):
    from humantrace.environments import catalog

    task_id = sorted(t.task_id for t in catalog.list_tasks() if t.env_id == env_id)[0]
    info = server.create(task_id, "clean", 42)
    page = context.new_page()
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(server.base_url + info["enter_url"])
    page.goto(f"{server.base_url}/env/{env_id}/")
    page.wait_for_load_state("networkidle")
    return page


@pytest.mark.parametrize("env_id", SITES)
def test_every_picker_menu_and_dialog_opens_inside_the_viewport_unclipped(
    site_server, context, env_id, screenshot_dir
):
    page = _start_page(site_server, context, env_id)
    opened, problems = 0, []
    for index in range(page.locator(TRIGGERS).count()):
        trigger = page.locator(TRIGGERS).nth(index)
        if not trigger.is_visible():
            continue
        trigger.click()
        page.wait_for_timeout(250)
        for popup in page.evaluate(POPUPS):
            opened += 1
            problems += [f"{popup['label']}: {p}" for p in popup["problems"]]
        page.screenshot(path=str(screenshot_dir / f"popups-{env_id}-{index}.png"))
        page.keyboard.press("Escape")
        page.mouse.click(5, 760)
    for index in range(page.locator(COMBOBOXES).count()):
        box = page.locator(COMBOBOXES).nth(index)
        if not box.is_visible():
            continue
        box.click()
        box.press_sequentially("a")
        page.wait_for_timeout(400)
        for popup in page.evaluate(POPUPS):
            opened += 1
            problems += [f"{popup['label']}: {p}" for p in popup["problems"]]
        page.keyboard.press("Escape")
    assert problems == []
    if env_id == "booking":
        assert opened >= 3, "the destination, date and guest pickers of the home page opened"


@pytest.mark.parametrize("env_id", SITES)
def test_text_and_primary_buttons_meet_wcag_aa_contrast(site_server, context, env_id):
    page = _start_page(site_server, context, env_id)
    failures = page.evaluate(CONTRAST)
    assert failures == [], failures
