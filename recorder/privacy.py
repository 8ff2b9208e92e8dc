"""Keep client addresses out of logs: drop them from the ASGI scope before anything reads them.

uvicorn logs every websocket handshake as `<client address> - "WebSocket <path>" [accepted]`,
even with `access_log=False`, and it reads the address from the same scope dict the app gets.
Blanking `scope["client"]` (in place, before the app runs) means neither uvicorn's log lines
nor any handler can see the address. Install it as the outermost middleware.
"""

from __future__ import annotations

import logging
import re

from starlette.types import ASGIApp, Receive, Scope, Send


class ForgetClientAddressMiddleware:
    """Pure-ASGI middleware that removes the client address from every HTTP and websocket scope."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            # Mutate in place: the server logs from this very dict.
            scope["client"] = None
        await self.app(scope, receive, send)


_TOKEN_IN_URL = re.compile(r"(token=)[^&\s\"']+")


class RedactTokensFilter(logging.Filter):
    """Logging filter that replaces `token=...` in log messages by `token=[redacted]`.

    uvicorn logs each websocket handshake with its path and query string, and the recorder
    socket carries its token there (`/recorder/ws?token=...`). Attach it to `uvicorn.error`.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "token=" in message:
            record.msg = _TOKEN_IN_URL.sub(r"\1[redacted]", message)
            record.args = ()
        return True
