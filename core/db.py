"""Database engine and connections.

SQLite gets WAL and foreign keys so the embedded default behaves like a server database for
concurrent readers; PostgreSQL uses psycopg 3 with a connection pool. `one_statement` is the
connection for a single statement on the environment API's hot path.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import Connection, Table, event, exc
from sqlalchemy.engine import Engine, make_url
from sqlmodel import SQLModel, create_engine

from humantrace.core.sqlite import tune_sqlite


def json_dumps(value: Any) -> str:
    """JSON text for a JSON column. orjson: env states are ~100 KB and read on every API call."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def make_engine(url: str) -> Engine:
    """An engine for `url`, creating the SQLite file's directory when needed."""
    parsed = make_url(url)
    json_codec = {"json_serializer": json_dumps, "json_deserializer": orjson.loads}
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30}, **json_codec)
        tune_sqlite(engine, busy_timeout_ms=30_000)
        return engine
    engine = create_engine(url, pool_size=10, max_overflow=20, **json_codec)
    ping_idle_connections(engine)
    return engine


# A pooled connection used less than this long ago is handed out without a ping.
PING_IDLE_SECONDS = 1.0


def ping_idle_connections(engine: Engine, idle_seconds: float = PING_IDLE_SECONDS) -> None:
    """Ping a pooled connection on checkout only if it sat idle for `idle_seconds` or more.

    SQLAlchemy's `pool_pre_ping` pings on every checkout: under load that is one extra round trip
    on each of the three checkouts of an environment API call. A connection handed back moments ago
    is almost certainly alive (the bypass window of HikariCP's `aliveBypassWindowMs`, 500 ms). After a
    database restart the idle connections are pinged, fail, and the pool replaces every connection
    older than the failure; a connection used within the window that turns out dead fails its
    request cleanly (a 503 in the app) and invalidates the pool the same way.
    """

    def _used_now(dbapi_connection: Any, record: Any) -> None:
        record.info["used_at"] = time.monotonic()

    event.listen(engine, "connect", _used_now)  # a fresh connection needs no ping
    event.listen(engine, "checkin", _used_now)

    @event.listens_for(engine, "checkout")
    def _ping_if_idle(dbapi_connection: Any, record: Any, proxy: Any) -> None:
        if time.monotonic() - record.info.get("used_at", 0.0) < idle_seconds:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as error:  # the pool reconnects and replaces every older connection
            raise exc.InvalidatePoolError(f"ping failed: {error}") from error


@contextmanager
def one_statement(engine: Engine) -> Iterator[Connection]:
    """A connection for one statement that is its own transaction.

    On PostgreSQL it runs in autocommit: no BEGIN before it and no COMMIT or ROLLBACK after it, one
    round trip instead of two. Every environment API call reads its session's rules and writes an
    audit entry this way. Elsewhere (SQLite) it commits as usual. Never use it for two statements
    that must succeed or fail together.
    """
    with engine.connect() as conn:
        if conn.dialect.name == "postgresql":
            conn = conn.execution_options(isolation_level="AUTOCOMMIT")
        yield conn
        conn.commit()


def table_of(model: type[SQLModel]) -> Table:
    """The Core table of a SQLModel table class (for statements built once on hot paths)."""
    # SQLModel sets `__table__` when it creates a `table=True` class; its type hints do not declare it.
    table: Table = model.__table__  # type: ignore[attr-defined]
    return table
