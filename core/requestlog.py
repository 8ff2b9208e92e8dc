"""Request logging without client addresses, and the 503 a database outage is answered with.

One plain ASGI layer logs every HTTP request (method, path, status, duration) and answers database
failures raised in middleware (network interventions, recorder injection), which run outside the
app's exception handlers, with the same 503 the app's handlers give.
"""

from __future__ import annotations

import logging
import time

from fastapi import Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from sqlalchemy.exc import InterfaceError, OperationalError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("humantrace.http")

DATABASE_ERRORS = (OperationalError, InterfaceError)
DATABASE_UNREACHABLE = (
    "The server cannot reach its database right now. Nothing was lost: try again in a moment."
)


def wants_json(request: Request) -> bool:
    """Whether an error for this request is answered as JSON (API calls) rather than a page."""
    return request.url.path.startswith("/api/") or "application/json" in request.headers.get("accept", "")


# Marks the server's own 503 (its database is away), which pages send again by themselves, apart
# from any 5xx a website answers on purpose (a network intervention's error_then_success), which
# they must show as it is.
RETRY_HEADER = "X-Humantrace-Retry"
RETRY_AFTER_SECONDS = 2


def database_unreachable_response(as_json: bool, *, reload: bool = False) -> Response:
    """503 and Retry-After instead of a bare 500 while the database is down or restarting.

    Plain HTML: the usual page template would need the database to show who is logged in. A page
    (`reload`: the answer to a GET) reloads itself every few seconds until the database is back; a
    form's answer does not (reloading would not send the form again).
    """
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS), RETRY_HEADER: "database"}
    if as_json:
        return JSONResponse({"detail": DATABASE_UNREACHABLE}, status_code=503, headers=headers)
    refresh = f'<meta http-equiv="refresh" content="{RETRY_AFTER_SECONDS}">' if reload else ""
    again = " This page tries again by itself." if reload else ""
    return HTMLResponse(
        f"<!doctype html><title>Try again in a moment</title>{refresh}<p>{DATABASE_UNREACHABLE}{again}</p>",
        status_code=503,
        headers=headers,
    )


# Paths whose last segment is a secret (a login link's token, an env session id, which lets its
# holder into that environment tab): logged with the route's template in its place.
_SECRET_SEGMENT_PREFIXES = (
    ("/login/", "/login/{token}"),
    ("/env/enter/", "/env/enter/{session_id}"),
    ("/enter/", "/enter/{ticket}"),  # the website tab's single-use ticket
)


def loggable_path(path: str) -> str:
    """The path as the logs may show it: no login token, no env session id."""
    for prefix, template in _SECRET_SEGMENT_PREFIXES:
        if path.startswith(prefix) and len(path) > len(prefix):
            return template
    return path


class RequestLogMiddleware:
    """Logs method, path, status and duration of every HTTP request (never the client address:
    privacy rule), and answers database failures in middleware (network interventions, recorder
    injection), which run outside the app's exception handlers, with the same 503 as the app.

    One plain ASGI layer for both: `@app.middleware("http")` would wrap every request and response
    in extra tasks and streams, a cost paid on every environment API call under load.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status: int | None = None

        async def watched(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except DATABASE_ERRORS:
            if status is not None:
                raise
            request = Request(scope)
            log.warning("%s %s: database unreachable", request.method, loggable_path(request.url.path))
            answer = database_unreachable_response(wants_json(request), reload=request.method == "GET")
            await answer(scope, receive, watched)
        finally:
            # 500: the app raised before answering (the server error page goes out further up).
            log.info(
                "%s %s %s %.1fms",
                scope["method"],
                loggable_path(scope["path"]),
                status or 500,
                (time.perf_counter() - started) * 1000,
            )
