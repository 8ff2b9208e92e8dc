"""`humantrace recordings` and `humantrace clean` on a real database."""

from __future__ import annotations

import time

import pandas as pd
import pytest
from sqlmodel import Session
from typer.testing import CliRunner

from humantrace.dashboard.cli import app
from humantrace.dashboard.flow import service as flow
from humantrace.dashboard.studies.models import Attempt, Outcome
from humantrace.recorder import service as recorder
from humantrace.recorder.models import Recording
from humantrace.recorder.schemas import BatchMessage

runner = CliRunner()


@pytest.fixture
def cli_env(monkeypatch, tmp_path, migrated_url, client):
    monkeypatch.setenv("HUMANTRACE_DATABASE_URL", migrated_url)
    monkeypatch.setenv("HUMANTRACE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HUMANTRACE_SECRET_KEY", client.app.state.settings.secret_key)
    return client.app.state.engine


def scrolls(db, recording_id: int, gap_ms: int) -> None:
    now = int(time.time() * 1000)
    events = [
        {
            "seq": i,
            "t_ms": now + gap_ms * i,
            "type": "scroll",
            "xpath": "/html",
            "url": "http://x/",
            "dy": 100.0,
            "dx": 0.0,
            "scroll_x": 0.0,
            "scroll_y": 100.0 * (i + 1),
        }
        for i in range(5)
    ]
    recorder.ingest_batch(
        db,
        recording=db.get(Recording, recording_id),
        batch=BatchMessage.model_validate({"type": "batch", "events": events}),
    )


def test_standalone_recording_new_list_export(cli_env, tmp_path):
    result = runner.invoke(app, ["recordings", "new", "--label", "pilot on example.org"])
    assert result.exit_code == 0, result.output
    assert "token:" in result.output and "<script" in result.output and "data-token" in result.output
    recording_id = int(result.output.split("Recording ")[1].split()[0])
    token = result.output.split("token:")[1].split()[0]
    with Session(cli_env) as db:
        secret = cli_env_settings_secret(db)
        assert recorder.resolve_token(db, secret_key=secret, token=token).id == recording_id
        scrolls(db, recording_id, gap_ms=100)
    assert "pilot on example.org" in runner.invoke(app, ["recordings", "list"]).output
    out = tmp_path / "pilot"
    result = runner.invoke(app, ["recordings", "export", str(recording_id), str(out), "--end"])
    assert result.exit_code == 0, result.output
    raw, cleaned = pd.read_csv(out / "events_raw.csv"), pd.read_csv(out / "events_clean.csv")
    assert len(raw) == 5 and len(cleaned) == 1 and cleaned.iloc[0]["dy"] == 500
    with Session(cli_env) as db:
        assert db.get(Recording, recording_id).status == "ended"


def cli_env_settings_secret(db) -> str:
    import os

    return os.environ["HUMANTRACE_SECRET_KEY"]


def test_clean_recleans_stored_attempts_without_touching_raw_events(cli_env, make_assignment, person):
    a1 = person("A1")
    assignment_id = make_assignment("A1")
    with Session(cli_env, expire_on_commit=False) as db:
        cold = flow.start_assignment(db, assignment_id=assignment_id, annotator=a1)
        flow.begin_recording(db, attempt_id=cold.id, annotator=a1)  # the website starts ("go")
        scrolls(db, cold.recording_id, gap_ms=150)  # 5 scrolls, 150 ms apart: 600 ms from first to last
        flow.end_attempt(db, attempt_id=cold.id, annotator=a1, outcome=Outcome.evaluated)
        assert db.get(Attempt, cold.id).clean_steps == 2  # 400 ms window: 0,150,300 | 450,600
    result = runner.invoke(app, ["clean", "--scroll-window-ms", "1000"])
    assert result.exit_code == 0, result.output
    assert "1 changed" in result.output
    with Session(cli_env) as db:
        attempt = db.get(Attempt, cold.id)
        assert attempt.clean_steps == 1 and attempt.cleaning_config["scroll_window_ms"] == 1000
        assert len(recorder.events_frame(db, recording_ids=[cold.recording_id])) == 5


def test_clean_a_bundle_needs_an_out_directory(cli_env, tmp_path):
    result = runner.invoke(app, ["clean", "--bundle", str(tmp_path)])
    assert result.exit_code == 1 and "--out" in result.output


@pytest.mark.parametrize("stream", ["null", "absent"])
def test_clean_a_bundle_whose_events_have_no_stream(tmp_path, stream):
    """A bundle 1.0 trace has a null `stream` (or none): `clean --bundle` cleans it as one page instance."""
    from humantrace.exports.bundle import BundleWriter

    events = pd.DataFrame(
        {
            "attempt_id": [1, 1, 1, 1],
            "seq": [0, 1, 2, 3],
            "t_ms": [1000, 1100, 1200, 1300],
            "type": ["click", "input", "input", "click"],
            "xpath": ["/html/body/i", "/html/body/i", "/html/body/i", "/html/body/b"],
            "url": ["http://shop.test/"] * 4,
            "x": [1.0, None, None, 2.0],
            "y": [1.0, None, None, 2.0],
            "value": [None, "h", "hi", None],
        }
    )
    if stream == "null":
        events["stream"] = pd.Series([None] * 4, dtype="Int64")
    bundle = tmp_path / "bundle"
    with BundleWriter(bundle, formats=("csv",)) as writer:
        writer.append("events_raw", events)
        writer.close(study_settings={}, cleaning_config={})
    result = runner.invoke(app, ["clean", "--bundle", str(bundle), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "4 raw events → 3 cleaned steps" in result.output
    cleaned = pd.read_csv(tmp_path / "out" / "events_clean.csv")
    assert cleaned["type"].tolist() == ["click", "fill", "click"]
    assert cleaned["source_seqs"].astype(str).tolist() == ["0", "1;2", "3"]
