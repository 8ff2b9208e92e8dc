"""Spreadsheet-formula neutralisation for every CSV humantrace writes, reversibly.

A spreadsheet program opening a CSV runs a text cell that starts with `=`, `+`, `-` or `@` (and,
in some, tab or carriage return) as a formula; an annotator's comment or a typed value in an
event could then run a formula on the lead's machine (CSV injection). Such a cell is written
with a leading `'`, which spreadsheets read as "text" and do not show. A cell that itself starts
with `'` gets one more, so that removing exactly one leading `'` from every cell that has one
restores the original value: `read_bundle` does that for bundle CSVs.

Only text cells change; numbers, booleans, timestamps and nulls are written as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

ESCAPE = "'"
TRIGGERS = ("=", "+", "-", "@", "\t", "\r", ESCAPE)
"""A text cell starting with one of these is written with a leading `ESCAPE`."""

_NEEDS_ESCAPE = "^[=+\\-@\\t\\r']"


def escape_text(value: str) -> str:
    """The cell as written to a CSV: `value` with a leading `'` when it starts with a trigger."""
    return ESCAPE + value if value.startswith(TRIGGERS) else value


def unescape_text(value: str) -> str:
    """The original value of a cell written by `escape_text`."""
    return value[1:] if value.startswith(ESCAPE) else value


def _is_text(dtype: pa.DataType) -> bool:
    return bool(pa.types.is_string(dtype) or pa.types.is_large_string(dtype))


def escape_table(table: pa.Table) -> pa.Table:
    """`table` with `escape_text` applied to every cell of its text columns (vectorised)."""
    columns = []
    for column in table.columns:
        if _is_text(column.type) and len(column):
            hit = pc.match_substring_regex(column, _NEEDS_ESCAPE)
            column = pc.if_else(hit, pc.binary_join_element_wise(ESCAPE, column, ""), column)
        columns.append(column)
    return pa.Table.from_arrays(columns, schema=table.schema)


def unescape_table(table: pa.Table) -> pa.Table:
    """Undo `escape_table` on a table read back from CSV."""
    columns = []
    for column in table.columns:
        if _is_text(column.type) and len(column):
            hit = pc.starts_with(column, ESCAPE)
            column = pc.if_else(hit, pc.utf8_slice_codeunits(column, 1), column)
        columns.append(column)
    return pa.Table.from_arrays(columns, schema=table.schema)


def escape_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of `frame` with `escape_text` applied to every text cell (str values of any column)."""
    out = frame.copy()
    for name in out.columns:
        series = out[name]
        if series.dtype == object or pd.api.types.is_string_dtype(series.dtype):
            out[name] = series.map(lambda v: escape_text(v) if isinstance(v, str) else v)
    return out


def write_csv(frame: pd.DataFrame, path: str | Path, **options: Any) -> None:
    """`frame.to_csv(path, index=False, **options)` with every text cell neutralised."""
    escape_frame(frame).to_csv(path, index=False, **options)
