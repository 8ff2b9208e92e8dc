"""The worked cases of each cleaning rule, each checked on the pipeline and on the reference."""

from __future__ import annotations

import pandas as pd
import pytest

from humantrace.cleaning import CleaningConfig, clean
from humantrace.cleaning.reference import clean_reference


@pytest.fixture(params=["pipeline", "reference"])
def cleaner(request):
    """Both implementations must pass every worked case."""
    return clean if request.param == "pipeline" else clean_reference


def steps(cleaned: pd.DataFrame) -> list[tuple]:
    return [(row.type, row.xpath if isinstance(row.xpath, str) else None) for row in cleaned.itertuples()]


# ---------------------------------------------------------------- rule 1: fill merge


def test_typing_hello_becomes_one_fill(trace, cleaner):
    trace.add("click", 0, xpath="/html/body/input", x=10.0, y=10.0)
    trace.add("focus", 1, xpath="/html/body/input")
    trace.type_text("/html/body/input", "hello", 100)
    cleaned = cleaner(trace.frame())
    assert steps(cleaned) == [
        ("click", "/html/body/input"),
        ("focus", "/html/body/input"),
        ("fill", "/html/body/input"),
    ]
    fill = cleaned.iloc[2]
    assert fill["value"] == "hello"
    assert pd.isna(fill["key"])
    assert fill["url"] == "http://shop.test/"
    assert fill["t_ms"] == trace.records[2]["t_ms"]  # when typing began
    assert list(fill["source_seqs"]) == list(range(2, 12))
    assert cleaned["step"].tolist() == [0, 1, 2]


def test_typing_interrupted_by_a_click_becomes_two_fills(trace, cleaner):
    end = trace.type_text("/html/body/input", "hel", 0)
    trace.add("click", end, xpath="/html/body/input", x=3.0, y=4.0)
    trace.type_text("/html/body/input", "lo", end + 100, start="hel")
    cleaned = cleaner(trace.frame())
    assert cleaned["type"].tolist() == ["fill", "click", "fill"]
    assert cleaned["value"].tolist()[::2] == ["hel", "hello"]


def test_typing_into_two_fields_alternately_stays_apart(trace, cleaner):
    at = trace.type_text("/html/body/input[1]", "ab", 0)
    at = trace.type_text("/html/body/input[2]", "cd", at)
    at = trace.type_text("/html/body/input[1]", "e", at, start="ab")
    cleaned = cleaner(trace.frame())
    assert steps(cleaned) == [
        ("fill", "/html/body/input[1]"),
        ("fill", "/html/body/input[2]"),
        ("fill", "/html/body/input[1]"),
    ]
    assert cleaned["value"].tolist() == ["ab", "cd", "abe"]


def test_enter_is_its_own_operation_and_breaks_the_fill(trace, cleaner):
    at = trace.type_text("/html/body/input", "shoe", 0)
    trace.add("keydown", at, xpath="/html/body/input", key="Enter")
    trace.add("submit", at + 5, xpath="/html/body/form")
    trace.type_text("/html/body/input", "s", at + 500, start="shoe")
    cleaned = cleaner(trace.frame())
    assert cleaned["type"].tolist() == ["fill", "keydown", "submit", "fill"]
    assert cleaned["key"].iloc[1] == "Enter"
    assert cleaned["value"].iloc[[0, 3]].tolist() == ["shoe", "shoes"]


def test_shift_and_backspace_are_part_of_typing(trace, cleaner):
    trace.add("keydown", 0, xpath="/i", key="Shift")
    trace.add("keydown", 1, xpath="/i", key="H")
    trace.add("input", 2, xpath="/i", value="H")
    trace.add("keydown", 50, xpath="/i", key="x")
    trace.add("input", 51, xpath="/i", value="Hx")
    trace.add("keydown", 90, xpath="/i", key="Backspace")
    trace.add("input", 91, xpath="/i", value="H")
    cleaned = cleaner(trace.frame())
    assert cleaned["type"].tolist() == ["fill"]
    assert cleaned["value"].tolist() == ["H"]


def test_keydowns_without_input_stay_separate(trace, cleaner):
    # Keyboard shortcuts on a page: no field changes, so there is no fill to make.
    for i, key in enumerate("jjk"):
        trace.add("keydown", i * 200, xpath="/html/body", key=key)
    cleaned = cleaner(trace.frame())
    assert cleaned["type"].tolist() == ["keydown"] * 3
    assert cleaned["key"].tolist() == ["j", "j", "k"]


def test_context_and_idle_moves_do_not_split_a_fill(trace, cleaner):
    trace.add("keydown", 0, xpath="/i", key="a")
    trace.add("input", 1, xpath="/i", value="a")
    trace.add("dom_change", 20, added=4)  # autocomplete suggestions
    trace.add("mousemove", 40, x=1.0, y=1.0)  # a nudged mouse, idle
    trace.add("keydown", 80, xpath="/i", key="b")
    trace.add("input", 81, xpath="/i", value="ab")
    cleaned = cleaner(trace.frame())
    assert cleaned["type"].tolist() == ["fill"]
    assert list(cleaned["source_seqs"].iloc[0]) == [0, 1, 4, 5]


# ---------------------------------------------------------------- rule 2: scroll collapse


def test_five_scrolls_100ms_apart_collapse_with_summed_dy(trace, cleaner):
    for i in range(5):
        trace.add("scroll", i * 100, xpath="/html", dx=0.0, dy=120.0, scroll_x=0.0, scroll_y=120.0 * (i + 1))
    cleaned = cleaner(trace.frame())
    assert len(cleaned) == 1
    scroll = cleaned.iloc[0]
    assert (scroll["type"], scroll["dy"], scroll["dx"]) == ("scroll", 600.0, 0.0)
    assert scroll["scroll_y"] == 600.0
    assert list(scroll["source_seqs"]) == [0, 1, 2, 3, 4]


def test_window_is_measured_from_the_first_scroll_of_the_run(trace, cleaner):
    # 0, 100, ..., 800: runs start at 0 and 500 (the first scroll past 0 + 400).
    for i in range(9):
        trace.add("scroll", i * 100, xpath="/html", dy=10.0, scroll_y=10.0 * (i + 1))
    cleaned = cleaner(trace.frame())
    assert [list(s) for s in cleaned["source_seqs"]] == [[0, 1, 2, 3, 4], [5, 6, 7, 8]]
    assert cleaned["dy"].tolist() == [50.0, 40.0]


def test_scrolls_500ms_apart_stay_separate(trace, cleaner):
    for i in range(3):
        trace.add("scroll", i * 500, xpath="/html", dy=100.0, scroll_y=100.0 * (i + 1))
    cleaned = cleaner(trace.frame())
    assert cleaned["dy"].tolist() == [100.0, 100.0, 100.0]


def test_scrolls_on_two_containers_stay_separate(trace, cleaner):
    trace.add("scroll", 0, xpath="/html", dy=100.0)
    trace.add("scroll", 50, xpath="/html/body/div[1]", dy=30.0)
    trace.add("scroll", 100, xpath="/html", dy=100.0)
    cleaned = cleaner(trace.frame())
    assert steps(cleaned) == [("scroll", "/html"), ("scroll", "/html/body/div[1]"), ("scroll", "/html")]


# ---------------------------------------------------------------- rule 3: idle-move drop


def test_an_idle_mouse_path_is_dropped(trace, cleaner):
    for i in range(20):
        trace.add("mousemove", i * 16, x=float(i), y=float(i))
    trace.add("scroll", 400, xpath="/html", dy=50.0)
    cleaned = cleaner(trace.frame())
    assert cleaned["type"].tolist() == ["scroll"]


def test_a_move_that_opens_a_hover_menu_is_kept(trace, cleaner):
    trace.add("mousemove", 0, x=1.0, y=1.0)
    trace.add("mousemove", 16, x=50.0, y=8.0)
    trace.add("dom_change", 200, added=12, removed=0, attributes=1)
    trace.add("mousemove", 900, x=60.0, y=9.0)
    cleaned = cleaner(trace.frame())
    assert cleaned["type"].tolist() == ["mousemove"]
    assert cleaned["trigger"].tolist() == ["hover"]
    assert list(cleaned["source_seqs"].iloc[0]) == [1]


def test_a_dom_change_after_the_hover_window_is_not_a_hover(trace, cleaner):
    trace.add("mousemove", 0, x=1.0, y=1.0)
    trace.add("dom_change", 1_000, added=1)  # a timer on the page, not the move
    assert cleaner(trace.frame()).empty
    wider = CleaningConfig(hover_window_ms=1_000)
    assert cleaner(trace.frame(), wider)["trigger"].tolist() == ["hover"]


def test_a_dom_change_after_typing_is_not_a_hover(trace, cleaner):
    trace.add("mousemove", 0, x=1.0, y=1.0)
    trace.add("keydown", 10, xpath="/i", key="a")
    trace.add("input", 11, xpath="/i", value="a")
    trace.add("dom_change", 60, added=5)
    assert cleaner(trace.frame())["type"].tolist() == ["fill"]


def test_a_move_followed_by_a_click_is_kept(trace, cleaner):
    for i in range(5):
        trace.add("mousemove", i * 16, x=float(10 * i), y=5.0)
    trace.add("visibility", 90, state="visible")  # context between move and click
    trace.add("click", 100, xpath="/html/body/button", x=40.0, y=5.0)
    cleaned = cleaner(trace.frame())
    assert cleaned["type"].tolist() == ["mousemove", "click"]
    assert cleaned["trigger"].tolist()[0] == "click"
    assert cleaned["x"].tolist() == [40.0, 40.0]


def test_moves_before_focus_and_select_are_kept(trace, cleaner):
    trace.add("mousemove", 0, x=1.0, y=1.0)
    trace.add("focus", 10, xpath="/i")
    trace.add("mousemove", 500, x=2.0, y=1.0)
    trace.add("select", 600, xpath="/p", value="some text")
    cleaned = cleaner(trace.frame())
    assert cleaned["trigger"].tolist()[::2] == ["focus", "select"]


# ---------------------------------------------------------------- kept as they are


def test_failed_and_repeated_clicks_are_kept(trace, cleaner):
    for i in range(3):  # a button that does nothing under an intervention, clicked thrice
        trace.add("click", i * 300, xpath="/html/body/button[2]", x=5.0, y=5.0)
    trace.add("dblclick", 1000, xpath="/html/body/button[2]", x=5.0, y=5.0)
    trace.add("navigation", 1500, nav="popstate")  # backtracking
    trace.add("click", 2000, xpath="/html/body/button[2]", x=5.0, y=5.0)
    cleaned = cleaner(trace.frame())
    assert cleaned["type"].tolist() == ["click"] * 3 + ["dblclick", "navigation", "click"]
    assert [list(s) for s in cleaned["source_seqs"]] == [[i] for i in range(6)]


def test_context_events_are_left_out(trace, cleaner):
    trace.add("resize", 0, width=800, height=600)
    trace.add("visibility", 5, state="hidden")
    trace.add("dom_change", 9, added=1)
    trace.add("click", 10, xpath="/b", x=1.0, y=1.0)
    cleaned = cleaner(trace.frame())
    assert cleaned["type"].tolist() == ["click"]
    assert cleaned["step"].tolist() == [0]
