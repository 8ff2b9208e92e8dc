"""A process keeps each session's typed state between API calls (`environments.deps.StateCache`).

What a person would notice if it went wrong: a change they made missing on the next call, a change
made elsewhere (the other app process, a reset by the controller) not shown, or half of a refused
change showing up later. Each test reads through the real API of a live server, on SQLite and
PostgreSQL.
"""

from __future__ import annotations

import httpx
from sqlmodel import Session

from environments.deps import STATE_CACHE
from environments.models import EnvSession


def _notes(api: httpx.Client) -> list[dict]:
    response = api.get("/api/env/lab/notes")
    assert response.status_code == 200, response.text
    return response.json()["notes"]


def test_repeated_calls_reuse_the_state_and_see_every_change(server_factory, db_url, port):
    server = server_factory(db_url, port)
    sid = server.create("lab-002", "clean", 7)["session_id"]
    with server.public(sid) as api:
        first = _notes(api)
        hits = STATE_CACHE.hits
        assert _notes(api) == first
        assert STATE_CACHE.hits == hits + 1  # the second read did not validate the state again
        made = api.post("/api/env/lab/notes", json={"title": "from the person"})
        assert made.status_code == 201
        assert _notes(api) == first + [made.json()]
        pinned = api.patch(f"/api/env/lab/notes/{first[0]['id']}", json={"pinned": True})
        assert pinned.status_code == 200
        assert _notes(api)[0]["pinned"] is True
    assert STATE_CACHE.hits >= hits + 3
    with server.control() as control:  # what the evaluator reads is what the person saw
        stored = control.get(f"/control/sessions/{sid}/state").json()["state"]["notes"]
    assert stored[0]["pinned"] is True and stored[-1]["title"] == "from the person"


def test_a_change_made_elsewhere_is_seen_on_the_next_call(server_factory, db_url, port):
    server = server_factory(db_url, port)
    sid = server.create("lab-002", "clean", 7)["session_id"]
    with server.public(sid) as api:
        before = _notes(api)
        _notes(api)  # now cached in this process
        # Another process writes the state (through the ORM, as the other process's handler does).
        with Session(server.engine) as db:
            row = db.get(EnvSession, sid)
            row.state = {**row.state, "notes": [{**before[0], "title": "renamed elsewhere"}]}
            db.add(row)
            db.commit()
        assert [n["title"] for n in _notes(api)] == ["renamed elsewhere"]
        # The controller's reset copies the initial state back inside the database.
        with server.control() as control:
            assert control.post(f"/control/sessions/{sid}/reset").status_code == 200
        assert _notes(api) == before


def test_a_refused_change_leaves_no_trace(server_factory, db_url, port):
    server = server_factory(db_url, port)
    sid = server.create("lab-002", "clean", 7)["session_id"]
    with server.public(sid) as api:
        before = _notes(api)
        assert before[0]["pinned"] is False
        # The handler pins the note, then refuses the empty title: the request changes nothing.
        refused = api.patch(f"/api/env/lab/notes/{before[0]['id']}", json={"pinned": True, "title": " "})
        assert refused.status_code == 422 and refused.json()["detail"] == "A note needs a title."
        assert _notes(api) == before
        assert _notes(api) == before
    with server.control() as control:
        assert control.get(f"/control/sessions/{sid}/state").json()["state"]["notes"] == before
        assert control.get(f"/control/sessions/{sid}/events").json()["events"] == []
