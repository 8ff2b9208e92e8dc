"""Atomic pairing: a closed tab rolls back after the grace period; downtime is not counted.

Time is simulated: heartbeats and the cluster clock are written with chosen timestamps, and the
sweep is run `now=` a chosen moment, exactly as the monitor would run it once a second.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import Session, select

from humantrace.annotators.models import utcnow
from humantrace.dashboard.flow import presence
from humantrace.dashboard.flow import service as flow
from humantrace.dashboard.studies.models import Assignment, Attempt, ClusterClock, Outcome, TabPresence

# The control tab's page origin (the test client's host): the channel refuses any other.
DASHBOARD_ORIGIN = {"origin": "http://testserver"}


@pytest.fixture
def engine(client):
    return client.app.state.engine


@pytest.fixture(autouse=True)
def _t0():
    global T0
    T0 = utcnow()


def seen(engine, assignment_id: int, tab: str, at) -> None:
    with Session(engine) as db:
        presence.touch(db, assignment_id=assignment_id, tab=tab)
        row = db.exec(
            select(TabPresence).where(TabPresence.assignment_id == assignment_id, TabPresence.tab == tab)
        ).one()
        row.last_seen_at = at
        db.add(row)
        db.commit()


def server_was_up_until(engine, moment) -> None:
    """The monitor ticked a second before `moment` (the server was up all along)."""
    with Session(engine) as db:
        clock = db.get(ClusterClock, 1) or ClusterClock(id=1)
        clock.last_tick_at = moment - timedelta(seconds=1)
        db.add(clock)
        db.commit()


def sweep_at(engine, moment, *, server_up=True):
    if server_up:
        server_was_up_until(engine, moment)
    return presence.sweep(engine, now=moment)


def state_of(engine, assignment_id):
    with Session(engine) as db:
        return db.get(Assignment, assignment_id).state


@pytest.fixture
def running(engine, make_assignment, person):
    """An assignment in its cold attempt with both tabs seen at T0."""
    a1 = person("A1")
    assignment_id = make_assignment("A1")
    with Session(engine, expire_on_commit=False) as db:
        attempt = flow.start_assignment(db, assignment_id=assignment_id, annotator=a1)
        flow.begin_recording(db, attempt_id=attempt.id, annotator=a1)  # the website starts ("go")
    seen(engine, assignment_id, "control", T0)
    seen(engine, assignment_id, "environment", T0)
    return assignment_id, attempt.id


def test_connected_tabs_are_left_alone(engine, running):
    assignment_id, _ = running
    result = sweep_at(engine, T0 + timedelta(seconds=5))
    assert result.rolled_back == [] and state_of(engine, assignment_id) == "cold_active"


def test_closed_environment_tab_rolls_back_after_the_grace_period(engine, running):
    assignment_id, attempt_id = running
    later = T0 + timedelta(seconds=11)  # grace: 10 s
    seen(engine, assignment_id, "control", later)  # the control tab keeps beating
    result = sweep_at(engine, later)
    assert result.rolled_back == [assignment_id]
    assert state_of(engine, assignment_id) == "not_started"
    with Session(engine) as db:
        attempt = db.get(Attempt, attempt_id)
        assert attempt.status == "rolled_back" and attempt.rollback_reason == "environment tab closed"


def test_not_yet_past_the_grace_period(engine, running):
    assignment_id, _ = running
    seen(engine, assignment_id, "control", T0 + timedelta(seconds=9))
    assert sweep_at(engine, T0 + timedelta(seconds=9)).rolled_back == []
    assert state_of(engine, assignment_id) == "cold_active"


def test_a_reload_within_the_grace_period_is_not_a_close(engine, running):
    assignment_id, _ = running
    # the environment tab reloaded: its socket came back after 6 s
    seen(engine, assignment_id, "environment", T0 + timedelta(seconds=6))
    seen(engine, assignment_id, "control", T0 + timedelta(seconds=14))
    result = sweep_at(engine, T0 + timedelta(seconds=14))
    assert result.rolled_back == [] and state_of(engine, assignment_id) == "cold_active"


def test_server_downtime_inside_the_grace_period_is_not_counted(engine, running):
    assignment_id, _ = running
    server_was_up_until(engine, T0 + timedelta(seconds=3))
    # every process was down from T0+2 s to T0+62 s: the first sweep after the restart sees the gap
    result = sweep_at(engine, T0 + timedelta(seconds=62), server_up=False)
    assert result.downtime_seconds >= 59
    assert result.rolled_back == [] and state_of(engine, assignment_id) == "cold_active"
    # a tab that stays away after the restart is still caught once the grace period has passed
    seen(engine, assignment_id, "control", T0 + timedelta(seconds=80))
    result = sweep_at(engine, T0 + timedelta(seconds=80))
    assert result.rolled_back == [assignment_id]


def test_closed_control_tab_during_the_warm_attempt_rolls_back(engine, running, person):
    assignment_id, attempt_id = running
    a1 = person("A1")
    with Session(engine) as db:
        flow.end_attempt(db, attempt_id=attempt_id, annotator=a1, outcome=Outcome.evaluated)
        flow.start_warm(db, assignment_id=assignment_id, annotator=a1)
    later = T0 + timedelta(seconds=12)
    seen(engine, assignment_id, "environment", later)
    result = sweep_at(engine, later)
    assert result.rolled_back == [assignment_id]
    with Session(engine) as db:
        attempts = flow.attempts_of(db, assignment_id=assignment_id, include_rolled_back=True)
        assert [a.status for a in attempts] == ["rolled_back", "rolled_back"]
        assert attempts[-1].rollback_reason == "control tab closed"


def test_a_tab_that_never_connected_is_not_judged(engine, make_assignment, person):
    a1 = person("A1")
    assignment_id = make_assignment("A1")
    with Session(engine) as db:
        flow.start_assignment(db, assignment_id=assignment_id, annotator=a1)
    seen(engine, assignment_id, "control", T0 + timedelta(seconds=30))
    # the browser blocked the pop-up and the person has not opened the website yet
    assert sweep_at(engine, T0 + timedelta(seconds=30)).rolled_back == []


def test_hard_time_limit_ends_the_attempt_as_timed_out(engine, running):
    assignment_id, attempt_id = running
    beyond = T0 + timedelta(minutes=31)
    seen(engine, assignment_id, "control", beyond)
    seen(engine, assignment_id, "environment", beyond)
    result = sweep_at(engine, beyond)
    assert result.timed_out == [attempt_id]
    with Session(engine) as db:
        attempt = db.get(Attempt, attempt_id)
        assert attempt.outcome == "timed_out" and attempt.score is not None
    assert state_of(engine, assignment_id) == "warm_ready"


def presence_rows(engine, assignment_id):
    with Session(engine) as db:
        rows = db.exec(select(TabPresence).where(TabPresence.assignment_id == assignment_id)).all()
        return {row.tab: row.last_seen_at for row in rows}


def test_touch_many_writes_new_and_existing_rows_in_one_go(engine, running, make_assignment):
    assignment_id, _ = running
    other = make_assignment("A1", task_id="lab-002")
    before = presence_rows(engine, assignment_id)
    with Session(engine) as db:
        presence.touch_many(db, [(assignment_id, "control"), (other, "control"), (other, "environment")])
    after = presence_rows(engine, assignment_id)
    assert after["control"] > before["control"] and after["environment"] == before["environment"]
    assert set(presence_rows(engine, other)) == {"control", "environment"}


def test_an_open_control_tab_keeps_beating_and_stops_when_closed(
    client, engine, running, login_as, monkeypatch
):
    """The live channel's heartbeat is what keeps a reading annotator's assignment alive."""
    import time

    monkeypatch.setattr(presence, "HEARTBEAT_SECONDS", 0.2)
    assignment_id, attempt_id = running
    # The website tab was last heard of a minute ago, so the snapshot's website_gone_at is the same
    # from the first push on (seen at T0, it would change once T0 was 5 s old: a second push that a
    # slow run could take for the state change awaited below).
    seen(engine, assignment_id, "environment", T0 - timedelta(minutes=1))
    login_as(client, "A1")
    with client.websocket_connect(f"/ws/control/{assignment_id}", headers=DASHBOARD_ORIGIN) as ws:
        first = ws.receive_json()
        assert (
            first["state"] == "cold_active" and first["attempt_id"] == attempt_id and first["phase"] == "cold"
        )
        assert first["website_gone_at"] == int(flow._aware(T0 - timedelta(minutes=1)).timestamp())
        joined = presence_rows(engine, assignment_id)["control"]
        assert joined > T0  # touched at once on connect
        time.sleep(0.8)
        assert presence_rows(engine, assignment_id)["control"] > joined  # and again while open
        # The channel pushes a new snapshot when the state changes, not before.
        with Session(engine) as db:
            flow.end_attempt(
                db, attempt_id=attempt_id, annotator=None, outcome=Outcome.evaluated, actor="test"
            )
        assert ws.receive_json()["state"] == "warm_ready"
    # The server learns of the close a moment after the client sends it, and a beat already in
    # flight may still land: let one heartbeat pass before taking the reference.
    time.sleep(0.5)
    closed = presence_rows(engine, assignment_id)["control"]
    time.sleep(0.8)
    assert presence_rows(engine, assignment_id)["control"] == closed


def test_the_control_channel_refuses_another_persons_assignment(client, running, login_as, person):
    from starlette.websockets import WebSocketDisconnect

    assignment_id, _ = running
    person("A2")
    login_as(client, "A2")
    with (
        client.websocket_connect(f"/ws/control/{assignment_id}", headers=DASHBOARD_ORIGIN) as ws,
        pytest.raises(WebSocketDisconnect) as closed,
    ):
        ws.receive_json()
    assert closed.value.code == 1008


def _start_again_and_work(engine, assignment_id, person):
    """Start (real time), a sweep before the new tabs connect, 30 s of work with both tabs, Evaluate."""
    a1 = person("A1")
    with Session(engine, expire_on_commit=False) as db:
        attempt = flow.start_assignment(db, assignment_id=assignment_id, annotator=a1)
        flow.begin_recording(db, attempt_id=attempt.id, annotator=a1)  # the website starts ("go")
    start = utcnow()
    assert sweep_at(engine, start + timedelta(seconds=1)).rolled_back == [], (
        "the old tabs' heartbeats judged the new start"
    )
    for second in (5, 15, 25, 30):
        moment = start + timedelta(seconds=second)
        seen(engine, assignment_id, "control", moment)
        seen(engine, assignment_id, "environment", moment)
        assert sweep_at(engine, moment).rolled_back == []
    with Session(engine) as db:
        flow.end_attempt(db, attempt_id=attempt.id, annotator=a1, outcome=Outcome.evaluated)
    assert state_of(engine, assignment_id) == "warm_ready"


def test_an_assignment_rolled_back_can_be_started_again(engine, running, person):
    assignment_id, _ = running
    seen(engine, assignment_id, "control", T0 + timedelta(seconds=12))
    assert sweep_at(engine, T0 + timedelta(seconds=12)).rolled_back == [assignment_id]
    _start_again_and_work(engine, assignment_id, person)


def test_an_assignment_reopened_by_a_lead_can_be_started_again(engine, running, person):
    assignment_id, attempt_id = running
    with Session(engine) as db:
        flow.end_attempt(db, attempt_id=attempt_id, annotator=person("A1"), outcome=Outcome.evaluated)
        flow.reopen(db, assignment_id=assignment_id, lead=person("L1"), reason="the site was down")
    _start_again_and_work(engine, assignment_id, person)


def test_a_silent_website_tab_opens_an_absence_that_its_return_or_a_rollback_closes(engine, running):
    from humantrace.dashboard.studies.models import WebsiteAbsence

    assignment_id, _ = running

    def absences():
        with Session(engine) as db:
            rows = db.exec(select(WebsiteAbsence).where(WebsiteAbsence.assignment_id == assignment_id))
            return [(presence._aware(r.gone_at), presence._aware(r.back_at)) for r in rows]

    seen(engine, assignment_id, "control", T0 + timedelta(seconds=4))
    sweep_at(engine, T0 + timedelta(seconds=4))  # silent for 4 s: a page loading, not an absence
    assert absences() == []
    seen(engine, assignment_id, "control", T0 + timedelta(seconds=6))
    sweep_at(engine, T0 + timedelta(seconds=6))
    assert absences() == [(T0, None)]  # gone since its last heartbeat
    seen(engine, assignment_id, "environment", T0 + timedelta(seconds=8))  # the tab is back
    sweep_at(engine, T0 + timedelta(seconds=8, milliseconds=500))
    assert absences() == [(T0, T0 + timedelta(seconds=8))]
    # Gone again, and for good: the rollback closes the open absence, so a restart starts clean.
    seen(engine, assignment_id, "control", T0 + timedelta(seconds=14))
    sweep_at(engine, T0 + timedelta(seconds=14))
    seen(engine, assignment_id, "control", T0 + timedelta(seconds=19))
    assert sweep_at(engine, T0 + timedelta(seconds=19)).rolled_back == [assignment_id]
    assert [back is not None for _gone, back in absences()] == [True, True]
