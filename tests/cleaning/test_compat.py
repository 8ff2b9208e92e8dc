"""Frames from elsewhere (only the columns the rules read) and the three decided edge cases."""

from __future__ import annotations

import pandas as pd
import pytest

from humantrace.cleaning import RAW_COLUMNS, clean
from humantrace.cleaning.reference import clean_reference


@pytest.fixture(params=["pipeline", "reference"])
def cleaner(request):
    return clean if request.param == "pipeline" else clean_reference


def _typical(trace) -> None:
    trace.add("click", 0, xpath="/html/body/input", x=1.0, y=2.0)
    at = trace.type_text("/html/body/input", "shoe", 100)
    trace.add("scroll", at, xpath="/html", dy=100.0, dx=0.0, scroll_y=100.0)
    trace.add("scroll", at + 100, xpath="/html", dy=50.0, dx=0.0, scroll_y=150.0)
    trace.add("mousemove", at + 200, xpath="/html/body/a", x=5.0, y=5.0)
    trace.add("click", at + 250, xpath="/html/body/a", x=5.0, y=5.0)


# ---------------------------------------------------------------- any frame with the needed columns


def test_a_frame_without_width_height_and_state_cleans_as_with_them_null(trace, cleaner):
    _typical(trace)
    full = trace.frame()
    lean = full.drop(columns=["width", "height", "state", "nav", "added", "removed", "attributes"])
    cleaned = cleaner(lean)
    expected = cleaner(full)
    pd.testing.assert_frame_equal(cleaned, expected)
    assert list(cleaned.columns[: len(RAW_COLUMNS)]) == list(RAW_COLUMNS)
    assert cleaned["width"].isna().all()
    assert "width" not in lean.columns  # the input is not changed


def test_a_frame_of_the_four_core_columns_cleans_when_no_rule_needs_more(cleaner):
    raw = pd.DataFrame(
        {
            "attempt_id": [1, 1, 1],
            "seq": [0, 1, 2],
            "t_ms": [10, 20, 30],
            "type": ["click", "mousemove", "submit"],
        }
    )
    cleaned = cleaner(raw)
    assert cleaned["type"].tolist() == ["click", "submit"]
    assert cleaned["source_seqs"].tolist() == [[0], [2]]


@pytest.mark.parametrize(
    ("events", "dropped", "named"),
    [
        (["scroll", "scroll"], "dy", "'dy': rule 2 (scroll collapse) reads it on the 2 scroll event(s)"),
        (["keydown", "click"], "key", "'key': rule 1 (fill merge) reads it on the 1 keydown event(s)"),
        (["input"], "value", "'value': rule 1 (fill merge) reads it on the 1 fill/input event(s)"),
        (["scroll", "input"], "xpath", "rule 2 (scroll collapse)"),
        (["click"], "t_ms", "every cleaning rule reads"),
    ],
)
def test_an_absent_column_a_rule_reads_is_named_with_the_rule(trace, cleaner, events, dropped, named):
    for n, kind in enumerate(events):
        trace.add(kind, n * 10, xpath="/html", key="a", value="a", dy=1.0, dx=0.0)
    raw = trace.frame().drop(columns=[dropped])
    with pytest.raises(ValueError) as info:
        cleaner(raw)
    assert named in str(info.value)


# ---------------------------------------------------------------- decided case 1: Enter in a field


def test_enter_that_breaks_a_line_in_a_textarea_is_part_of_one_fill(trace, cleaner):
    area = "/html/body/form/textarea"
    at = trace.type_text(area, "line1", 0)
    trace.add("keydown", at, xpath=area, key="Enter")
    trace.add("input", at + 5, xpath=area, value="line1\n")
    trace.type_text(area, "line2", at + 100, start="line1\n")
    cleaned = cleaner(trace.frame())
    assert cleaned["type"].tolist() == ["fill"]
    assert cleaned["value"].iloc[0] == "line1\nline2"
    assert list(cleaned["source_seqs"].iloc[0]) == list(range(22))
    pd.testing.assert_frame_equal(cleaner(cleaned), cleaned)


def test_enter_that_changes_nothing_in_a_field_still_splits_the_typing(trace, cleaner):
    # A single-line input: Enter fires no input (nothing was typed), so it is its own operation.
    at = trace.type_text("/html/body/input", "ab", 0)
    trace.add("keydown", at, xpath="/html/body/input", key="Enter")
    trace.type_text("/html/body/input", "c", at + 100, start="ab")
    cleaned = cleaner(trace.frame())
    assert cleaned["type"].tolist() == ["fill", "keydown", "fill"]
    assert cleaned["value"].iloc[[0, 2]].tolist() == ["ab", "abc"]


# ---------------------------------------------------------------- decided case 2: scrolls on two pages


def test_scrolls_of_html_on_two_urls_stay_apart_without_a_navigation_between(trace, cleaner):
    trace.add("scroll", 0, xpath="/html", dy=100.0, url="http://shop.test/a")
    trace.add("scroll", 150, xpath="/html", dy=40.0, url="http://shop.test/b")
    trace.add("scroll", 250, xpath="/html", dy=10.0, url="http://shop.test/b")
    cleaned = cleaner(trace.frame())
    assert cleaned["type"].tolist() == ["scroll", "scroll"]
    assert cleaned["dy"].tolist() == [100.0, 50.0]
    assert cleaned["url"].tolist() == ["http://shop.test/a", "http://shop.test/b"]
    assert cleaned["source_seqs"].tolist() == [[0], [1, 2]]


# ---------------------------------------------------------------- decided case 3: a repeated seq


def test_an_identical_repeat_of_a_seq_is_one_event(trace, cleaner):
    trace.add("click", 0, xpath="/a", x=1.0, y=1.0)
    trace.add("scroll", 50, xpath="/html", dy=30.0)
    raw = trace.frame()
    resent = pd.concat([raw, raw.iloc[[1]]], ignore_index=True)  # the scroll delivered twice
    cleaned = cleaner(resent)
    assert cleaned["source_seqs"].tolist() == [[0], [1]]
    assert cleaned["dy"].tolist()[1] == 30.0  # not 60: counted once
    pd.testing.assert_frame_equal(cleaned, cleaner(raw))


def test_two_different_events_with_one_seq_are_refused(trace, cleaner):
    trace.add("click", 0, xpath="/a", x=1.0, y=1.0)
    trace.add("submit", 50, xpath="/form")
    raw = trace.frame()
    raw.loc[1, "seq"] = 0
    with pytest.raises(ValueError, match="two different events with seq 0"):
        cleaner(raw)
