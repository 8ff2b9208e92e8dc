"""Security headers on every response, by the kind of page (see docs/deploy.md, "Security headers").

Dashboard and lead pages (and their static files and JSON) get a strict Content-Security-Policy:
scripts and styles from the dashboard's own origin only (no inline script, no inline style, no
`on*=` handler: the templates keep their scripts in `dashboard/static/`), no framing
(`frame-ancestors 'none'` and `X-Frame-Options: DENY`) and `Referrer-Policy: no-referrer`, so a
login link in the address bar never leaks through a Referer. The website side (environment pages,
their API and static files, the website tab's own pages, the recorder) is left without a CSP: the
sites have inline scripts of their own and the recorder is injected into them; it gets
`X-Content-Type-Options: nosniff`, as everything does.

One plain ASGI layer that appends the headers to `http.response.start` (no response is read).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

DASHBOARD_CSP = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",  # fetch, EventSource and the control tab's websocket (CSP3: 'self' covers ws:/wss: of this host)
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)

NOSNIFF = (b"x-content-type-options", b"nosniff")
DASHBOARD_HEADERS = (
    NOSNIFF,
    (b"content-security-policy", DASHBOARD_CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
)
SITE_HEADERS = (NOSNIFF,)

# The website side: environment pages and API, the website tab's pages, the recorder. Same list
# as the website tab middleware's paths of the environments' host name.
SITE_PREFIXES = ("/enter/", "/website/", "/env/", "/api/env/", "/env-static/", "/recorder/")


def headers_for(path: str) -> tuple[tuple[bytes, bytes], ...]:
    """The security headers a response to `path` carries."""
    return SITE_HEADERS if path.startswith(SITE_PREFIXES) else DASHBOARD_HEADERS


class SecurityHeadersMiddleware:
    """Adds `headers_for(path)` to every HTTP response, replacing any of the same name."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = headers_for(scope["path"])
        names = {name for name, _ in extra}

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                kept = [
                    (name, value) for name, value in message.get("headers", []) if name.lower() not in names
                ]
                message = {**message, "headers": [*kept, *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
