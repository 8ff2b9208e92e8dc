"""Recorder fidelity on real pages in Chromium (issue 19): secrets never in clear, fills that
survive caret scrolling and scripted values, drags, frames, several tabs, contenteditable."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from sqlalchemy import text

from humantrace.cleaning import clean, to_records
from humantrace.exports.bundle import BundleWriter

pytestmark = pytest.mark.browser

PAGE = "/env/fidelity.html"
SECRETS = {
    "open shadow root": "OpenSecret1",
    "closed shadow root": "ClosedSecret2",
    "shown password": "ShownSecret3",
    "one-time code": "OtcSecret4",
    "new password": "NewSecret5",
    # Not all digits: its 4-character pieces must not turn up by chance in a millisecond timestamp
    # (a run once found "1980" inside one).
    "declared selector": "06/May/80",
}


def open_page(context, server, token: str, path: str = PAGE):
    context.add_cookies([{"name": "htrec", "value": token, "url": server.base_url}])
    page = context.new_page()
    page.goto(server.base_url + path)
    return page


def cleaned(server, rid: int) -> pd.DataFrame:
    return clean(server.frame(rid))


def test_secrets_appear_nowhere(live_server, context, wait_all_acked, tmp_path):
    """A secret typed into each sensitive field is in no stored row, no bundle file and no log."""
    rid, token = live_server.new_recording(mask_selectors=[".dob"])
    page = open_page(context, live_server, token)
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    page.locator("#open-host input").click()
    page.keyboard.type(SECRETS["open shadow root"])
    page.click("#closed-host")  # the input fills the host; Playwright cannot see into a closed root
    page.keyboard.type(SECRETS["closed shadow root"])
    page.click("#pin")
    page.keyboard.type("Pw")
    page.click("#show")  # type=password becomes type=text
    page.click("#pin")
    page.keyboard.type(SECRETS["shown password"])
    page.click("#otc")
    page.keyboard.type(SECRETS["one-time code"])
    page.click("#newpw")
    page.keyboard.type(SECRETS["new password"])
    page.click("#dob")
    page.keyboard.type(SECRETS["declared selector"])
    page.keyboard.press("Control+A")  # selected text of a masked field is masked too
    assert page.locator("#pin").get_attribute("type") == "text"
    wait_all_acked(page, token, live_server, rid)

    with live_server.engine.connect() as conn:
        rows = conn.execute(text("SELECT * FROM raw_event WHERE recording_id = :r"), {"r": rid}).all()
    stored = json.dumps([list(map(str, row)) for row in rows])
    frame = live_server.frame(rid)
    assert (frame["key"] == "*").sum() >= sum(len(s) for s in SECRETS.values())
    out = tmp_path / "bundle"
    with BundleWriter(out, formats=("parquet", "csv")) as writer:
        writer.append("events_raw", frame)
        clean_rows = pd.DataFrame(to_records(cleaned(live_server, rid))).drop(columns=["trigger"])
        clean_rows["source_seqs"] = clean_rows["source_seqs"].map(lambda s: ";".join(map(str, s)))
        writer.append("events_clean", clean_rows)
    bundle = "".join(p.read_bytes().decode("utf-8", "replace") for p in Path(out).rglob("*") if p.is_file())
    logs = live_server.log.getvalue() + "\n".join(console)
    for where, secret in SECRETS.items():
        for piece in {secret, secret[:4], secret[-4:]}:
            assert piece not in stored, (where, piece)
            assert piece not in bundle, (where, piece)
            assert piece not in logs, (where, piece)


def test_caret_scrolling_leaves_one_fill(live_server, context, wait_all_acked):
    rid, token = live_server.new_recording()
    page = open_page(context, live_server, token)
    page.click("#narrow")
    typed = "abcdefghijklmnopqrstuvwxyz012345"
    page.keyboard.type(typed, delay=25)  # a person's pace: the field scrolls between keystrokes
    page.click("#otc")
    wait_all_acked(page, token, live_server, rid)
    frame = live_server.frame(rid)
    narrow = frame[frame["xpath"] == frame.loc[frame["value"] == typed, "xpath"].iloc[0]]
    # the field scrolled itself as the caret moved (Chromium coalesces scroll events, so how many
    # it fires depends on the machine's load: at least two, not an exact count)
    assert (narrow["type"] == "scroll").sum() >= 2
    steps = cleaned(live_server, rid)
    on_field = steps[steps["xpath"] == narrow["xpath"].iloc[0]]
    fills = on_field[on_field["type"] == "fill"]
    assert len(fills) == 1 and fills["value"].iloc[0] == typed
    # at most the field scrolling back to its start when it loses focus, after the fill
    after = on_field.loc[fills.index[0] :, "type"].tolist()[1:]
    assert "scroll" not in on_field.loc[: fills.index[0], "type"].tolist() and after.count("scroll") <= 1


def test_values_set_by_scripts_are_recorded(live_server, context, wait_all_acked):
    rid, token = live_server.new_recording()
    page = open_page(context, live_server, token)
    page.click("#country")
    page.keyboard.type("Micr")
    page.click("#suggestions li")  # the page completes the word; no input event
    page.click("#date")
    page.click("#day12")  # a date picker writes the date
    page.wait_for_timeout(700)
    assert page.input_value("#country") == "Micronesia"
    wait_all_acked(page, token, live_server, rid)
    frame = live_server.frame(rid)
    changes = frame[frame["type"] == "change"]
    assert "Micronesia" in changes["value"].tolist()
    assert "2026-12-12" in changes["value"].tolist()
    steps = cleaned(live_server, rid)
    country = steps[
        (steps["xpath"] == changes.loc[changes["value"] == "Micronesia", "xpath"].iloc[0])
        & steps["value"].notna()
    ]
    assert country["value"].iloc[-1] == "Micronesia"  # a replay ends with the right value


def test_drags_become_one_step(live_server, context, wait_all_acked):
    rid, token = live_server.new_recording()
    page = open_page(context, live_server, token)
    box = page.locator("#track").bounding_box()
    start = (box["x"] + 10, box["y"] + 15)
    page.mouse.move(*start)
    page.mouse.down()
    for i in range(1, 8):
        page.mouse.move(start[0] + 30 * i, start[1], steps=2)
        page.wait_for_timeout(30)
    page.mouse.up()
    page.click("#show")  # a plain click afterwards stays a click
    page.drag_and_drop("#src", "#dst")
    wait_all_acked(page, token, live_server, rid)
    frame = live_server.frame(rid)
    assert {"mousedown", "mouseup", "dragstart", "drop"} <= set(frame["type"])
    steps = cleaned(live_server, rid)
    drags = steps[steps["type"] == "drag"]
    assert len(drags) == 2
    slider = drags.iloc[0]
    assert (slider["x"], slider["y"]) == pytest.approx(start, abs=1)
    assert slider["dx"] == pytest.approx(210, abs=2) and slider["dy"] == pytest.approx(0, abs=1)
    dropped = drags.iloc[1]  # #src (4th div of the section) dropped on #dst (5th), before the page moved it
    assert (dropped["xpath"], dropped["value"]) == (
        "/html/body/section[2]/div[4]",
        "/html/body/section[2]/div[5]",
    )
    assert "click" in steps["type"].tolist()
    assert not steps["type"].isin(["mousedown", "mouseup"]).any()


def test_frames_are_recorded_and_gaps_marked(live_server, context, wait_all_acked, foreign_site):
    rid, token = live_server.new_recording()
    page = open_page(context, live_server, token)
    foreign = foreign_site("/widget.html", "<!doctype html><html><body><input id='w'></body></html>")
    page.evaluate("(url) => { document.getElementById('foreign').src = url; }", foreign)
    page.wait_for_timeout(500)
    inner = page.frame_locator("#inner")
    inner.locator("#inframe").click()
    page.keyboard.type("Happy birthday")
    inner.locator("#inbutton").click()
    wait_all_acked(page, token, live_server, rid)
    frame = live_server.frame(rid)
    in_frame = frame[frame["frame_xpath"] != ""]
    assert set(in_frame["frame_xpath"]) == {"/html/body/iframe[1]"}
    assert {"click", "keydown", "input"} <= set(in_frame["type"])
    assert in_frame.loc[in_frame["type"] == "input", "value"].iloc[-1] == "Happy birthday"
    child = page.frame_locator("#inner").locator("body").element_handle().owner_frame()
    targets = {
        xp: child.evaluate("(xp) => document.evaluate(xp, document, null, 9, null).singleNodeValue?.id", xp)
        for xp in in_frame["xpath"].dropna().unique()
    }
    assert {"inframe", "inbutton"} <= set(targets.values())
    gaps = frame[frame["type"] == "frame_gap"]
    assert gaps["xpath"].tolist() == ["/html/body/iframe[2]"] and gaps["frame_xpath"].tolist() == [""]
    assert (frame.loc[frame["frame_xpath"] == "", "type"] != "input").any()


def test_several_tabs_each_get_a_stream(live_server, context, wait_all_acked):
    """Two tabs with one token, and a tab opened by window.open (which copies sessionStorage):
    every event of every tab is stored, each tab in its own contiguous stream."""
    rid, token = live_server.new_recording()
    first = open_page(context, live_server, token, "/env/page1.html")
    second = context.new_page()
    second.goto(live_server.base_url + "/env/page1.html")
    for _ in range(20):
        first.click("#buy")
        second.click("#buy")
    with first.expect_popup() as popup:
        first.evaluate("() => window.open(location.href)")
    third = popup.value
    third.wait_for_load_state()
    for _ in range(5):
        third.click("#buy")
    for page in (first, second, third):
        page.evaluate("() => new Promise((r) => setTimeout(r, 1200))")
    frame = live_server.frame(rid)
    deadline = 0
    while deadline < 100 and (frame["type"] == "click").sum() < 45:
        first.wait_for_timeout(200)
        frame = live_server.frame(rid)
        deadline += 1
    clicks = frame[frame["type"] == "click"].groupby("stream").size().sort_values().tolist()
    assert clicks == [5, 20, 20]
    for _, events in frame.groupby("stream"):
        assert events["seq"].tolist() == list(range(len(events)))
    steps = cleaned(live_server, rid)
    assert (steps["type"] == "click").sum() == 45


def test_contenteditable_keeps_line_breaks(live_server, context, wait_all_acked):
    rid, token = live_server.new_recording()
    page = open_page(context, live_server, token)
    page.click("#notes")
    page.keyboard.type("line one")
    page.keyboard.press("Enter")
    page.keyboard.type("line two")
    wait_all_acked(page, token, live_server, rid)
    frame = live_server.frame(rid)
    values = frame[(frame["type"] == "input")]["value"].tolist()
    assert values[-1] == "line one\nline two"
