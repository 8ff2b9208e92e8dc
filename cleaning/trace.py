"""Column arrays of raw events, in trace order, that the vectorised rules work on.

Reading a DataFrame column into numpy is done once here, so the rules are plain array code and
the input frame is only read, never changed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from humantrace.cleaning.events import (
    CHANGE_TYPES,
    CLICK_TYPES,
    CONTEXT_TYPES,
    CORE_COLUMNS,
    DRAG_START_TYPES,
    DROP_TYPES,
    FOCUS_TYPES,
    PRESS_TYPES,
    RAW_COLUMNS,
    RAW_DTYPES,
    RELEASE_TYPES,
    RULE_INPUTS,
    SELECT_TYPES,
    TRIGGERS,
    VALUE_KEYSTROKE_TYPES,
    typing_key_mask,
)

# Event kinds, the only thing the rules need to know about `type`.
(
    OTHER,
    DOM_CHANGE,
    CONTEXT,
    MOVE,
    CLICK,
    FOCUS,
    SELECT,
    KEYDOWN,
    VALUE,
    SCROLL,
    CHANGE,
    PRESS,
    RELEASE,
    DRAG_START,
    DROP,
) = range(15)


def _kind_of(event_type: object) -> int:
    if event_type == "dom_change":
        return DOM_CHANGE
    if event_type in CONTEXT_TYPES:
        return CONTEXT
    for kind, types in (
        (CLICK, CLICK_TYPES),
        (FOCUS, FOCUS_TYPES),
        (SELECT, SELECT_TYPES),
        (VALUE, VALUE_KEYSTROKE_TYPES),
        (CHANGE, CHANGE_TYPES),
        (PRESS, PRESS_TYPES),
        (RELEASE, RELEASE_TYPES),
        (DRAG_START, DRAG_START_TYPES),
        (DROP, DROP_TYPES),
    ):
        if event_type in types:
            return kind
    return {"mousemove": MOVE, "keydown": KEYDOWN, "scroll": SCROLL}.get(str(event_type), OTHER)


def _codes(column: pd.Series) -> np.ndarray:
    """Integer codes equal exactly where the values are equal; every null gets -1."""
    codes, _ = pd.factorize(column, use_na_sentinel=True)
    return codes.astype(np.int64, copy=False)


@dataclass(frozen=True)
class Trace:
    """Raw events as arrays in (group, seq) order; `order[i]` is row i's position in the frame."""

    order: np.ndarray  # positions into the input frame: by group, then time across streams, then seq (stable)
    group: np.ndarray  # int64, equal within one attempt
    lane: np.ndarray  # int64, equal within one stream of one attempt (runs never cross lanes)
    t: np.ndarray  # int64 t_ms
    kind: np.ndarray  # int8 event kind (constants above)
    xpath: (
        np.ndarray
    )  # int64 codes of (frame_xpath, xpath) (-1 for null) on keystroke, change and scroll rows only
    url: np.ndarray  # int64 codes of url (-1 for null) on scroll rows only
    typing: np.ndarray  # bool: a keydown whose key is part of typing text
    raw_input: np.ndarray  # bool: an `input` event (not a `fill` of an already cleaned trace)
    trigger: np.ndarray  # int8: 0, or 1 + index into TRIGGERS of an already recorded trigger

    @property
    def size(self) -> int:
        return len(self.order)


def _order(group: np.ndarray, seq: np.ndarray) -> np.ndarray:
    n = len(seq)
    if n < 2:
        return np.arange(n)
    same = group[1:] == group[:-1]
    in_order = (group[1:] > group[:-1]) | (same & (seq[1:] >= seq[:-1]))
    if in_order.all():
        return np.arange(n)
    return np.lexsort((seq, group))  # lexsort is stable: ties keep their input order


def _order_streams(group: np.ndarray, stream: np.ndarray, seq: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Order by group, then by time across the group's streams, each stream kept in seq order.

    A stream's time is its running maximum in seq order, so a client clock stepping back never
    reorders a stream's own events; ties go to the lower stream, then the lower seq.
    """
    by_lane = np.lexsort((seq, stream, group))
    g, s, tt = group[by_lane], stream[by_lane], t[by_lane]
    head = np.ones(len(g), dtype=bool)
    head[1:] = (g[1:] != g[:-1]) | (s[1:] != s[:-1])
    lane = np.cumsum(head) - 1
    running = np.empty(len(tt), dtype=np.int64)
    base = tt.min() if len(tt) else 0
    stride = int(tt.max() - base) + 1 if len(tt) else 1
    if (int(lane[-1]) + 1) * stride < 2**62:
        running = (
            np.maximum.accumulate(lane * np.int64(stride) + (tt - base)) - lane * np.int64(stride) + base
        )
    else:
        bounds = np.append(np.flatnonzero(head), len(tt))
        for begin, end in zip(bounds[:-1], bounds[1:]):
            running[begin:end] = np.maximum.accumulate(tt[begin:end])
    return by_lane[np.lexsort((seq[by_lane], s, running, g))]


def _int_column(raw: pd.DataFrame, name: str) -> np.ndarray:
    column = raw[name]
    if column.isna().any():
        raise ValueError(f"raw events: column {name!r} has null values")
    return column.to_numpy(dtype=np.int64)


NO_STREAM = -1
"""The stream of an event whose `stream` is null (bundle 1.0 traces, recorders before streams):
one page instance of its own, apart from every numbered stream."""


def _stream_column(raw: pd.DataFrame) -> np.ndarray:
    column = pd.to_numeric(raw["stream"].astype(object), errors="raise")
    return column.fillna(NO_STREAM).to_numpy(dtype=np.int64)


def _group_codes(column: pd.Series) -> np.ndarray:
    if column.isna().any():
        raise ValueError(f"raw events: column {column.name!r} has null values")
    if pd.api.types.is_integer_dtype(column.dtype):
        return column.to_numpy(dtype=np.int64)
    codes, _ = pd.factorize(column, sort=True)
    return codes.astype(np.int64, copy=False)


def complete_columns(raw: pd.DataFrame, *, group_by: str) -> pd.DataFrame:
    """`raw` with every raw column: an absent column no rule needs is added as nulls.

    Raises ValueError naming each absent column a rule reads and the rule reading it: the
    grouping column, `seq`, `t_ms` and `type` always, the others only when the frame holds events
    of the types that rule reads them on (`cleaning.events.RULE_INPUTS`). The input is not changed.
    """
    core = [c for c in (group_by, *CORE_COLUMNS) if c not in raw.columns]
    if core:
        raise ValueError(
            f"raw events: missing column(s) {core}; every cleaning rule reads "
            f"{group_by!r}, 'seq', 't_ms' and 'type'"
        )
    problems = []
    for rule, types, columns in RULE_INPUTS:
        absent = [c for c in columns if c not in raw.columns]
        count = int(raw["type"].isin(types).sum()) if absent else 0
        if count:
            problems.append(
                f"{', '.join(map(repr, absent))}: {rule} reads it on the {count} "
                f"{'/'.join(sorted(types))} event(s)"
            )
    if problems:
        raise ValueError("raw events: missing column(s) " + "; ".join(problems))
    absent = [c for c in RAW_COLUMNS if c not in raw.columns]
    if not absent:
        return raw
    nulls = {c: pd.Series(None, index=raw.index, dtype=RAW_DTYPES[c]) for c in absent}
    return raw.assign(**nulls)


def _drop_repeats(
    raw: pd.DataFrame, order: np.ndarray, group: np.ndarray, seq: np.ndarray, group_by: str
) -> np.ndarray:
    """`order` without repeated (group, seq) rows, which are adjacent in it.

    An identical repeat is the same event delivered twice (a resend) and is kept once, the first
    in input order; two different events with one seq are a broken trace and raise ValueError.
    """
    repeat = np.zeros(len(order), dtype=bool)
    repeat[1:] = (group[order[1:]] == group[order[:-1]]) & (seq[order[1:]] == seq[order[:-1]])
    if not repeat.any():
        return order
    first = np.maximum.accumulate(np.where(repeat, 0, np.arange(len(order))))
    for i in np.flatnonzero(repeat):
        kept, again = raw.iloc[order[first[i]]], raw.iloc[order[i]]
        if not kept.equals(again):
            differ = [c for c in raw.columns if not pd.Series([kept[c]]).equals(pd.Series([again[c]]))]
            raise ValueError(
                f"raw events: {group_by} {kept[group_by]!r} has two different events with seq "
                f"{int(seq[order[i]])} (they differ in {differ}); a seq is unique within an "
                f"attempt (an identical repeat is kept once)"
            )
    return order[~repeat]


def read_trace(raw: pd.DataFrame, *, group_by: str) -> Trace:
    """Extract the arrays the rules need from a raw (or already cleaned) event frame that has
    every raw column (`complete_columns`)."""
    group = _group_codes(raw[group_by])
    seq = _int_column(raw, "seq")
    stream = _stream_column(raw) if "stream" in raw.columns else None
    if stream is not None and _several_streams(group, stream):
        lanes = pd.factorize(pd.MultiIndex.from_arrays([group, stream]))[0].astype(np.int64)
        order = _drop_repeats(
            raw, _order_streams(group, stream, seq, _int_column(raw, "t_ms")), lanes, seq, group_by
        )
        lane = lanes[order]
    else:
        order = _drop_repeats(raw, _order(group, seq), group, seq, group_by)
        lane = group[order]

    type_codes, type_values = pd.factorize(raw["type"], use_na_sentinel=True)
    # One extra slot at the end so the null sentinel -1 maps to OTHER.
    kind_table = np.array([_kind_of(v) for v in type_values] + [OTHER], dtype=np.int8)
    kind = kind_table[type_codes[order]]

    typing = np.zeros(len(order), dtype=bool)
    keydowns = np.flatnonzero(kind == KEYDOWN)
    if keydowns.size:
        keys = raw["key"].take(order[keydowns])
        typing[keydowns] = typing_key_mask(keys)

    trigger = np.zeros(len(order), dtype=np.int8)
    if "trigger" in raw.columns:
        trigger_codes = pd.Categorical(raw["trigger"], categories=list(TRIGGERS)).codes
        trigger = (trigger_codes[order] + 1).astype(np.int8)

    # Only keystrokes and scrolls are ever compared by target; coding just them saves hashing
    # the xpath of every mousemove.
    xpath = np.full(len(order), -2, dtype=np.int64)
    targeted = np.flatnonzero((kind == KEYDOWN) | (kind == VALUE) | (kind == SCROLL) | (kind == CHANGE))
    if targeted.size:
        targets = raw["xpath"].take(order[targeted])
        if "frame_xpath" in raw.columns:
            # the same XPath in two frames is two elements
            frames = raw["frame_xpath"].take(order[targeted]).fillna("")
            targets = targets.where(frames == "", frames.astype(str) + "\n" + targets.astype(str))
        xpath[targeted] = _codes(targets)
    url = np.full(len(order), -2, dtype=np.int64)
    scrolls = np.flatnonzero(kind == SCROLL)
    if scrolls.size:
        url[scrolls] = _codes(raw["url"].take(order[scrolls]))
    raw_input = np.zeros(len(order), dtype=bool)
    values = np.flatnonzero(kind == VALUE)
    if values.size:
        raw_input[values] = (raw["type"].take(order[values]) == "input").to_numpy(dtype=bool)

    return Trace(
        order=order,
        group=group[order],
        lane=lane,
        t=_int_column(raw, "t_ms")[order],
        kind=kind,
        xpath=xpath,
        url=url,
        typing=typing,
        raw_input=raw_input,
        trigger=trigger,
    )


def _several_streams(group: np.ndarray, stream: np.ndarray) -> bool:
    """Whether some group holds events of more than one stream."""
    if len(stream) == 0 or stream.min() == stream.max():
        return False
    return bool(pd.DataFrame({"g": group, "s": stream}).groupby("g")["s"].nunique().max() > 1)


def source_lists(raw: pd.DataFrame, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The raw seqs each of `rows` stands for, as (flat seqs, per-row lengths).

    A raw event stands for itself; an already cleaned event for its `source_seqs`.
    """
    if "source_seqs" not in raw.columns:
        return raw["seq"].to_numpy(dtype=np.int64)[rows], np.ones(len(rows), dtype=np.int64)
    column = raw["source_seqs"]
    if isinstance(column.dtype, pd.ArrowDtype):
        lists = pa.chunked_array(column.array.__arrow_array__()).combine_chunks()
    else:
        lists = pa.array(
            [list(v) if isinstance(v, (list, tuple, np.ndarray)) else None for v in column],
            type=pa.list_(pa.int64()),
        )
    taken = lists.take(pa.array(rows))
    lengths = pc.list_value_length(taken).fill_null(0).to_numpy()
    flat = taken.flatten().to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    return flat, lengths.astype(np.int64)
