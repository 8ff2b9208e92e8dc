"""The raw-event vocabulary the cleaning rules read: columns, event kinds and keyboard keys.

The raw table is agreed with `recorder/` and `exports/` (one flat row per DOM event, a field that
does not apply is null). Changing anything here changes cleaned traces, so it must come with a new
`CLEANING_VERSION` (see `cleaning.config`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

RAW_COLUMNS: tuple[str, ...] = (
    "attempt_id",
    "seq",
    "t_ms",
    "type",
    "xpath",
    "url",
    "x",
    "y",
    "key",
    "value",
    "scroll_x",
    "scroll_y",
    "dx",
    "dy",
    "nav",
    "added",
    "removed",
    "attributes",
    "width",
    "height",
    "state",
)
"""Raw columns in their agreed order; the cleaned output keeps all of them, in this order."""

CLEAN_COLUMNS: tuple[str, ...] = ("trigger", "source_seqs", "step")
"""Columns the cleaned output adds after the raw ones (and after any extra input columns)."""

CORE_COLUMNS: tuple[str, ...] = ("seq", "t_ms", "type")
"""Columns every rule reads (besides the grouping column, `attempt_id` by default)."""

RULE_INPUTS: tuple[tuple[str, frozenset[str], tuple[str, ...]], ...] = (
    ("rule 1 (fill merge)", frozenset({"keydown"}), ("xpath", "key")),
    ("rule 1 (fill merge)", frozenset({"input", "fill"}), ("xpath", "value")),
    ("rule 2 (scroll collapse)", frozenset({"scroll"}), ("xpath", "dx", "dy")),
)
"""(rule, event types, columns): a rule reads these columns on events of these types. A frame
without such events may lack the columns; every other raw column is optional (null when absent)."""

CONTEXT_TYPES = frozenset({"dom_change", "visibility", "resize"})
"""Context events: the rules read them, the cleaned trace leaves them out."""

# What a kept mousemove produced, in order of precedence; the strings are the `trigger` values.
CLICK_TYPES = frozenset({"click", "dblclick", "contextmenu"})
FOCUS_TYPES = frozenset({"focus", "blur"})
SELECT_TYPES = frozenset({"select"})
TRIGGERS: tuple[str, ...] = ("click", "focus", "select", "hover")

# Rule 4 (drag merge): a press, then a release or a drop, in one stream.
PRESS_TYPES = frozenset({"mousedown"})
RELEASE_TYPES = frozenset({"mouseup"})
DROP_TYPES = frozenset({"drop"})
DRAG_START_TYPES = frozenset({"dragstart"})

# Events a fill run takes in once it holds a value: scripted values and the field's own (caret) scrolls.
CHANGE_TYPES = frozenset({"change"})

OPTIONAL_COLUMNS: tuple[str, ...] = ("stream", "frame_xpath")
"""Raw columns a trace may lack: without `stream` an attempt is one page instance, without
`frame_xpath` every event is in the top document. They travel as extra columns."""

# Keystroke events for the fill merge; `fill` is what a merged run becomes, so a cleaned trace
# fed back in merges exactly as the raw one did (the rule is closed under its own output).
VALUE_KEYSTROKE_TYPES = frozenset({"input", "fill"})

TEXT_EDITING_KEYS = frozenset(
    {
        "Backspace",
        "Delete",
        "Shift",
        "Control",
        "Alt",
        "AltGraph",
        "Meta",
        "CapsLock",
        "Dead",
        "Process",
        "Compose",
        "Unidentified",
    }
)
"""Named keys that are part of typing text: edits, modifiers held for a capital or a paste, IME."""


def is_typing_key(key: object) -> bool:
    """Whether a keydown's `key` is part of typing text into a field.

    True for a printable character (any `key` that is not a named key), a masked key (null) and
    the text-editing keys above. False for the other named keys of the UI Events spec (Enter, Tab,
    Escape, arrows, Home/End, PageUp/PageDown, F1..F24, ...): such a keydown is an operation on its
    own and breaks a fill run. A named key is ASCII letters and digits, at least two long.
    """
    if key is None or (isinstance(key, float) and np.isnan(key)) or key is pd.NA:
        return True
    text = str(key)
    named = len(text) > 1 and text.isascii() and text.isalnum()
    return not named or text in TEXT_EDITING_KEYS


def typing_key_mask(keys: pd.Series) -> np.ndarray:
    """Vectorised `is_typing_key` over a column of keys; returns a boolean array."""
    text = keys.astype("str")
    named_keys = (text.str.len() > 1) & text.str.fullmatch(r"[A-Za-z0-9]+")
    named = named_keys.fillna(False).to_numpy(dtype=bool)
    editing = text.isin(TEXT_EDITING_KEYS).to_numpy(dtype=bool)
    return ~named | editing


RAW_DTYPES: dict[str, str] = {
    "attempt_id": "int64",
    "seq": "int64",
    "t_ms": "int64",
    "type": "str",
    "xpath": "str",
    "url": "str",
    "x": "float64",
    "y": "float64",
    "key": "str",
    "value": "str",
    "scroll_x": "float64",
    "scroll_y": "float64",
    "dx": "float64",
    "dy": "float64",
    "nav": "str",
    "added": "Int64",
    "removed": "Int64",
    "attributes": "Int64",
    "width": "Int64",
    "height": "Int64",
    "state": "str",
}
"""The dtypes a raw event frame has when built by `raw_frame` (nullable ints stay ints)."""


def raw_frame(records: list[dict[str, Any]]) -> pd.DataFrame:
    """A raw event frame from event dicts; a missing key is a null field, extra keys are kept."""
    extra = list(dict.fromkeys(k for rec in records for k in rec if k not in RAW_DTYPES))
    columns = {
        name: pd.Series([rec.get(name) for rec in records], dtype=RAW_DTYPES.get(name))
        for name in (*RAW_COLUMNS, *extra)
    }
    return pd.DataFrame(columns)
