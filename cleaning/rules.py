"""The four cleaning rules (docs/architecture.md, "Cleaning rules") as pure functions over a `Trace`.

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

from humantrace.cleaning.trace import (
    CHANGE,
    CLICK,
    CONTEXT,
    DOM_CHANGE,
    DROP,
    FOCUS,
    KEYDOWN,
    MOVE,
    PRESS,
    RELEASE,
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
    # Presses and releases are looked through: the move before a press produced the click after it.
    is_op = (
        (trace.kind != DOM_CHANGE) & (trace.kind != CONTEXT) & (trace.kind != PRESS) & (trace.kind != RELEASE)
    )

    # The first operation after each row (n when none), then the one after each move.
    op_at = np.where(is_op, positions, n)
    next_op = np.empty(n, dtype=np.int64)
    next_op[:-1] = np.minimum.accumulate(op_at[:0:-1])[::-1]
    next_op[-1] = n
    moves = np.flatnonzero(trace.kind == MOVE)
    following = next_op[moves]
    has_next = following < n
    moves, following = moves[has_next], following[has_next]
    same_group = trace.lane[following] == trace.lane[moves]
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
        & (trace.lane[cause] == trace.lane[changes])
        & (trace.t[changes] - trace.t[cause] <= hover_window_ms)
    )
    hovered = cause[hover]
    triggers[hovered[triggers[hovered] == NO_TRIGGER]] = TRIGGER_HOVER

    recorded = (trace.trigger != NO_TRIGGER) & (trace.kind == MOVE)
    triggers[recorded] = trace.trigger[recorded]
    return triggers


def drag_spans(trace: Trace, *, drag_min_px: float, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Rule 4 (drag merge): for each trace position, the position of the press of the drag it
    belongs to, or -1.

    A drag runs from a `mousedown` to the next `mouseup` or `drop` of its stream, with no other
    press between and no event of another stream inside, when the release is at least
    `drag_min_px` from the press (a `drop` at any distance); a click that immediately follows the
    release (context skipped) belongs to it too. Everything in between (moves, a `dragstart`, a
    field's `input` on a slider) is part of the drag. A press and release at one place is not a
    drag: both are context and the click stays.
    """
    n = trace.size
    span = np.full(n, -1, dtype=np.int64)
    presses = np.flatnonzero(trace.kind == PRESS)
    if presses.size == 0:
        return span
    positions = np.arange(n)
    ends_at = np.where((trace.kind == RELEASE) | (trace.kind == DROP), positions, n)
    next_end = np.minimum.accumulate(ends_at[::-1])[::-1]
    press_at = np.where(trace.kind == PRESS, positions, n)
    next_press = np.append(np.minimum.accumulate(press_at[::-1])[::-1][1:], n)
    end = next_end[presses]
    found = (end < n) & (end < next_press[presses])
    presses, end = presses[found], end[found]
    lane_changes = np.concatenate(([0], np.cumsum(trace.lane[1:] != trace.lane[:-1])))
    one_lane = lane_changes[end] == lane_changes[presses]
    presses, end = presses[one_lane], end[one_lane]
    distance = np.hypot(x[end] - x[presses], y[end] - y[presses])
    dragged = (trace.kind[end] == DROP) | (distance >= drag_min_px)  # NaN coordinates: not a drag
    presses, end = presses[dragged], end[dragged]
    if presses.size == 0:
        return span
    # The click the browser fires right after the release belongs to the gesture.
    context = (trace.kind == DOM_CHANGE) | (trace.kind == CONTEXT)
    op_at = np.where(~context, positions, n)
    next_op = np.append(np.minimum.accumulate(op_at[::-1])[::-1][1:], n)
    after = next_op[end]
    has_click = after < n
    has_click[has_click] = (trace.kind[after[has_click]] == CLICK) & (
        trace.lane[after[has_click]] == trace.lane[end[has_click]]
    )
    last = np.where(has_click, after, end)
    marks = np.zeros(n + 1, dtype=np.int64)
    np.add.at(marks, presses, 1)
    np.add.at(marks, last + 1, -1)
    inside = np.cumsum(marks[:-1]) > 0
    starts = np.where(np.isin(positions, presses), positions, -1)
    span[inside] = np.maximum.accumulate(starts)[inside]
    return span


def kept_operations(trace: Trace, triggers: np.ndarray, span: np.ndarray) -> np.ndarray:
    """Rows (trace positions) the cleaned trace is built from: operations, minus idle moves and
    presses and releases outside drags; inside a drag every operation is kept (it merges)."""
    context = (trace.kind == DOM_CHANGE) | (trace.kind == CONTEXT)
    idle = (trace.kind == MOVE) & (triggers == NO_TRIGGER) & (span < 0)
    press = ((trace.kind == PRESS) | (trace.kind == RELEASE)) & (span < 0)
    return np.flatnonzero(~context & ~idle & ~press)


def drag_joins(trace: Trace, ops: np.ndarray, span: np.ndarray) -> np.ndarray:
    """For each kept operation, whether it joins the previous one's drag."""
    in_drag = span[ops]
    joins: np.ndarray = (in_drag >= 0) & (in_drag != ops)
    return joins


def fill_joins(trace: Trace, ops: np.ndarray) -> np.ndarray:
    """Rule 1 (fill merge): for each kept operation, whether it joins the previous one's fill.

    A run starts at a keystroke (a typing keydown, `input`, or an earlier `fill`) and takes the
    following keystrokes into the same element (xpath and frame) of the same stream; once it holds
    an `input`/`fill`, it also takes that element's `change` (a value set by a script) and its own
    scrolls (the caret scrolling the field), so the fill ends with the element's final value.
    A run holding an `input`/`fill` becomes one fill; a run of keydowns alone (shortcut keys on a
    page, keys that changed nothing) is left as it is, one operation per keydown. A keydown of a
    named key (Enter, Tab) is a keystroke when the next operation is an `input` into the same
    field: the key changed the value (a line break in a textarea), so it is typing. Only a raw
    `input` counts, never a `fill`, so a cleaned trace cleans to itself. Rows of a drag (rule 4)
    never take part: the caller passes their kind as OTHER.
    """
    kind = trace.kind[ops]
    has_value = kind == VALUE
    lane, xpath = trace.lane[ops], trace.xpath[ops]
    typed_into = np.zeros(len(ops), dtype=bool)
    typed_into[:-1] = trace.raw_input[ops][1:] & (lane[1:] == lane[:-1]) & (xpath[1:] == xpath[:-1])
    keystroke = has_value | ((kind == KEYDOWN) & (trace.typing[ops] | typed_into))
    extra = (kind == CHANGE) | (kind == SCROLL)
    member = keystroke | extra
    same: np.ndarray = member & _same_as_previous(member, lane, xpath)
    n = len(ops)
    if n == 0:
        return same
    positions = np.arange(n)
    segment = np.cumsum(~same) - 1
    heads = np.flatnonzero(~same)
    first_key = np.minimum.reduceat(np.where(keystroke, positions, n), heads)[segment]
    first_value = np.minimum.reduceat(np.where(has_value, positions, n), heads)[segment]
    # Before the segment's first input, a change or scroll does not join and breaks the run.
    breaking = extra & (positions > first_key) & (positions < first_value)
    after_break = np.zeros(n, dtype=bool)
    after_break[1:] = breaking[:-1]
    joins = same & (positions > first_key) & ~breaking & ~(keystroke & after_break)
    joins &= ~(extra & (positions <= first_key))
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
    joins: np.ndarray = scroll & _same_as_previous(scroll, trace.lane[ops], trace.xpath[ops], trace.url[ops])
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
