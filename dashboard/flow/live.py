"""The control tab's live channel (the website tab's channel is `dashboard.flow.website`).

Both keep a presence heartbeat while open (`dashboard.flow.presence.PresenceBeat`). The control channel
also pushes the assignment's state and the acknowledged event count of the running attempt: read
from the database once a second (so it is right whichever process ingests the recorder's events)
by one `LiveFeed` per process for all its open channels, and sent when it changed.
"""

from __future__ import annotations

import asyncio
import json
import logging

from fastapi import APIRouter, WebSocket
from sqlalchemy import and_, select
from sqlmodel import Session, col
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnect

from humantrace.annotators import service as accounts
from humantrace.annotators.models import utcnow
from humantrace.core.requestlog import DATABASE_ERRORS
from humantrace.dashboard.flow import origins
from humantrace.dashboard.flow import service as flow
from humantrace.dashboard.flow.presence import WEBSITE_GONE_SECONDS
from humantrace.dashboard.studies.models import Assignment, Attempt, AttemptStatus, TabPresence
from humantrace.dashboard.web.deps import SESSION_COOKIE
from humantrace.recorder.models import Recording

router = APIRouter()
log = logging.getLogger("humantrace.live")
PUSH_SECONDS = 1.0


def _authorise(engine, token: str | None, assignment_id: int) -> int | None:
    with Session(engine) as db:
        person = accounts.resolve_login_session(db, token=token)
        if person is None:
            return None
        try:
            flow.get_assignment(db, assignment_id=assignment_id, annotator=person)
        except flow.FlowError:  # not theirs, or they were deactivated in its study
            return None
        return person.id


def _snapshots(engine, assignment_ids: list[int]) -> dict[int, dict]:
    """Each assignment's state and its live attempt's acknowledged event count: one query for all."""
    query = (
        select(
            col(Assignment.id),
            col(Assignment.state),
            col(Attempt.id),
            col(Attempt.phase),
            col(Recording.acked_seq),
            col(TabPresence.last_seen_at),
        )
        .select_from(Assignment)
        .outerjoin(
            Attempt,
            and_(
                col(Attempt.assignment_id) == col(Assignment.id), col(Attempt.status) == AttemptStatus.active
            ),
        )
        .outerjoin(Recording, col(Recording.id) == col(Attempt.recording_id))
        .outerjoin(
            TabPresence,
            and_(col(TabPresence.assignment_id) == col(Assignment.id), col(TabPresence.tab) == "environment"),
        )
        .where(col(Assignment.id).in_(assignment_ids))
    )
    with Session(engine) as db:
        rows = db.execute(query).all()
    now = utcnow()
    found: dict[int, dict] = {}
    for assignment_id, state, attempt_id, phase, acked, website_seen in rows:
        # website_gone_at: when the website tab was last heard of, once it has been silent for
        # WEBSITE_GONE_SECONDS (None while it is there or never connected). It stays the same
        # while the tab is away, so it is pushed once, not every second.
        gone_at = None
        if (
            website_seen is not None
            and (now - flow._aware(website_seen)).total_seconds() >= WEBSITE_GONE_SECONDS
        ):
            gone_at = int(flow._aware(website_seen).timestamp())
        snapshot = found.setdefault(
            assignment_id,
            {"state": state, "attempt_id": None, "phase": None, "events": None, "website_gone_at": gone_at},
        )
        if attempt_id is not None and phase == flow.LIVE_PHASE.get(state):
            snapshot.update(attempt_id=attempt_id, phase=phase, events=None if acked is None else acked + 1)
    return found


class LiveFeed:
    """This process's reader for every open live channel: one query a second, whatever their number.

    A channel `subscribe`s with its assignment id and gets a queue that receives the assignment's
    snapshot whenever it differs from the last one sent to that channel.
    """

    def __init__(self, engine) -> None:
        self.engine = engine
        self._queues: dict[int, set[asyncio.Queue]] = {}
        self._task: asyncio.Task | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def subscribe(self, assignment_id: int) -> asyncio.Queue:
        queue: asyncio.Queue = asyncio.Queue()
        self._queues.setdefault(assignment_id, set()).add(queue)
        loop = asyncio.get_running_loop()
        if self._task is None or self._task.done() or self._loop is not loop:
            self._loop = loop
            self._task = loop.create_task(self._run())
        return queue

    def unsubscribe(self, assignment_id: int, queue: asyncio.Queue) -> None:
        queues = self._queues.get(assignment_id)
        if queues is not None:
            queues.discard(queue)
            if not queues:
                del self._queues[assignment_id]

    async def _run(self) -> None:
        while True:
            ids = list(self._queues)
            if ids:
                try:
                    found = await run_in_threadpool(_snapshots, self.engine, ids)
                except Exception:  # database briefly unreachable: tell the tabs, keep the channels
                    found = {
                        i: {
                            "error": "The server cannot reach its database right now; your work is kept. Retrying…"
                        }
                        for i in ids
                    }
                for assignment_id in ids:
                    for queue in list(self._queues.get(assignment_id, ())):
                        queue.put_nowait(found.get(assignment_id, {"state": None}))
            await asyncio.sleep(PUSH_SECONDS)


async def _serve(
    websocket: WebSocket, assignment_id: int, tab: str, fields: tuple[str, ...] | None = None
) -> None:
    """Authorise, keep `tab`'s heartbeat while open, and push the snapshot whenever it changes."""
    state = websocket.app.state
    if await origins.refuse_foreign_origin(websocket, "dashboard"):  # before any database read
        return
    await websocket.accept()
    try:
        allowed = await run_in_threadpool(
            _authorise, state.engine, websocket.cookies.get(SESSION_COOKIE), assignment_id
        )
    except DATABASE_ERRORS:  # the tab reconnects a second later, as after a restart
        log.warning("control channel: database unreachable")
        await websocket.close(code=origins.TRY_AGAIN_CODE, reason=origins.TRY_AGAIN_REASON)
        return
    if allowed is None:
        await websocket.close(code=1008, reason="not logged in, or not your assignment")
        return
    receiver = asyncio.create_task(_drain(websocket))
    await state.presence_beat.join(assignment_id, tab)
    queue = state.live_feed.subscribe(assignment_id)
    try:  # the first snapshot at once, not at the feed's next tick
        queue.put_nowait(
            (await run_in_threadpool(_snapshots, state.engine, [assignment_id])).get(
                assignment_id, {"state": None}
            )
        )
    except Exception:
        pass  # the feed reports the database's absence on its next tick
    last_sent = None
    try:
        while not receiver.done():
            getter = asyncio.ensure_future(queue.get())
            await asyncio.wait([receiver, getter], return_when=asyncio.FIRST_COMPLETED)
            if not getter.done():
                getter.cancel()
                break
            payload = getter.result()
            if fields is not None and "error" not in payload:
                payload = {key: payload.get(key) for key in fields}
            if payload != last_sent:  # read every second, sent only when it changed
                await websocket.send_text(json.dumps(payload))
                last_sent = payload
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        state.live_feed.unsubscribe(assignment_id, queue)
        state.presence_beat.leave(assignment_id, tab)
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
    await _serve(websocket, assignment_id, "control")
