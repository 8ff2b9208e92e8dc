"""Values that scripts write into fields, in Chromium (issue 47): each is one cleaned step with the
field's final value. An autocomplete pick is not counted twice (the value the menu wrote and the
browser's own `change` confirming it on blur), a date picker's value written with no event keeps
its one `change`, and a rich-text editor's zero-width caret marks never reach a recorded value."""

from __future__ import annotations

import pandas as pd
import pytest

from humantrace.cleaning import clean

pytestmark = pytest.mark.browser

PAGE = "/env/scripted.html"


def open_page(context, server, token: str):
    context.add_cookies([{"name": "htrec", "value": token, "url": server.base_url}])
    page = context.new_page()
    page.goto(server.base_url + PAGE)
    return page


def values_on(steps: pd.DataFrame, xpath: str) -> list[tuple[str, str]]:
    """The cleaned steps on one field that carry its value (fills and changes), in order."""
    on = steps[(steps["xpath"] == xpath) & steps["value"].notna()]
    return list(zip(on["type"], on["value"]))


def test_autocomplete_pick_is_one_change(live_server, context, wait_all_acked):
    """Typing "Sao", picking "Sao Tome and Principe" and leaving the field: fill, click, one change."""
    rid, token = live_server.new_recording()
    page = open_page(context, live_server, token)
    page.click("#dest")
    page.keyboard.type("Sao")
    page.click("#menu li >> text=Sao Tome and Principe")  # the menu writes the value; no input event
    assert page.input_value("#dest") == "Sao Tome and Principe"
    assert page.evaluate("document.activeElement.id") == "dest"  # the menu kept the focus
    page.click("#elsewhere")  # the person leaves the field: the browser's own change fires
    wait_all_acked(page, token, live_server, rid)
    frame = live_server.frame(rid)
    field = frame.loc[frame["value"] == "Sao", "xpath"].iloc[0]
    raw = frame[(frame["xpath"] == field) & (frame["type"] == "change")]
    assert raw["value"].tolist() == ["Sao Tome and Principe"]  # one event per value a script set
    steps = clean(frame)
    assert values_on(steps, field) == [("fill", "Sao"), ("change", "Sao Tome and Principe")]
    assert steps["type"].tolist().count("change") == 1


def test_date_picker_without_native_change_keeps_its_change(live_server, context, wait_all_acked):
    """A value written by script with no event, the field not focused: one change, the date."""
    rid, token = live_server.new_recording()
    page = open_page(context, live_server, token)
    page.click("#depart")
    page.click("#day19")  # focus leaves the field first; the picker writes the value, no event
    page.click("#elsewhere")
    assert page.input_value("#depart") == "2027-01-19"
    wait_all_acked(page, token, live_server, rid)
    frame = live_server.frame(rid)
    changes = frame[frame["type"] == "change"]
    assert changes["value"].tolist() == ["2027-01-19"]
    steps = clean(frame)
    assert values_on(steps, changes["xpath"].iloc[0]) == [("change", "2027-01-19")]
    assert steps["value"].notna().sum() == 1


def test_rich_text_caret_mark_is_not_in_the_value(live_server, context, wait_all_acked):
    """Typing, Ctrl+B (the editor inserts U+FEFF), typing: one fill with the text as shown."""
    rid, token = live_server.new_recording()
    page = open_page(context, live_server, token)
    page.click("#editor")
    page.keyboard.type("Hello")
    page.keyboard.press("Control+b")
    page.keyboard.type("World")
    assert "\ufeff" in page.inner_text("#editor")  # the editor's zero-width caret mark is there
    page.click("#elsewhere")
    wait_all_acked(page, token, live_server, rid)
    frame = live_server.frame(rid)
    values = frame["value"].dropna()
    assert not values.str.contains("\ufeff").any()
    editor = frame.loc[frame["type"] == "input", "xpath"].iloc[0]
    steps = clean(frame)
    assert values_on(steps, editor) == [("fill", "HelloWorld")]
    assert steps["value"].notna().sum() == 1
