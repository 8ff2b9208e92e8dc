"""Getting the recorder into pages: the injection middleware, a paste-in snippet, a Playwright init script.

Environment pages get the recorder automatically: when the dashboard opens the environment tab it
sets the `htrec` cookie to the attempt's recorder token, and `RecorderInjectionMiddleware` adds
the `<script>` tag to every HTML page under `/env/` that such a request receives. The script tag
carries the recording's settings (masking, mousemove sampling) as data attributes.
"""

from __future__ import annotations

import html
import json
import logging
import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import anyio.to_thread
from sqlalchemy import Engine
from sqlmodel import Session
from starlette.datastructures import MutableHeaders
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from humantrace.recorder.service import RecorderError, mask_selectors_of, resolve_token

logger = logging.getLogger("recorder.inject")

SCRIPT_URL_PATH = "/recorder/recorder.js"
SCRIPT_FILE = Path(__file__).parent / "static" / "recorder.js"
# itsdangerous URL-safe tokens use only these characters; anything else is not ours to echo.
_TOKEN_RE = re.compile(r"[A-Za-z0-9._\-]{1,1024}")
_HEAD_CLOSE = re.compile(rb"</head\s*>", re.IGNORECASE)
_BODY_OPEN = re.compile(rb"<body\b[^>]*>", re.IGNORECASE)


def script_tag(
    *,
    src: str,
    server: str,
    token: str,
    mask_all_text: bool,
    mousemove_sample_ms: int,
    mask_selectors: Sequence[str] = (),
) -> str:
    """The `<script>` element that loads and configures the recorder."""
    attrs = {
        "src": src,
        "data-server": server,
        "data-token": token,
        "data-mask-all": "true" if mask_all_text else "false",
        "data-mousemove-ms": str(int(mousemove_sample_ms)),
    }
    if mask_selectors:
        attrs["data-mask-selectors"] = json.dumps(list(mask_selectors))
    rendered = " ".join(f'{name}="{html.escape(value, quote=True)}"' for name, value in attrs.items())
    return f"<script {rendered}></script>"


def snippet(
    *,
    server_url: str,
    token: str,
    mask_all_text: bool = False,
    mousemove_sample_ms: int = 100,
    mask_selectors: Sequence[str] = (),
) -> str:
    """A `<script>` tag to paste into any page so that it records into the token's recording."""
    base = server_url.rstrip("/")
    return script_tag(
        src=base + SCRIPT_URL_PATH,
        server=base,
        token=token,
        mask_all_text=mask_all_text,
        mousemove_sample_ms=mousemove_sample_ms,
        mask_selectors=mask_selectors,
    )


@lru_cache(maxsize=1)
def _recorder_source() -> str:
    return SCRIPT_FILE.read_text(encoding="utf-8")


def init_script(
    *,
    server_url: str,
    token: str,
    mask_all_text: bool = False,
    mousemove_sample_ms: int = 100,
    debug: bool = False,
    mask_selectors: Sequence[str] = (),
) -> str:
    """Source for Playwright's `add_init_script`: the config global, then the recorder itself.

    Playwright runs init scripts in every frame too: a copy in a same-origin frame hands the frame
    to the top document's recorder as soon as it starts.
    """
    config = {
        "server": server_url.rstrip("/"),
        "token": token,
        "maskAllText": bool(mask_all_text),
        "mousemoveSampleMs": int(mousemove_sample_ms),
        "debug": bool(debug),
    }
    if mask_selectors:
        config["maskSelectors"] = list(mask_selectors)
    return f"window.HUMANTRACE_RECORDER = {json.dumps(config)};\n{_recorder_source()}"


def insert_script(document: bytes, tag: bytes) -> bytes:
    """`document` with `tag` right before `</head>`, else right after `<body ...>`, else first."""
    match = _HEAD_CLOSE.search(document)
    if match:
        return document[: match.start()] + tag + document[match.start() :]
    match = _BODY_OPEN.search(document)
    if match:
        return document[: match.end()] + tag + document[match.end() :]
    return tag + document


def _recording_settings(engine: Engine, secret_key: str, token: str) -> tuple[bool, int, list[str]] | None:
    with Session(engine) as session:
        try:
            recording = resolve_token(session, secret_key=secret_key, token=token)
        except RecorderError:
            return None
        return recording.mask_all_text, recording.mousemove_sample_ms, mask_selectors_of(recording)


class RecorderInjectionMiddleware:
    """Pure-ASGI middleware adding the recorder to HTML pages under `path_prefixes`.

    Only requests carrying the recorder cookie of an active recording are touched; the response
    is buffered, the tag inserted and Content-Length fixed. Compressed or non-HTML responses,
    HEAD requests and requests without a valid token pass through unchanged.
    """

    def __init__(
        self, app: ASGIApp, *, path_prefixes: tuple[str, ...] = ("/env/",), cookie_name: str = "htrec"
    ) -> None:
        self.app = app
        self.path_prefixes = tuple(path_prefixes)
        self.cookie_name = cookie_name

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("method") == "HEAD"
            or not scope["path"].startswith(self.path_prefixes)
        ):
            await self.app(scope, receive, send)
            return
        token = self._token(scope)
        tag = await self._tag_for(scope, token) if token else None
        if tag is None:
            await self.app(scope, receive, send)
            return
        # A 304 would make the browser reuse a cached copy carrying an older (maybe ended) token:
        # ask the app for the full page, and forbid caching the injected one.
        headers = [
            (k, v) for k, v in scope.get("headers", []) if k not in (b"if-none-match", b"if-modified-since")
        ]
        await self.app({**scope, "headers": headers}, receive, _Injector(send, tag.encode("utf-8")))

    def _token(self, scope: Scope) -> str | None:
        for name, value in scope.get("headers", []):
            if name == b"cookie":
                token = cookie_parser(value.decode("latin-1")).get(self.cookie_name)
                if token and _TOKEN_RE.fullmatch(token):
                    return token
        return None

    async def _tag_for(self, scope: Scope, token: str) -> str | None:
        app = scope.get("app")
        state = getattr(app, "state", None)
        engine = getattr(state, "engine", None)
        settings = getattr(state, "settings", None)
        if engine is None or settings is None:
            logger.warning("recorder not injected: app.state has no engine or settings")
            return None
        found = await anyio.to_thread.run_sync(_recording_settings, engine, settings.secret_key, token)
        if found is None:
            return None
        mask_all_text, mousemove_sample_ms, mask_selectors = found
        return script_tag(
            src=SCRIPT_URL_PATH,
            server="",
            token=token,
            mask_all_text=mask_all_text,
            mousemove_sample_ms=mousemove_sample_ms,
            mask_selectors=mask_selectors,
        )


class _Injector:
    """An ASGI `send` that buffers an HTML response and inserts the tag before passing it on."""

    def __init__(self, send: Send, tag: bytes) -> None:
        self.send = send
        self.tag = tag
        self.start: Message | None = None
        self.chunks: list[bytes] = []
        self.passthrough = False

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = MutableHeaders(raw=list(message.get("headers", [])))
            is_html = headers.get("content-type", "").lower().startswith("text/html")
            encoded = headers.get("content-encoding", "identity").lower() != "identity"
            if not is_html or encoded or message.get("status") in (204, 304):
                self.passthrough = True
                await self.send(message)
                return
            self.start = message
            return
        if message["type"] != "http.response.body" or self.passthrough:
            await self.send(message)
            return
        self.chunks.append(message.get("body", b""))
        if message.get("more_body", False):
            return
        body = insert_script(b"".join(self.chunks), self.tag)
        assert self.start is not None
        headers = MutableHeaders(raw=list(self.start.get("headers", [])))
        headers["content-length"] = str(len(body))
        headers["cache-control"] = "no-store"
        for name in ("etag", "last-modified"):
            if name in headers:
                del headers[name]
        await self.send({**self.start, "headers": headers.raw})
        await self.send({"type": "http.response.body", "body": body, "more_body": False})
