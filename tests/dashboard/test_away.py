"""`away_s`: the wall-clock time with no website tab present or visible.

The interval arithmetic is checked on hand-worked cases; one end-to-end run records events over
the recorder's HTTP endpoint and lets the presence sweep see the website tab go and come back,
with every moment placed in the past (the clock is moved, nothing sleeps), then ends the attempt
over HTTP and reads the stored `away_s`.
"""

from __future__ import annotations

import json
import time
from datetime import timedelta

import pytest
from sqlmodel import Session, select

from humantrace.annotators.models import utcnow
from humantrace.dashboard.flow import presence
from humantrace.dashboard.flow import service as flow
from humantrace.dashboard.flow.away import Interval, VisibilityEvent, away_seconds, shown_intervals
from humantrace.dashboard.studies.models import Attempt, ClusterClock, Study, TabPresence, WebsiteAbsence
from humantrace.recorder import service as recorder


def nav(stream: int, seq: int, t_ms: int, kind: str) -> VisibilityEvent:
    return VisibilityEvent(stream=stream, seq=seq, t_ms=t_ms, type="navigation", nav=kind)


def vis(stream: int, seq: int, t_ms: int, state: str) -> VisibilityEvent:
    return VisibilityEvent(stream=stream, seq=seq, t_ms=t_ms, type="visibility", state=state)


def click(stream: int, seq: int, t_ms: int) -> VisibilityEvent:
    return VisibilityEvent(stream=stream, seq=seq, t_ms=t_ms, type="click")


def away(events, *, window, absent=()) -> float:
    shown = shown_intervals(events, until_ms=window.end_ms)
    return away_seconds(window=window, shown=shown, absent=list(absent))


# --------------------------------------------------------------------------- the arithmetic


def test_a_hidden_stretch_and_two_absences_are_one_union():
    # Hidden 20-50 s (30 s); absences 10-30 s (overlaps it: the union is 10-50 s, 40 s) and 70-80 s.
    events = [nav(0, 0, 0, "load"), click(0, 1, 1_000), vis(0, 2, 20_000, "hidden")]
    events += [vis(0, 3, 50_000, "visible"), click(0, 4, 60_000)]
    window = Interval(0, 100_000)
    absent = [Interval(10_000, 30_000), Interval(70_000, 80_000)]
    assert away(events, window=window, absent=absent) == 50.0
    assert away(events, window=window) == 30.0


def test_a_navigation_inside_the_tab_is_never_away():
    # Chromium reports the unloading page hidden after its pagehide: that is the page being replaced.
    events = [nav(0, 0, 0, "load"), nav(0, 1, 10_000, "unload"), vis(0, 2, 10_010, "hidden")]
    events += [nav(0, 3, 10_400, "load"), click(0, 4, 11_000)]
    assert away(events, window=Interval(0, 20_000)) == 0.0


def test_a_closed_tab_is_away_until_the_next_tab_loads():
    # Stream 0 closed at 30 s (hidden, then unload, nothing after); stream 1 loads at 45 s: 15 s away.
    events = [nav(0, 0, 0, "load"), vis(0, 1, 30_000, "hidden"), nav(0, 2, 30_005, "unload")]
    events += [nav(1, 0, 45_000, "load"), click(1, 1, 46_000)]
    assert away(events, window=Interval(0, 60_000)) == 15.0


def test_a_tab_closed_is_gone_even_if_it_recorded_hidden_while_unloading():
    # Chromium fires visibilitychange (hidden) after pagehide: the stream's last event is that hidden.
    events = [nav(0, 0, 0, "load"), nav(0, 1, 30_000, "unload"), vis(0, 2, 30_004, "hidden")]
    events += [nav(1, 0, 45_000, "load")]
    assert away(events, window=Interval(0, 60_000)) == 15.0


def test_one_visible_tab_is_enough():
    # Stream 0 hidden from 10 s to the end, stream 1 visible from 5 s: always one tab shown.
    events = [nav(0, 0, 0, "load"), vis(0, 1, 10_000, "hidden"), nav(1, 0, 5_000, "load")]
    assert away(events, window=Interval(0, 30_000)) == 0.0


def test_absences_are_clipped_to_the_window():
    # 3 s of the first absence and 5 s of the second (still open at the end) fall inside [0, 30 s].
    events = [nav(0, 0, 0, "load")]
    absent = [Interval(-5_000, 3_000), Interval(25_000, 40_000)]
    assert away(events, window=Interval(0, 30_000), absent=absent) == 8.0


def test_a_hidden_tab_stays_hidden_through_a_reload_until_it_is_visible_again():
    events = [nav(0, 0, 0, "load"), vis(0, 1, 10_000, "hidden"), nav(0, 2, 12_000, "unload")]
    events += [nav(0, 3, 12_500, "load"), vis(0, 4, 20_000, "visible")]
    assert away(events, window=Interval(0, 30_000)) == 10.0


def test_an_attempt_without_events_showed_no_website():
    assert away([], window=Interval(0, 12_345)) == 12.345


def test_events_out_of_order_are_read_in_seq_order_per_stream():
    events = [vis(0, 2, 50_000, "visible"), nav(0, 0, 0, "load"), vis(0, 1, 20_000, "hidden")]
    assert away(events, window=Interval(0, 60_000)) == 30.0


# --------------------------------------------------------------------------- end to end


@pytest.fixture
def started(client, make_assignment, person, login_as, study):
    """A1's cold attempt, signed in on `client`, its website started ("go") 120 s ago."""
    assignment_id = make_assignment("A1")
    with Session(client.app.state.engine) as db:
        row = db.get(Study, study.id)
        row.rollback_grace_seconds = 300  # the website tab's absence below must not roll back
        db.add(row)
        db.commit()
        attempt = flow.start_assignment(db, assignment_id=assignment_id, annotator=person("A1"))
        flow.begin_recording(db, attempt_id=attempt.id, annotator=person("A1"))
        go = utcnow() - timedelta(seconds=120)
        attempt.recording_started_at = go  # the clock moved back: the attempt began two minutes ago
        db.add(attempt)
        db.commit()
        ids = (assignment_id, attempt.id, attempt.recording_id, go)
    login_as(client, "A1")
    page = client.get(f"/assignments/{assignment_id}/control").text
    return (*ids, page.split('data-csrf="')[1].split('"')[0])


def _heard(engine, assignment_id: int, at) -> None:
    """Both tabs' heartbeats as of `at`, and the cluster clock a second before it (server up)."""
    with Session(engine) as db:
        for tab in ("control", "environment"):
            presence.touch(db, assignment_id=assignment_id, tab=tab)
            row = db.exec(
                select(TabPresence).where(TabPresence.assignment_id == assignment_id, TabPresence.tab == tab)
            ).one()
            row.last_seen_at = at
            db.add(row)
        clock = db.get(ClusterClock, 1) or ClusterClock(id=1)
        clock.last_tick_at = at - timedelta(seconds=1)
        db.add(clock)
        db.commit()


def _control_heard(engine, assignment_id: int, at) -> None:
    with Session(engine) as db:
        row = db.exec(
            select(TabPresence).where(
                TabPresence.assignment_id == assignment_id, TabPresence.tab == "control"
            )
        ).one()
        row.last_seen_at = at
        db.add(row)
        clock = db.get(ClusterClock, 1)
        assert clock is not None
        clock.last_tick_at = at - timedelta(seconds=1)
        db.add(clock)
        db.commit()


def test_a_hidden_website_tab_and_a_closed_one_add_to_away_s(client, started):
    engine = client.app.state.engine
    assignment_id, attempt_id, recording_id, go, csrf = started
    t = int(go.timestamp() * 1000)  # every event time below is this many ms after "go"
    events = [
        {"seq": 0, "t_ms": t + 1_000, "type": "navigation", "xpath": None, "url": "http://w/", "nav": "load"},
        {
            "seq": 1,
            "t_ms": t + 2_000,
            "type": "click",
            "xpath": "/html/body",
            "url": "http://w/",
            "x": 1,
            "y": 2,
        },
        {
            "seq": 2,
            "t_ms": t + 70_000,
            "type": "visibility",
            "xpath": None,
            "url": "http://w/",
            "state": "hidden",
        },
        {
            "seq": 3,
            "t_ms": t + 95_000,
            "type": "visibility",
            "xpath": None,
            "url": "http://w/",
            "state": "visible",
        },
        {
            "seq": 4,
            "t_ms": t + 96_000,
            "type": "click",
            "xpath": "/html/body",
            "url": "http://w/",
            "x": 1,
            "y": 2,
        },
    ]
    token = recorder.issue_token(secret_key=client.app.state.settings.secret_key, recording_id=recording_id)
    stored = client.post(
        "/recorder/events",
        content=json.dumps({"type": "batch", "events": events}),
        headers={"Authorization": f"Bearer {token}"},
    )
    assert stored.status_code == 200, stored.text

    # The website tab's connection: last heard 20 s after "go", silent until it comes back at 50 s.
    moment = go + timedelta(seconds=20)
    _heard(engine, assignment_id, moment)
    _control_heard(engine, assignment_id, moment + timedelta(seconds=6))
    assert presence.sweep(engine, now=moment + timedelta(seconds=6)).rolled_back == []
    _heard(engine, assignment_id, go + timedelta(seconds=50))
    presence.sweep(engine, now=go + timedelta(seconds=50, milliseconds=500))
    with Session(engine) as db:
        absences = db.exec(select(WebsiteAbsence).where(WebsiteAbsence.assignment_id == assignment_id)).all()
        assert [(a.gone_at, a.back_at) for a in absences] == [
            (go + timedelta(seconds=20), go + timedelta(seconds=50))
        ]

    # Evaluate now (about 120 s after "go"), on the annotator's clock: this machine's.
    pressed = int(time.time() * 1000)
    ended = client.post(
        f"/attempts/{attempt_id}/end",
        data={"outcome": "evaluated", "client_ms": str(pressed)},
        headers={"X-CSRF-Token": csrf, "Accept": "application/json"},
    )
    assert ended.status_code == 200, ended.text
    with Session(engine) as db:
        attempt = db.get(Attempt, attempt_id)
        # Wall clock from the first event (1 s after "go") to the press. Away: absent 20-50 s
        # (30 s) and hidden 70-95 s (25 s) = 55 s; the rest of the window the tab was shown.
        assert attempt.wall_clock_ms == pressed - (t + 1_000)
        assert attempt.away_s == pytest.approx(55.0, abs=0.2)
