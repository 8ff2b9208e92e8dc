"""Two `humantrace serve` processes on one PostgreSQL database: any process serves any request.

The control tab talks to one process and the environment tab (pages, API, recorder websocket) to
the other; network-intervention counters, acknowledged event counts and rollbacks cross between
them through the database. Faults: the recorder's process is SIGKILLed mid-attempt, the database
restarts mid-attempt, and the database is unreachable when Evaluate is pressed.
"""

from __future__ import annotations

import json
import time

import httpx
import pytest
from sqlalchemy import func
from sqlmodel import Session, col, select

pytestmark = [pytest.mark.postgres]


@pytest.fixture
def cluster(kit, postgres_url, tmp_path):
    """A migrated private schema, a study (grace period 30 s) and a way to start processes on it."""
    from humantrace.core import migrate
    from humantrace.core.db import make_engine
    from humantrace.dashboard.studies.models import Study

    kit.register_lab()
    migrate.upgrade(postgres_url)
    engine = make_engine(postgres_url)
    maker = kit.CastMaker(engine, kit.make_study(engine))
    with Session(engine) as db:
        study = db.get(Study, maker.study_id)
        study.rollback_grace_seconds = 30  # generous: this machine is busy; the rollback test sets its own
        db.add(study)
        db.commit()
    env = kit.serve_env(data_dir=tmp_path / "data", database_url=postgres_url)
    yield engine, maker, env
    engine.dispose()


def _events(engine, recording_id: int) -> list[int]:
    from humantrace.recorder.models import RawEvent

    with Session(engine) as db:
        return list(
            db.exec(
                select(col(RawEvent.seq))
                .where(col(RawEvent.recording_id) == recording_id)
                .order_by(col(RawEvent.seq))
            )
        )


def _attempt(engine, attempt_id: int):
    from humantrace.dashboard.studies.models import Attempt

    with Session(engine, expire_on_commit=False) as db:
        return db.get(Attempt, attempt_id)


def _state(engine, assignment_id: int) -> str:
    from humantrace.dashboard.studies.models import Assignment

    with Session(engine) as db:
        row = db.get(Assignment, assignment_id)
        assert row is not None
        return row.state


def test_control_on_one_process_environment_on_the_other(kit, cluster, serve):
    engine, maker, env = cluster
    first = serve(port=kit.free_port(), env=env)
    second = serve(port=kit.free_port(), env={**env, "HUMANTRACE_RUN_MONITOR": "false"})
    person = maker.person("A")
    assignment_id = maker.assignment(person, condition="intervention")["assignment_id"]
    annotator = kit.FlowAnnotator(first.url, env_url=second.url)
    annotator.login(kit.login_link(engine, person.code, first.url))
    control = None
    try:
        attempt_id = annotator.start(assignment_id)
        control = kit.ControlTab(first.url, assignment_id, annotator.http.cookies["ht_session"])
        instruction = annotator.control(assignment_id)["instruction"]
        assert annotator.post(f"/attempts/{attempt_id}/begin").status_code == 200
        url = annotator.open_environment(attempt_id)  # on the second process
        assert annotator.record(url=url, count=40) == 39
        # the control tab (first process) shows the events the second process acknowledged
        control.wait_for(lambda s: s.get("attempt_id") == attempt_id and s.get("events") == 40)

        # The variant's first PATCH answers "saved" without saving (fail_count 1). Its counter lives in
        # the database: the retry through the *other* process really saves.
        import re

        title = re.search(r'"(.+)"', instruction).group(1)
        note = next(n for n in annotator.env.get("/api/env/lab/notes").json()["notes"] if n["title"] == title)
        fooled = annotator.env.patch(f"/api/env/lab/notes/{note['id']}", json={"pinned": True})
        assert fooled.status_code == 200
        on_first = httpx.Client(base_url=first.url, cookies=dict(annotator.env.cookies), timeout=30)
        listed = {n["id"]: n for n in on_first.get("/api/env/lab/notes").json()["notes"]}
        assert listed[note["id"]]["pinned"] is False, "the misleading success changed nothing"
        assert on_first.patch(f"/api/env/lab/notes/{note['id']}", json={"pinned": True}).status_code == 200
        assert (
            on_first.get("/api/env/lab/notes").json()["notes"]
            and {n["id"]: n for n in annotator.env.get("/api/env/lab/notes").json()["notes"]}[note["id"]][
                "pinned"
            ]
            is True
        )
        on_first.close()

        ended = annotator.post(f"/attempts/{attempt_id}/end", {"outcome": "evaluated"})
        assert ended.status_code == 200, ended.text
        cold = _attempt(engine, attempt_id)
        assert cold.passed is True and cold.raw_events == 40, (cold.score, cold.raw_events)
        with Session(engine) as db:
            from humantrace.environments import sessions

            fired = [
                e.intervention
                for e in sessions.audit_log(db, session_id=cold.env_session_id)
                if e.intervention
            ]
        assert len(fired) == 1, fired

        annotator.control(assignment_id)
        warm_id = annotator.post(f"/assignments/{assignment_id}/warm").json()["attempt_id"]
        warm = annotator.play_attempt(assignment_id, warm_id, events=25)
        assert warm.acked == 24
        annotator.control(assignment_id)
        rated = annotator.http.post(
            f"/assignments/{assignment_id}/rating", data={"csrf_token": annotator.csrf, "clarity": "5"}
        )
        assert rated.status_code == 303
        assert _state(engine, assignment_id) == "completed"
        assert _events(engine, _attempt(engine, warm_id).recording_id) == list(range(25))
    finally:
        if control:
            control.close()
        annotator.close()


def test_a_closed_environment_tab_is_rolled_back_by_the_other_process(kit, cluster, serve):
    from humantrace.dashboard.studies.models import AssignmentEvent, Study

    engine, maker, env = cluster
    with Session(engine) as db:
        study = db.get(Study, maker.study_id)
        study.rollback_grace_seconds = 4
        db.add(study)
        db.commit()
    first = serve(port=kit.free_port(), env=env)
    second = serve(
        port=kit.free_port(), env={**env, "HUMANTRACE_RUN_MONITOR": "false"}
    )  # only the first judges
    person = maker.person("B")
    assignment_id = maker.assignment(person)["assignment_id"]
    annotator = kit.FlowAnnotator(first.url, env_url=second.url)
    annotator.login(kit.login_link(engine, person.code, first.url))
    control = None
    try:
        attempt_id = annotator.start(assignment_id)
        control = kit.ControlTab(first.url, assignment_id, annotator.http.cookies["ht_session"])
        url = annotator.open_environment(attempt_id)
        annotator.record(url=url, count=5)  # the recorder connects to the second process, then the tab closes
        control.wait_for(lambda s: s.get("state") == "not_started", timeout=90)
    finally:
        if control:
            control.close()
        annotator.close()
    with Session(engine) as db:
        trail = db.exec(
            select(AssignmentEvent).where(
                AssignmentEvent.assignment_id == assignment_id, AssignmentEvent.to_state == "not_started"
            )
        ).all()
    assert [(e.actor, e.reason) for e in trail] == [("system", "environment tab closed")]
    assert _attempt(engine, attempt_id).status == "rolled_back"
    assert "rolled back: environment tab closed" in first.log and "rolled back" not in second.log


@pytest.mark.heavy
def test_sigkill_of_the_recorders_process_loses_no_event(kit, cluster, serve, tcp_proxy):
    engine, maker, env = cluster
    first = serve(port=kit.free_port(), env=env)
    second = serve(port=kit.free_port(), env=env)
    balancer = tcp_proxy(("127.0.0.1", second.port))  # the environment tab's way in
    person = maker.person("K")
    ids = maker.assignment(person)
    annotator = kit.FlowAnnotator(first.url, env_url=balancer.url)
    annotator.login(kit.login_link(engine, person.code, first.url))
    try:
        attempt_id = annotator.start(ids["assignment_id"])
        url = annotator.open_environment(attempt_id)
        from websockets.sync.client import connect

        socket = connect(annotator.ws_url(f"/recorder/ws?token={annotator.recorder_token}"), open_timeout=20)
        assert json.loads(socket.recv(timeout=20)) == {"type": "ack", "seq": -1, "stream": 0}
        for start in (0, 10, 20):
            socket.send(
                json.dumps(
                    {"type": "batch", "events": [kit.make_event(s, url) for s in range(start, start + 10)]}
                )
            )
            assert json.loads(socket.recv(timeout=20))["seq"] == start + 9
        # one more batch in flight, then the process dies without a word
        socket.send(json.dumps({"type": "batch", "events": [kit.make_event(s, url) for s in range(30, 40)]}))
        second.kill()
        balancer.switch(("127.0.0.1", first.port))
        socket.close()
        # the recorder reconnects (now to the first process), learns the ack and resends the rest
        assert annotator.record(url=url, count=60) == 59
        ended = annotator.post(f"/attempts/{attempt_id}/end", {"outcome": "evaluated"})
        assert ended.status_code == 200, ended.text
    finally:
        annotator.close()
    assert _events(engine, _attempt(engine, attempt_id).recording_id) == list(range(60))
    assert _attempt(engine, attempt_id).raw_events == 60
    assert _state(engine, ids["assignment_id"]) == "warm_ready"


@pytest.mark.heavy
def test_database_unreachable_at_evaluate_then_retry_scores_once(
    kit, cluster, serve, tcp_proxy, postgres_url
):
    from humantrace.dashboard.studies.models import AssignmentEvent

    engine, maker, env = cluster
    url = httpx.URL(postgres_url.replace("postgresql+psycopg", "http"))
    path_to_db = tcp_proxy((url.host, url.port or 5432))
    through_proxy = postgres_url.replace(f"{url.host}:{url.port or 5432}", f"127.0.0.1:{path_to_db.port}")
    process = serve(port=kit.free_port(), env={**env, "HUMANTRACE_DATABASE_URL": through_proxy})
    person = maker.person("U")
    ids = maker.assignment(person)
    annotator = kit.FlowAnnotator(process.url)
    annotator.login(kit.login_link(engine, person.code, process.url))
    try:
        attempt_id = annotator.start(ids["assignment_id"])
        page = annotator.open_environment(attempt_id)
        annotator.record(url=page, count=15)
        path_to_db.down()
        refused = annotator.post(f"/attempts/{attempt_id}/end", {"outcome": "evaluated"})
        assert refused.status_code == 503, (refused.status_code, refused.text)
        assert "database" in refused.json()["detail"] and "try again" in refused.json()["detail"].lower()
        assert _attempt(engine, attempt_id).status == "active", "nothing was scored"
        # every other request fails as cleanly: a page, the website's API
        page_down = annotator.http.get(f"/assignments/{ids['assignment_id']}/control")
        api_down = annotator.env.get("/api/env/lab/notes")
        assert (page_down.status_code, api_down.status_code) == (503, 503)
        assert "database" in page_down.text and "database" in api_down.json()["detail"]
        path_to_db.up()
        for _ in range(20):  # the annotator presses Evaluate again
            retried = annotator.post(f"/attempts/{attempt_id}/end", {"outcome": "evaluated"})
            if retried.status_code == 200:
                break
            time.sleep(0.5)
        assert retried.status_code == 200, retried.text
        again = annotator.post(f"/attempts/{attempt_id}/end", {"outcome": "evaluated"})
        assert again.json() == retried.json()
    finally:
        annotator.close()
    with Session(engine) as db:
        moves = db.exec(
            select(func.count())
            .select_from(AssignmentEvent)
            .where(
                AssignmentEvent.assignment_id == ids["assignment_id"],
                AssignmentEvent.to_state == "warm_ready",
            )
        ).one()
    assert moves == 1
    ended = _attempt(engine, attempt_id)
    assert ended.outcome == "evaluated" and ended.raw_events == 15 and ended.score is not None


@pytest.mark.heavy
def test_database_restart_mid_attempt(kit, private_postgres, serve, tmp_path):
    """The database goes away and comes back during an attempt: requests answer 503, the recorder's
    batch is refused (not lost), then everything works again and the trace is complete."""
    from humantrace.core import migrate
    from humantrace.core.db import make_engine

    kit.register_lab()
    migrate.upgrade(private_postgres.url)
    engine = make_engine(private_postgres.url)
    maker = kit.CastMaker(engine, kit.make_study(engine))
    env = kit.serve_env(data_dir=tmp_path / "data", database_url=private_postgres.url)
    first = serve(port=kit.free_port(), env=env)
    second = serve(port=kit.free_port(), env=env)
    person = maker.person("P")
    ids = maker.assignment(person)
    annotator = kit.FlowAnnotator(first.url, env_url=second.url)
    annotator.login(kit.login_link(engine, person.code, first.url))
    engine.dispose()
    try:
        attempt_id = annotator.start(ids["assignment_id"])
        url = annotator.open_environment(attempt_id)
        from websockets.sync.client import connect

        with connect(
            annotator.ws_url(f"/recorder/ws?token={annotator.recorder_token}"), open_timeout=20
        ) as socket:
            assert json.loads(socket.recv(timeout=20))["seq"] == -1
            socket.send(json.dumps({"type": "batch", "events": [kit.make_event(s, url) for s in range(20)]}))
            assert json.loads(socket.recv(timeout=20)) == {"type": "ack", "seq": 19}

            private_postgres.stop()  # the restart's first half: the database is gone
            socket.send(
                json.dumps({"type": "batch", "events": [kit.make_event(s, url) for s in range(20, 30)]})
            )
            refused = json.loads(socket.recv(timeout=60))
            assert refused["type"] == "error" and refused["code"] == "internal", refused
            down = [
                annotator.env.get("/api/env/lab/notes"),
                annotator.http.get(f"/assignments/{ids['assignment_id']}/control"),
                annotator.post(f"/attempts/{attempt_id}/end", {"outcome": "evaluated"}),
            ]
            assert [r.status_code for r in down] == [503, 503, 503], [
                (r.status_code, r.text[:200]) for r in down
            ]

            private_postgres.start()  # ... and its second half
            for _ in range(60):  # the recorder resends the refused batch until it is acknowledged
                socket.send(
                    json.dumps({"type": "batch", "events": [kit.make_event(s, url) for s in range(20, 30)]})
                )
                reply = json.loads(socket.recv(timeout=60))
                if reply["type"] == "ack":
                    break
                time.sleep(0.5)
            assert reply == {"type": "ack", "seq": 29}
        assert annotator.record(url=url, count=45) == 44
        assert annotator.env.get("/api/env/lab/notes").status_code == 200
        ended = annotator.post(f"/attempts/{attempt_id}/end", {"outcome": "evaluated"})
        assert ended.status_code == 200, ended.text
    finally:
        annotator.close()
    engine = make_engine(private_postgres.url)
    try:
        assert _events(engine, _attempt(engine, attempt_id).recording_id) == list(range(45))
        assert _state(engine, ids["assignment_id"]) == "warm_ready", (
            "the downtime did not roll the assignment back"
        )
    finally:
        engine.dispose()
