"""UI profiles (environments/ui.py): a session's pages show one build of the site's controls, the
state and the evaluator do not change, and the kit's builds in site.js behave like the native ones.

Tested on the lab site, whose profiles are `icon-buttons` (button=icon) and `kit-controls`
(select=custom, confirmation=inline); the real sites' profiles are exercised by their oracles
(tests/environments/test_oracles.py runs every oracle on a hash-chosen profile).
"""

from __future__ import annotations

import dataclasses

import pytest
from playwright.sync_api import expect

from humantrace.environments import registry, ui
from humantrace.environments.oracles import choose

pytestmark = pytest.mark.browser


def test_every_registered_sites_profiles_are_well_formed(lab):
    assert ui.check_profiles(lab.ENVIRONMENT) == []
    assert ui.profile_names("lab") == ["default", "icon-buttons", "kit-controls"]
    assert ui.classes_of("lab", "kit-controls") == ("select", "confirmation")
    assert ui.classes_of("lab", None) == ()


def test_a_badly_declared_profile_is_named_with_what_is_wrong(lab):
    bad = dataclasses.replace(
        lab.ENVIRONMENT,
        ui_profiles=(
            ui.UIProfile(name="Big Buttons", title="x", controls={"button": "big"}, classes=("buttons",)),
            ui.UIProfile(name="plain", title="y"),
        ),
    )
    problems = "\n".join(ui.check_profiles(bad))
    assert "'Big Buttons': a name is lower-case" in problems
    assert "unknown interaction class(es) buttons" in problems
    assert "'plain': changes no control" in problems
    assert "'plain': names no interaction class" in problems


def test_an_unknown_profile_is_refused_and_names_the_choices(lab_server):
    with lab_server.control() as control:
        response = control.post(
            "/control/sessions", json={"task_id": "lab-001", "condition": "clean", "ui_profile": "dark-mode"}
        )
        listed = control.get("/control/ui-profiles").json()
    assert response.status_code == 422
    assert "no UI profile 'dark-mode'" in response.text and "icon-buttons" in response.text
    assert [p["name"] for p in listed["lab"]] == ["default", "icon-buttons", "kit-controls"]
    assert listed["lab"][2]["classes"] == ["select", "confirmation"]


def test_a_profile_changes_the_page_but_never_the_state(lab_server):
    infos = {
        name: lab_server.create("lab-001", "intervention", 42, ui_profile=name)
        for name in ui.profile_names("lab")
    }
    assert {info["initial_sha256"] for info in infos.values()} == {infos["default"]["initial_sha256"]}
    assert {info["instruction"] for info in infos.values()} == {infos["default"]["instruction"]}
    assert infos["kit-controls"]["ui_profile"] == "kit-controls"


def _open(lab_server, context, profile):
    info = lab_server.create("lab-001", "clean", 42, ui_profile=profile)
    page = context.new_page()
    page.goto(lab_server.base_url + info["enter_url"])
    page.locator("#notes[data-loaded=true]").wait_for()
    return page


def test_the_default_build_is_todays_page(lab_server, context):
    page = _open(lab_server, context, "default")
    assert page.locator("html").get_attribute("data-ui-profile") == "default"
    assert page.locator("select#order").is_visible()
    assert page.get_by_role("button", name="Save note").inner_text() == "Save note"
    assert page.locator(".ui-select, .ui-confirmation").count() == 0


def test_icon_buttons_show_an_icon_and_keep_their_words_as_accessible_names(lab_server, context):
    page = _open(lab_server, context, "icon-buttons")
    html = page.locator("html")
    assert (
        html.get_attribute("data-ui-profile") == "icon-buttons"
        and html.get_attribute("data-ui-button") == "icon"
    )
    save = page.get_by_role("button", name="Save note", exact=True)
    assert save.inner_text().strip() == "★" and save.get_attribute("title") == "Save note"
    pins = page.get_by_role("button", name="Pin", exact=True)
    assert pins.count() >= 4 and pins.first.inner_text().strip() == "⚲"
    # buttons the page builds later are iconified too, with their own (changed) words as names
    pins.first.click()
    page.reload()
    page.locator("#notes[data-loaded=true]").wait_for()
    assert page.get_by_role("button", name="Unpin", exact=True).first.inner_text().strip() == "⚲"


def test_the_custom_select_is_a_listbox_that_sets_the_native_value(lab_server, context):
    page = _open(lab_server, context, "kit-controls")
    assert not page.locator("select#order").is_visible()
    box = page.get_by_role("combobox", name="Order", exact=True)
    assert box.inner_text() == "Oldest first" and box.get_attribute("aria-expanded") == "false"
    assert page.get_by_role("listbox").count() == 0  # the options are in the page only while open
    box.click()
    assert box.get_attribute("aria-expanded") == "true"
    assert page.get_by_role("option").all_inner_texts() == ["Oldest first", "By title"]
    page.keyboard.press("Escape")
    assert page.get_by_role("listbox").count() == 0
    titles = page.locator("li.note .note-title")
    oldest_first = titles.all_inner_texts()
    assert oldest_first != sorted(oldest_first)  # so the reorder below is visible
    choose(page, "Order", "By title")  # the same helper the oracles use on the native select
    assert page.locator("select#order").input_value() == "title" and box.inner_text() == "By title"
    # the site's own change listener ran: it fetches the notes again, so wait for the new order
    expect(titles).to_have_text(sorted(oldest_first))
    choose(page, "Order", value="oldest")
    assert page.locator("select#order").input_value() == "oldest"


def test_choose_works_on_the_native_select(lab_server, context):
    page = _open(lab_server, context, "default")
    choose(page, "Order", "By title")
    assert page.locator("select#order").input_value() == "title"
    with pytest.raises(ValueError):
        choose(page, "Order")


def test_inline_confirmations_appear_in_the_page(lab_server, context):
    page = _open(lab_server, context, "kit-controls")
    page.get_by_label("Title").fill("Buy stamps")
    page.get_by_role("button", name="Save note").click()
    status = page.locator(".ui-confirmation[role=status]")
    status.get_by_text("Note saved").wait_for()
    assert page.locator(".toasts .toast").count() == 0
    page.evaluate("Site.toast('That did not work', 'error')")  # errors stay alerts that float
    assert page.locator(".toasts .toast[role=alert]").count() == 1


def test_a_session_whose_profile_the_site_dropped_falls_back_to_the_default(lab_server, context):
    page = _open(lab_server, context, "icon-buttons")
    env = registry.get("lab")
    registry.register(dataclasses.replace(env, ui_profiles=()), replace=True)
    try:
        page.reload()
        page.locator("#notes[data-loaded=true]").wait_for()
        assert page.locator("html").get_attribute("data-ui-profile") == "default"
    finally:
        registry.register(env, replace=True)
