"""Websockets of the study flow: the control tab's live channel and the between-attempts page.

Both keep a presence heartbeat while open (`dashboard.presence.PresenceBeat`). The control channel
also pushes the assignment's state and the acknowledged event count of the running attempt: read
from the database once a second (so it is right whichever process ingests the recorder's events)
and sent when it changed.
"""

from __future__ import annotations

import asyncio
import json

from fastapi import APIRouter, WebSocket
from sqlalchemy import and_, select
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnect

from annotators import service as accounts
from dashboard import flow
from dashboard.deps import SESSION_COOKIE
from dashboard.models import Assignment, Attempt, AttemptStatus
from recorder.models import Recording

router = APIRouter()
PUSH_SECONDS = 1.0


def _authorise(engine, token: str | None, assignment_id: int) -> int | None:
    with Session(engine) as db:
        person = accounts.resolve_login_session(db, token=token)
        if person is None:
            return None
        try:
            flow.get_assignment(db, assignment_id=assignment_id, annotator=person)
        except flow.NotFound:
            return None
        return person.id


def _control_snapshot(engine, assignment_id: int) -> dict:
    """The assignment's state and its live attempt's acknowledged event count: one query."""
    live_phase = {"cold_active": "cold", "warm_active": "warm"}
    query = (
        select(Assignment.state, Attempt.id, Attempt.phase, Recording.acked_seq)
        .select_from(Assignment)
        .outerjoin(Attempt, and_(Attempt.assignment_id == Assignment.id, Attempt.status == AttemptStatus.active.value))
        .outerjoin(Recording, Recording.id == Attempt.recording_id)
        .where(Assignment.id == assignment_id)
    )
    with Session(engine) as db:
        rows = db.execute(query).all()
    state = rows[0][0] if rows else None
    attempt = next((row for row in rows if row[1] is not None and row[2] == live_phase.get(state)), None)
    return {
        "state": state,
        "attempt_id": attempt[1] if attempt else None,
        "phase": attempt[2] if attempt else None,
        "events": attempt[3] + 1 if attempt and attempt[3] is not None else None,
    }


def _state_only(engine, assignment_id: int) -> dict:
    with Session(engine) as db:
        return {"state": db.execute(select(Assignment.state).where(Assignment.id == assignment_id)).scalar_one_or_none()}


async def _serve(websocket: WebSocket, assignment_id: int, snapshot, tab: str) -> None:
    """Authorise, keep `tab`'s heartbeat while open, and push `snapshot` whenever it changes."""
    engine = websocket.app.state.engine
    beat = websocket.app.state.presence_beat
    await websocket.accept()
    allowed = await run_in_threadpool(_authorise, engine, websocket.cookies.get(SESSION_COOKIE), assignment_id)
    if allowed is None:
        await websocket.close(code=1008, reason="not logged in, or not your assignment")
        return
    receiver = asyncio.create_task(_drain(websocket))
    await beat.join(assignment_id, tab)
    last_sent = None
    try:
        while not receiver.done():
            try:
                payload = await run_in_threadpool(snapshot, engine, assignment_id)
            except Exception:  # database briefly unreachable: tell the tab, keep the channel
                payload = {"error": "The server cannot reach its database right now; your work is kept. Retrying…"}
            if payload != last_sent:  # read every second, sent only when it changed
                await websocket.send_text(json.dumps(payload))
                last_sent = payload
            await asyncio.wait([receiver], timeout=PUSH_SECONDS)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        beat.leave(assignment_id, tab)
        receiver.cancel()


async def _drain(websocket: WebSocket) -> None:
    """Read (and ignore) client pings until the tab goes away."""
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
    except (WebSocketDisconnect, RuntimeError):
        return


@router.websocket("/ws/control/{assignment_id}")
async def control_channel(websocket: WebSocket, assignment_id: int) -> None:
    await _serve(websocket, assignment_id, _control_snapshot, "control")


@router.websocket("/ws/between/{assignment_id}")
async def between_channel(websocket: WebSocket, assignment_id: int) -> None:
    await _serve(websocket, assignment_id, _state_only, "environment")
