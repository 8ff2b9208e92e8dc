"""The human reference bundle from a study: round trip, verify, privacy, rolled-back attempts."""

from __future__ import annotations

import json
import time

import pandas as pd
import pytest
from sqlmodel import Session, select
from typer.testing import CliRunner

from humantrace.dashboard.cli import app
from humantrace.dashboard.exports.bundle import export_bundle
from humantrace.dashboard.flow import service as flow
from humantrace.dashboard.studies.models import Attempt, Outcome, Rating
from humantrace.exports.bundle import read_bundle, verify_bundle
from humantrace.recorder import service as recorder
from humantrace.recorder.models import Recording
from humantrace.recorder.schemas import BatchMessage


def type_into_page(db, recording_id: int, text: str) -> None:
    """What the recorder would send for a click then typing `text` into one field."""
    now = int(time.time() * 1000)
    events = [
        {
            "seq": 0,
            "t_ms": now,
            "type": "click",
            "xpath": "/html/body/input[1]",
            "url": "http://x/env/lab/",
            "x": 5,
            "y": 5,
        }
    ]
    for i, _ in enumerate(text, start=1):
        events.append(
            {
                "seq": i,
                "t_ms": now + 100 * i,
                "type": "input",
                "xpath": "/html/body/input[1]",
                "url": "http://x/env/lab/",
                "value": text[:i],
            }
        )
    recorder.ingest_batch(
        db,
        recording=db.get(Recording, recording_id),
        batch=BatchMessage.model_validate({"type": "batch", "events": events}),
    )


@pytest.fixture
def finished_study(client, make_assignment, person):
    """A1 completed one assignment (with typing and a comment); A2's assignment was rolled back."""
    engine = client.app.state.engine
    a1, a2 = person("A1"), person("A2")
    with Session(engine) as db:
        db.get(type(a1), a1.id).display_name = "Robin Example"
        db.commit()
    done, rolled = make_assignment("A1"), make_assignment("A2", condition="intervention")
    with Session(engine, expire_on_commit=False) as db:
        cold = flow.start_assignment(db, assignment_id=done, annotator=a1)
        flow.begin_recording(db, attempt_id=cold.id, annotator=a1)  # the website starts ("go")
        type_into_page(db, cold.recording_id, "hello")
        flow.end_attempt(db, attempt_id=cold.id, annotator=a1, outcome=Outcome.evaluated)
        warm = flow.start_warm(db, assignment_id=done, annotator=a1)
        flow.end_attempt(db, attempt_id=warm.id, annotator=a1, outcome=Outcome.abandoned)
        flow.submit_rating(
            db,
            assignment_id=done,
            annotator=a1,
            form=flow.RatingForm(clarity=5, suspected_bug=True, comments="secret remark about the site"),
        )
        other = flow.start_assignment(db, assignment_id=rolled, annotator=a2)
        flow.begin_recording(db, attempt_id=other.id, annotator=a2)  # the website starts ("go")
        flow.end_attempt(db, attempt_id=other.id, annotator=a2, outcome=Outcome.evaluated)
        flow.rollback(db, assignment_id=rolled, reason="control tab closed")
        session_ids = [cold.env_session_id, warm.env_session_id, other.env_session_id]
    return engine, done, rolled, session_ids


def all_text(path) -> str:
    return "\n".join(p.read_bytes().decode("latin-1") for p in sorted(path.iterdir()))


def test_round_trip_verifies_and_holds_the_study(finished_study, tmp_path):
    engine, done, rolled, _ = finished_study
    out = tmp_path / "bundle"
    export_bundle(engine, out, formats=("parquet", "csv"))
    assert verify_bundle(out) == []
    bundle = read_bundle(out)
    attempts = bundle.attempts.sort_values("attempt_id")
    assert list(attempts["phase"]) == ["cold", "warm"] and set(attempts["annotator"]) == {"A1"}
    assert list(attempts["outcome"]) == ["evaluated", "abandoned"]
    assert list(attempts["raw_events"]) == [6, 0]
    assert list(attempts["clean_steps"]) == [2, 0]  # the click, then one fill
    with Session(engine) as db:  # away_s as each attempt stored it when it ended
        stored = {a.id: a.away_s for a in db.exec(select(Attempt).where(Attempt.assignment_id == done))}
    assert dict(zip(attempts["attempt_id"], attempts["away_s"], strict=True)) == stored
    assert all(value is not None for value in stored.values())
    fill = bundle.events_clean[bundle.events_clean["type"] == "fill"].iloc[0]
    assert fill["value"] == "hello" and fill["source_seqs"] == "1;2;3;4;5"
    assert len(bundle.events_raw) == 6
    assert set(bundle.verdicts["attempt_id"]) == set(attempts["attempt_id"])
    assert bundle.ratings.iloc[0]["clarity"] == 5
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["study_settings"]["rollback_grace_seconds"] == 10
    assert manifest["cleaning_config"]["scroll_window_ms"] == 400


def test_editing_one_byte_fails_verification(finished_study, tmp_path):
    engine, *_ = finished_study
    out = tmp_path / "bundle"
    export_bundle(engine, out, formats=("csv",))
    target = out / "attempts.csv"
    data = bytearray(target.read_bytes())
    data[-2] = ord("9") if data[-2] != ord("9") else ord("8")
    target.write_bytes(bytes(data))
    problems = verify_bundle(out)
    assert problems and any("attempts.csv" in p for p in problems)
    result = CliRunner().invoke(app, ["export", "verify", str(out)])
    assert result.exit_code == 1 and "attempts.csv" in result.output


def test_bundle_holds_no_address_token_session_or_comment(finished_study, tmp_path, person):
    engine, _done, _rolled, session_ids = finished_study
    out = tmp_path / "bundle"
    export_bundle(engine, out, formats=("csv",))
    text = all_text(out)
    assert "127.0.0.1" not in text and "testclient" not in text
    assert "secret remark" not in text
    for table in out.glob("*.csv"):
        assert "comments" not in table.read_text().splitlines()[0].split(","), table.name
    for session_id in session_ids:
        assert session_id not in text
    with Session(engine) as db:
        for attempt in db.exec(select(Attempt)).all():
            assert (
                recorder.issue_token(
                    secret_key="test-secret-key-" + "k" * 32, recording_id=attempt.recording_id
                )
                not in text
            )
    # people appear only by coded id: no name column, no name (the fixture names A1 in the database)
    assert "display_name" not in text and "Robin Example" not in text


def test_comments_only_when_asked(finished_study, tmp_path):
    engine, *_ = finished_study
    out = tmp_path / "bundle"
    export_bundle(engine, out, formats=("csv",), include_comments=True)
    assert "secret remark about the site" in (out / "ratings.csv").read_text()


def test_rolled_back_attempts_only_when_asked(finished_study, tmp_path):
    engine, done, rolled, _ = finished_study
    default, everything = tmp_path / "a", tmp_path / "b"
    export_bundle(engine, default)
    export_bundle(engine, everything, include_rolled_back=True)
    assert set(read_bundle(default).attempts["assignment_id"]) == {done}
    rows = read_bundle(everything).attempts
    assert set(rows["assignment_id"]) == {done, rolled}
    assert bool(rows[rows["assignment_id"] == rolled]["rolled_back"].all())
    assert not bool(rows[rows["assignment_id"] == done]["rolled_back"].any())
    # Every row names the env seed (the study's, in both conditions) and the variant on intervention rows.
    assert set(rows["seed"]) == {7}
    assert list(rows[rows["assignment_id"] == rolled]["variant_id"]) == ["lab-001-v1"]
    assert rows[rows["assignment_id"] == done]["variant_id"].isna().all()


def test_export_cli_refuses_a_directory_with_files(finished_study, tmp_path, monkeypatch, migrated_url):
    monkeypatch.setenv("HUMANTRACE_DATABASE_URL", migrated_url)
    monkeypatch.setenv("HUMANTRACE_DATA_DIR", str(tmp_path / "data"))
    out = tmp_path / "busy"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    result = CliRunner().invoke(app, ["export", "bundle", str(out)])
    assert result.exit_code == 1 and "not empty" in result.output
    assert (out / "notes.txt").read_text() == "keep me"
    fresh = tmp_path / "fresh"
    result = CliRunner().invoke(app, ["export", "bundle", str(fresh), "--format", "both"])
    assert result.exit_code == 0, result.output
    assert (fresh / "attempts.parquet").exists() and (fresh / "attempts.csv").exists()
    assert isinstance(pd.read_csv(fresh / "attempts.csv"), pd.DataFrame)


def test_lead_downloads_the_bundle_as_a_zip(finished_study, client, login_as, tmp_path):
    import io
    import zipfile

    login_as(client, "L1")
    page = client.get("/lead/exports")
    assert page.status_code == 200 and "2 finished attempts" in page.text
    csrf = page.text.split('name="csrf_token" value="')[1].split('"')[0]
    response = client.post("/lead/exports/bundle.zip", data={"csrf_token": csrf, "format": "csv"})
    assert response.status_code == 200 and response.headers["content-type"] == "application/zip"
    zipfile.ZipFile(io.BytesIO(response.content)).extractall(tmp_path / "unzipped")
    assert verify_bundle(tmp_path / "unzipped") == []
    assert client.post("/lead/exports/bundle.zip", data={"format": "csv"}).status_code == 403  # no CSRF token


def test_annotators_cannot_export(finished_study, client, login_as):
    login_as(client, "A1")
    assert client.get("/lead/exports").status_code == 403


def test_bundle_holds_the_sessions_semantic_events_and_audit_log(client, finished_study, tmp_path):
    """Schema 2.0: a real API call on the cold attempt's env session reaches semantic_events and
    backend_audit under the attempt's id (never the session id)."""
    engine, _done, _rolled, session_ids = finished_study
    cold_session = session_ids[0]
    # Env sessions of ended attempts refuse writes, so reopen nothing: read calls are still audited.
    with Session(engine) as db:
        cold = db.exec(select(Attempt).where(Attempt.env_session_id == cold_session)).one()
    answer = client.get("/api/env/lab/notes/1/open", headers={"X-Env-Session": cold_session})
    out = tmp_path / "bundle"
    export_bundle(engine, out, formats=("csv",))
    assert verify_bundle(out) == []
    bundle = read_bundle(out)
    audit = bundle.backend_audit
    mine = audit[audit["attempt_id"] == cold.id]
    assert len(mine) == 1
    call = mine.iloc[0]
    assert (call["method"], call["path"], call["status"]) == (
        "GET",
        "/api/env/lab/notes/1/open",
        answer.status_code,
    )
    assert not call["intervention_fired"] and pd.isna(call["intervention"]) and call["seq"] == 0
    events = bundle.semantic_events[bundle.semantic_events["attempt_id"] == cold.id]
    if answer.status_code == 200:
        assert list(events["event"]) == ["note_view"] and json.loads(events.iloc[0]["params"]) == {
            "note_id": 1
        }
    assert cold_session not in all_text(out)
    # The event-match score and each event condition's result are the attempt's verdict's.
    with Session(engine) as db:
        verdict = db.get(Attempt, cold.id).verdict
    row = bundle.attempts.set_index("attempt_id").loc[cold.id]
    assert row["event_match_score"] == verdict["event_match_score"]
    checks = bundle.event_checks[bundle.event_checks["attempt_id"] == cold.id].sort_values("index")
    assert list(checks["passed"]) == [c["passed"] for c in verdict["event_checks"]]
    assert list(checks["event"].fillna("")) == [c.get("event") or "" for c in verdict["event_checks"]]


def test_a_lead_review_decision_travels_in_the_bundle(finished_study, client, login_as, person, tmp_path):
    """A lead excludes A1's flagged assignment on the review page: the bundle keeps its attempts,
    marked exclude_attempt, and its rating row carries the decision, note, lead's coded id and time."""
    engine, done, _rolled, _ = finished_study
    lead = person("L1")
    with Session(engine) as db:
        db.get(type(lead), lead.id).display_name = "Lee Leadington"
        db.commit()
        rating_id = db.exec(select(Rating).where(Rating.assignment_id == done)).one().id
    login_as(client, "L1")
    page = client.get("/lead/review")
    csrf = page.text.split('name="csrf_token" value="')[1].split('"')[0]
    answer = client.post(
        f"/lead/review/{rating_id}",
        data={"csrf_token": csrf, "resolution": "exclude_attempt", "note": "reported a broken cart page"},
        follow_redirects=False,
    )
    assert answer.status_code in (200, 303), answer.text[:300]
    out = tmp_path / "bundle"
    export_bundle(engine, out, formats=("parquet", "csv"))
    assert verify_bundle(out) == []
    bundle = read_bundle(out)
    assert bundle.schema_version == "2.2"
    mine = bundle.attempts[bundle.attempts["assignment_id"] == done]
    assert len(mine) == 2  # cold and warm, kept in the bundle and marked
    assert set(mine["review_decision"]) == {"exclude_attempt"} and not mine["rolled_back"].any()
    rating = bundle.ratings[bundle.ratings["assignment_id"] == done].iloc[0]
    assert (rating.review_decision, rating.review_note, rating.reviewed_by) == (
        "exclude_attempt",
        "reported a broken cart page",
        "L1",
    )
    assert pd.notna(rating.reviewed_at)
    assert "Lee Leadington" not in all_text(out)  # the lead by coded id only
