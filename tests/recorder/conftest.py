"""Fixtures for the recorder tests: databases with the recorder tables, batches, live servers."""

from __future__ import annotations

import io
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import uvicorn
from sqlalchemy import Engine, select
from sqlmodel import Session, SQLModel, col, create_engine

from humantrace.core.sqlite import tune_sqlite
from humantrace.recorder import service
from humantrace.recorder.models import RECORDER_TABLES, RawEvent, Recording
from humantrace.recorder.protocol import uvicorn_ws_options
from humantrace.recorder.schemas import BatchMessage, parse_client_message
from humantrace.recorder.standalone import create_app

SECRET = "test-secret-key-for-recorder"


def make_engine(url: str) -> Engine:
    engine = create_engine(url)
    tune_sqlite(engine)
    SQLModel.metadata.create_all(engine, tables=list(RECORDER_TABLES))
    return engine


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    """Recorder tables on SQLite and on PostgreSQL."""
    eng = make_engine(db_url)
    yield eng
    eng.dispose()


@pytest.fixture
def sqlite_engine(sqlite_url: str) -> Iterator[Engine]:
    eng = make_engine(sqlite_url)
    yield eng
    eng.dispose()


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    with Session(engine) as s:
        yield s


def event_dicts(start: int, count: int, *, type_: str = "keydown") -> list[dict]:
    """`count` valid events of one type with seqs start..start+count-1."""
    out = []
    for seq in range(start, start + count):
        event: dict = {
            "type": type_,
            "seq": seq,
            "t_ms": 1_700_000_000_000 + seq,
            "xpath": "/html/body/input[1]",
            "url": "http://shop.test/",
        }
        if type_ == "keydown":
            event["key"] = "abcdefghijklmnopqrstuvwxyz"[seq % 26]
        elif type_ in ("click", "mousemove"):
            event.update(x=10.5 + seq, y=20.0)
        elif type_ == "input":
            event["value"] = f"v{seq}"
        out.append(event)
    return out


@pytest.fixture
def make_batch() -> Callable[..., BatchMessage]:
    """make_batch(start, count) -> a validated BatchMessage of keydown events."""

    def build(start: int, count: int, *, type_: str = "keydown") -> BatchMessage:
        message = parse_client_message(
            json.dumps({"type": "batch", "events": event_dicts(start, count, type_=type_)})
        )
        assert isinstance(message, BatchMessage)
        return message

    return build


@pytest.fixture
def batch_json() -> Callable[..., str]:
    """batch_json(start, count) -> the JSON text of a batch frame."""

    def build(start: int, count: int, *, type_: str = "keydown") -> str:
        return json.dumps({"type": "batch", "events": event_dicts(start, count, type_=type_)})

    return build


# --------------------------------------------------------------------------- live servers

PAGES_DIR = Path(__file__).parent / "pages"


@pytest.fixture
def pages_dir() -> Path:
    """The test pages served under /env/."""
    return PAGES_DIR


@dataclass
class LiveServer:
    """A real uvicorn server (in a thread) running the standalone recorder app."""

    base_url: str
    engine: Engine
    log: io.StringIO

    @property
    def ws_base(self) -> str:
        return "ws" + self.base_url[len("http") :]

    def ws_url(self, token: str) -> str:
        return f"{self.ws_base}/recorder/ws?token={token}"

    def new_recording(self, **kwargs) -> tuple[int, str]:
        """(recording id, token) of a fresh active recording."""
        with Session(self.engine) as s:
            rec = service.create_recording(s, kind=kwargs.pop("kind", "attempt"), **kwargs)
            assert rec.id is not None
            return rec.id, service.issue_token(secret_key=SECRET, recording_id=rec.id)

    def end(self, recording_id: int) -> None:
        with Session(self.engine) as s:
            service.end_recording(s, recording_id=recording_id)

    def seqs(self, recording_id: int) -> list[int]:
        with Session(self.engine) as s:
            stmt = (
                select(col(RawEvent.seq))
                .where(col(RawEvent.recording_id) == recording_id)
                .order_by(col(RawEvent.seq))
            )
            return list(s.execute(stmt).scalars())

    def acked(self, recording_id: int) -> int:
        with Session(self.engine) as s:
            return s.execute(
                select(col(Recording.acked_seq)).where(col(Recording.id) == recording_id)
            ).scalar_one()

    def recording(self, recording_id: int) -> Recording:
        with Session(self.engine, expire_on_commit=False) as s:
            row = s.get(Recording, recording_id)
            assert row is not None
            return row

    def frame(self, recording_id: int):
        with Session(self.engine) as s:
            return service.events_frame(s, recording_ids=[recording_id])


@pytest.fixture
def server_handle() -> Callable[[str, Engine], LiveServer]:
    """server_handle(base_url, engine) -> a LiveServer view of a server started some other way."""
    return lambda base_url, engine: LiveServer(base_url=base_url, engine=engine, log=io.StringIO())


@pytest.fixture
def recorder_secret() -> str:
    """The secret key every test server signs recorder tokens with."""
    return SECRET


@contextmanager
def running_server(database_url: str, port: int) -> Iterator[LiveServer]:
    """Start uvicorn in a thread (access log off, as in production) and capture every log line."""
    log = io.StringIO()
    handler = logging.StreamHandler(log)
    handler.setLevel(logging.DEBUG)
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    watched = [logging.getLogger(name) for name in ("recorder", "uvicorn", "uvicorn.error")]
    old_levels = [(lg.level, lg.propagate) for lg in watched]
    for lg in watched:
        # An earlier in-process uvicorn with its default log config sets propagate=False on
        # "uvicorn"; the lines must still reach the root handler this fixture reads.
        lg.setLevel(logging.INFO)
        lg.propagate = True
    app = create_app(database_url=database_url, secret_key=SECRET, pages_dir=PAGES_DIR)
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        access_log=False,
        log_config=None,
        log_level="info",
        lifespan="on",
        **uvicorn_ws_options(),
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    engine = make_engine(database_url)
    try:
        yield LiveServer(base_url=f"http://127.0.0.1:{port}", engine=engine, log=log)
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        engine.dispose()
        root.removeHandler(handler)
        for lg, (level, propagate) in zip(watched, old_levels, strict=True):
            lg.setLevel(level)
            lg.propagate = propagate


@pytest.fixture
def live_server(sqlite_url: str, port: int) -> Iterator[LiveServer]:
    """The recorder app on SQLite behind a real uvicorn server."""
    with running_server(sqlite_url, port) as server:
        yield server


@pytest.fixture
def live_server_any_db(db_url: str, port: int) -> Iterator[LiveServer]:
    """The recorder app on SQLite and on PostgreSQL."""
    with running_server(db_url, port) as server:
        yield server


# --------------------------------------------------------------------------- browser helpers

RESOLVE_JS = """(xpaths) => xpaths.map((xp) => {
  const node = document.evaluate(xp, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
  if (!node) return null;
  return {id: node.id || null, tag: node.localName};
})"""


def recorder_state(page, token: str) -> dict | None:
    """The recorder's sessionStorage record for this token (what survives reloads in the tab)."""
    raw = page.evaluate("(key) => sessionStorage.getItem(key)", f"humantrace:{token}")
    return json.loads(raw) if raw else None


@pytest.fixture
def wait_all_acked() -> Callable[..., dict]:
    """wait_all_acked(page, token, server, rid): block until every recorded event is acknowledged."""

    def wait(page, token: str, server, recording_id: int, timeout: float = 30.0) -> dict:
        # Settled for a whole second: longer than the recorder's throttles (250 ms) plus its flush
        # interval (500 ms), so events still waiting in a timer have been numbered and sent too.
        deadline = time.monotonic() + timeout
        state, settled_since, settled_state = None, None, None
        while time.monotonic() < deadline:
            state = recorder_state(page, token)
            done = state and not state["events"] and state["acked"] == state["next"] - 1
            if state and done and server.acked(recording_id) == state["acked"]:
                if settled_state != state:
                    settled_since, settled_state = time.monotonic(), state
                elif settled_since is not None and time.monotonic() - settled_since >= 1.0:
                    return state
            else:
                settled_since, settled_state = None, None
            time.sleep(0.1)
        raise AssertionError(
            f"events not acknowledged in time: {state}, server ack {server.acked(recording_id)}"
        )

    return wait


@pytest.fixture
def resolve_xpaths() -> Callable[..., list]:
    """resolve_xpaths(page, xpaths) -> [{id, tag} | None] as document.evaluate finds them."""

    def resolve(page, xpaths: list[str]) -> list:
        return page.evaluate(RESOLVE_JS, xpaths)

    return resolve


@pytest.fixture
def foreign_site() -> Iterator[Callable[[str, str], str]]:
    """serve(path, html) -> URL of a page on another origin (a plain HTTP server, no middleware).

    It listens on 127.0.0.1 like the recorder server, so Chromium's local-network-access checks
    (which block public pages from reaching loopback) do not apply.
    """
    pages: dict[str, bytes] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server naming)
            body = pages.get(self.path.split("?")[0])
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args) -> None:  # keep test output (and addresses) out of stderr
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()

    def serve(path: str, html: str) -> str:
        pages[path] = html.encode("utf-8")
        return f"http://127.0.0.1:{httpd.server_address[1]}{path}"

    yield serve
    httpd.shutdown()
    httpd.server_close()
