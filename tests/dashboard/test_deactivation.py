"""Deactivating a person ends what they can do in the study at once, through the session they hold:
start, warm, website tickets, the control channel, Evaluate and the rating are refused, and the
assignment in progress is rolled back as a closed tab would be, with an entry in its audit trail.
On SQLite and PostgreSQL, through the real command line and the lead's people page."""

from __future__ import annotations

import re

from sqlmodel import Session, select
from starlette.websockets import WebSocketDisconnect
from typer.testing import CliRunner

from humantrace.dashboard.cli import app as cli
from humantrace.dashboard.flow import service as flow
from humantrace.dashboard.studies.models import Assignment, AssignmentEvent, Attempt, Outcome

ORIGIN = {"origin": "http://testserver"}


def _csrf(client, path: str = "/assignments") -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', client.get(path).text)
    assert found is not None, f"{path} has a CSRF token"
    return found.group(1)


def _rolled_back_by(engine, assignment_id: int) -> list[tuple[str, str, str]]:
    with Session(engine) as db:
        return [
            (e.from_state, e.actor, e.reason)
            for e in db.exec(
                select(AssignmentEvent).where(
                    AssignmentEvent.assignment_id == assignment_id, AssignmentEvent.to_state == "not_started"
                )
            )
        ]


def _to_rating(engine, assignment_id: int, code: str) -> None:
    """Both attempts of `assignment_id` done through the service: it waits for its rating."""
    from humantrace.annotators import service as accounts

    with Session(engine) as db:
        person = accounts.get_by_code(db, code=code)
        cold = flow.start_assignment(db, assignment_id=assignment_id, annotator=person)
        assert cold.id is not None
        flow.begin_recording(db, attempt_id=cold.id, annotator=person)  # "go": Evaluate works from here
        flow.end_attempt(db, attempt_id=cold.id, annotator=person, outcome=Outcome.evaluated)
        warm = flow.start_warm(db, assignment_id=assignment_id, annotator=person)
        assert warm.id is not None
        flow.end_attempt(db, attempt_id=warm.id, annotator=person, outcome=Outcome.evaluated)


def test_deactivate_on_the_command_line_ends_everything_the_session_could_do(
    client, study, make_assignment, login_as, monkeypatch, tmp_path, migrated_url
):
    engine = client.app.state.engine
    rated, running = make_assignment("A1"), make_assignment("A1", condition="intervention")
    waiting = make_assignment("A1", task_id="lab-002")
    _to_rating(engine, rated, "A1")
    login_as(client, "A1")
    csrf = _csrf(client)
    assert (
        client.post(
            f"/assignments/{running}/start", data={"csrf_token": csrf}, follow_redirects=False
        ).status_code
        == 303
    )
    assert client.get(f"/assignments/{running}/website").status_code == 200
    with Session(engine) as db:
        attempt = db.exec(select(Attempt).where(Attempt.assignment_id == running)).one()
    json_headers = {"X-CSRF-Token": csrf, "Accept": "application/json"}

    monkeypatch.setenv("HUMANTRACE_DATABASE_URL", migrated_url)
    monkeypatch.setenv("HUMANTRACE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HUMANTRACE_SECRET_KEY", client.app.state.settings.secret_key)
    with client.websocket_connect(f"/ws/control/{running}", headers=ORIGIN) as control:
        assert control.receive_json()["state"] == "cold_active"
        result = CliRunner().invoke(cli, ["annotators", "deactivate", "A1", "--study", study.name])
        assert result.exit_code == 0, result.output
        assert "Deactivated A1" in result.output and "rolled back" in result.output
        # The open control tab hears it at once, as after a closed tab, and goes back to the list.
        assert control.receive_json()["state"] == "not_started"

    assert _rolled_back_by(engine, running) == [("cold_active", "cli", "annotator deactivated")]
    with Session(engine) as db:
        retired = db.get(Attempt, attempt.id)
        assert retired is not None
        assert (retired.status, retired.rollback_reason) == ("rolled_back", "annotator deactivated")

    # The session they still hold can do nothing more in the study.
    refused = {
        "start": client.post(f"/assignments/{waiting}/start", data={"csrf_token": csrf}),
        "restart": client.post(f"/assignments/{running}/start", data={"csrf_token": csrf}),
        "website ticket": client.get(f"/assignments/{running}/website"),
        "control tab": client.get(f"/assignments/{rated}/control"),
        "warm": client.post(f"/assignments/{running}/warm", headers=json_headers),
        "evaluate": client.post(
            f"/attempts/{attempt.id}/end", data={"outcome": "evaluated"}, headers=json_headers
        ),
        "rating": client.post(f"/assignments/{rated}/rating", data={"csrf_token": csrf, "clarity": "4"}),
    }
    assert {name: r.status_code for name, r in refused.items()} == dict.fromkeys(refused, 403)
    assert "no longer taking part" in refused["start"].text
    try:
        with client.websocket_connect(f"/ws/control/{running}", headers=ORIGIN) as control:
            control.receive_json()
        code = None
    except WebSocketDisconnect as closed:
        code = closed.code
    assert code == 1008
    with Session(engine) as db:
        states = {a.id: a.state for a in db.exec(select(Assignment).where(Assignment.study_id == study.id))}
    assert (states[rated], states[running], states[waiting]) == ("rating", "not_started", "not_started")


def test_the_leads_people_page_rolls_back_and_another_study_is_untouched(
    client, study, make_assignment, login_as
):
    from humantrace.annotators import membership
    from humantrace.dashboard.studies.models import Assignment, Study, StudyStatus
    from humantrace.dashboard.studies.planning import session_seed

    engine = client.app.state.engine
    here = make_assignment("A2")
    with Session(engine) as db:  # A2 is in a second study too, with an assignment there
        other = Study(name="Other study", seed=7, reading_countdown_seconds=0, status=StudyStatus.open)
        db.add(other)
        db.commit()
        assert other.id is not None
        other_id = other.id
        a2 = db.exec(select(Assignment).where(Assignment.id == here)).one().annotator_id
        membership.stage_person(db, row={"code": "A2"}, study_id=other_id)
        db.commit()
        elsewhere = Assignment(
            study_id=other_id,
            annotator_id=a2,
            task_id="lab-001",
            env_id="lab",
            difficulty="easy",
            condition="clean",
            tier="primary",
            seed=session_seed(7),
        )
        db.add(elsewhere)
        db.commit()
        assert elsewhere.id is not None
        elsewhere_id = elsewhere.id
    login_as(client, "A2")
    with Session(engine) as db:
        from humantrace.annotators import service as accounts

        person = accounts.get_by_code(db, code="A2")
        flow.start_assignment(db, assignment_id=here, annotator=person)
    a2_cookies = dict(client.cookies)

    client.cookies.clear()
    login_as(client, "L1")
    page = f"/lead/studies/{study.id}/people"
    answer = client.post(
        f"{page}/A2/deactivate", data={"csrf_token": _csrf(client, page)}, follow_redirects=False
    )
    assert answer.status_code == 303, answer.text
    assert _rolled_back_by(engine, here) == [("cold_active", "L1", "annotator deactivated")]

    client.cookies.clear()
    for name, value in a2_cookies.items():
        client.cookies.set(name, value)
    refused = client.post(f"/assignments/{here}/start", data={"csrf_token": _csrf(client, "/studies")})
    assert refused.status_code == 403
    # In the study they are still in, A2 works as before.
    started = client.post(
        f"/assignments/{elsewhere_id}/start",
        data={"csrf_token": _csrf(client, "/studies")},
        follow_redirects=False,
    )
    assert started.status_code == 303, started.text
