"""Database engine and sessions.

SQLite gets WAL and foreign keys so the embedded default behaves like a server database for
concurrent readers; PostgreSQL uses psycopg 3 with a connection pool.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from sqlalchemy.engine import Engine, make_url
from sqlmodel import create_engine

from recorder.sqlite_tuning import tune_sqlite


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
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20, **json_codec)
