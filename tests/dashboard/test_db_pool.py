"""Pooled PostgreSQL connections are pinged on checkout only after sitting idle
(`core.db.ping_idle_connections`): what that means when the server drops a connection."""

from __future__ import annotations

import time

import psycopg
import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from humantrace.core.db import make_engine


def _backend_pid(engine) -> int:
    with engine.connect() as conn:
        return conn.execute(text("SELECT pg_backend_pid()")).scalar_one()


def _terminate(postgres_base_url: str, pid: int) -> None:
    with psycopg.connect(postgres_base_url, autocommit=True) as admin:
        row = admin.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone()
        assert row is not None and row[0]
    time.sleep(0.2)


@pytest.fixture
def engine(postgres_url):
    engine = make_engine(postgres_url)
    engine.pool.dispose()
    yield engine
    engine.dispose()


def test_a_connection_dropped_while_idle_is_replaced_without_an_error(engine, postgres_base_url):
    first = _backend_pid(engine)
    _terminate(postgres_base_url, first)  # the database restarted, or a proxy closed an idle connection
    time.sleep(1.1)  # longer than PING_IDLE_SECONDS: the checkout pings and reconnects
    assert _backend_pid(engine) != first


def test_a_connection_dropped_just_after_use_fails_one_request_then_the_pool_recovers(
    engine, postgres_base_url
):
    first = _backend_pid(engine)
    _terminate(postgres_base_url, first)
    # Used moments ago, so not pinged: this one request fails (the app answers it with a 503) ...
    with pytest.raises(OperationalError):
        _backend_pid(engine)
    # ... and the failure replaced the pool's connections, so the next request works.
    assert _backend_pid(engine) != first


def test_sqlite_engines_have_no_ping(sqlite_url):
    engine = make_engine(sqlite_url)
    try:
        assert not engine.pool._pre_ping
        with engine.connect() as conn:
            assert conn.execute(text("SELECT 1")).scalar_one() == 1
    finally:
        engine.dispose()
