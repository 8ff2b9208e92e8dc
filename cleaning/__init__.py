"""humantrace: cleaning. Raw DOM-event traces in, cleaned operation traces out.

`clean(raw, config)` applies the four cleaning rules (fill merge, scroll collapse,
idle-move drop, drag merge: docs/architecture.md, "Cleaning rules") to a raw event DataFrame; see docs/cleaning.md.
"""

from humantrace.cleaning.config import CLEANING_VERSION, CleaningConfig
from humantrace.cleaning.events import RAW_COLUMNS, raw_frame
from humantrace.cleaning.pipeline import clean
from humantrace.cleaning.summary import clean_records, summarise, to_records

__all__ = [
    "CLEANING_VERSION",
    "RAW_COLUMNS",
    "CleaningConfig",
    "clean",
    "clean_records",
    "raw_frame",
    "summarise",
    "to_records",
]
