"""The recorder in Debian's Chromium: every event type, resolvable XPaths, masking, navigations, reloads."""

from __future__ import annotations

import pytest

from humantrace.recorder.inject import init_script, snippet
from humantrace.recorder.schemas import EVENT_TYPES

pytestmark = pytest.mark.browser

# Playwright keeps every page "visible"; the only way to exercise the recorder's visibilitychange
# listener is to let the document report another state and fire the real event.
SET_VISIBILITY_JS = """(state) => {
  Object.defineProperty(document, 'visibilityState', {configurable: true, get: () => state});
  document.dispatchEvent(new Event('visibilitychange'));
}"""


def open_env_page(context, server, token: str, path: str):
    context.add_cookies([{"name": "htrec", "value": token, "url": server.base_url}])
    page = context.new_page()
    page.goto(server.base_url + path)
    return page


def scripted_session(page) -> None:
    """One pass over page1 that produces every event type."""
    page.click("#buy")
    page.dblclick("#dbl")
    page.click("#ctx", button="right")
    page.click("#name")
    page.keyboard.type("Ada")
    page.keyboard.press("Control+A")  # selects the field's text: a select event
    page.click("#password")
    page.keyboard.type("s3cret")
    page.select_option("#color", "green")
    page.check("#agree")
    page.keyboard.press("Tab")
    page.click("#q")
    page.keyboard.type("fox")
    page.click("#go")
    page.dblclick("#para", position={"x": 30, "y": 5})  # selects a word of page text
    page.mouse.move(5, 5)
    page.mouse.move(200, 300, steps=10)
    page.hover("#scroller")
    page.mouse.wheel(0, 60)
    page.wait_for_timeout(150)
    page.mouse.move(600, 20)
    page.mouse.wheel(0, 400)
    page.wait_for_timeout(150)
    page.click("#grow")
    page.click("#push")
    page.go_back()
    page.click("#hashlink")
    page.set_viewport_size({"width": 1000, "height": 700})
    page.evaluate(SET_VISIBILITY_JS, "hidden")
    page.evaluate(SET_VISIBILITY_JS, "visible")


def test_scripted_session_records_every_event_type(live_server, context, wait_all_acked, resolve_xpaths):
    rid, token = live_server.new_recording()
    page = open_env_page(context, live_server, token, "/env/page1.html")
    scripted_session(page)
    state = wait_all_acked(page, token, live_server, rid)
    frame = live_server.frame(rid)

    # One contiguous trace from 0, exactly what the browser numbered.
    assert frame["seq"].tolist() == list(range(state["next"]))
    # drags, frames and scripted values have their own tests (test_fidelity.py)
    assert set(frame["type"]) == set(EVENT_TYPES) - {"dragstart", "drop", "frame_gap"}

    # Every XPath resolves, in the page, to an element; the acted-on ones to the right element.
    xpaths = frame["xpath"].dropna()
    resolved = dict(zip(xpaths.index, resolve_xpaths(page, xpaths.tolist()), strict=True))
    assert all(resolved[i] is not None for i in xpaths.index), [
        frame.loc[i, "xpath"] for i in xpaths.index if resolved[i] is None
    ]
    frame["target"] = [resolved[i]["id"] if i in resolved else None for i in frame.index]

    pointer = frame[frame["type"].isin(["click", "dblclick", "contextmenu", "submit"])]
    assert list(zip(pointer["type"], pointer["target"], strict=True)) == [
        ("click", "buy"),
        ("click", "dbl"),
        ("click", "dbl"),
        ("dblclick", "dbl"),
        ("contextmenu", "ctx"),
        ("click", "name"),
        ("click", "password"),
        ("click", "agree"),
        ("click", "q"),
        ("click", "go"),
        ("submit", "search"),
        ("click", "para"),
        ("click", "para"),
        ("dblclick", "para"),
        ("click", "grow"),
        ("click", "push"),
        ("click", "hashlink"),
    ]
    assert (pointer.loc[pointer["type"] != "submit", ["x", "y"]].notna()).all().all()

    name = frame[frame["target"] == "name"]
    assert name[name["type"] == "keydown"]["key"].tolist()[:3] == ["A", "d", "a"]
    assert name[name["type"] == "input"]["value"].tolist() == ["A", "Ad", "Ada"]
    assert name[name["type"] == "select"]["value"].tolist() == ["Ada"]
    assert frame[(frame["type"] == "select") & (frame["target"] == "para")]["value"].tolist() == ["quick"]
    assert frame[(frame["type"] == "change") & (frame["target"] == "color")]["value"].tolist() == ["green"]
    assert frame[(frame["type"] == "change") & (frame["target"] == "agree")]["value"].tolist() == ["true"]
    assert "Tab" in frame[frame["type"] == "keydown"]["key"].tolist()
    assert {"focus", "blur"} <= set(frame[frame["target"] == "agree"]["type"])

    # Passwords are masked: same length, never the typed characters.
    password = frame[frame["target"] == "password"]
    assert password[password["type"] == "keydown"]["key"].tolist() == ["*"] * 6
    assert password[password["type"] == "input"]["value"].tolist() == ["*" * n for n in range(1, 7)]
    for column in ("key", "value", "url", "xpath"):
        assert not frame[column].fillna("").str.contains("s3cret|3cr").any()

    scrolls = frame[frame["type"] == "scroll"]
    inner = scrolls[scrolls["target"] == "scroller"]
    assert len(inner) >= 1 and inner["dy"].sum() > 0 and (inner["scroll_y"] > 0).all()
    document_scrolls = scrolls[scrolls["xpath"] == "/html"]
    assert len(document_scrolls) >= 1 and document_scrolls["dy"].iloc[0] == 400

    moves = frame[frame["type"] == "mousemove"]
    assert len(moves) >= 3 and moves[["x", "y"]].notna().all().all()
    grow_click = frame[(frame["type"] == "click") & (frame["target"] == "grow")].index[0]
    after_grow = frame.loc[grow_click:]
    changes = after_grow[after_grow["type"] == "dom_change"]
    assert changes["added"].iloc[0] >= 1

    assert frame[frame["type"] == "navigation"]["nav"].tolist() == [
        "load",
        "push",
        "popstate",
        "popstate",
        "hashchange",
    ]
    assert frame[frame["type"] == "visibility"]["state"].tolist() == ["hidden", "visible"]
    resize = frame[frame["type"] == "resize"]
    assert resize[["width", "height"]].values.tolist() == [[1000, 700]]
    assert frame["url"].str.startswith(live_server.base_url + "/env/page1.html").all()
    assert frame["t_ms"].is_monotonic_increasing

    recording = live_server.recording(rid)
    assert "Chrome" in recording.user_agent
    assert (recording.viewport_w, recording.viewport_h) == (1366, 800)
    assert recording.screen_w > 0 and recording.screen_h > 0


def test_mask_all_text_masks_every_typed_value(live_server, context, wait_all_acked):
    rid, token = live_server.new_recording(mask_all_text=True)
    page = open_env_page(context, live_server, token, "/env/page1.html")
    page.click("#notes")
    page.keyboard.type("Hi you")
    page.keyboard.press("Enter")
    page.check("#agree")
    wait_all_acked(page, token, live_server, rid)
    frame = live_server.frame(rid)
    keys = frame[frame["type"] == "keydown"]["key"].tolist()
    assert keys == ["*"] * 6 + ["Enter"]
    values = frame[frame["type"] == "input"]["value"].tolist()
    assert values[:7] == ["*", "**", "***", "****", "*****", "******", "*******"]
    assert values[-1] == "true"  # a checkbox state is not typed text
    assert not frame["value"].fillna("").str.contains("Hi").any()


def test_navigation_and_reload_keep_one_contiguous_trace(live_server, context, wait_all_acked):
    rid, token = live_server.new_recording()
    page = open_env_page(context, live_server, token, "/env/page1.html")
    page.click("#name")
    page.keyboard.type("abc")
    page.click("#to-page2")
    page.wait_for_url("**/page2.html")
    page.click("#other")
    page.keyboard.type("xyz")
    page.reload()
    page.click("#other")
    page.keyboard.type("12")
    page.click("#to-page1")
    page.wait_for_url("**/page1.html")
    page.click("#name")
    page.keyboard.type("Q")
    state = wait_all_acked(page, token, live_server, rid)
    frame = live_server.frame(rid)

    assert frame["seq"].tolist() == list(range(state["next"]))
    assert "".join(frame[frame["type"] == "keydown"]["key"]) == "abcxyz12Q"
    navs = frame[frame["type"] == "navigation"]
    assert navs["nav"].tolist() == ["load", "unload", "load", "unload", "load", "unload", "load"]
    pages = [url.rsplit("/", 1)[-1] for url in navs["url"]]
    assert pages == [
        "page1.html",
        "page1.html",
        "page2.html",
        "page2.html",
        "page2.html",
        "page2.html",
        "page1.html",
    ]
    # Typed values are intact across pages: nothing lost, nothing doubled.
    inputs = frame[frame["type"] == "input"]["value"].tolist()
    assert inputs == ["a", "ab", "abc", "x", "xy", "xyz", "1", "12", "Q"]


def test_init_script_records_on_any_page(live_server, context, wait_all_acked, foreign_site):
    """A page that is not ours (another origin, no middleware) recorded through add_init_script."""
    rid, token = live_server.new_recording()
    url = foreign_site("/start", "<html><body><button id='b'>Go</button><input id='i'></body></html>")
    context.add_init_script(init_script(server_url=live_server.base_url, token=token, mousemove_sample_ms=0))
    page = context.new_page()  # its about:blank must not be recorded
    page.goto(url)
    page.click("#b")
    page.click("#i")
    page.keyboard.type("ok")
    wait_all_acked(page, token, live_server, rid)
    frame = live_server.frame(rid)
    assert frame["seq"].tolist() == list(range(len(frame)))
    assert (frame["url"] == url).all()
    clicks = frame[frame["type"] == "click"]["xpath"].tolist()
    assert clicks == ["/html/body/button[1]", "/html/body/input[1]"]
    assert frame[frame["type"] == "input"]["value"].tolist() == ["o", "ok"]


def test_snippet_records_on_another_origin(live_server, context, wait_all_acked, foreign_site):
    rid, token = live_server.new_recording()
    tag = snippet(server_url=live_server.base_url, token=token)
    url = foreign_site(
        "/page",
        f"<html><head>{tag}</head><body><a id='a' href='#x'>x</a><textarea id='t'></textarea></body></html>",
    )
    page = context.new_page()
    page.goto(url)
    page.click("#t")
    page.keyboard.type("hi")
    page.click("#a")
    wait_all_acked(page, token, live_server, rid)
    frame = live_server.frame(rid)
    assert frame["seq"].tolist() == list(range(len(frame)))
    assert frame[frame["type"] == "keydown"]["key"].tolist() == ["h", "i"]
    assert frame[frame["type"] == "navigation"]["nav"].tolist() == ["load", "popstate", "hashchange"]


def test_ended_recording_stops_the_recorder(live_server, context, wait_all_acked):
    rid, token = live_server.new_recording()
    page = open_env_page(context, live_server, token, "/env/page1.html")
    page.click("#buy")
    state = wait_all_acked(page, token, live_server, rid)
    live_server.end(rid)
    page.click("#dbl")
    page.wait_for_timeout(1500)
    assert live_server.seqs(rid) == list(range(state["next"]))
    # With an ended token, environment pages no longer get the recorder at all.
    page.reload()
    assert page.locator("script[src='/recorder/recorder.js']").count() == 0


def test_http_fallback_when_websockets_cannot_open(live_server, context, wait_all_acked):
    """A network that blocks websockets: the recorder delivers everything through POST /recorder/events."""
    rid, token = live_server.new_recording()
    context.add_init_script("window.WebSocket = function () { throw new Error('websockets blocked'); };")
    page = open_env_page(context, live_server, token, "/env/page1.html")
    page.click("#name")
    page.keyboard.type("via http")
    page.click("#to-page2")
    page.wait_for_url("**/page2.html")
    page.click("#other")
    page.keyboard.type("ok")
    state = wait_all_acked(page, token, live_server, rid)
    frame = live_server.frame(rid)
    assert frame["seq"].tolist() == list(range(state["next"]))
    assert "".join(frame[frame["type"] == "keydown"]["key"]) == "via httpok"
    assert frame[frame["type"] == "navigation"]["nav"].tolist() == ["load", "unload", "load"]
    assert '"WebSocket /recorder/ws' not in live_server.log.getvalue()
