"""A process keeps each session's typed state between API calls (`environments.deps.StateCache`).

What a person would notice if it went wrong: a change they made missing on the next call, a change
made elsewhere (the other app process, a reset by the controller) not shown, or half of a refused
change showing up later. Each test reads through the real API of a live server, on SQLite and
PostgreSQL.
"""

from __future__ import annotations

import threading
import time

import httpx
from sqlmodel import Session, select

from humantrace.environments.deps import STATE_CACHE
from humantrace.environments.models import EnvSession


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


# --------------------------------------------------------------------------- reads run without the lock
# A GET or HEAD runs on the state as last committed, without the session's row lock; only a read
# that changed something is saved afterwards, under the lock (`environments.deps._ReadCall`).


def test_a_read_answers_while_a_write_holds_the_session(server_factory, db_url, port):
    """A person's page keeps loading while another call of the session is busy writing."""
    from sqlalchemy import update

    server = server_factory(db_url, port)
    sid = server.create("lab-002", "clean", 7)["session_id"]
    with server.public(sid) as api:
        before = _notes(api)
        with server.engine.connect() as writer:
            # A write in progress: holds the row lock (PostgreSQL), the database write lock (SQLite).
            writer.execute(
                update(EnvSession).where(EnvSession.session_id == sid).values(event_seq=EnvSession.event_seq)
            )
            # Before reads ran without the lock, this one waited for the writer: a timeout here.
            reply = api.get("/api/env/lab/notes", timeout=10)
            writer.rollback()
        assert reply.status_code == 200, reply.text
        assert reply.json()["notes"] == before


def test_a_read_that_records_a_view_keeps_every_event(server_factory, db_url, port):
    server = server_factory(db_url, port)
    sid = server.create("lab-002", "clean", 7)["session_id"]
    with server.public(sid) as api:
        first = _notes(api)[0]
        for _ in range(3):
            opened = api.get(f"/api/env/lab/notes/{first['id']}/open")
            assert opened.status_code == 200 and opened.json() == first
        made = api.post("/api/env/lab/notes", json={"title": "after the views"})
        assert made.status_code == 201
        assert api.get("/api/env/lab/notes/n-9999/open").status_code == 404  # a refused read records nothing
    with server.control() as control:
        events = control.get(f"/control/sessions/{sid}/events").json()["events"]
    assert [(e["seq"], e["event"]) for e in events] == [
        (0, "note_view"),
        (1, "note_view"),
        (2, "note_view"),
        (3, "note_create"),
    ]


def test_a_read_that_changed_the_state_while_another_call_did_is_run_again(server_factory, db_url, port):
    """A GET that changes the state (as opening a mail thread marks it read) races a change made
    meanwhile: the other change is kept, and the GET is run again on the current state, so the
    person gets one ordinary answer and nothing is lost or applied twice."""
    from ht_labsite import READ_HOLD

    server = server_factory(db_url, port)
    sid = server.create("lab-002", "clean", 7)["session_id"]
    results: dict[str, httpx.Response] = {}
    with server.public(sid) as api:
        note = _notes(api)[0]
        READ_HOLD.entered.clear()
        READ_HOLD.release.clear()
        READ_HOLD.armed.set()
        try:
            touch = threading.Thread(
                target=lambda: results.update(touch=api.get(f"/api/env/lab/notes/{note['id']}/touch"))
            )
            touch.start()
            assert READ_HOLD.entered.wait(10)  # the GET read the state and is inside its handler
            with server.public(sid) as other:
                pinned = other.patch(f"/api/env/lab/notes/{note['id']}", json={"pinned": True}, timeout=10)
            assert pinned.status_code == 200  # not held up by the read
            READ_HOLD.release.set()
            touch.join(20)
        finally:
            READ_HOLD.armed.clear()
            READ_HOLD.release.set()
        answer = results["touch"]
        assert answer.status_code == 200, answer.text
        assert answer.json() == {**note, "pinned": True, "body": note["body"] + " [opened]"}
        assert "x-htenv-retry" not in answer.headers
        assert _notes(api)[0] == answer.json()
    with server.control() as control:
        stored = control.get(f"/control/sessions/{sid}/state").json()["state"]["notes"][0]
        events = control.get(f"/control/sessions/{sid}/events").json()["events"]
        audit = control.get(f"/control/sessions/{sid}/audit").json()["entries"]
    assert stored == answer.json()
    assert [e["event"] for e in events] == ["note_pin"]
    touches = [(e["method"], e["status"]) for e in audit if e["path"].endswith("/touch")]
    assert touches == [("GET", 200)]  # audited once, as answered


def test_a_change_committed_elsewhere_right_after_ours_is_seen(server_factory, db_url, port):
    """Another process commits a change in the instant after this process committed its own: the
    copy this process keeps must not be taken for that newer version."""
    from sqlalchemy import event, update
    from sqlalchemy.orm import Session as OrmSession

    server = server_factory(db_url, port)
    sid = server.create("lab-002", "clean", 7)["session_id"]

    def other_process_writes(_session) -> None:
        with Session(server.engine) as db:
            row = db.get(EnvSession, sid)
            assert row is not None
            note = {**row.state["notes"][0], "id": "n-0900", "title": "from the other process"}
            state = {**row.state, "notes": [*row.state["notes"], note]}
        with server.engine.begin() as conn:
            conn.execute(
                update(EnvSession)
                .where(EnvSession.session_id == sid)
                .values(state=state, state_version=EnvSession.state_version + 1)
            )

    with server.public(sid) as api:
        _notes(api)  # cached in this process
        event.listen(OrmSession, "after_commit", other_process_writes, once=True)
        try:
            assert api.post("/api/env/lab/notes", json={"title": "from the person"}).status_code == 201
        finally:
            if event.contains(OrmSession, "after_commit", other_process_writes):
                event.remove(OrmSession, "after_commit", other_process_writes)
        titles = [n["title"] for n in _notes(api)]
    assert titles[-2:] == ["from the person", "from the other process"]


# --------------------------------------------------------------------------- the row read with the rules
# For a GET the network layer reads the whole session row in the same statement as its rules and
# hands it to the dependency (`environments.deps.PRELOADED_SCOPE_KEY`), which with the state in the
# cache then starts without touching the database.


def test_a_read_that_creates_an_entity_gets_a_fresh_id(server_factory, db_url, port):
    """A GET that makes something (a scratch note here) needs a fresh id, which reads the initial
    snapshot: a column the network layer did not read. The id is above every id there ever was,
    and the entity is kept once."""
    server = server_factory(db_url, port)
    sid = server.create("lab-002", "clean", 7)["session_id"]
    with server.public(sid) as api:
        before = _notes(api)  # the state is now in this process's cache
        deleted = max(before, key=lambda n: int(n["id"].split("-")[1]))
        with Session(server.engine) as db:  # the highest note is gone from the live state only
            row = db.get(EnvSession, sid)
            row.state = {**row.state, "notes": [n for n in row.state["notes"] if n["id"] != deleted["id"]]}
            db.add(row)
            db.commit()
        _notes(api)  # cached again, without that note
        hits = STATE_CACHE.hits
        made = api.get("/api/env/lab/scratch")
        assert made.status_code == 200, made.text
        assert STATE_CACHE.hits == hits + 1  # it ran on the cached state
        again = api.get("/api/env/lab/scratch")
        assert again.json() == made.json()
        posted = api.post("/api/env/lab/notes", json={"title": "after the scratch note"})
    number = int(made.json()["id"].split("-")[1])
    assert number == int(deleted["id"].split("-")[1]) + 1  # never the deleted note's id again
    assert int(posted.json()["id"].split("-")[1]) == number + 1
    with server.control() as control:
        stored = control.get(f"/control/sessions/{sid}/state").json()["state"]["notes"]
    assert [n["title"] for n in stored].count("Scratch") == 1


def test_a_delayed_read_shows_a_change_made_during_its_delay(server_factory, db_url, port):
    """A delay intervention only slows a page: a GET held in its delay while the person's other
    call saves a note answers with that note (it does not answer from the row it read before)."""
    from humantrace.environments.models import InterventionCounter

    server = server_factory(db_url, port)
    sid = server.create("lab-002", "clean", 7)["session_id"]
    rule = {"action": "delay", "url_pattern": "/notes", "methods": ["GET"], "delay_ms": 3000, "mode": "once"}
    with server.control() as control:
        assert (
            control.put(f"/control/sessions/{sid}/interventions", json={"network": [rule]}).status_code == 200
        )
    results: dict[str, httpx.Response] = {}
    with server.public(sid) as api:
        # The first call of the session in this process: the row it reads holds the state.
        slow = threading.Thread(target=lambda: results.update(slow=api.get("/api/env/lab/notes", timeout=20)))
        slow.start()
        deadline = time.monotonic() + 10
        while True:  # the call is counted after its row was read, before its delay
            with Session(server.engine) as db:
                counted = db.exec(
                    select(InterventionCounter).where(InterventionCounter.session_id == sid)
                ).first()
            if counted is not None and counted.count >= 1:
                break
            assert time.monotonic() < deadline, "the delayed call never reached the network layer"
            time.sleep(0.02)
        with server.public(sid) as other:
            made = other.post("/api/env/lab/notes", json={"title": "saved during the delay"})
        assert made.status_code == 201
        slow.join(20)
    assert results["slow"].status_code == 200
    assert made.json() in results["slow"].json()["notes"]


def test_a_read_waits_for_the_persons_write_still_being_saved(server_factory, db_url, port):
    """A page loaded right after a click shows what the click saved: a GET of a session waits for
    that session's writes still running in this process (`network.WritesInFlight`), then answers."""
    from sqlalchemy import update

    server = server_factory(db_url, port)
    sid = server.create("lab-002", "clean", 7)["session_id"]
    results: dict[str, httpx.Response] = {}
    with server.public(sid) as api:
        _notes(api)
        tracker = server.app.state.env_writes
        with server.engine.connect() as holder:
            # Another call holds the session, so the person's save waits inside its handler.
            holder.execute(
                update(EnvSession).where(EnvSession.session_id == sid).values(event_seq=EnvSession.event_seq)
            )
            save = threading.Thread(
                target=lambda: results.update(
                    save=api.post("/api/env/lab/notes", json={"title": "saved by the click"}, timeout=20)
                )
            )
            save.start()
            deadline = time.monotonic() + 10
            while tracker.running(sid) == 0:
                assert time.monotonic() < deadline, "the save never reached the network layer"
                time.sleep(0.01)
            waited = tracker.waited
            page = threading.Thread(
                target=lambda: results.update(page=api.get("/api/env/lab/notes", timeout=20))
            )
            page.start()
            while tracker.waited == waited:
                assert "page" not in results, "the read answered while the save was still running"
                assert time.monotonic() < deadline, "the read never reached the network layer"
                time.sleep(0.01)
            assert "page" not in results
            holder.rollback()
        save.join(20)
        page.join(20)
    assert results["save"].status_code == 201, results["save"].text
    assert results["page"].status_code == 200
    assert results["save"].json() in results["page"].json()["notes"]
    assert tracker.running(sid) == 0
