"""Keep client addresses out of logs: drop them from the ASGI scope before anything reads them.

uvicorn logs every websocket handshake as `<client address> - "WebSocket <path>" [accepted]`,
even with `access_log=False`, and it reads the address from the same scope dict the app gets.
Blanking `scope["client"]` (in place, before the app runs) means neither uvicorn's log lines
nor any handler can see the address. Install it as the outermost middleware.
"""

from __future__ import annotations

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
