"""docs/recorder.md cannot drift from the code: every event type, error code, limit and setting is in it."""

from __future__ import annotations

import re
from pathlib import Path

from humantrace.recorder import schemas
from humantrace.recorder.protocol import HTTP_STATUS

DOC = (Path(__file__).resolve().parents[2] / "docs" / "recorder.md").read_text(encoding="utf-8")


def test_every_event_type_and_nav_kind_is_documented():
    for name in (*schemas.EVENT_TYPES, *schemas.NAV_KINDS):
        assert f"`{name}`" in DOC, name


def test_every_error_code_is_documented():
    for code in HTTP_STATUS:
        assert f"`{code}`" in DOC, code


def test_every_limit_is_documented_with_its_value():
    limits = {name: getattr(schemas, name) for name in dir(schemas) if name.startswith("MAX_")}
    assert len(limits) >= 8
    for name, value in limits.items():
        row = re.search(rf"`{name}`[^|]*\| ([0-9]+)", DOC)
        assert row, name
        assert int(row.group(1)) == value, name


def test_every_recorder_setting_is_documented():
    for setting in (
        "data-token",
        "data-server",
        "data-mask-all",
        "data-mousemove-ms",
        "data-debug",
        "maskAllText",
        "mousemoveSampleMs",
        "HUMANTRACE_RECORDER",
        "mask_all_text",
        "mousemove_sample_ms",
        "HUMANTRACE_RECORDER_DATABASE_URL",
        "HUMANTRACE_RECORDER_SECRET",
        "HUMANTRACE_RECORDER_PAGES",
    ):
        assert setting in DOC, setting
