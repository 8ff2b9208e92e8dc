"""Websockets of the study flow: the control tab's live channel and the between-attempts page.

Both leave presence heartbeats (see `dashboard.presence`). The control channel also pushes the
assignment's state and the acknowledged event count of the running attempt once a second, read
from the database so it is right whichever process ingests the recorder's events.
"""

from __future__ import annotations

import asyncio
import json

from fastapi import APIRouter, WebSocket
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnect

from annotators import service as accounts
from dashboard import flow, presence
from dashboard.deps import SESSION_COOKIE
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
    with Session(engine) as db:
        presence.touch(db, assignment_id=assignment_id, tab="control")
        assignment = flow.get_assignment(db, assignment_id=assignment_id, annotator=None)
        attempt = flow.current_attempt(db, assignment=assignment)
        acked = None
        if attempt is not None:
            recording = db.get(Recording, attempt.recording_id)
            acked = recording.acked_seq + 1
        return {
            "state": assignment.state,
            "attempt_id": attempt.id if attempt else None,
            "phase": attempt.phase if attempt else None,
            "events": acked,
        }


def _touch_environment(engine, assignment_id: int) -> str:
    with Session(engine) as db:
        presence.touch(db, assignment_id=assignment_id, tab="environment")
        return flow.get_assignment(db, assignment_id=assignment_id, annotator=None).state


async def _serve(websocket: WebSocket, assignment_id: int, snapshot) -> None:
    engine = websocket.app.state.engine
    await websocket.accept()
    allowed = await run_in_threadpool(_authorise, engine, websocket.cookies.get(SESSION_COOKIE), assignment_id)
    if allowed is None:
        await websocket.close(code=1008, reason="not logged in, or not your assignment")
        return
    receiver = asyncio.create_task(_drain(websocket))
    try:
        while not receiver.done():
            try:
                payload = await run_in_threadpool(snapshot, engine, assignment_id)
            except Exception:  # database briefly unreachable: tell the tab, keep the channel
                payload = {"error": "The server cannot reach its database right now; your work is kept. Retrying…"}
            await websocket.send_text(json.dumps(payload))
            await asyncio.wait([receiver], timeout=PUSH_SECONDS)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
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
    await _serve(websocket, assignment_id, _control_snapshot)


@router.websocket("/ws/between/{assignment_id}")
async def between_channel(websocket: WebSocket, assignment_id: int) -> None:
    await _serve(websocket, assignment_id, lambda engine, aid: {"state": _touch_environment(engine, aid)})
