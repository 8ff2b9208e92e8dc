"""Texts longer than their columns are refused with a clear message, never a 500 or a traceback,
on SQLite (which would store them) and PostgreSQL (which would fail) alike; nothing is saved."""

from __future__ import annotations

from sqlmodel import Session, select
from typer.testing import CliRunner

from humantrace.dashboard.cli import app as cli
from humantrace.dashboard.flow import service as flow
from humantrace.dashboard.studies.models import Assignment, AssignmentEvent, Outcome, Rating


def _csrf(client, path: str) -> str:
    page = client.get(path)
    return page.text.split('name="csrf_token" value="')[1].split('"')[0]


def _to_rating(client, make_assignment, person) -> int:
    assignment_id = make_assignment("A1")
    a1 = person("A1")
    with Session(client.app.state.engine) as db:
        cold = flow.start_assignment(db, assignment_id=assignment_id, annotator=a1)
        assert cold.id is not None  # read from the database
        flow.begin_recording(db, attempt_id=cold.id, annotator=a1)  # the website starts ("go")
        assert cold.id is not None
        flow.end_attempt(db, attempt_id=cold.id, annotator=a1, outcome=Outcome.evaluated)
        warm = flow.start_warm(db, assignment_id=assignment_id, annotator=a1)
        assert warm.id is not None
        flow.end_attempt(db, attempt_id=warm.id, annotator=a1, outcome=Outcome.evaluated)
    return assignment_id


def test_a_long_reopen_reason_is_a_422_and_changes_nothing(client, make_assignment, login_as):
    assignment_id = make_assignment("A1")
    login_as(client, "L1")
    csrf = _csrf(client, f"/lead/assignments/{assignment_id}")
    answer = client.post(
        f"/lead/assignments/{assignment_id}/reopen",
        data={"csrf_token": csrf, "reason": "x" * 5000},
        follow_redirects=False,
    )
    assert answer.status_code == 422 and "at most 990 fit" in answer.text
    with Session(client.app.state.engine) as db:
        assert (
            db.exec(select(AssignmentEvent).where(AssignmentEvent.assignment_id == assignment_id)).all() == []
        )
    fits = client.post(
        f"/lead/assignments/{assignment_id}/reopen",
        data={"csrf_token": csrf, "reason": "y" * 990},
        follow_redirects=False,
    )
    assert fits.status_code == 303


def test_a_long_comment_is_a_422_and_the_rating_form_stays(client, make_assignment, person, login_as):
    assignment_id = _to_rating(client, make_assignment, person)
    login_as(client, "A1")
    csrf = _csrf(client, f"/assignments/{assignment_id}/control")
    answer = client.post(
        f"/assignments/{assignment_id}/rating",
        data={"csrf_token": csrf, "action": "submit", "clarity": "4", "comments": "z" * 4001},
    )
    assert answer.status_code == 422 and "at most 4000 fit" in answer.text
    with Session(client.app.state.engine) as db:
        assert db.get(Assignment, assignment_id).state == "rating"
        assert db.exec(select(Rating)).all() == []


def test_a_long_review_note_is_a_422(client, make_assignment, person, login_as):
    assignment_id = _to_rating(client, make_assignment, person)
    with Session(client.app.state.engine) as db:
        rating = flow.submit_rating(
            db, assignment_id=assignment_id, annotator=person("A1"), form=flow.RatingForm(suspected_bug=True)
        )
        rating_id = rating.id
    login_as(client, "L1")
    csrf = _csrf(client, "/lead/review")
    answer = client.post(
        f"/lead/review/{rating_id}", data={"csrf_token": csrf, "resolution": "keep", "note": "n" * 4001}
    )
    assert answer.status_code == 422 and "at most 4000 fit" in answer.text
    with Session(client.app.state.engine) as db:
        assert db.get(Rating, rating_id).resolution is None


def test_long_names_and_labels_are_clear_cli_errors(client, monkeypatch, migrated_url, tmp_path):
    monkeypatch.setenv("HUMANTRACE_DATABASE_URL", migrated_url)
    monkeypatch.setenv("HUMANTRACE_DATA_DIR", str(tmp_path / "cli"))
    runner = CliRunner()
    assert runner.invoke(cli, ["study", "create", "Long names"]).exit_code == 0
    name = runner.invoke(cli, ["annotators", "add", "A9", "--name", "n" * 121])
    assert name.exit_code == 1 and "at most 120 fit" in name.output and "Traceback" not in name.output
    label = runner.invoke(cli, ["recordings", "new", "--label", "l" * 201])
    assert label.exit_code == 1 and "at most 200 fit" in label.output and "Traceback" not in label.output
    assert runner.invoke(cli, ["annotators", "add", "A9", "--name", "n" * 120]).exit_code == 0
