"""The website tab: entered by a single-use ticket on the environments' own host name.

Pressing Start (or "Reopen website") opens `ENV_ORIGIN/enter/<ticket>` with `noopener` inside the
click, so no popup blocker stops it and the website tab holds no reference to the dashboard. The
environments' host name differs from the dashboard's (`Settings.env_host`), so none of the
dashboard's cookies (login session, CSRF) ever reaches a website page: cookies ignore ports, not
host names.

The tab first shows a neutral cover and keeps a websocket (`/website/ws`) on its own origin. The
server pushes `go` when the attempt's reading countdown is over (or "Start now" was pressed, or the
warm attempt started), `ended` when the attempt the tab shows has ended; the tab then loads
`/website/go` (the env session and recorder cookies, then the task's start page) or
`/website/ended`. The same socket, opened by `tab.js` on every website page, is the tab's presence.

A ticket is `<assignment id>.<n>.<mac>` where n is the assignment's `website_entries`: using it
moves n on with a conditional UPDATE, so each ticket works once, and the next one can be computed
when a page is rendered without writing anything.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

from fastapi import APIRouter, Request, WebSocket
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse
from itsdangerous import BadSignature, URLSafeSerializer
from sqlalchemy import CursorResult, update
from sqlmodel import Session, col, select
from starlette.concurrency import run_in_threadpool
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocketDisconnect

from humantrace.core.requestlog import DATABASE_ERRORS
from humantrace.core.settings import Settings, other_loopback_host
from humantrace.dashboard.flow import origins
from humantrace.dashboard.flow import service as flow
from humantrace.dashboard.studies.models import (
    ACTIVE_STATES,
    Assignment,
    AssignmentState,
    Attempt,
    AttemptStatus,
)
from humantrace.environments.deps import COOKIE_NAME as ENV_COOKIE
from humantrace.recorder import service as recorder
from humantrace.recorder.inject import _Injector

router = APIRouter(include_in_schema=False)
log = logging.getLogger("humantrace.website")
WEB_COOKIE = "htweb"  # the website tab's own cookie (env host only): which assignment it belongs to
REC_COOKIE = "htrec"
PUSH_SECONDS = 1.0
TAB_SCRIPT = Path(__file__).resolve().parent.parent / "static" / "tab.js"
# Paths the environments' host serves; every other path there is a 404 (no dashboard page).
ENV_HOST_PATHS = ("/enter/", "/website/", "/env/", "/api/env/", "/env-static/", "/recorder/")
ENTERABLE = {AssignmentState.not_started, *ACTIVE_STATES}


# --------------------------------------------------------------------------- tickets and origins


def _mac(secret_key: str, assignment_id: int, entries: int) -> str:
    return hmac.new(
        secret_key.encode(), f"website:{assignment_id}:{entries}".encode(), hashlib.sha256
    ).hexdigest()[:32]


def ticket_for(assignment: Assignment, *, secret_key: str) -> str:
    """The next single-use ticket into the website tab of `assignment` (nothing is written)."""
    assignment_id = int(assignment.id or 0)
    return f"{assignment_id}.{assignment.website_entries}.{_mac(secret_key, assignment_id, assignment.website_entries)}"


def use_ticket(db: Session, *, ticket: str, secret_key: str) -> int | None:
    """The assignment id when `ticket` is valid and unused (it is used up now), else None."""
    try:
        raw_id, raw_n, mac = ticket.split(".")
        assignment_id, entries = int(raw_id), int(raw_n)
    except ValueError:
        return None
    if not (0 < assignment_id <= flow.MAX_ID and 0 <= entries < 2**31) or not hmac.compare_digest(
        mac, _mac(secret_key, assignment_id, entries)
    ):
        return None
    used = cast(
        CursorResult[Any],
        db.execute(
            update(Assignment)
            .where(
                col(Assignment.id) == assignment_id,
                col(Assignment.website_entries) == entries,
                col(Assignment.state).in_(ENTERABLE),
            )
            .values(website_entries=entries + 1)
        ),
    )
    db.commit()
    return assignment_id if used.rowcount == 1 else None


def website_base(settings: Settings, request: Request) -> str:
    """The website tab's origin: ENV_PUBLIC_URL, else this request's with 127.0.0.1 and localhost swapped."""
    if settings.env_public_url:
        return settings.env_public_url
    return other_loopback_host(str(request.base_url).rstrip("/"))


def website_url(settings: Settings, request: Request, assignment: Assignment) -> str:
    return f"{website_base(settings, request)}/enter/{ticket_for(assignment, secret_key=settings.secret_key)}"


def _serializer(settings: Settings) -> URLSafeSerializer:
    return URLSafeSerializer(settings.secret_key, salt="website-tab")


def _tab_assignment(settings: Settings, cookie: str | None) -> int | None:
    if not cookie:
        return None
    try:
        return int(_serializer(settings).loads(cookie)["a"])
    except (BadSignature, KeyError, TypeError, ValueError):
        return None


def _cookie(response, settings: Settings, name: str, value: str) -> None:
    response.set_cookie(name, value, httponly=True, samesite="lax", secure=settings.cookie_secure, path="/")


# --------------------------------------------------------------------------- pages


@router.get("/enter/{ticket}")
def enter(ticket: str, request: Request):
    """Use a ticket: the tab now belongs to its assignment; show the cover."""
    settings = request.app.state.settings
    with Session(request.app.state.engine) as db:
        assignment_id = use_ticket(db, ticket=ticket, secret_key=settings.secret_key)
    if assignment_id is None:
        return _neutral(
            "This link has been used", "Open the website from the control tab again.", status_code=404
        )
    response = RedirectResponse("/website/cover", status_code=303)
    _cookie(response, settings, WEB_COOKIE, _serializer(settings).dumps({"a": assignment_id}))
    return response


@router.get("/website/cover")
def cover(request: Request):
    return _neutral(
        "Read the task",
        "Read the task in the other tab. The website appears here when you start.",
        channel=True,
    )


@router.get("/website/ended")
def ended(request: Request):
    return _neutral(
        "Attempt finished", "This attempt has ended. Switch to the control tab to continue.", channel=True
    )


@router.get("/website/go")
def go(request: Request):
    """The running attempt's website: its env session and recorder cookies, then the start page."""
    settings = request.app.state.settings
    assignment_id = _tab_assignment(settings, request.cookies.get(WEB_COOKIE))
    if assignment_id is None:
        return _neutral("No task here", "Open the website from the control tab.", status_code=401)
    with Session(request.app.state.engine) as db:
        assignment = db.get(Assignment, assignment_id)
        attempt = flow.current_attempt(db, assignment=assignment) if assignment else None
        if assignment is None or attempt is None or attempt.recording_started_at is None:
            return RedirectResponse("/website/cover", status_code=303)
        from humantrace.environments import catalog

        start = f"/env/{assignment.env_id}{catalog.get_task(assignment.task_id).start_path}"
        session_id, recording_id = attempt.env_session_id, attempt.recording_id
    response = RedirectResponse(start, status_code=303)
    _cookie(response, settings, ENV_COOKIE, session_id)
    _cookie(
        response,
        settings,
        REC_COOKIE,
        recorder.issue_token(secret_key=settings.secret_key, recording_id=recording_id),
    )
    return response


@router.get("/website/tab.js")
def tab_script():
    return FileResponse(TAB_SCRIPT, media_type="text/javascript", headers={"Cache-Control": "no-cache"})


def _neutral(title: str, message: str, *, status_code: int = 200, channel: bool = False) -> HTMLResponse:
    """A plain page with nothing about the task, the site or the study (same for every condition)."""
    script = '<script src="/website/tab.js" defer></script>' if channel else ""
    html = (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<style>body{font:16px/1.5 system-ui,sans-serif;background:#f5f6f8;color:#1d2330;display:grid;"
        "place-items:center;min-height:100vh;margin:0}main{background:#fff;border:1px solid #dde1e8;"
        "border-radius:12px;padding:28px 32px;max-width:30rem}h1{font-size:1.3rem;margin:0 0 8px}</style>"
        f"{script}</head><body><main><h1>{title}</h1><p>{message}</p></main></body></html>"
    )
    response = HTMLResponse(html, status_code=status_code, headers={"Cache-Control": "no-store"})
    if channel:  # no website between attempts: the old session's cookies go
        response.delete_cookie(ENV_COOKIE, path="/")
        response.delete_cookie(REC_COOKIE, path="/")
    return response


# --------------------------------------------------------------------------- the tab's channel


def _shown_attempt(engine, settings: Settings, rec_token: str | None) -> int | None:
    if not rec_token:
        return None
    try:
        recording_id = recorder.read_token(secret_key=settings.secret_key, token=rec_token)
    except recorder.RecorderError:
        return None
    with Session(engine) as db:
        return db.exec(select(Attempt.id).where(Attempt.recording_id == recording_id)).first()


def _next_step(engine, assignment_id: int, shown: int | None) -> str | None:
    """ "go", "ended" or None for a tab of `assignment_id` that shows attempt `shown` (None: a cover)."""
    with Session(engine) as db:
        assignment = db.get(Assignment, assignment_id)
        if assignment is None:
            return "ended"
        live = db.exec(
            select(Attempt.id, Attempt.recording_started_at).where(
                Attempt.assignment_id == assignment_id, Attempt.status == AttemptStatus.active
            )
        ).first()
    if live is not None and live[1] is not None and live[0] != shown:
        return "go"
    if shown is not None and (live is None or live[0] != shown):
        return "ended"
    return None


@router.websocket("/website/ws")
async def channel(websocket: WebSocket) -> None:
    state = websocket.app.state
    if await origins.refuse_foreign_origin(websocket, "website"):  # before any database read
        return
    await websocket.accept()
    assignment_id = _tab_assignment(state.settings, websocket.cookies.get(WEB_COOKIE))
    if assignment_id is None:
        await websocket.close(code=1008, reason="not a website tab")
        return
    try:
        shown = await run_in_threadpool(
            _shown_attempt, state.engine, state.settings, websocket.cookies.get(REC_COOKIE)
        )
    except DATABASE_ERRORS:  # as the control channel: no traceback, the tab reconnects
        log.warning("website channel: database unreachable")
        await websocket.close(code=origins.TRY_AGAIN_CODE, reason=origins.TRY_AGAIN_REASON)
        return
    receiver = asyncio.create_task(_drain(websocket))
    await state.presence_beat.join(assignment_id, "environment")
    last = None
    try:
        while not receiver.done():
            try:
                step = await run_in_threadpool(_next_step, state.engine, assignment_id, shown)
            except Exception:  # database briefly away: keep the tab, try again
                step = None
            if step and step != last:
                await websocket.send_text(json.dumps({"do": step, "url": f"/website/{step}"}))
                last = step
            await asyncio.wait([receiver], timeout=PUSH_SECONDS)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        state.presence_beat.leave(assignment_id, "environment")
        receiver.cancel()


async def _drain(websocket: WebSocket) -> None:
    try:
        while True:
            if (await websocket.receive())["type"] == "websocket.disconnect":
                return
    except (WebSocketDisconnect, RuntimeError):
        return


# --------------------------------------------------------------------------- middleware


class WebsiteTabMiddleware:
    """Keeps the two host names apart and gives every website page of a tab its channel script.

    On the environments' host only website paths are served (a dashboard path there is a 404, and
    no dashboard cookie exists there); on the dashboard's host the ticket and tab paths are a 404,
    so the website tab's cookie can never be set where the dashboard lives. HTML pages under
    `/env/` requested with the website tab's cookie get `tab.js`.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        settings: Settings = scope["app"].state.settings
        host = _host_of(scope)
        path = scope["path"]
        split = settings.env_host != settings.dashboard_host
        if split and host == settings.env_host and not path.startswith(ENV_HOST_PATHS):
            await _not_found(scope, receive, send)
            return
        if split and host != settings.env_host and path.startswith(("/enter/", "/website/")):
            await _not_found(scope, receive, send)
            return
        if (
            scope["type"] == "http"
            and path.startswith("/env/")
            and scope.get("method") == "GET"
            and _has_tab_cookie(scope)
        ):
            await self.app(scope, receive, _Injector(send, b'<script src="/website/tab.js" defer></script>'))
            return
        await self.app(scope, receive, send)


def _host_of(scope: Scope) -> str:
    for name, value in scope.get("headers", []):
        if name == b"host":
            return urlsplit("//" + value.decode("latin-1")).hostname or ""
    return ""


def _has_tab_cookie(scope: Scope) -> bool:
    for name, value in scope.get("headers", []):
        if name == b"cookie":
            return WEB_COOKIE in cookie_parser(value.decode("latin-1"))
    return False


async def _not_found(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": 1008})
        return
    await HTMLResponse("<!doctype html><title>Not found</title><p>Not found.</p>", status_code=404)(
        scope, receive, send
    )
