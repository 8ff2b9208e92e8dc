"""The three cleaning rules (DESIGN.md, "Cleaning rules") as pure functions over a `Trace`.

Each rule is array code over the whole frame at once (run-length grouping with shifted
comparisons and cumulative sums), never a Python loop per event. The rules only decide; building
the cleaned frame from their decisions is `cleaning.pipeline`.

How the rules see each other: rule 3 decides which mousemoves are idle by looking at what follows
each move in the raw trace; rules 1 and 2 then look for "consecutive" events among the operations
that the cleaned trace keeps. Context events and idle moves therefore never interleave a fill or a
scroll run (a mouse nudged while typing does not split the fill), while every kept operation,
including a kept mousemove, does. This is what makes cleaning idempotent: were a dropped move to
split two scroll runs, the two collapsed scrolls would sit side by side in the cleaned trace and
merge when it is cleaned again.
"""

from __future__ import annotations

import numpy as np

from cleaning.trace import (
    CLICK,
    CONTEXT,
    DOM_CHANGE,
    FOCUS,
    KEYDOWN,
    MOVE,
    SCROLL,
    SELECT,
    VALUE,
    Trace,
)

# Trigger codes (1 + index into cleaning.events.TRIGGERS); 0 means an idle move.
NO_TRIGGER, TRIGGER_CLICK, TRIGGER_FOCUS, TRIGGER_SELECT, TRIGGER_HOVER = range(5)


def _same_as_previous(*arrays: np.ndarray) -> np.ndarray:
    """Element i is True when every array holds the same value at i and at i - 1 (False at 0)."""
    same = np.ones(len(arrays[0]), dtype=bool)
    same[:1] = False
    for values in arrays:
        same[1:] &= values[1:] == values[:-1]
    return same


def move_triggers(trace: Trace, *, hover_window_ms: int) -> np.ndarray:
    """Rule 3 (idle-move drop): what each mousemove produced; 0 for an idle move (dropped).

    A move produced a click, a focus change or a selection when the next operation of its attempt
    (context events skipped) is a click/dblclick/contextmenu, a focus/blur or a select. It
    triggered a hover when a `dom_change` follows it, before the next operation and at most
    `hover_window_ms` after it. A move already marked in a cleaned trace keeps its mark, since the
    `dom_change` that justified it is no longer there. Only the last move before a click (or
    before a hover effect) produced it; the path leading there is idle.
    """
    n = trace.size
    triggers = np.zeros(n, dtype=np.int8)
    if n == 0:
        return triggers
    positions = np.arange(n)
    is_op = (trace.kind != DOM_CHANGE) & (trace.kind != CONTEXT)

    # The first operation after each row (n when none), then the one after each move.
    op_at = np.where(is_op, positions, n)
    next_op = np.empty(n, dtype=np.int64)
    next_op[:-1] = np.minimum.accumulate(op_at[:0:-1])[::-1]
    next_op[-1] = n
    moves = np.flatnonzero(trace.kind == MOVE)
    following = next_op[moves]
    has_next = following < n
    moves, following = moves[has_next], following[has_next]
    same_group = trace.group[following] == trace.group[moves]
    moves, next_kind = moves[same_group], trace.kind[following[same_group]]
    for kind, code in ((CLICK, TRIGGER_CLICK), (FOCUS, TRIGGER_FOCUS), (SELECT, TRIGGER_SELECT)):
        triggers[moves[next_kind == kind]] = code

    # Each dom_change is attributed to the last operation at or before it.
    last_op = np.maximum.accumulate(np.where(is_op, positions, -1))
    changes = np.flatnonzero(trace.kind == DOM_CHANGE)
    cause = last_op[changes]
    has_cause = cause >= 0
    changes, cause = changes[has_cause], cause[has_cause]
    hover = (
        (trace.kind[cause] == MOVE)
        & (trace.group[cause] == trace.group[changes])
        & (trace.t[changes] - trace.t[cause] <= hover_window_ms)
    )
    hovered = cause[hover]
    triggers[hovered[triggers[hovered] == NO_TRIGGER]] = TRIGGER_HOVER

    recorded = (trace.trigger != NO_TRIGGER) & (trace.kind == MOVE)
    triggers[recorded] = trace.trigger[recorded]
    return triggers


def kept_operations(trace: Trace, triggers: np.ndarray) -> np.ndarray:
    """Rows (trace positions) the cleaned trace is built from: operations, minus idle moves."""
    context = (trace.kind == DOM_CHANGE) | (trace.kind == CONTEXT)
    idle = (trace.kind == MOVE) & (triggers == NO_TRIGGER)
    return np.flatnonzero(~context & ~idle)


def fill_joins(trace: Trace, ops: np.ndarray) -> np.ndarray:
    """Rule 1 (fill merge): for each kept operation, whether it joins the previous one's fill.

    A run is a maximal sequence of consecutive keystrokes (typing keydowns, `input`, or an earlier
    `fill`) into the same xpath of one attempt. A run holding at least one `input`/`fill` becomes
    one fill; a run of keydowns alone (shortcut keys on a page, keys that changed nothing) is left
    as it is, one operation per keydown. A keydown of a named key (Enter, Tab) is a keystroke when
    the next operation is an `input` into the same field: the key changed the value (a line break
    in a textarea), so it is typing. Only a raw `input` counts, never a `fill`, so a cleaned trace
    cleans to itself.
    """
    kind = trace.kind[ops]
    has_value = kind == VALUE
    group, xpath = trace.group[ops], trace.xpath[ops]
    typed_into = np.zeros(len(ops), dtype=bool)
    typed_into[:-1] = trace.raw_input[ops][1:] & (group[1:] == group[:-1]) & (xpath[1:] == xpath[:-1])
    keystroke = has_value | ((kind == KEYDOWN) & (trace.typing[ops] | typed_into))
    joins = keystroke & _same_as_previous(keystroke, group, xpath)
    run = np.cumsum(~joins) - 1
    run_has_value = np.bincount(run, weights=has_value) > 0
    result: np.ndarray = joins & run_has_value[run]
    return result


def scroll_joins(trace: Trace, ops: np.ndarray, *, scroll_window_ms: int) -> np.ndarray:
    """Rule 2 (scroll collapse): for each kept operation, whether it joins the previous scroll.

    Consecutive scrolls on the same container (xpath) and page (url) of one attempt form a
    segment. A run starts at the segment's first scroll and takes every following scroll at most
    `scroll_window_ms` after that first one; the first scroll beyond starts the next run, and so on.
    """
    kind = trace.kind[ops]
    scroll = kind == SCROLL
    joins: np.ndarray = scroll & _same_as_previous(scroll, trace.group[ops], trace.xpath[ops], trace.url[ops])
    rows = np.flatnonzero(scroll)
    if rows.size == 0:
        return joins
    starts = _window_starts(trace.t[ops[rows]], ~joins[rows], scroll_window_ms)
    joins[rows[starts]] = False
    return joins


def _window_starts(t: np.ndarray, heads: np.ndarray, window: int) -> np.ndarray:
    """Greedy fixed windows within segments: which events start a run.

    `t` holds the scroll times, `heads` marks each segment's first scroll. A run's end depends on
    where it starts, so starts are found by hopping from run start to run start, all segments at
    once: the loop runs once per run of the longest segment, not once per event. The hop uses a
    search on the running maximum of time within each segment, which is sorted even when a
    client clock steps back, and whose first value past a threshold is the first event past it.
    """
    segment = np.cumsum(heads) - 1
    head_t = t[np.flatnonzero(heads)][segment]
    relative = np.maximum(t - head_t, 0)  # the running max within a segment is >= its head
    stride = int(relative.max()) + window + 1
    starts = np.zeros(len(t), dtype=bool)
    if (int(segment[-1]) + 1) * stride >= 2**62:
        return _window_starts_per_segment(t, heads, window)
    key = np.maximum.accumulate(segment * np.int64(stride) + relative)
    frontier = np.flatnonzero(heads)
    while frontier.size:
        starts[frontier] = True
        hop = np.searchsorted(key, key[frontier] + window, side="right")
        inside = hop < len(t)
        frontier, hop = frontier[inside], hop[inside]
        frontier = hop[segment[hop] == segment[frontier]]
    return starts


def _window_starts_per_segment(t: np.ndarray, heads: np.ndarray, window: int) -> np.ndarray:
    """The same as `_window_starts`, one segment at a time, for clocks too far apart to pack."""
    starts = np.zeros(len(t), dtype=bool)
    bounds = np.append(np.flatnonzero(heads), len(t))
    for begin, end in zip(bounds[:-1], bounds[1:]):
        running = np.maximum.accumulate(t[begin:end])
        at = 0
        while at < end - begin:
            starts[begin + at] = True
            at = int(np.searchsorted(running, t[begin + at] + window, side="right"))
    return starts
