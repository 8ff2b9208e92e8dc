"""Atomic pairing: detect a closed control or environment tab and roll the assignment back.

Each tab's connection leaves a heartbeat in the database: the control tab through its websocket
(`TabPresence` "control"), the environment tab through the recorder's websocket during an attempt
(`Recording.last_seen_at`) and through the between-attempts page's websocket in between
(`TabPresence` "environment"). A tab is closed when its heartbeat is older than the study's grace
period. Reloads and navigations reconnect well within it.

Heartbeats are written by one `PresenceBeat` per process: every open tab of that process is
touched in a single transaction every `HEARTBEAT_SECONDS` (so 100 open tabs cost one commit every
two seconds, not a hundred a second), and the sweep reads every active assignment's heartbeats in
three queries.

The grace period counts only while the server is up: every process ticks `ClusterClock`; when the
tick finds the whole cluster was silent for a while (all processes down, or the database down),
every heartbeat of an active assignment is moved forward by that gap before anything is judged.
The same sweep ends attempts that pass the study's hard time limit as `timed_out`, and keeps
the website tab's absences (`WebsiteAbsence`) for the attempts' `away_s`: one opens when the
website tab's heartbeat has been silent for `WEBSITE_GONE_SECONDS` (from that heartbeat; a page
load or a reload reconnects well within it) and closes at the heartbeat that brings it back. Both
ends are known to within a heartbeat (`HEARTBEAT_SECONDS`).
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import overload

from sqlalchemy import CursorResult, update
from sqlalchemy import select as sa_select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select
from starlette.concurrency import run_in_threadpool

from humantrace.annotators.models import utcnow
from humantrace.dashboard.flow import service as flow
from humantrace.dashboard.studies.models import (
    ACTIVE_STATES,
    Assignment,
    Attempt,
    AttemptStatus,
    ClusterClock,
    Outcome,
    Study,
    TabPresence,
    WebsiteAbsence,
)

log = logging.getLogger("humantrace.presence")

HEARTBEAT_SECONDS = 2.0
SWEEP_SECONDS = 1.0
# A silence of the whole cluster longer than this is downtime, not a closed tab.
DOWNTIME_SECONDS = 4.0
# A website tab silent this long (over two missed heartbeats) is gone, not loading its next page:
# the control tab says so, and the sweep opens a `WebsiteAbsence`.
WEBSITE_GONE_SECONDS = 5.0


@dataclass
class SweepResult:
    rolled_back: list[int] = field(default_factory=list)
    timed_out: list[int] = field(default_factory=list)
    downtime_seconds: float = 0.0


@overload
def _aware(moment: datetime) -> datetime: ...
@overload
def _aware(moment: datetime | None) -> datetime | None: ...
def _aware(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def touch(db: Session, *, assignment_id: int, tab: str) -> None:
    """Record that `tab` ("control" or "environment") of an assignment is connected now."""
    touch_many(db, [(assignment_id, tab)])


def touch_many(db: Session, keys: list[tuple[int, str]]) -> None:
    """Record that every (assignment id, tab) in `keys` is connected now: one transaction."""
    now = utcnow()
    by_tab: dict[str, set[int]] = {}
    for assignment_id, tab in keys:
        by_tab.setdefault(tab, set()).add(assignment_id)
    for attempt in (1, 2):
        try:
            for tab, ids in by_tab.items():
                moved = db.execute(
                    update(TabPresence)
                    .where(col(TabPresence.tab) == tab, col(TabPresence.assignment_id).in_(ids))
                    .values(last_seen_at=now)
                )
                assert isinstance(moved, CursorResult)  # an UPDATE's result
                if moved.rowcount < len(ids):
                    present = set(
                        db.exec(
                            select(TabPresence.assignment_id).where(
                                col(TabPresence.tab) == tab, col(TabPresence.assignment_id).in_(ids)
                            )
                        )
                    )
                    db.add_all(
                        TabPresence(assignment_id=i, tab=tab, last_seen_at=now) for i in sorted(ids - present)
                    )
            db.commit()
            return
        except IntegrityError:
            # Another process created the same row first; the second pass updates it.
            db.rollback()
            if attempt == 2:
                raise


class PresenceBeat:
    """This process's heartbeat writer for every open control and environment tab.

    A connection `join`s (its tab is touched at once) and `leave`s when it closes; while any is
    open, one transaction every `HEARTBEAT_SECONDS` touches them all.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._open: Counter[tuple[int, str]] = Counter()
        self._task: asyncio.Task | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _write(self, keys: list[tuple[int, str]]) -> None:
        with Session(self.engine) as db:
            touch_many(db, keys)

    async def join(self, assignment_id: int, tab: str) -> None:
        self._open[(assignment_id, tab)] += 1
        loop = asyncio.get_running_loop()
        if self._task is None or self._task.done() or self._loop is not loop:
            self._loop = loop
            self._task = loop.create_task(self._run())
        try:
            await run_in_threadpool(self._write, [(assignment_id, tab)])
        except Exception:  # database briefly away: the next beat writes it
            log.warning("presence heartbeat not written (database unreachable?)")

    def leave(self, assignment_id: int, tab: str) -> None:
        key = (assignment_id, tab)
        self._open[key] -= 1
        if self._open[key] <= 0:
            del self._open[key]

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            keys = list(self._open)
            if not keys:
                continue
            try:
                await run_in_threadpool(self._write, keys)
            except Exception:  # the monitor forgives cluster downtime
                log.warning("presence heartbeat not written (database unreachable?)")


def _tick_clock(db: Session, now: datetime) -> float:
    """Advance the cluster clock; the downtime since the previous tick (0 when there was none)."""
    clock = db.get(ClusterClock, 1)
    if clock is None:
        db.add(ClusterClock(id=1, last_tick_at=now))
        db.commit()
        return 0.0
    previous = _aware(clock.last_tick_at)
    won = db.execute(
        update(ClusterClock)
        .where(col(ClusterClock.id) == 1, col(ClusterClock.last_tick_at) == clock.last_tick_at)
        .values(last_tick_at=now)
    )
    db.commit()
    assert isinstance(won, CursorResult)  # an UPDATE's result
    gap = (now - previous).total_seconds()
    return gap if won.rowcount == 1 and gap > DOWNTIME_SECONDS else 0.0


def _forgive_downtime(db: Session, ids: list[int], gap: float) -> None:
    shift = timedelta(seconds=gap)
    for row in db.exec(select(TabPresence).where(col(TabPresence.assignment_id).in_(ids))):
        row.last_seen_at = _aware(row.last_seen_at) + shift
        db.add(row)
    db.commit()


def _track_absences(
    db: Session, seen: dict[tuple[int, str], datetime], ids: list[int], *, now: datetime
) -> None:
    """Open a `WebsiteAbsence` for each active assignment whose website tab has gone silent, and
    close the open one of each whose website tab is heard of again (at that heartbeat)."""
    open_rows = {
        row.assignment_id: row
        for row in db.exec(
            select(WebsiteAbsence).where(
                col(WebsiteAbsence.assignment_id).in_(ids), col(WebsiteAbsence.back_at).is_(None)
            )
        )
    }
    gone = timedelta(seconds=WEBSITE_GONE_SECONDS)
    changed = False
    for assignment_id in ids:
        heard = seen.get((assignment_id, "environment"))
        row = open_rows.get(assignment_id)
        if heard is None:
            continue
        if row is None and now - heard >= gone:
            db.add(WebsiteAbsence(assignment_id=assignment_id, gone_at=heard))
            changed = True
        elif row is not None and heard > _aware(row.gone_at) and now - heard < gone:
            row.back_at = heard
            db.add(row)
            changed = True
    if changed:
        db.commit()


def sweep(engine: Engine, *, now: datetime | None = None) -> SweepResult:
    """One pass over active assignments: forgive downtime, roll back closed tabs, time out long attempts."""
    now = now or utcnow()
    result = SweepResult()
    with Session(engine) as db:
        result.downtime_seconds = _tick_clock(db, now)
        active_states = list(ACTIVE_STATES)
        active = [
            (assignment_id, state, grace, limit)
            for assignment_id, state, grace, limit in db.exec(
                select(
                    Assignment.id,
                    Assignment.state,
                    Study.rollback_grace_seconds,
                    Study.hard_time_limit_seconds,
                )
                .join(Study, col(Study.id) == col(Assignment.study_id))
                .where(col(Assignment.state).in_(active_states))
            ).all()
            if assignment_id is not None  # always: a stored row (for the type checker)
        ]
        if not active:
            return result
        ids = [row[0] for row in active]
        if result.downtime_seconds:
            _forgive_downtime(db, ids, result.downtime_seconds)
        seen = {
            (assignment_id, tab): _aware(moment)
            for assignment_id, tab, moment in db.exec(
                select(TabPresence.assignment_id, TabPresence.tab, TabPresence.last_seen_at).where(
                    col(TabPresence.assignment_id).in_(ids)
                )
            )
        }
        _track_absences(db, seen, ids, now=now)
        running = {
            (assignment_id, phase): (attempt_id, _aware(started or created))
            for attempt_id, assignment_id, phase, started, created in db.execute(
                # SQLAlchemy's select (and so execute): SQLModel's is typed for at most four columns
                sa_select(
                    col(Attempt.id),
                    col(Attempt.assignment_id),
                    col(Attempt.phase),
                    col(Attempt.recording_started_at),
                    col(Attempt.created_at),
                ).where(col(Attempt.assignment_id).in_(ids), col(Attempt.status) == AttemptStatus.active)
            )
        }
        for assignment_id, state, grace_seconds, limit_seconds in active:
            grace = timedelta(seconds=grace_seconds)
            closed = None
            control = seen.get((assignment_id, "control"))
            environment = seen.get((assignment_id, "environment"))
            if control is not None and now - control > grace:
                closed = "control tab closed"
            elif environment is not None and now - environment > grace:
                closed = "environment tab closed"
            if closed:
                try:
                    flow.rollback(db, assignment_id=assignment_id, reason=closed)
                    result.rolled_back.append(assignment_id)
                    log.info("assignment %s rolled back: %s", assignment_id, closed)
                except flow.FlowError:
                    db.rollback()  # another process got there first, or it just moved on
                continue
            attempt = running.get((assignment_id, flow.LIVE_PHASE.get(state)))
            if attempt is not None and now - attempt[1] > timedelta(seconds=limit_seconds):
                try:
                    flow.end_attempt(
                        db,
                        attempt_id=attempt[0],
                        annotator=None,
                        outcome=Outcome.timed_out,
                        actor="time limit",
                    )
                    result.timed_out.append(attempt[0])
                except flow.FlowError:
                    db.rollback()
    return result
