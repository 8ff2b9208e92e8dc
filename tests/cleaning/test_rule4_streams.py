"""Rule 4 (drags), fills that take caret scrolls and scripted values, streams, and rules 1-3 unchanged."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from humantrace.cleaning import clean, raw_frame, to_records
from humantrace.cleaning.reference import clean_reference

T0 = 1_700_000_000_000
SNAPSHOT = Path(__file__).parent / "data" / "rules_1_3_snapshot.json"
FIELD = "/html/body/form/input[1]"


def _plain(frame):
    """The fixtures without what this session's rule changes touch (scripted values, field scrolls)."""
    frame = frame[frame["type"] != "change"].copy()
    scrolls = frame["type"] == "scroll"  # containers of their own, never a typed-into element
    frame.loc[scrolls, "xpath"] = frame.loc[scrolls, "xpath"].fillna("") + "/div[99]"
    return frame.reset_index(drop=True)


@pytest.mark.parametrize("seed", range(6))
def test_traces_without_drags_clean_exactly_as_before(seed, make_random_raw):
    """The cleaned output of the existing random fixtures equals what rules 1-3 gave before rule 4
    (snapshot taken with the previous code)."""
    expected = json.loads(SNAPSHOT.read_text())[str(seed)]
    records = to_records(clean(_plain(make_random_raw(seed, 4000, 30))))
    text = json.dumps(records, sort_keys=True, default=str)
    assert len(records) == expected["rows"]
    assert hashlib.sha256(text.encode()).hexdigest() == expected["sha256"]


def test_presses_around_clicks_change_nothing(trace):
    """The recorder now reports mousedown/mouseup around every click: they are context."""
    trace.add("mousemove", 0, xpath="/html/body/button[1]", x=10, y=10)
    trace.add("click", 100, xpath="/html/body/button[1]", x=10, y=10)
    before = clean(trace.frame())
    with_presses = type(trace)()
    with_presses.add("mousemove", 0, xpath="/html/body/button[1]", x=10, y=10)
    with_presses.add("mousedown", 60, xpath="/html/body/button[1]", x=10, y=10)
    with_presses.add("mouseup", 95, xpath="/html/body/button[1]", x=11, y=10)
    with_presses.add("click", 100, xpath="/html/body/button[1]", x=11, y=10)
    after = clean(with_presses.frame())
    assert list(after["type"]) == list(before["type"]) == ["mousemove", "click"]
    assert next(iter(after["trigger"])) == "click"


def test_press_moves_release_elsewhere_is_one_drag(trace):
    trace.add("mousemove", 0, xpath="/html/body/div[1]", x=10, y=10)
    trace.add("mousedown", 50, xpath="/html/body/div[1]/span[1]", x=10, y=10)
    for i in range(5):
        trace.add("mousemove", 100 + 50 * i, xpath="/html/body", x=10 + 30 * i, y=12)
    trace.add("mouseup", 400, xpath="/html/body/div[2]", x=200, y=40)
    trace.add("click", 401, xpath="/html/body", x=200, y=40)
    trace.add("click", 900, xpath="/html/body/button[1]", x=5, y=5)
    cleaned = clean(trace.frame())
    assert list(cleaned["type"]) == ["drag", "click"]
    drag = cleaned.iloc[0]
    assert (drag["x"], drag["y"], drag["dx"], drag["dy"]) == (10, 10, 190, 30)
    assert drag["xpath"] == "/html/body/div[1]/span[1]" and drag["value"] == "/html/body/div[2]"
    assert list(drag["source_seqs"]) == list(range(1, 9))
    pd_ref = clean_reference(trace.frame())
    assert list(pd_ref["type"]) == ["drag", "click"] and list(pd_ref["source_seqs"][0]) == list(range(1, 9))


def test_html5_drop_is_a_drag(trace):
    trace.add("mousedown", 0, xpath="/html/body/ul[1]/li[1]", x=20, y=20)
    trace.add("dragstart", 10, xpath="/html/body/ul[1]/li[1]", x=22, y=20)
    trace.add("drop", 300, xpath="/html/body/ul[2]", x=300, y=20)
    cleaned = clean(trace.frame())
    assert list(cleaned["type"]) == ["drag"] and cleaned.iloc[0]["value"] == "/html/body/ul[2]"


def test_caret_scrolls_and_scripted_values_stay_in_one_fill(trace):
    at = 0
    for i, char in enumerate("abcdefghijklmnopqrstuvwxyzABCDEF"):
        trace.add("keydown", at, xpath=FIELD, key=char)
        trace.add("input", at + 2, xpath=FIELD, value="abcdefghijklmnopqrstuvwxyzABCDEF"[: i + 1])
        if i >= 8:  # the caret passed the visible width: the field scrolls itself
            trace.add("scroll", at + 3, xpath=FIELD, scroll_x=7.0 * (i - 7), scroll_y=0, dx=7.0, dy=0)
        at += 90
    trace.add("change", at, xpath=FIELD, value="abcdefghijklmnopqrstuvwxyzABCDEF!")  # a script completes it
    cleaned = clean(trace.frame())
    assert list(cleaned["type"]) == ["fill"]
    assert cleaned.iloc[0]["value"] == "abcdefghijklmnopqrstuvwxyzABCDEF!"


def test_streams_interleave_by_time_and_never_merge():
    events = []
    for stream, offset in ((0, 0), (1, 1000)):
        for i, text in enumerate(["a", "ab", "abc"]):
            events.append(
                {
                    "attempt_id": 1,
                    "stream": stream,
                    "seq": i,
                    "t_ms": T0 + offset + 100 * i,
                    "type": "input",
                    "xpath": FIELD,
                    "url": "http://shop.test/",
                    "value": text,
                }
            )
    raw = raw_frame(events)
    cleaned = clean(raw)
    assert list(cleaned["type"]) == ["fill", "fill"]
    assert list(cleaned["stream"]) == [0, 1] and list(cleaned["value"]) == ["abc", "abc"]
    interleaved = raw_frame(
        [
            {
                "attempt_id": 1,
                "stream": 0,
                "seq": 0,
                "t_ms": T0,
                "type": "click",
                "xpath": "/html/body/a[1]",
                "x": 1,
                "y": 1,
            },
            {
                "attempt_id": 1,
                "stream": 1,
                "seq": 0,
                "t_ms": T0 + 50,
                "type": "click",
                "xpath": "/html/body/a[2]",
                "x": 1,
                "y": 1,
            },
            {
                "attempt_id": 1,
                "stream": 0,
                "seq": 1,
                "t_ms": T0 + 100,
                "type": "click",
                "xpath": "/html/body/a[3]",
                "x": 1,
                "y": 1,
            },
        ]
    )
    cleaned = clean(interleaved)
    assert list(cleaned["xpath"]) == ["/html/body/a[1]", "/html/body/a[2]", "/html/body/a[3]"]
    assert list(clean_reference(interleaved)["xpath"]) == list(cleaned["xpath"])
