"""docs/cleaning.md documents every config field, added column and kept-key decision."""

from __future__ import annotations

from pathlib import Path

import pytest

from humantrace.cleaning import CleaningConfig
from humantrace.cleaning.events import CLEAN_COLUMNS, TEXT_EDITING_KEYS, TRIGGERS

DOC = Path(__file__).resolve().parents[2] / "docs" / "cleaning.md"


@pytest.mark.parametrize(
    "name",
    [
        *CleaningConfig.model_fields,
        *CLEAN_COLUMNS,
        *TRIGGERS,
        *sorted(TEXT_EDITING_KEYS),
        "cleaning_version",
        "cleaning_config",
    ],
)
def test_name_is_documented(name):
    assert f"`{name}`" in DOC.read_text()


def test_default_windows_are_the_documented_ones():
    text = DOC.read_text()
    config = CleaningConfig()
    assert f"`scroll_window_ms` | {config.scroll_window_ms}" in text
    assert f"`hover_window_ms` | {config.hover_window_ms}" in text
