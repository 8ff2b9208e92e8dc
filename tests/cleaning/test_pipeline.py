"""The pipeline's contract around the rules: recorded config, summaries, records, edge cases."""

from __future__ import annotations

import json

import pandas as pd
import pydantic
import pytest

from humantrace.cleaning import CLEANING_VERSION, RAW_COLUMNS, CleaningConfig, clean, clean_records, summarise
from humantrace.cleaning.reference import clean_reference


def test_config_and_version_are_recorded_as_json(trace):
    trace.add("click", 0, xpath="/b")
    config = CleaningConfig(scroll_window_ms=250, hover_window_ms=300)
    cleaned = clean(trace.frame(), config)
    recorded = json.loads(json.dumps(cleaned.attrs["cleaning_config"]))
    assert recorded == {
        "scroll_window_ms": 250,
        "hover_window_ms": 300,
        "drag_min_px": 4.0,
        "group_by": "attempt_id",
    }
    assert CleaningConfig(**recorded) == config
    assert cleaned.attrs["cleaning_version"] == CLEANING_VERSION
    assert config.to_dict() == config.model_dump()


def test_config_is_frozen_and_validated():
    config = CleaningConfig()
    assert (config.scroll_window_ms, config.hover_window_ms) == (400, 500)
    with pytest.raises(pydantic.ValidationError):
        config.scroll_window_ms = 10
    with pytest.raises(pydantic.ValidationError):
        CleaningConfig(hover_window_ms=-1)
    with pytest.raises(pydantic.ValidationError):
        CleaningConfig(scroll_windw_ms=400)


def test_output_keeps_raw_columns_and_dtypes_then_adds_three(trace):
    trace.type_text("/i", "hi", 0)
    trace.add("scroll", 500, xpath="/html", dy=10.0)
    raw = trace.frame()
    cleaned = clean(raw)
    assert list(cleaned.columns) == [*RAW_COLUMNS, "trigger", "source_seqs", "step"]
    assert (cleaned.dtypes[list(RAW_COLUMNS)] == raw.dtypes[list(RAW_COLUMNS)]).all()
    assert cleaned["source_seqs"].tolist() == [[0, 1, 2, 3], [4]]


def test_rows_come_out_by_attempt_then_seq_whatever_the_input_order(trace):
    for attempt in (3, 1, 2):
        trace.add("click", 10, attempt=attempt, xpath="/a")
        trace.add("submit", 20, attempt=attempt, xpath="/f")
    raw = trace.frame().iloc[::-1]
    cleaned = clean(raw)
    assert list(zip(cleaned["attempt_id"], cleaned["seq"])) == [
        (1, 0),
        (1, 1),
        (2, 0),
        (2, 1),
        (3, 0),
        (3, 1),
    ]
    assert cleaned.index.tolist() == list(range(6))
    assert cleaned["step"].tolist() == [0, 1] * 3


def test_an_empty_trace_cleans_to_an_empty_frame(trace):
    raw = trace.frame()
    cleaned = clean(raw)
    assert cleaned.empty and list(cleaned.columns)[-3:] == ["trigger", "source_seqs", "step"]
    pd.testing.assert_frame_equal(cleaned, clean_reference(raw))


def test_summarise_counts_raw_events_and_clean_steps(trace):
    trace.type_text("/i", "abc", 0, attempt=1)  # 6 raw events, 1 step
    trace.add("click", 900, attempt=1, xpath="/b")
    trace.add("mousemove", 0, attempt=2, x=1.0, y=1.0)  # idle only: 0 steps
    trace.add("resize", 5, attempt=2, width=800, height=600)
    raw = trace.frame()
    summary = summarise(raw, clean(raw))
    assert summary.to_dict("records") == [
        {"attempt_id": 1, "raw_events": 7, "clean_steps": 2},
        {"attempt_id": 2, "raw_events": 2, "clean_steps": 0},
    ]


def test_clean_records_returns_plain_json_ready_dicts(trace):
    trace.type_text("/i", "ok", 0)
    trace.add("mousemove", 300, x=4.0, y=5.0)
    trace.add("click", 310, xpath="/b", x=4.0, y=5.0)
    records = [{k: v for k, v in r.items() if v is not None} for r in trace.records]
    cleaned = clean_records(records)
    assert json.loads(json.dumps(cleaned)) == cleaned
    assert [(r["type"], r["source_seqs"], r["trigger"]) for r in cleaned] == [
        ("fill", [0, 1, 2, 3], None),
        ("mousemove", [4], "click"),
        ("click", [5], None),
    ]
    assert cleaned[0]["value"] == "ok" and cleaned[0]["key"] is None
    assert cleaned[2]["x"] == 4.0 and cleaned[2]["step"] == 2


def test_clean_records_of_nothing_is_nothing():
    assert clean_records([]) == []
