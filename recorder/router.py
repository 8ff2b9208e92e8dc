"""HTTP and websocket routes of the recorder: the socket, the HTTP fallback and the script itself.

Thin layer over `recorder.protocol`: it authenticates the recorder token, feeds frames in and
sends replies out. The engine comes from `app.state.engine`, the secret from
`app.state.settings.secret_key`. Nothing here logs or stores the client's address.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from pathlib import Path

from fastapi import APIRouter, Request, WebSocket
from fastapi.responses import JSONResponse, Response
from sqlalchemy import Engine
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnect

from humantrace.recorder.models import Recording
from humantrace.recorder.protocol import (
    POLICY_VIOLATION,
    FrameOutcome,
    apply_message,
    error,
    parse_frame,
    process_frame,
)
from humantrace.recorder.schemas import MAX_FRAME_BYTES, AckMessage, ErrorMessage
from humantrace.recorder.service import (
    RecorderError,
    RecordingEnded,
    TokenInvalid,
    TooManyStreams,
    resolve_stream,
    resolve_token,
    saved_id,
)
from humantrace.recorder.writer import get_writer

router = APIRouter()

SCRIPT_PATH = Path(__file__).parent / "static" / "recorder.js"
SCRIPT_CACHE_CONTROL = "public, max-age=300"
# The HTTP fallback carries its token in the request, never in cookies, so any origin may post.
CORS_HEADERS = {"Access-Control-Allow-Origin": "*"}
# The database cannot be reached (down, restarting, network): the recorder keeps the frame and resends it.
DATABASE_DOWN = (OperationalError, InterfaceError)
DATABASE_DOWN_MESSAGE = "the server cannot reach its database right now; resend this frame"


@lru_cache(maxsize=1)
def _script() -> tuple[bytes, str]:
    body = SCRIPT_PATH.read_bytes()
    return body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


_TAB_RE = re.compile(r"[0-9a-f]{8,64}")


def _resolve(engine: Engine, secret_key: str, token: str) -> Recording:
    """The token's active recording, loaded and detached (its id and settings stay readable)."""
    with Session(engine) as session:
        return resolve_token(session, secret_key=secret_key, token=token)


def _resolve_with_stream(
    engine: Engine, secret_key: str, token: str, tab: str | None
) -> tuple[Recording, tuple[int, int]]:
    """The token's active recording (detached) and the (stream, ack) of the tab with key `tab`
    (None: stream 0), the stream created when new."""
    with Session(engine, expire_on_commit=False) as session:
        recording = resolve_token(session, secret_key=secret_key, token=token)
        return recording, resolve_stream(session, recording_id=saved_id(recording), tab=tab)


@router.get("/recorder/recorder.js", include_in_schema=False)
def recorder_script(request: Request) -> Response:
    """The recorder, one self-contained file; revalidated by ETag after five minutes."""
    body, etag = _script()
    headers = {"Cache-Control": SCRIPT_CACHE_CONTROL, "ETag": etag, "X-Content-Type-Options": "nosniff"}
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="text/javascript; charset=utf-8", headers=headers)


@router.websocket("/recorder/ws")
async def recorder_socket(websocket: WebSocket) -> None:
    """Authenticate by `?token=`, find the tab's stream by `?tab=`, announce the stream and its ack,
    then answer every frame with ack or error."""
    state = websocket.app.state
    token = websocket.query_params.get("token", "")
    tab = websocket.query_params.get("tab") or None
    # Accept first: a refusal before the handshake would reach the browser as a bare HTTP 403,
    # without the close code and reason that tell the recorder to stop retrying.
    await websocket.accept()
    if tab is not None and not _TAB_RE.fullmatch(tab):
        await _refuse(websocket, "invalid", "tab must be 8 to 64 lowercase hex digits")
        return
    try:
        recording, (stream, acked) = await run_in_threadpool(
            _resolve_with_stream, state.engine, state.settings.secret_key, token, tab
        )
    except (TokenInvalid, RecordingEnded, TooManyStreams) as exc:
        await _refuse(websocket, exc.code, str(exc))
        return
    except DATABASE_DOWN:
        await _refuse(websocket, "internal", DATABASE_DOWN_MESSAGE, close_code=TRY_AGAIN_LATER)
        return
    writer = get_writer(state)
    try:
        await websocket.send_text(AckMessage(seq=acked, stream=stream).model_dump_json())
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            raw = message.get("text")
            if raw is None:
                raw = message.get("bytes") or b""
            outcome = await process_frame(writer=writer, recording=recording, raw=raw, stream=stream)
            if outcome.close and isinstance(outcome.reply, ErrorMessage):
                await _refuse(websocket, outcome.reply.code, outcome.reply.message)
                return
            await websocket.send_text(outcome.reply.model_dump_json(exclude_none=True))
    except WebSocketDisconnect:
        return


TRY_AGAIN_LATER = 1013
"""Websocket close code for a passing failure: the recorder reconnects with backoff."""


async def _refuse(
    websocket: WebSocket, code: str, message: str, *, close_code: int = POLICY_VIOLATION
) -> None:
    """Say why in an error frame, then close (policy violation unless told) with the same reason."""
    try:
        await websocket.send_text(error(code, message).reply.model_dump_json(exclude_none=True))
        await websocket.close(code=close_code, reason=message[:120])
    except (WebSocketDisconnect, RuntimeError):
        pass


@router.post("/recorder/events", include_in_schema=False)
async def recorder_events(request: Request) -> JSONResponse:
    """HTTP fallback (and page-unload beacon): one frame per request, same validation and replies.

    The token comes from `Authorization: Bearer <token>` or the frame's `token` field; the body
    may be sent as text/plain so that cross-origin pages and `navigator.sendBeacon` need no preflight.
    """
    state = request.app.state
    body = await _read_limited(request)
    if body is None:
        return _reply(error("frame_too_large", f"request body exceeds the limit of {MAX_FRAME_BYTES} bytes"))
    parsed = parse_frame(body)
    if isinstance(parsed, FrameOutcome):
        return _reply(parsed)
    token = _bearer(request) or parsed.token
    if not token:
        return _reply(
            error("token_invalid", "no recorder token: send Authorization: Bearer <token> or a token field")
        )
    try:
        recording, (stream, _) = await run_in_threadpool(
            _resolve_with_stream, state.engine, state.settings.secret_key, token, parsed.tab
        )
    except RecorderError as exc:
        return _reply(error(exc.code, str(exc)))
    except DATABASE_DOWN:
        return _reply(error("internal", DATABASE_DOWN_MESSAGE))
    return _reply(
        await apply_message(writer=get_writer(state), recording=recording, message=parsed, stream=stream)
    )


@router.options("/recorder/events", include_in_schema=False)
def recorder_events_preflight() -> Response:
    """CORS preflight for cross-origin fallback posts that carry an Authorization header."""
    return Response(
        status_code=204,
        headers={
            **CORS_HEADERS,
            "Access-Control-Allow-Methods": "POST",
            "Access-Control-Allow-Headers": "Authorization, Content-Type",
            "Access-Control-Max-Age": "86400",
        },
    )


def _reply(outcome: FrameOutcome) -> JSONResponse:
    return JSONResponse(
        outcome.reply.model_dump(exclude_none=True), status_code=outcome.http_status, headers=CORS_HEADERS
    )


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


async def _read_limited(request: Request) -> bytes | None:
    """The request body, or None as soon as it grows past the frame limit."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_FRAME_BYTES:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_FRAME_BYTES:
            return None
        chunks.append(chunk)
    return b"".join(chunks)
