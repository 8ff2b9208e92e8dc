"""An ended attempt's website is frozen: writes are refused with 409 "This attempt has ended" and
are not part of its audit log; reads still answer. SQLite and PostgreSQL."""

from __future__ import annotations

from sqlmodel import Session

from humantrace.dashboard.flow import service as flow
from humantrace.dashboard.studies.models import Outcome
from humantrace.environments import sessions


def test_writes_after_the_end_are_refused_and_not_audited(lab, client, make_assignment, person):
    a1 = person("A1")
    assignment_id = make_assignment("A1")
    with Session(client.app.state.engine, expire_on_commit=False) as db:
        cold = flow.start_assignment(db, assignment_id=assignment_id, annotator=a1)
        flow.begin_recording(db, attempt_id=cold.id, annotator=a1)  # the website starts ("go")
    headers = {"X-Env-Session": cold.env_session_id}
    assert (
        client.post("/api/env/lab/notes", json={"title": "before the end"}, headers=headers).status_code
        == 201
    )
    with Session(client.app.state.engine) as db:
        flow.end_attempt(db, attempt_id=cold.id, annotator=a1, outcome=Outcome.evaluated)
        audited = len(sessions.audit_log(db, session_id=cold.env_session_id))
        final = sessions.get_state(db, session_id=cold.env_session_id)

    refused = client.post("/api/env/lab/notes", json={"title": "after the end"}, headers=headers)
    assert refused.status_code == 409 and refused.json() == {"detail": "This attempt has ended"}
    note_id = final["notes"][0]["id"]
    assert (
        client.patch(f"/api/env/lab/notes/{note_id}", json={"pinned": True}, headers=headers).status_code
        == 409
    )
    assert client.get("/api/env/lab/notes", headers=headers).status_code == 200  # reading still works
    with Session(client.app.state.engine) as db:
        assert sessions.get_state(db, session_id=cold.env_session_id) == final
        log = sessions.audit_log(db, session_id=cold.env_session_id)
        assert [e.method for e in log[audited:]] == ["GET"], (
            "a refused write is not part of the attempt's audit log"
        )


def test_a_rolled_back_attempts_website_is_frozen_too(lab, client, make_assignment, person):
    a1 = person("A1")
    assignment_id = make_assignment("A1")
    with Session(client.app.state.engine, expire_on_commit=False) as db:
        cold = flow.start_assignment(db, assignment_id=assignment_id, annotator=a1)
        flow.begin_recording(db, attempt_id=cold.id, annotator=a1)  # the website starts ("go")
        flow.rollback(db, assignment_id=assignment_id, reason="control tab closed")
    refused = client.post(
        "/api/env/lab/notes", json={"title": "x"}, headers={"X-Env-Session": cold.env_session_id}
    )
    assert refused.status_code == 409 and refused.json()["detail"] == "This attempt has ended"
