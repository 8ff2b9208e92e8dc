"""Traces without streams: a null `stream` (bundle 1.0, older recorders) or none at all, and event
records that carry no `attempt_id` (issue #39, item 12)."""

from __future__ import annotations

import pandas as pd
import pytest

from humantrace.cleaning import clean, clean_records
from humantrace.cleaning.reference import clean_reference


@pytest.fixture(params=["pipeline", "reference"])
def cleaner(request):
    return clean if request.param == "pipeline" else clean_reference


def _typing(trace) -> None:
    trace.add("click", 0, xpath="/html/body/input", x=1.0, y=2.0)
    at = trace.type_text("/html/body/input", "hat", 100)
    trace.add("click", at + 50, xpath="/html/body/button", x=5.0, y=5.0)


def test_a_null_stream_cleans_as_a_trace_without_the_column(trace, cleaner):
    _typing(trace)
    without = trace.frame()
    nulls = without.assign(stream=pd.Series([None] * len(without), dtype=object))
    cleaned = cleaner(nulls)
    # click, one fill of "hat" (3 keydowns + 3 inputs), click
    assert cleaned["type"].tolist() == ["click", "fill", "click"]
    assert cleaned["value"].tolist()[1] == "hat"
    assert cleaned["source_seqs"].tolist() == [[0], [1, 2, 3, 4, 5, 6], [7]]
    expected = cleaner(without)
    assert cleaned.drop(columns="stream")[expected.columns].equals(expected)


def test_null_stream_events_are_a_page_instance_apart_from_numbered_streams(trace, cleaner):
    # stream 0 types "ab" into the field; a null-stream input (another page instance) lands in
    # between: no fill crosses page instances, so stream 0's typing is cut in two around it.
    trace.add("keydown", 0, xpath="/i", key="a", stream=0)
    trace.add("input", 5, xpath="/i", value="a", stream=0)
    trace.add("input", 10, xpath="/i", value="x", stream=None)
    trace.add("input", 20, xpath="/i", value="ab", stream=0)
    frame = trace.frame()
    frame["stream"] = pd.Series([0, 0, None, 0], dtype="Int64")
    frame["seq"] = [0, 1, 0, 2]  # seq is contiguous per stream
    cleaned = cleaner(frame)
    assert cleaned["value"].tolist() == ["a", "x", "ab"]
    assert cleaned["source_seqs"].tolist() == [[0, 1], [0], [2]]


def test_clean_records_without_attempt_id_cleans_them_as_one_trace():
    records = [
        {"seq": 0, "t_ms": 1000, "type": "click", "xpath": "/html/body/a", "url": "u", "x": 1.0, "y": 1.0},
        {"seq": 1, "t_ms": 1100, "type": "input", "xpath": "/html/body/i", "url": "u", "value": "s"},
        {"seq": 2, "t_ms": 1200, "type": "input", "xpath": "/html/body/i", "url": "u", "value": "so"},
    ]
    cleaned = clean_records(records)
    assert [(r["type"], r["value"], r["source_seqs"], r["step"]) for r in cleaned] == [
        ("click", None, [0], 0),
        ("fill", "so", [1, 2], 1),
    ]
    assert all(r["attempt_id"] is None for r in cleaned)


def test_clean_records_keeps_records_without_attempt_id_apart_from_an_attempt():
    records = [
        {"attempt_id": 7, "seq": 0, "t_ms": 1000, "type": "input", "xpath": "/i", "url": "u", "value": "a"},
        {"seq": 0, "t_ms": 1000, "type": "input", "xpath": "/i", "url": "u", "value": "b"},
    ]
    cleaned = clean_records(records)
    assert sorted((str(r["attempt_id"]), r["value"]) for r in cleaned) == [("7", "a"), ("None", "b")]
