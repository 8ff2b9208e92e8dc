"""Errors are answered in one place: a study-flow refusal keeps its status and message, a bug is a
logged 500 (never passed off as a database outage) and a real database outage is a 503."""

from __future__ import annotations

import logging

from fastapi.testclient import TestClient
from sqlalchemy import create_engine
from sqlmodel import Session, select

from humantrace.dashboard.flow import envs
from humantrace.dashboard.flow import service as flow
from humantrace.dashboard.studies.models import Attempt


def _csrf(client, path: str) -> str:
    page = client.get(path)
    return page.text.split('name="csrf_token" value="')[1].split('"')[0]


def _started(client, make_assignment, person, login_as) -> tuple[int, int, str]:
    """A1 signed in on `client` with a started assignment: (assignment id, attempt id, CSRF token)."""
    assignment_id = make_assignment("A1")
    with Session(client.app.state.engine) as db:
        attempt = flow.start_assignment(db, assignment_id=assignment_id, annotator=person("A1"))
        assert attempt.id is not None  # read from the database
        flow.begin_recording(db, attempt_id=attempt.id, annotator=person("A1"))  # the website starts ("go")
        attempt_id = attempt.id
        assert attempt_id is not None
    login_as(client, "A1")
    return assignment_id, attempt_id, _csrf(client, f"/assignments/{assignment_id}/control")


def test_a_flow_refusal_keeps_its_status_and_message(client, make_assignment, person, login_as):
    assignment_id, _attempt_id, csrf = _started(client, make_assignment, person, login_as)
    # Starting an assignment that has already started is refused by the flow (409), as JSON and as a page.
    as_json = client.post(
        f"/assignments/{assignment_id}/start",
        data={"csrf_token": csrf},
        headers={"Accept": "application/json"},
        follow_redirects=False,
    )
    assert (
        as_json.status_code == 409 and isinstance(as_json.json()["detail"], str) and as_json.json()["detail"]
    )
    as_page = client.post(
        f"/assignments/{assignment_id}/start", data={"csrf_token": csrf}, follow_redirects=False
    )
    assert as_page.status_code == 409 and "That did not work" in as_page.text
    missing = client.get("/assignments/999999/control")
    assert missing.status_code == 404 and "Not found" in missing.text


def test_an_end_request_before_the_website_starts_is_refused(client, make_assignment, person, login_as):
    """During the reading countdown Evaluate and Abandon are refused with a 409 that says why."""
    assignment_id = make_assignment("A1")
    with Session(client.app.state.engine) as db:
        attempt_id = flow.start_assignment(db, assignment_id=assignment_id, annotator=person("A1")).id
    login_as(client, "A1")
    csrf = _csrf(client, f"/assignments/{assignment_id}/control")
    for outcome in ("evaluated", "abandoned"):
        refused = client.post(
            f"/attempts/{attempt_id}/end",
            data={"csrf_token": csrf, "outcome": outcome, "client_ms": "1"},
            headers={"Accept": "application/json"},
        )
        assert refused.status_code == 409, refused.text
        assert "website has not started" in refused.json()["detail"]
    with Session(client.app.state.engine) as db:
        attempt = db.get(Attempt, attempt_id)
        assert attempt is not None and attempt.status == "active" and attempt.ended_at is None
    assert client.post(f"/attempts/{attempt_id}/begin", data={"csrf_token": csrf}).status_code == 200
    ended = client.post(
        f"/attempts/{attempt_id}/end",
        data={"csrf_token": csrf, "outcome": "evaluated"},
        headers={"Accept": "application/json"},
    )
    assert ended.status_code == 200 and ended.json()["outcome"] == "evaluated"


def test_an_evaluator_bug_is_a_logged_500_not_an_outage(
    client, make_assignment, person, login_as, monkeypatch, caplog
):
    _assignment_id, attempt_id, csrf = _started(client, make_assignment, person, login_as)

    def broken_evaluator(db, *, session_id):
        raise ZeroDivisionError("an evaluator bug")

    monkeypatch.setattr(envs, "evaluate", broken_evaluator)
    caplog.set_level(logging.ERROR, logger="humantrace.http")
    quiet = TestClient(
        client.app, base_url="http://testserver", raise_server_exceptions=False, cookies=client.cookies
    )
    answer = quiet.post(
        f"/attempts/{attempt_id}/end",
        data={"csrf_token": csrf, "outcome": "evaluated"},
        headers={"Accept": "application/json"},
    )
    assert answer.status_code == 500
    assert "database" not in answer.json()["detail"]
    logged = [r for r in caplog.records if r.name == "humantrace.http" and r.levelno == logging.ERROR]
    assert logged and logged[0].exc_info is not None and "ZeroDivisionError" in caplog.text
    with Session(client.app.state.engine) as db:  # nothing of the failed call was saved
        assert db.exec(select(Attempt).where(Attempt.id == attempt_id)).one().ended_at is None


def test_a_database_outage_is_a_503(client, make_assignment, person, login_as, tmp_path):
    _assignment_id, attempt_id, csrf = _started(client, make_assignment, person, login_as)
    working = client.app.state.engine
    # A real outage: the database the app talks to cannot be opened (SQLite raises OperationalError).
    client.app.state.engine = create_engine(f"sqlite:///{tmp_path}/gone/nowhere.db")
    try:
        answer = client.post(
            f"/attempts/{attempt_id}/end",
            data={"csrf_token": csrf, "outcome": "evaluated"},
            headers={"Accept": "application/json"},
        )
    finally:
        client.app.state.engine.dispose()
        client.app.state.engine = working
    assert answer.status_code == 503 and answer.headers["retry-after"] == "2"
    assert "database" in answer.json()["detail"]
