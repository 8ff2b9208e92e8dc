"""Which page may open which websocket: the control channel only the dashboard's, the website
channel only the website's.

Browsers send a websocket handshake's cookies by site, not by origin: with the dashboard on
`study.example.org` and the websites on `sites.study.example.org` (one site), a website page's
script could open `wss://study.example.org/ws/control/<id>` with the annotator's login cookie and
keep the control tab "present" after it was closed. A page cannot forge the handshake's `Origin`
header, so each channel compares it (scheme, host name and port) with the origins it serves, before
it reads anything from the database, and refuses any other, or none, with close code 1008.

A channel's origins are its public URL (`HUMANTRACE_PUBLIC_URL` for the control channel, the
websites' address, `HUMANTRACE_ENV_PUBLIC_URL` or its loopback default, for the website channel)
and the origin the request itself reached (its scheme and `Host` header), so a local server on a
port of its own needs no setting. The two host names never serve each other's channel
(`website.WebsiteTabMiddleware`), so the reached origin of a control channel is the dashboard's.
"""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

from starlette.websockets import WebSocket

from humantrace.core.settings import Settings, other_loopback_host

Origin = tuple[str, str, int]
Channel = Literal["dashboard", "website"]
DEFAULT_PORTS = {"http": 80, "https": 443}
REFUSED_CODE = 1008  # policy violation, as for a missing login
REFUSED_REASON = "cross-origin connection refused: open this channel from its own page"
# The database is unreachable: the pages reconnect a second later, as after a restart.
TRY_AGAIN_CODE = 1013
TRY_AGAIN_REASON = "the server cannot reach its database right now; reconnect in a moment"


def parse_origin(value: str | None) -> Origin | None:
    """(scheme, host name, port) of an origin or URL; None when it is missing, `null` or malformed."""
    if not value:
        return None
    try:
        parts = urlsplit(value.strip())
        scheme, host, port = parts.scheme.lower(), (parts.hostname or "").lower(), parts.port
    except ValueError:  # a port that is not a number
        return None
    if scheme not in DEFAULT_PORTS or not host:
        return None
    return scheme, host, port if port is not None else DEFAULT_PORTS[scheme]


def reached_origin(websocket: WebSocket) -> Origin | None:
    """The origin this handshake reached: its scheme (wss is https) and its Host header."""
    scheme = "https" if websocket.url.scheme in ("wss", "https") else "http"
    return parse_origin(f"{scheme}://{websocket.headers.get('host', '')}")


def allowed_origins(settings: Settings, channel: Channel) -> set[Origin]:
    """The configured public origin of `channel` (the dashboard's or the websites')."""
    url = (
        settings.public_url
        if channel == "dashboard"
        else settings.env_public_url or other_loopback_host(settings.public_url)
    )
    found = parse_origin(url)
    return {found} if found else set()


def origin_allowed(websocket: WebSocket, settings: Settings, channel: Channel) -> bool:
    """Whether the handshake comes from a page of `channel`'s own origin (nothing read from the database)."""
    presented = parse_origin(websocket.headers.get("origin"))
    if presented is None:
        return False
    return presented == reached_origin(websocket) or presented in allowed_origins(settings, channel)


async def refuse_foreign_origin(websocket: WebSocket, channel: Channel) -> bool:
    """Close a handshake from another origin (True: it was refused, the caller stops)."""
    if origin_allowed(websocket, websocket.app.state.settings, channel):
        return False
    await websocket.accept()
    await websocket.close(code=REFUSED_CODE, reason=REFUSED_REASON)
    return True
