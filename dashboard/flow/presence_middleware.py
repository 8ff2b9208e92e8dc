"""Environment-tab presence from the recorder's websocket, without touching the recorder.

While a recorder websocket of an attempt is open, this middleware keeps the assignment's
"environment" presence beating (`dashboard.flow.presence.PresenceBeat`), so the presence monitor knows the environment
tab is alive even while the person only reads. A navigation closes and reopens the socket within
a second, well inside the grace period.
"""

from __future__ import annotations

from urllib.parse import parse_qs

from sqlmodel import Session, select
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Scope, Send

from humantrace.dashboard.studies.models import Attempt
from humantrace.recorder import service as recorder

RECORDER_SOCKET = "/recorder/ws"


def _assignment_for(engine, secret_key: str, token: str) -> int | None:
    try:
        recording_id = recorder.read_token(secret_key=secret_key, token=token)
    except recorder.RecorderError:
        return None
    with Session(engine) as db:
        attempt = db.exec(select(Attempt).where(Attempt.recording_id == recording_id)).first()
        if attempt is None or attempt.status != "active":
            return None
        return attempt.assignment_id


class EnvironmentPresenceMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket" or scope["path"] != RECORDER_SOCKET:
            await self.app(scope, receive, send)
            return
        state = scope["app"].state
        token = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [""])[0]
        assignment_id = (
            await run_in_threadpool(_assignment_for, state.engine, state.settings.secret_key, token)
            if token
            else None
        )
        if assignment_id is None:
            await self.app(scope, receive, send)
            return
        beat = state.presence_beat
        joined = False

        async def watched_send(message) -> None:
            nonlocal joined
            if message["type"] == "websocket.accept" and not joined:
                joined = True
                await beat.join(assignment_id, "environment")
            elif message["type"] == "websocket.close" and joined:
                joined = False
                beat.leave(assignment_id, "environment")
            await send(message)

        try:
            await self.app(scope, receive, watched_send)
        finally:
            if joined:
                beat.leave(assignment_id, "environment")
