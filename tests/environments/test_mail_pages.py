"""Parcel Mail's pages in Chromium: every page renders its data without console errors, no page
carries a task id, variant id, instruction or session id, a failed API call is shown with a way to
recover, and compose suggests contacts. Screenshots of every page go to `<screenshots>/mail/`."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.all_sites]

# (path, name, a selector that only appears once the page's data has loaded)
PAGES = [
    ("/", "inbox", "#threads[data-loaded=true]"),
    ("/folder/starred", "starred", "#threads[data-loaded=true]"),
    ("/folder/sent", "sent", "#threads[data-loaded=true]"),
    ("/folder/drafts", "drafts", "#threads[data-loaded=true]"),
    ("/folder/archive", "archive", "#threads[data-loaded=true]"),
    ("/folder/trash", "trash", "#threads[data-loaded=true]"),
    ("/folder/spam", "spam", "#threads[data-loaded=true]"),
    ("/label/Work", "label", "#threads[data-loaded=true]"),
    ("/search?q=invoice", "search", "#threads[data-loaded=true]"),
    ("/thread/{thread_id}", "thread", "#messages[data-loaded=true]"),
    ("/compose", "compose", "#send"),
    ("/compose?forward={invoice_id}", "forward", ".compose-files .attachment"),
    ("/compose?reply_all={workshop_id}", "reply-all", "#send"),
    ("/contacts", "contacts", "#contacts[data-loaded=true]"),
    ("/settings", "settings", "#settings-form"),
    ("/settings/labels", "labels", "#labels[data-loaded=true]"),
    ("/settings/filters", "filters", "#filters[data-loaded=true]"),
    ("/relogin?next=/env/mail/", "sign-in", "#relogin-email"),
]


@pytest.fixture
def live(server_factory, sqlite_url, port):
    return server_factory(sqlite_url, port)


def _watch(page) -> list[str]:
    problems: list[str] = []
    page.on(
        "console",
        lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None,
    )
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    return problems


def test_every_page_renders_without_errors_or_leaks(live, context, screenshot_dir):
    info = live.create("mail-009", "intervention", 42)
    workshop = live.create("mail-017", "clean", 42)  # only for its ids: same default mailbox
    values = {
        "thread_id": info["targets"]["invoices"][1]["id"].replace("e-", "t-"),
        "invoice_id": info["targets"]["invoice_ids"][1],
        "workshop_id": workshop["targets"]["forward_id"],
    }
    forbidden = ["mail-009", "mail-009-v1", info["instruction"], info["session_id"], "canonical", "target"]
    page = context.new_page()
    problems = _watch(page)
    page.goto(live.base_url + info["enter_url"])
    out = screenshot_dir / "mail"
    out.mkdir(parents=True, exist_ok=True)
    for path, name, ready in PAGES:
        if name == "reply-all":
            continue  # an id of another session's mailbox: checked below in its own session
        url = live.base_url + "/env/mail" + path.format(**values)
        shell = page.request.get(url).text()
        for secret in forbidden:
            assert secret not in shell, f"{name} page source contains {secret!r}"
        page.goto(url)
        page.locator(ready).first.wait_for()
        page.wait_for_load_state("networkidle")
        rendered = page.content()
        for secret in forbidden[:4]:
            assert secret not in rendered, f"{name} page shows {secret!r}"
        assert page.title().endswith("Parcel Mail")
        page.screenshot(path=str(out / f"{name}.png"))
    assert problems == []


def test_reply_all_prefills_everyone_but_me(live, context, screenshot_dir):
    info = live.create("mail-017", "clean", 42)
    page = context.new_page()
    problems = _watch(page)
    page.goto(live.base_url + info["enter_url"])
    page.goto(live.base_url + f"/env/mail/compose?reply_all={info['targets']['forward_id']}")
    page.locator("#send").wait_for()
    assert page.get_by_role("combobox", name="To", exact=True).input_value() == "marcus.lee@orchardline.com"
    cc = page.get_by_role("combobox", name="Cc", exact=True).input_value()
    assert cc == "sophie.turner@wrenanalytics.com, raj.mehta@greenleaffoods.com"
    assert page.get_by_label("Subject", exact=True).input_value() == "Re: Joint workshop dates"
    body = page.get_by_label("Message", exact=True).input_value()
    assert "> Jamie, could you settle the date" in body and "Product Designer · Orchardline" in body
    page.screenshot(path=str(screenshot_dir / "mail" / "reply-all.png"))
    assert problems == []


def test_compose_suggests_contacts(live, context):
    info = live.create("mail-003", "clean", 42)
    page = context.new_page()
    page.goto(live.base_url + info["enter_url"])
    page.get_by_role("link", name="Compose").click()
    to = page.get_by_role("combobox", name="To", exact=True)
    to.press_sequentially("pri")
    option = page.get_by_role("option", name="Priya Raman")
    option.wait_for()
    option.click()
    assert to.input_value() == "priya.raman@orchardline.com, "


def test_a_failed_load_offers_to_try_again(live, context):
    info = live.create("mail-001", "clean", 42)
    rule = {
        "action": "error_then_success",
        "url_pattern": "/messages",
        "methods": ["GET"],
        "fail_count": 1,
        "error_status": 503,
    }
    with live.control() as control:
        control.put(
            f"/control/sessions/{info['session_id']}/interventions", json={"network": [rule]}
        ).raise_for_status()
    page = context.new_page()
    page.goto(live.base_url + info["enter_url"])
    alert = page.get_by_role("alert")
    alert.wait_for()
    assert "temporarily unavailable" in alert.inner_text()
    alert.get_by_role("button", name="Try again").click()
    page.locator("#threads[data-loaded=true] li.row").first.wait_for()


def test_an_expired_session_leads_to_sign_in_and_back(live, context):
    info = live.create("mail-001", "clean", 42)
    rule = {
        "action": "session_expiry",
        "url_pattern": "/messages/*/star",
        "methods": ["POST"],
        "after_calls": 1,
    }
    with live.control() as control:
        control.put(
            f"/control/sessions/{info['session_id']}/interventions", json={"network": [rule]}
        ).raise_for_status()
    page = context.new_page()
    page.goto(live.base_url + info["enter_url"])
    page.locator("li.row button.star").first.click()
    toast = page.locator(".toast.error")
    toast.wait_for()
    assert "expired" in toast.inner_text().lower()
    toast.get_by_role("button", name="Sign in").click()
    page.get_by_role("heading", name="Sign in").wait_for()
    page.get_by_role("button", name="Sign in").click()
    page.locator("#threads[data-loaded=true]").wait_for()
    assert page.url.endswith("/env/mail/")


def test_pages_fit_a_small_laptop_screen(live, browser, screenshot_dir):
    info = live.create("mail-001", "clean", 42)
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        page = context.new_page()
        page.goto(live.base_url + info["enter_url"])
        page.locator("#threads[data-loaded=true]").wait_for()
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 1280, "the inbox scrolls sideways at 1280 px"
        page.screenshot(path=str(screenshot_dir / "mail" / "inbox-1280.png"))
    finally:
        context.close()
