"""Per-attempt counts and a records-in, records-out convenience for the end of an attempt."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from humantrace.cleaning.config import CleaningConfig
from humantrace.cleaning.events import raw_frame
from humantrace.cleaning.pipeline import clean


def summarise(raw: pd.DataFrame, cleaned: pd.DataFrame, *, group_by: str | None = None) -> pd.DataFrame:
    """Per attempt: `raw_events` (every raw event, context included) and `clean_steps`.

    `group_by` defaults to the one recorded in `cleaned.attrs`, else `attempt_id`. An attempt
    whose events are all context or idle moves has 0 clean steps. Sorted by attempt.
    """
    if group_by is None:
        group_by = cleaned.attrs.get("cleaning_config", {}).get("group_by", "attempt_id")
    raw_events = raw.groupby(group_by, sort=True).size().rename("raw_events")
    clean_steps = cleaned.groupby(group_by, sort=True).size().rename("clean_steps")
    counts = pd.concat([raw_events, clean_steps], axis=1).fillna(0).astype(np.int64)
    return counts.rename_axis(group_by).reset_index()


def _plain(value: Any) -> Any:
    """A JSON-friendly Python value: nulls become None, numpy scalars Python ones."""
    if isinstance(value, (list, np.ndarray)):
        return [int(v) for v in value]
    if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
        return None
    return value.item() if isinstance(value, np.generic) else value


def to_records(cleaned: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of an event frame as JSON-ready dicts: nulls (NaN, NA, None) are None, numbers
    are Python ones and `source_seqs` is a list of ints.

    Converted through Arrow, about twice as fast as a row-by-row conversion (this runs inside
    every Evaluate); an extra column Arrow cannot type (mixed values) takes the row-by-row way.
    """
    try:
        records: list[dict[str, Any]] = pa.Table.from_pandas(cleaned, preserve_index=False).to_pylist()
        return records
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return [{str(k): _plain(v) for k, v in row.items()} for row in cleaned.to_dict("records")]


def clean_records(
    records: list[dict[str, Any]], config: CleaningConfig | None = None
) -> list[dict[str, Any]]:
    """Clean raw event dicts (e.g. one attempt's, at attempt end) into cleaned event dicts.

    Keys missing from a record are null fields. Each result holds the raw fields plus `trigger`,
    `source_seqs` (a list of ints) and `step`; nulls are None. Records without the grouping
    column (`attempt_id` by default), as one attempt's events at its end often are, are cleaned as
    one trace of their own and come back with it null.
    """
    config = config or CleaningConfig()
    key = config.group_by
    missing = [rec.get(key) is None for rec in records]
    if not any(missing):
        return to_records(clean(raw_frame(records), config))
    known = [int(rec[key]) for rec, none in zip(records, missing, strict=True) if not none]
    # A group id no record uses, so the records without one stay apart from every attempt's.
    sentinel = min(known) - 1 if known else -1
    keyed = [rec if not none else {**rec, key: sentinel} for rec, none in zip(records, missing, strict=True)]
    out = to_records(clean(raw_frame(keyed), config))
    for record in out:
        if record[key] == sentinel:
            record[key] = None
    return out
