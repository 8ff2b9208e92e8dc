"""The lead's live monitor: who works on what right now, and for how long, without reloading.

The page holds a server-sent-events stream (`EventSource`). The stream reads the study's active
assignments from the database once a second (so it is right whichever process serves the
annotators) and sends a snapshot when it changed; the page counts the seconds itself between
snapshots. SSE rather than a websocket: the monitor only listens, and EventSource reconnects by
itself after a server restart.
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import overload

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from sqlalchemy import and_
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select
from starlette.concurrency import run_in_threadpool

from humantrace.annotators.models import Annotator
from humantrace.dashboard.studies.models import (
    ACTIVE_STATES,
    Assignment,
    AssignmentState,
    Attempt,
    AttemptStatus,
    Study,
    TabPresence,
)
from humantrace.dashboard.studies.service import stored_id
from humantrace.dashboard.web.deps import DbDep, RequireLead
from humantrace.dashboard.web.pages import render

router = APIRouter(prefix="/lead/studies/{study_id}/monitor")
TICK_SECONDS = 1.0
KEEPALIVE_SECONDS = 15.0
# A stream ends after this long and the browser's EventSource reconnects by itself: this bounds a
# stream whose client vanished without the server noticing.
STREAM_SECONDS = 600.0
WORKING = list(ACTIVE_STATES) + [AssignmentState.rating]
# A tab that sent no heartbeat for this long shows as "window closed?" (rollback follows after the grace period).
PRESENCE_FRESH_SECONDS = 6


@overload
def _ms(moment: datetime) -> int: ...
@overload
def _ms(moment: datetime | None) -> int | None: ...
def _ms(moment: datetime | None) -> int | None:
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def _title(task_id: str) -> str:
    from humantrace.dashboard.flow import envs

    try:
        return envs.task_card(task_id).title
    except Exception:  # noqa: BLE001  (a task removed from the catalogue still shows by id)
        return task_id


def snapshot(engine, study_id: int) -> dict:
    """Who is working in the study now: one row per active assignment, with since-when and tab presence."""
    now = datetime.now(UTC)
    with Session(engine) as db:
        rows = db.exec(
            select(Assignment, Annotator.code, Attempt)
            .join(Annotator, col(Annotator.id) == col(Assignment.annotator_id))
            .outerjoin(
                Attempt,
                and_(
                    col(Attempt.assignment_id) == col(Assignment.id),
                    col(Attempt.status) == AttemptStatus.active,
                ),
            )
            .where(col(Assignment.study_id) == study_id, col(Assignment.state).in_(WORKING))
            .order_by(Annotator.code)
        ).all()
        ids = [a.id for a, _c, _t in rows]
        seen: dict[tuple[int, str], int] = {}
        if ids:
            for assignment_id, tab, last in db.exec(
                select(TabPresence.assignment_id, TabPresence.tab, TabPresence.last_seen_at).where(
                    col(TabPresence.assignment_id).in_(ids)
                )
            ):
                seen[(assignment_id, tab)] = _ms(last)
    fresh_after = _ms(now - timedelta(seconds=PRESENCE_FRESH_SECONDS))
    working = []
    for assignment, code, attempt in rows:
        assert assignment.id is not None  # read from the database
        control = seen.get((assignment.id, "control"))
        working.append(
            {
                "code": code,
                "assignment_id": assignment.id,
                "task": _title(assignment.task_id),
                "state": assignment.state,
                "phase": attempt.phase if attempt else None,
                "since_ms": _ms(attempt.recording_started_at or attempt.created_at)
                if attempt
                else _ms(assignment.started_at),
                "started_ms": _ms(assignment.started_at),
                "control_tab": control is not None and control >= fresh_after,
            }
        )
    return {"working": working}


@router.get("")
def monitor_page(study_id: int, request: Request, person: RequireLead, db: DbDep):
    study = db.get(Study, study_id) if 0 < study_id < 2**31 else None
    if study is None:
        return render(request, "error.html", status_code=404, title="Not found", message="No such study.")
    return render(
        request,
        "lead_monitor.html",
        study=study,
        initial=snapshot(request.app.state.engine, stored_id(study)),
    )


@router.get("/stream")
async def monitor_stream(study_id: int, request: Request, person: RequireLead):
    engine = request.app.state.engine

    async def events():
        last, quiet, lived = None, 0.0, 0.0
        while not await request.is_disconnected():
            try:
                current = await run_in_threadpool(snapshot, engine, study_id)
            except SQLAlchemyError:  # database briefly unreachable: say so, keep the stream
                current = {"error": "The server cannot reach its database right now. Retrying…"}
            if current != last:
                current_with_clock = {**current, "now_ms": _ms(datetime.now(UTC))}
                yield f"data: {json.dumps(current_with_clock)}\n\n"
                last, quiet = current, 0.0
            elif quiet >= KEEPALIVE_SECONDS:  # a comment line keeps proxies from closing an idle stream
                yield ": keepalive\n\n"
                quiet = 0.0
            if lived >= STREAM_SECONDS:
                return
            await asyncio.sleep(TICK_SECONDS)
            quiet += TICK_SECONDS
            lived += TICK_SECONDS

    return StreamingResponse(
        events(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
