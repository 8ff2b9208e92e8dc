"""A plain, readable loop over rows that cleans traces the slow way: the tests' oracle.

It follows the wording of docs/architecture.md ("Cleaning rules") event by event and shares no rule code with `cleaning.rules`, so
the vectorised pipeline can be checked against it. Not for production use: it is ~100x slower.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from humantrace.cleaning.config import CLEANING_VERSION, CleaningConfig
from humantrace.cleaning.events import (
    CHANGE_TYPES,
    CLEAN_COLUMNS,
    CLICK_TYPES,
    CONTEXT_TYPES,
    DROP_TYPES,
    FOCUS_TYPES,
    PRESS_TYPES,
    RAW_COLUMNS,
    RELEASE_TYPES,
    SELECT_TYPES,
    VALUE_KEYSTROKE_TYPES,
    is_typing_key,
)
from humantrace.cleaning.trace import complete_columns

LOOKED_THROUGH = CONTEXT_TYPES | PRESS_TYPES | RELEASE_TYPES  # what rule 3 skips to find the next operation

Row = dict[str, Any]


def _null(value: object) -> bool:
    if isinstance(value, (list, tuple, np.ndarray)):
        return False
    return value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value))


def _same(a: Row, b: Row) -> bool:
    def equal(x: object, y: object) -> bool:
        if _null(x) or _null(y):
            return _null(x) and _null(y)
        if isinstance(x, (list, tuple, np.ndarray)) or isinstance(y, (list, tuple, np.ndarray)):
            return bool(list(x) == list(y))  # type: ignore[call-overload]  # x and y are sequences here, which mypy cannot narrow from `object`
        return bool(x == y)

    return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)


def _trigger(rows: list[Row], i: int, hover_window_ms: int) -> str | None:
    """What the mousemove at rows[i] produced, or None when it is idle."""
    if not _null(rows[i].get("trigger")):
        return str(rows[i]["trigger"])
    hover = False
    j = i + 1
    while j < len(rows) and rows[j]["type"] in LOOKED_THROUGH:
        if (
            rows[j]["type"] == "dom_change"
            and _stream(rows[j]) == _stream(rows[i])
            and rows[j]["t_ms"] - rows[i]["t_ms"] <= hover_window_ms
        ):
            hover = True
        j += 1
    following = rows[j]["type"] if j < len(rows) and _stream(rows[j]) == _stream(rows[i]) else None
    if following in CLICK_TYPES:
        return "click"
    if following in FOCUS_TYPES:
        return "focus"
    if following in SELECT_TYPES:
        return "select"
    return "hover" if hover else None


def _stream(row: Row) -> object:
    """A null or absent stream is one page instance of its own (-1, as `cleaning.trace.NO_STREAM`)."""
    stream = row.get("stream")
    return -1 if stream is None else int(stream)


def _target(row: Row) -> tuple[Any, ...]:
    """An element: its stream, frame and XPath."""
    return (_stream(row), row.get("frame_xpath") or "", row["xpath"])


def _drags(rows: list[Row], min_px: float) -> list[int | None]:
    """Rule 4: for each row, the index of the press of the drag it belongs to, or None."""
    owner: list[int | None] = [None] * len(rows)
    for i, row in enumerate(rows):
        if row["type"] not in PRESS_TYPES:
            continue
        j = i + 1
        while j < len(rows) and rows[j]["type"] not in RELEASE_TYPES | DROP_TYPES | PRESS_TYPES:
            j += 1
        if j == len(rows) or rows[j]["type"] in PRESS_TYPES:
            continue
        if any(_stream(rows[k]) != _stream(row) for k in range(i, j + 1)):
            continue
        end = rows[j]
        coords = [row["x"], row["y"], end["x"], end["y"]]
        far = (
            not any(_null(c) for c in coords)
            and float(np.hypot(end["x"] - row["x"], end["y"] - row["y"])) >= min_px
        )
        if end["type"] not in DROP_TYPES and not far:
            continue
        last = j
        k = j + 1
        while k < len(rows) and rows[k]["type"] in CONTEXT_TYPES:
            k += 1
        if k < len(rows) and rows[k]["type"] in CLICK_TYPES and _stream(rows[k]) == _stream(row):
            last = k
        for m in range(i, last + 1):
            owner[m] = i
    return owner


def _is_keystroke(row: Row) -> bool:
    if row["type"] in VALUE_KEYSTROKE_TYPES:
        return True
    return bool(row["type"] == "keydown" and is_typing_key(None if _null(row["key"]) else row["key"]))


def _sources(row: Row) -> list[int]:
    existing = row.get("source_seqs")
    return [int(s) for s in existing] if existing is not None and not _null(existing) else [int(row["seq"])]


def _emit(run: list[Row], kind: str) -> list[Row]:
    if kind == "drag":
        return [_emit_drag(run)]
    first = dict(run[0])
    first["source_seqs"] = [s for row in run for s in _sources(row)]
    first["trigger"] = None
    if kind == "keys":
        if not any(row["type"] in VALUE_KEYSTROKE_TYPES for row in run):
            return [dict(row, source_seqs=_sources(row), trigger=None) for row in run]
        values = [row["value"] for row in run if not _null(row["value"])]
        first.update(type="fill", key=None, value=values[-1] if values else None)
    elif kind == "scroll":
        for axis in ("dx", "dy"):
            present = [float(row[axis]) for row in run if not _null(row[axis])]
            total = None
            for v in present:
                total = v if total is None else total + v
            first[axis] = total
        first["scroll_x"] = run[-1]["scroll_x"]
        first["scroll_y"] = run[-1]["scroll_y"]
    return [first]


def _emit_drag(run: list[Row]) -> Row:
    first = dict(run[0], trigger=None, key=None, type="drag")
    first["source_seqs"] = [s for row in run for s in _sources(row)]
    release = [row for row in run if row["type"] in RELEASE_TYPES | DROP_TYPES][-1]
    first["dx"] = release["x"] - first["x"]
    first["dy"] = release["y"] - first["y"]
    first["value"] = release["xpath"]
    return first


def _has_value(run: list[Row]) -> bool:
    return any(row["type"] in VALUE_KEYSTROKE_TYPES for row in run)


def _keystrokes(ops: list[Row]) -> list[bool]:
    """Which operations are keystrokes; a named key is one when an `input` into its field follows."""
    flags = []
    for i, row in enumerate(ops):
        following = ops[i + 1] if i + 1 < len(ops) else None
        produced_input = (
            row["type"] == "keydown"
            and following is not None
            and following["type"] == "input"
            and _target(following) == _target(row)
        )
        flags.append(_is_keystroke(row) or produced_input)
    return flags


def _clean_attempt(rows: list[Row], config: CleaningConfig) -> list[Row]:
    triggers = [
        _trigger(rows, i, config.hover_window_ms) if row["type"] == "mousemove" else None
        for i, row in enumerate(rows)
    ]
    owner = _drags(rows, config.drag_min_px)
    ops = [
        dict(row, trigger=trigger, _drag=drag)
        for row, trigger, drag in zip(rows, triggers, owner)
        if row["type"] not in CONTEXT_TYPES
        and (
            drag is not None
            or ((row["type"] != "mousemove" or trigger) and row["type"] not in PRESS_TYPES | RELEASE_TYPES)
        )
    ]
    cleaned: list[Row] = []
    run: list[Row] = []
    kind = ""
    for row, keystroke in zip(ops, _keystrokes(ops)):
        if run and kind == "drag" and row["_drag"] == run[0]["_drag"]:
            run.append(row)
            continue
        if row["_drag"] is not None:
            if run:
                cleaned.extend(_emit(run, kind) if kind else [dict(run[0], source_seqs=_sources(run[0]))])
            run, kind = [row], "drag"
            continue
        if (
            run
            and kind == "keys"
            and _target(row) == _target(run[-1])
            and (keystroke or (row["type"] in CHANGE_TYPES | {"scroll"} and _has_value(run)))
        ):
            run.append(row)
            continue
        if (
            run
            and kind == "scroll"
            and row["type"] == "scroll"
            and _target(row) == _target(run[-1])
            and row["url"] == run[-1]["url"]
            and row["t_ms"] - run[0]["t_ms"] <= config.scroll_window_ms
        ):
            run.append(row)
            continue
        if run:
            cleaned.extend(_emit(run, kind) if kind else [dict(run[0], source_seqs=_sources(run[0]))])
        run = [row]
        kind = "keys" if keystroke else "scroll" if row["type"] == "scroll" else ""
    if run:
        cleaned.extend(_emit(run, kind) if kind else [dict(run[0], source_seqs=_sources(run[0]))])
    for step, row in enumerate(cleaned):
        row["step"] = step
    return cleaned


def clean_reference(raw: pd.DataFrame, config: CleaningConfig | None = None) -> pd.DataFrame:
    """What `cleaning.clean` returns, computed one row at a time."""
    config = config or CleaningConfig()
    attrs = raw.attrs
    raw = complete_columns(raw, group_by=config.group_by)
    records: list[Row] = [
        {str(k): (None if _null(v) else v) for k, v in rec.items()} for rec in raw.to_dict("records")
    ]
    records.sort(key=lambda r: (r[config.group_by], _stream(r), r["seq"]))  # stable
    by_group: dict[Any, list[Row]] = {}
    for rec in records:
        rows = by_group.setdefault(rec[config.group_by], [])
        if rows and rows[-1]["seq"] == rec["seq"] and _stream(rows[-1]) == _stream(rec):
            if not _same(rows[-1], rec):
                raise ValueError(f"raw events: two different events with seq {rec['seq']}")
            continue  # the same event delivered twice
        rows.append(rec)
    for key, rows in by_group.items():
        if len({_stream(row) for row in rows}) > 1:
            # by time across streams; a stream's time is its running maximum, so it stays in seq order
            latest: dict[object, int] = {}
            for row in rows:
                latest[_stream(row)] = max(latest.get(_stream(row), row["t_ms"]), row["t_ms"])
                row["_t"] = latest[_stream(row)]
            by_group[key] = sorted(rows, key=lambda r: (r["_t"], _stream(r), r["seq"]))
    cleaned = [row for rows in by_group.values() for row in _clean_attempt(rows, config)]

    extra = [c for c in raw.columns if c not in RAW_COLUMNS and c not in CLEAN_COLUMNS]
    columns = [*RAW_COLUMNS, *extra]
    out = pd.DataFrame({c: pd.Series([row[c] for row in cleaned], dtype=raw[c].dtype) for c in columns})
    triggers = [row["trigger"] if row["type"] == "mousemove" else None for row in cleaned]
    out["trigger"] = pd.Series(triggers, dtype="str")
    out["source_seqs"] = pd.Series(
        pd.arrays.ArrowExtensionArray(
            pa.array([row["source_seqs"] for row in cleaned], type=pa.list_(pa.int64()))
        )
    )
    out["step"] = pd.Series([row["step"] for row in cleaned], dtype="int64")
    out.attrs = {**attrs, "cleaning_config": config.to_dict(), "cleaning_version": CLEANING_VERSION}
    return out
