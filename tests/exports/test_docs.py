"""docs/exports.md documents every bundle column, agent column, output table and failure mode."""

from __future__ import annotations

from pathlib import Path

import pytest

from humantrace.exports.agents import OPTIONAL_COLUMNS, REQUIRED_COLUMNS
from humantrace.exports.compare import TABLE_FILES
from humantrace.exports.failure_modes import AGENT_MODES, HUMAN_ENDINGS, SUCCESS_KEYWORDS
from humantrace.exports.schema import TABLES

DOC = (Path(__file__).resolve().parents[2] / "docs" / "exports.md").read_text()


@pytest.mark.parametrize("table", list(TABLES))
def test_every_bundle_column_is_documented(table):
    assert f"### `{table}`" in DOC
    missing = [c.name for c in TABLES[table].columns if f"`{c.name}`" not in DOC]
    assert missing == []


def test_agent_columns_outputs_and_modes_are_documented():
    names = [*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS, *AGENT_MODES, *HUMAN_ENDINGS]
    assert [n for n in names if f"`{n}`" not in DOC] == []
    assert [f for f in TABLE_FILES if f"`{f}.csv`" not in DOC] == []
    assert all(word in DOC for word in SUCCESS_KEYWORDS)
