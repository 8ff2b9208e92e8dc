"""Client-layer dispatches in Chromium: applied only to sessions that register them, each one
deterministic and recoverable the way a person would recover."""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

pytestmark = pytest.mark.browser


def open_session(server, context, client, task="lab-002"):
    info = server.create(task, "clean", 42)
    if client is not None:
        with server.control() as control:
            response = control.put(
                f"/control/sessions/{info['session_id']}/interventions", json={"client": client}
            )
        assert response.status_code == 200, response.text
    page = context.new_page()
    page.goto(server.base_url + info["enter_url"])
    page.locator("#notes[data-loaded=true]").wait_for()
    return info, page


def note_titles(server, session_id):
    with server.control() as control:
        return [
            n["title"] for n in control.get(f"/control/sessions/{session_id}/state").json()["state"]["notes"]
        ]


def save(page, title):
    page.get_by_label("Title").fill(title)
    page.get_by_role("button", name="Save note").click()


def test_clean_sessions_load_the_same_client_script_with_nothing_to_do(lab_server, context):
    """Blindness: both conditions load the same scripts; a clean page's script changes nothing."""
    info, page = open_session(lab_server, context, None)
    assert page.locator('script[src="/env-static/ux.js"][data-c]').count() == 1
    config = page.evaluate("JSON.parse(atob(document.querySelector('script[data-c]').dataset.c))")
    assert config["dispatches"] == []
    save(page, "Plain")
    page.locator("li.note .note-title", has_text="Plain").wait_for()


def test_the_lab_variant_registers_its_client_dispatches(lab_server, context):
    info = lab_server.create("lab-002", "intervention", 42)
    page = context.new_page()
    page.goto(lab_server.base_url + info["enter_url"])
    assert page.locator("script[data-c]").count() == 1
    page.get_by_role("dialog").wait_for()
    assert "Try Lab Notes Pro" in page.get_by_role("dialog").inner_text()


def test_swallowed_clicks_swallow_only_the_first_n(lab_server, context):
    info, page = open_session(
        lab_server, context, [{"action": "swallowed_clicks", "selector": "#save", "count": 2}]
    )
    for _ in range(2):
        save(page, "Swallow")
        page.wait_for_timeout(300)
    assert "Swallow" not in note_titles(lab_server, info["session_id"])
    page.reload()  # the budget holds across a reload: no third swallow
    page.locator("#notes[data-loaded=true]").wait_for()
    save(page, "Swallow")
    page.locator("li.note .note-title", has_text="Swallow").wait_for()
    assert note_titles(lab_server, info["session_id"]).count("Swallow") == 1


def test_intercepting_overlay_blocks_until_closed_and_does_not_return(lab_server, context):
    info, page = open_session(
        lab_server, context, [{"action": "intercepting_overlay", "title": "Big sale", "message": "50% off"}]
    )
    dialog = page.get_by_role("dialog")
    dialog.wait_for()
    with pytest.raises(PlaywrightTimeoutError):
        page.get_by_role("button", name="Save note").click(timeout=800)  # the overlay intercepts it
    dialog.get_by_role("button", name="Close").click()
    save(page, "After overlay")
    page.locator("li.note .note-title", has_text="After overlay").wait_for()
    page.reload()
    page.locator("#notes[data-loaded=true]").wait_for()
    page.wait_for_timeout(200)
    assert page.get_by_role("dialog").count() == 0


def test_stuck_loader_disappears_on_reload(lab_server, context):
    info, page = open_session(
        lab_server, context, [{"action": "stuck_loader", "trigger_selector": "#save", "message": "Saving…"}]
    )
    save(page, "Loader")
    loader = page.get_by_role("progressbar")
    loader.wait_for()
    page.wait_for_timeout(500)
    assert loader.is_visible()  # it never finishes by itself
    page.reload()
    page.locator("#notes[data-loaded=true]").wait_for()
    assert page.get_by_role("progressbar").count() == 0
    assert "Loader" in [t.strip() for t in page.locator("li.note .note-title").all_inner_texts()]


def test_confirmation_modal_confirms_then_proceeds(lab_server, context):
    info, page = open_session(
        lab_server,
        context,
        [
            {
                "action": "confirmation_modal",
                "selector": "#save",
                "title": "Save this note?",
                "confirm_text": "Yes, save",
            }
        ],
    )
    save(page, "Confirmed")
    dialog = page.get_by_role("dialog")
    dialog.wait_for()
    assert "Confirmed" not in note_titles(lab_server, info["session_id"])
    dialog.get_by_role("button", name="Yes, save").click()
    page.locator("li.note .note-title", has_text="Confirmed").wait_for()


def test_decoy_element_does_nothing_and_the_real_one_works(lab_server, context):
    info, page = open_session(
        lab_server, context, [{"action": "decoy_element", "selector": "#save", "position": "before"}]
    )
    buttons = page.get_by_role("button", name="Save note")
    assert buttons.count() == 2
    page.get_by_label("Title").fill("Decoy test")
    buttons.nth(0).click()
    page.wait_for_timeout(300)
    assert "Decoy test" not in note_titles(lab_server, info["session_id"])
    buttons.nth(1).click()
    page.locator("li.note .note-title", has_text="Decoy test").wait_for()


def test_misaligned_labels_swap_the_visible_text(lab_server, context):
    info, page = open_session(
        lab_server,
        context,
        [{"action": "misaligned_labels", "selectors": ["label[for=title]", "label[for=body]"]}],
    )
    assert page.locator("label[for=title]").inner_text() == "Body"
    assert page.locator("label[for=body]").inner_text() == "Title"


def test_save_drift_changes_the_field_once(lab_server, context):
    info, page = open_session(
        lab_server,
        context,
        [{"action": "save_drift", "selector": "#title", "submit_selector": "#save", "value": "Drifted"}],
    )
    save(page, "Intended")
    page.locator("li.note .note-title", has_text="Drifted").wait_for()
    assert page.get_by_label("Title").input_value() == "Drifted"  # visible to whoever re-reads
    save(page, "Intended")
    page.locator("li.note .note-title", has_text="Intended").wait_for()


def test_double_submit_trap_holds_the_first_click(lab_server, context):
    info, page = open_session(
        lab_server, context, [{"action": "double_submit_trap", "selector": "#save", "delay_ms": 600}]
    )
    page.get_by_label("Title").fill("Twice")
    page.get_by_role("button", name="Save note").click()
    page.get_by_role("button", name="Save note").click()  # the impatient second click
    page.wait_for_timeout(1200)
    assert note_titles(lab_server, info["session_id"]).count("Twice") == 2


def test_budgets_start_afresh_after_a_reset(lab_server, context):
    info, page = open_session(
        lab_server, context, [{"action": "swallowed_clicks", "selector": "#save", "count": 1}]
    )
    save(page, "One")
    page.wait_for_timeout(300)
    save(page, "One")
    page.locator("li.note .note-title", has_text="One").wait_for()
    with lab_server.control() as control:
        control.post(f"/control/sessions/{info['session_id']}/reset")
    page.reload()
    page.locator("#notes[data-loaded=true]").wait_for()
    save(page, "Two")
    page.wait_for_timeout(300)
    assert "Two" not in note_titles(lab_server, info["session_id"])  # swallowed again in the warm attempt
