"""No CSV humantrace writes holds a text cell a spreadsheet would run as a formula, and a bundle's
CSVs read back exactly (the neutralisation is undone by `read_bundle`).

Free text reaches CSVs from annotators (typed values in events, comments), from the pages they
visit (URLs) and from agent bundles (model names): any of it could be `=HYPERLINK(...)`.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

HOSTILE = [
    "=1+1",
    "+SUM(A1:A9)",
    "-2+3",
    "@SUM(A1)",
    "\tTAB",
    "\rCR",
    "'quoted",
    "''two",
    "=cmd|' /C calc'!A0",
    "plain",
    "",
    "a=b",
    "-",
    "'",
    "'=1",
]
RUNNABLE = ("=", "+", "-", "@", "\t", "\r")


def _text_cells(path: Path, columns: list[str]) -> list[str]:
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return [row[c] for row in rows for c in columns if c in row and row[c] is not None]


def _write_bundle(out: Path, formats: tuple[str, ...]) -> Path:
    from humantrace.exports.bundle import BundleWriter

    n = len(HOSTILE)
    attempts = pd.DataFrame(
        {
            "attempt_id": [1],
            "annotator": ["A1"],
            "env_id": ["shop"],
            "task_id": ["T1"],
            "difficulty": ["easy"],
            "condition": ["clean"],
            "phase": ["cold"],
            "tier": ["primary"],
            "assignment_id": [1],
            "wall_clock_s": [3.0],
            "raw_events": [n],
            "score": [1.0],
            "passed": [True],
            "outcome": ["evaluated"],
            "rolled_back": [False],
            "user_agent": ["=UA()"],
        }
    )
    events = pd.DataFrame(
        {
            "attempt_id": [1] * n,
            "seq": list(range(n)),
            "t_ms": [1_700_000_000_000 + i for i in range(n)],
            "type": ["input"] * n,
            "value": HOSTILE,
            "url": [f"http://x/{i}" for i in range(n)],
            "key": HOSTILE[::-1],
            "x": [-5.0] * n,  # numbers stay numbers: a negative number is no formula
        }
    )
    ratings = pd.DataFrame(
        {
            "assignment_id": list(range(1, n + 1)),
            "annotator": ["A1"] * n,
            "task_id": ["T1"] * n,
            "condition": ["clean"] * n,
            "comments": HOSTILE,
        }
    )
    with BundleWriter(out, formats=formats, include_comments=True) as writer:
        writer.append("attempts", attempts)
        writer.append("events_raw", events)
        writer.append("ratings", ratings)
        writer.close()
    return out


def test_bundle_csvs_neutralise_formulas_and_read_back_exactly(tmp_path):
    from humantrace.exports.bundle import read_bundle, verify_bundle

    both = _write_bundle(tmp_path / "both", ("parquet", "csv"))
    assert verify_bundle(both) == []
    written = _text_cells(both / "events_raw.csv", ["value", "key"]) + _text_cells(
        both / "ratings.csv", ["comments"]
    )
    written += _text_cells(both / "attempts.csv", ["user_agent"])
    assert not [cell for cell in written if cell.startswith(RUNNABLE)], written
    values = _text_cells(both / "events_raw.csv", ["value"])
    assert values == [("'" + v if v.startswith(RUNNABLE + ("'",)) else v) for v in HOSTILE]
    assert _text_cells(both / "events_raw.csv", ["x"]) == ["-5"] * len(HOSTILE)

    # CSV alone (read_bundle prefers Parquet when both exist): exactly the values written.
    csv_only = tmp_path / "csv-only"
    shutil.copytree(both, csv_only)
    for parquet in csv_only.glob("*.parquet"):
        parquet.unlink()
    from_csv = read_bundle(csv_only)
    from_parquet = read_bundle(both)
    assert from_csv.events_raw["value"].tolist() == HOSTILE
    assert from_csv.events_raw["key"].tolist() == HOSTILE[::-1]
    assert from_csv.ratings["comments"].tolist() == HOSTILE
    assert from_csv.attempts["user_agent"].tolist() == ["=UA()"]
    assert from_parquet.events_raw["value"].tolist() == HOSTILE
    assert from_csv.events_raw["x"].tolist() == [-5.0] * len(HOSTILE)


def test_a_schema_1_bundle_is_read_as_it_was_written(tmp_path):
    """Bundles written before the neutralisation have no escape to undo: a leading ' is data."""
    from humantrace.exports.bundle import read_bundle

    bundle = _write_bundle(tmp_path / "old", ("csv",))
    manifest = json.loads((bundle / "manifest.json").read_text())
    manifest["schema_version"] = "1.0"
    del manifest["csv_formula_escape"]
    (bundle / "manifest.json").write_text(json.dumps(manifest))
    read = read_bundle(bundle)
    assert read.events_raw["value"].iloc[0] == "'=1+1"


def test_compare_tables_neutralise_formulas(tmp_path):
    from humantrace.exports.compare import compare

    human = _write_bundle(tmp_path / "human", ("parquet",))
    agents = tmp_path / "agents.jsonl"
    rows = [
        {
            "run_id": f"r{i}",
            "model": '=HYPERLINK("http://evil","m")',
            "task": "T1",
            "env": "shop",
            "difficulty": "easy",
            "condition": "clean",
            "score": 1.0,
            "steps": 3,
            "elapsed_s": 10.0,
            "source_variant": "",
            "final_thought": "@SUM(1)",
        }
        for i in range(2)
    ]
    rows.append(
        {"run_id": "bad", "model": "-m", "task": "=T1", "env": "shop"}
    )  # rejected: its reason names "=T1"
    agents.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    result = compare(human, [agents], tmp_path / "out", bootstrap=20, seed=1)
    checked = 0
    for name, path in result.csv_paths.items():
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.reader(fh)
            next(reader, None)
            for row in reader:
                for cell in row:
                    checked += 1
                    assert not cell.startswith(RUNNABLE) or _is_number(cell), (name, cell)
    models = _text_cells(result.csv_paths["agents_by_model"], ["model"])
    assert models and all(m == '\'=HYPERLINK("http://evil","m")' for m in models), models
    assert checked > 20


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("hostile", ["=1+1", "'=x"])
def test_escape_round_trips(hostile):
    from humantrace.exports.csv_safety import escape_text, unescape_text

    assert unescape_text(escape_text(hostile)) == hostile
    assert not escape_text(hostile).startswith(RUNNABLE)


def test_recordings_export_neutralises_formulas(monkeypatch, tmp_path, migrated_url, client):
    """`humantrace recordings export`: typed values of a standalone recording, as CSV."""
    from sqlmodel import Session
    from typer.testing import CliRunner

    from humantrace.dashboard.cli import app
    from humantrace.recorder import service as recorder
    from humantrace.recorder.schemas import BatchMessage

    monkeypatch.setenv("HUMANTRACE_DATABASE_URL", migrated_url)
    monkeypatch.setenv("HUMANTRACE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HUMANTRACE_SECRET_KEY", client.app.state.settings.secret_key)
    with Session(client.app.state.engine) as db:
        recording = recorder.create_recording(db, kind="standalone", label="pilot")
        events = [
            {
                "seq": i,
                "t_ms": 1_700_000_000_000 + 1000 * i,
                "type": "input",
                "xpath": "/html/body/input[1]",
                "url": "http://x/",
                "value": value,
            }
            for i, value in enumerate(HOSTILE)
        ]
        recorder.ingest_batch(
            db, recording=recording, batch=BatchMessage.model_validate({"type": "batch", "events": events})
        )
        recording_id = recording.id
    out = tmp_path / "pilot"
    result = CliRunner().invoke(app, ["recordings", "export", str(recording_id), str(out)])
    assert result.exit_code == 0, result.output
    for name in ("events_raw.csv", "events_clean.csv"):
        cells = _text_cells(out / name, ["value", "xpath", "url", "type"])
        assert cells and not [c for c in cells if c.startswith(RUNNABLE)], (name, cells)
    assert "'=1+1" in _text_cells(out / "events_raw.csv", ["value"])
