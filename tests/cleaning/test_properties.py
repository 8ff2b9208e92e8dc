"""Properties of cleaning on generated traces, with the row-loop reference as the oracle."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from humantrace.cleaning import CleaningConfig, clean, raw_frame, to_records
from humantrace.cleaning.events import CONTEXT_TYPES, is_typing_key
from humantrace.cleaning.reference import clean_reference
from humantrace.cleaning.summary import _plain

T0 = 1_700_000_000_000
TYPES = [
    "click",
    "dblclick",
    "contextmenu",
    "keydown",
    "input",
    "change",
    "submit",
    "scroll",
    "mousemove",
    "focus",
    "blur",
    "select",
    "navigation",
    "visibility",
    "resize",
    "dom_change",
]
# Weighted towards the events the rules act on, so runs of them are common.
WEIGHTED = TYPES + ["keydown", "input", "scroll", "scroll", "mousemove", "mousemove", "dom_change"] * 2
XPATHS = [None, "/html", "/html/body/input[1]", "/html/body/input[2]"]
GAPS = [0, 1, 50, 100, 399, 400, 401, 500, 501, 2000, -30]  # ms; -30: a clock stepping back
KEYS = [None, "a", "b", " ", "é", "Enter", "Tab", "Shift", "Backspace", "ArrowLeft", "F5"]
VALUES = [None, "", "a", "ab", "abc", "x y"]
DELTAS = [None, 0.0, 100.0, -50.0, 12.5]

FIELDS: dict[str, list[Any]] = {  # each generated event draws one option per field from a single integer
    "type": WEIGHTED,
    "xpath": XPATHS,
    "gap": GAPS,
    "key": KEYS,
    "value": VALUES,
    "dx": DELTAS,
    "dy": DELTAS,
    "scroll_y": [None, 0.0, 300.0],
    "added": [None, 3],
}
CHOICES = int(np.prod([len(options) for options in FIELDS.values()]))


def decode(number: int) -> dict:
    """An event's fields from one integer (small integers shrink to the first options)."""
    event: dict[str, Any] = {}
    for name, options in FIELDS.items():
        number, index = divmod(number, len(options))
        event[name] = options[index]
    return event


def as_raw(attempt: int, seq: int, t_ms: int, e: dict) -> dict:
    """Fill only the fields the agreed schema gives this event type; the rest stay null."""
    kind = e["type"]
    row = {"attempt_id": attempt, "seq": seq, "t_ms": t_ms, "type": kind, "url": "http://s/"}
    if kind not in {"dom_change", "visibility", "resize", "navigation"}:
        row["xpath"] = e["xpath"]
    if kind in {"click", "dblclick", "contextmenu", "mousemove"}:
        row.update(x=1.5, y=2.0)
    if kind == "keydown":
        row["key"] = e["key"]
    if kind in {"input", "change", "select"}:
        row["value"] = e["value"]
    if kind == "scroll":
        row.update(dx=e["dx"], dy=e["dy"], scroll_x=0.0, scroll_y=e["scroll_y"])
    if kind == "dom_change":
        row.update(added=e["added"], removed=0, attributes=1)
    return row


@st.composite
def raw_traces(draw) -> pd.DataFrame:
    """One to three attempts of up to 80 events each, rows shuffled."""
    records = []
    for attempt in range(draw(st.integers(1, 3))):
        t = T0 + draw(st.integers(0, 10_000))
        size = draw(st.integers(0, 80))  # drawn first: plain lists stay short
        events = draw(st.lists(st.integers(0, CHOICES - 1), min_size=size, max_size=size))
        for seq, number in enumerate(events):
            e = decode(number)
            t += e["gap"]
            records.append(as_raw(attempt + 7, seq, t, e))
    draw(st.randoms(use_true_random=False)).shuffle(records)
    return raw_frame(records)


configs = st.builds(
    CleaningConfig,
    scroll_window_ms=st.sampled_from([0, 400, 1000]),
    hover_window_ms=st.sampled_from([0, 500]),
)
# The oracle comparison gets the most examples; the properties below check the meaning of the
# output directly, so a bug shared by both implementations still shows, and need fewer.
oracle = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
fast = settings(oracle, max_examples=50)


def source_of(cleaned: pd.DataFrame) -> dict[tuple[int, int], int]:
    """(attempt, raw seq) -> position of the cleaned row it went into."""
    return {
        (a, int(s)): i
        for i, (a, seqs) in enumerate(zip(cleaned["attempt_id"], cleaned["source_seqs"]))
        for s in seqs
    }


@oracle
@given(raw_traces(), configs)
def test_pipeline_equals_reference(raw, config):
    cleaned = clean(raw, config)
    pd.testing.assert_frame_equal(cleaned, clean_reference(raw, config))
    assert cleaned.attrs["cleaning_config"] == config.to_dict()


@settings(oracle, max_examples=100)
@given(raw_traces(), configs)
def test_cleaning_is_idempotent(raw, config):
    once = clean(raw, config)
    twice = clean(once, config)
    pd.testing.assert_frame_equal(twice, once)
    pd.testing.assert_frame_equal(clean_reference(once, config), once)


@fast
@given(raw_traces())
def test_order_is_preserved(raw):
    cleaned = clean(raw)
    keys = list(zip(cleaned["attempt_id"], cleaned["seq"]))
    assert keys == sorted(set(keys))
    for _, group in cleaned.groupby("attempt_id"):
        flat = [s for seqs in group["source_seqs"] for s in seqs]
        assert flat == sorted(set(flat))
        assert group["step"].tolist() == list(range(len(group)))
        assert group["seq"].tolist() == [seqs[0] for seqs in group["source_seqs"]]


@fast
@given(raw_traces())
def test_other_operations_are_kept_one_to_one(raw):
    cleaned = clean(raw)
    where = source_of(cleaned)
    merged = {"input", "scroll", "mousemove", *CONTEXT_TYPES}
    for row in raw.to_dict("records"):
        kind = row["type"]
        if kind in merged or (kind == "keydown" and is_typing_key(row["key"])):
            continue
        out = cleaned.iloc[where[(row["attempt_id"], row["seq"])]]
        if kind == "change" and out["type"] == "fill":
            continue  # a scripted value the fill of its field took in (rule 1)
        if kind == "keydown" and out["type"] == "fill":
            # a named key (Enter in a textarea) that changed the field is part of the typing:
            # the raw event right after it in the fill is an input
            seqs = list(out["source_seqs"])
            after = seqs[seqs.index(row["seq"]) + 1]
            assert raw_row(raw, row["attempt_id"], after)["type"] == "input"
            continue
        assert list(out["source_seqs"]) == [row["seq"]]
        for column in ("type", "t_ms", "xpath", "key", "value", "x", "nav"):
            assert out[column] == row[column] or (pd.isna(out[column]) and pd.isna(row[column]))


@fast
@given(raw_traces(), configs)
def test_scrolled_distance_per_container_is_unchanged(raw, config):
    cleaned = clean(raw, config)

    def totals(frame):
        scrolls = frame[frame["type"] == "scroll"]
        return (
            scrolls.groupby(["attempt_id", scrolls["xpath"].fillna("<null>")])[["dx", "dy"]]
            .sum()
            .sort_index()
        )

    # A field's own scrolls while it is filled belong to the fill (the caret scrolling it).
    in_fills = {
        (row.attempt_id, s)
        for row in cleaned[cleaned["type"] == "fill"].itertuples()
        for s in row.source_seqs
    }
    outside = raw[
        pd.Series(
            [key not in in_fills for key in zip(raw["attempt_id"], raw["seq"])], index=raw.index, dtype=bool
        )
    ]
    pd.testing.assert_frame_equal(totals(cleaned), totals(outside))


@fast
@given(raw_traces())
def test_each_fill_holds_the_last_value_typed_in_its_run(raw):
    cleaned = clean(raw)
    by_key = raw.set_index(["attempt_id", "seq"]).sort_index()
    for fill in cleaned[cleaned["type"] == "fill"].itertuples():
        run = by_key.loc[[(fill.attempt_id, s) for s in fill.source_seqs]]
        # a fill also takes its field's scripted values (change) and caret scrolls, once it has an input
        assert set(run["type"]) <= {"keydown", "input", "change", "scroll"} and "input" in set(run["type"])
        first_input = list(run["type"]).index("input")
        assert not set(run["type"].iloc[:first_input]) & {"change", "scroll"}
        assert (run["xpath"].fillna("<null>") == ("<null>" if pd.isna(fill.xpath) else fill.xpath)).all()
        typed = run["value"].dropna()
        assert fill.value == typed.iloc[-1] if len(typed) else pd.isna(fill.value)


@fast
@given(raw_traces())
def test_source_seqs_partition_the_kept_raw_events(raw):
    cleaned = clean(raw)
    where = source_of(cleaned)
    assert sum(len(s) for s in cleaned["source_seqs"]) == len(where)  # no seq in two events
    for row in raw.to_dict("records"):
        kept = (row["attempt_id"], row["seq"]) in where
        if row["type"] in CONTEXT_TYPES:
            assert not kept
        elif row["type"] == "mousemove":
            # a move is either dropped or kept on its own, with what it produced
            if kept:
                out = cleaned.iloc[where[(row["attempt_id"], row["seq"])]]
                assert list(out["source_seqs"]) == [row["seq"]] and isinstance(out["trigger"], str)
        else:
            assert kept


@fast
@given(raw_traces(), configs)
def test_input_frame_is_not_modified(raw, config):
    raw.attrs["study"] = "pilot"
    before = raw.copy(deep=True)
    clean(raw, config)
    pd.testing.assert_frame_equal(raw, before)
    assert raw.attrs == {"study": "pilot"}
    assert "step" not in raw.columns


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pipeline_equals_reference_on_larger_random_traces(make_random_raw, seed):
    # Long runs and many attempts, which the small generated traces rarely reach.
    raw = make_random_raw(seed, events=6_000, attempts=7)
    config = CleaningConfig(scroll_window_ms=[400, 0, 5_000][seed - 1])
    cleaned = clean(raw, config)
    pd.testing.assert_frame_equal(cleaned, clean_reference(raw, config))
    pd.testing.assert_frame_equal(clean(cleaned, config), cleaned)
    assert len(cleaned) < len(raw)


def test_far_apart_clocks_take_the_segment_by_segment_path(trace):
    # A client clock jumping by decades forces the unpacked window search; same answer.
    trace.add("scroll", 0, xpath="/html", dy=1.0)
    trace.add("scroll", 100, xpath="/html", dy=1.0)
    trace.add("scroll", 4 * 10**17, xpath="/html", dy=1.0)
    trace.add("scroll", 4 * 10**17 + 500, xpath="/html", dy=1.0)
    trace.add("click", 4 * 10**17 + 600, xpath="/b")
    for i in range(40):
        trace.add("scroll", 4 * 10**17 + 700 + i, xpath=f"/div[{i % 2}]", dy=1.0)
    raw = trace.frame()
    cleaned = clean(raw)
    pd.testing.assert_frame_equal(cleaned, clean_reference(raw))
    assert [len(s) for s in cleaned["source_seqs"]][:3] == [2, 1, 1]


def test_extra_columns_and_other_groupings_are_carried(trace):
    for attempt in (2, 1):
        trace.type_text("/i", "ab", 0, attempt=attempt)
    raw = trace.frame().assign(session="s")
    raw["session"] = np.where(raw["attempt_id"] == 1, "s-b", "s-a")
    config = CleaningConfig(group_by="session")
    cleaned = clean(raw, config)
    pd.testing.assert_frame_equal(cleaned, clean_reference(raw, config))
    assert cleaned["session"].tolist() == ["s-a", "s-b"]
    assert list(cleaned.columns[-4:]) == ["session", "trigger", "source_seqs", "step"]


def raw_row(raw: pd.DataFrame, attempt: int, seq: int) -> dict:
    return raw[(raw["attempt_id"] == attempt) & (raw["seq"] == seq)].iloc[0].to_dict()


def test_missing_columns_are_named():
    raw = raw_frame([]).drop(columns=["dy", "xpath"])
    with pytest.raises(ValueError, match="'seq'"):
        clean(raw.drop(columns=["seq"]))
    clean(raw)  # no scroll and no keystroke: no rule reads dy or xpath


def test_grouping_is_per_attempt_and_runs_never_span_attempts(trace):
    for attempt in (1, 2):
        trace.type_text("/i", "ab", 0, attempt=attempt)
    cleaned = clean(trace.frame())
    assert cleaned["attempt_id"].tolist() == [1, 2]
    assert cleaned["value"].tolist() == ["ab", "ab"]
    assert cleaned["step"].tolist() == [0, 0]


@fast
@given(raw_traces(), configs)
def test_records_are_the_frame_row_by_row_as_plain_json(raw, config):
    """What Evaluate stores as the cleaned trace (through Arrow) is exactly the cleaned frame,
    with nulls as None, Python numbers and `source_seqs` lists of ints."""
    cleaned = clean(raw, config)
    records = to_records(cleaned)
    assert records == [{k: _plain(v) for k, v in row.items()} for row in cleaned.to_dict("records")]
    assert json.loads(json.dumps(records, allow_nan=False)) == records
    for record in records:
        assert list(record) == list(cleaned.columns)
        assert all(type(record[name]) is int for name in ("attempt_id", "seq", "t_ms", "step"))
        assert all(type(seq) is int for seq in record["source_seqs"])


def test_records_of_a_column_arrow_cannot_type_take_the_row_by_row_way(trace):
    trace.type_text("/i", "ab", 0)
    trace.add("click", 900, xpath="/b", x=1.0, y=2.0)
    raw = trace.frame()
    raw["note"] = pd.Series([1, None, None, None, "two"], dtype=object)  # the fill keeps its first event's
    records = to_records(clean(raw))
    assert [r["note"] for r in records] == [1, "two"]
    assert [r["type"] for r in records] == ["fill", "click"]
    assert records[0]["value"] == "ab" and records[0]["x"] is None
