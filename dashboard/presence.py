"""Atomic pairing: detect a closed control or environment tab and roll the assignment back.

Each tab's connection leaves a heartbeat in the database: the control tab through its websocket
(`TabPresence` "control"), the environment tab through the recorder's websocket during an attempt
(`Recording.last_seen_at`) and through the between-attempts page's websocket in between
(`TabPresence` "environment"). A tab is closed when its heartbeat is older than the study's grace
period. Reloads and navigations reconnect well within it.

The grace period counts only while the server is up: every process ticks `ClusterClock`; when the
tick finds the whole cluster was silent for a while (all processes down, or the database down),
every heartbeat of an active assignment is moved forward by that gap before anything is judged.
The same sweep ends attempts that pass the study's hard time limit as `timed_out`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from sqlalchemy import update
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from annotators.models import utcnow
from dashboard import flow
from dashboard.models import ACTIVE_STATES, Assignment, AttemptStatus, ClusterClock, Outcome, Study, TabPresence
from recorder.models import Recording

log = logging.getLogger("humantrace.presence")

HEARTBEAT_SECONDS = 2.0
SWEEP_SECONDS = 1.0
# A silence of the whole cluster longer than this is downtime, not a closed tab.
DOWNTIME_SECONDS = 4.0


@dataclass
class SweepResult:
    rolled_back: list[int] = field(default_factory=list)
    timed_out: list[int] = field(default_factory=list)
    downtime_seconds: float = 0.0


def _aware(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def touch(db: Session, *, assignment_id: int, tab: str) -> None:
    """Record that `tab` ("control" or "environment") of an assignment is connected now."""
    moved = db.execute(
        update(TabPresence).where(TabPresence.assignment_id == assignment_id, TabPresence.tab == tab).values(last_seen_at=utcnow())
    )
    if moved.rowcount == 0:
        db.add(TabPresence(assignment_id=assignment_id, tab=tab))
    db.commit()


def _tick_clock(db: Session, now: datetime) -> float:
    """Advance the cluster clock; the downtime since the previous tick (0 when there was none)."""
    clock = db.get(ClusterClock, 1)
    if clock is None:
        db.add(ClusterClock(id=1, last_tick_at=now))
        db.commit()
        return 0.0
    previous = _aware(clock.last_tick_at)
    won = db.execute(update(ClusterClock).where(ClusterClock.id == 1, ClusterClock.last_tick_at == clock.last_tick_at).values(last_tick_at=now))
    db.commit()
    gap = (now - previous).total_seconds()
    return gap if won.rowcount == 1 and gap > DOWNTIME_SECONDS else 0.0


def _forgive_downtime(db: Session, assignments: list[Assignment], gap: float) -> None:
    shift = timedelta(seconds=gap)
    ids = [a.id for a in assignments]
    for row in db.exec(select(TabPresence).where(TabPresence.assignment_id.in_(ids))):
        row.last_seen_at = _aware(row.last_seen_at) + shift
        db.add(row)
    for assignment in assignments:
        for attempt in flow.attempts_of(db, assignment_id=assignment.id):
            recording = db.get(Recording, attempt.recording_id)
            if recording is not None and getattr(recording, "last_seen_at", None) is not None:
                recording.last_seen_at = _aware(recording.last_seen_at) + shift
                db.add(recording)
    db.commit()


def environment_last_seen(db: Session, assignment: Assignment) -> datetime | None:
    """The latest sign of life of the environment tab (None: it has not connected yet)."""
    seen = []
    row = db.exec(select(TabPresence).where(TabPresence.assignment_id == assignment.id, TabPresence.tab == "environment")).first()
    if row is not None:
        seen.append(_aware(row.last_seen_at))
    for attempt in flow.attempts_of(db, assignment_id=assignment.id):
        recording = db.get(Recording, attempt.recording_id)
        if recording is not None and getattr(recording, "last_seen_at", None) is not None:
            seen.append(_aware(recording.last_seen_at))
    return max(seen) if seen else None


def control_last_seen(db: Session, assignment: Assignment) -> datetime | None:
    row = db.exec(select(TabPresence).where(TabPresence.assignment_id == assignment.id, TabPresence.tab == "control")).first()
    return _aware(row.last_seen_at) if row is not None else None


def sweep(engine: Engine, *, now: datetime | None = None) -> SweepResult:
    """One pass over active assignments: forgive downtime, roll back closed tabs, time out long attempts."""
    now = now or utcnow()
    result = SweepResult()
    with Session(engine) as db:
        result.downtime_seconds = _tick_clock(db, now)
        active = list(db.exec(select(Assignment).where(Assignment.state.in_([s.value for s in ACTIVE_STATES]))))
        if not active:
            return result
        if result.downtime_seconds:
            _forgive_downtime(db, active, result.downtime_seconds)
        for assignment in active:
            study = db.get(Study, assignment.study_id)
            grace = timedelta(seconds=study.rollback_grace_seconds)
            closed = None
            control = control_last_seen(db, assignment)
            environment = environment_last_seen(db, assignment)
            if control is not None and now - control > grace:
                closed = "control tab closed"
            elif environment is not None and now - environment > grace:
                closed = "environment tab closed"
            if closed:
                try:
                    flow.rollback(db, assignment_id=assignment.id, reason=closed)
                    result.rolled_back.append(assignment.id)
                    log.info("assignment %s rolled back: %s", assignment.id, closed)
                except flow.FlowError:
                    db.rollback()  # another process got there first, or it just moved on
                continue
            attempt = flow.current_attempt(db, assignment=assignment)
            if attempt is not None and attempt.status == AttemptStatus.active.value:
                started = _aware(attempt.recording_started_at or attempt.created_at)
                if now - started > timedelta(seconds=study.hard_time_limit_seconds):
                    try:
                        flow.end_attempt(db, attempt_id=attempt.id, annotator=None, outcome=Outcome.timed_out, actor="time limit")
                        result.timed_out.append(attempt.id)
                    except flow.FlowError:
                        db.rollback()
    return result
