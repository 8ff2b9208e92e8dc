"""Fixtures shared by every test package.

Database tests run on SQLite and on PostgreSQL (`db_url` is parametrised over both). PostgreSQL
comes from HUMANTRACE_TEST_POSTGRES_URL (default postgresql://postgres@127.0.0.1:5432/test); each
test gets its own schema so runs never see each other's rows. When no server answers, the
PostgreSQL cases are skipped with a reason, except under HUMANTRACE_REQUIRE_POSTGRES=1, where that
is a failure.

Browser tests use Debian's Chromium through Playwright (`browser` fixture).
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("HUMANTRACE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/test"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def port() -> int:
    return free_port()


# --------------------------------------------------------------------------- databases


def _pg_base_url() -> str:
    return os.environ.get("HUMANTRACE_TEST_POSTGRES_URL", DEFAULT_PG_URL)


def _pg_available(url: str) -> str | None:
    """None when the server answers, else the reason it does not."""
    try:
        import psycopg

        with psycopg.connect(url, connect_timeout=3):
            return None
    except Exception as exc:  # any failure to connect means "not available"
        return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _require_postgres() -> bool:
    return os.environ.get("HUMANTRACE_REQUIRE_POSTGRES") == "1" or os.environ.get("CI") == "true"


@pytest.fixture(scope="session")
def postgres_base_url() -> str:
    url = _pg_base_url()
    problem = _pg_available(url)
    if problem:
        message = (
            f"PostgreSQL at {url} does not answer ({problem}). Start it or point "
            "HUMANTRACE_TEST_POSTGRES_URL at a server to run the PostgreSQL tests."
        )
        if _require_postgres():
            pytest.fail(message + " HUMANTRACE_REQUIRE_POSTGRES=1 makes this a failure.")
        pytest.skip(message)
    return url


def sqlalchemy_pg_url(url: str) -> str:
    """postgresql://... -> postgresql+psycopg://... (psycopg 3 driver)."""
    if url.startswith("postgresql://"):
        return "postgresql+psycopg://" + url[len("postgresql://") :]
    return url


@pytest.fixture
def postgres_url(postgres_base_url: str) -> Iterator[str]:
    """A SQLAlchemy URL whose connections use a fresh, private schema (dropped afterwards)."""
    import psycopg

    schema = "ht_test_" + uuid.uuid4().hex[:12]
    with psycopg.connect(postgres_base_url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    sep = "&" if "?" in postgres_base_url else "?"
    url = sqlalchemy_pg_url(postgres_base_url) + f"{sep}options=-csearch_path%3D{schema}"
    try:
        yield url
    finally:
        _drop_schema(postgres_base_url, schema)


def _drop_schema(postgres_base_url: str, schema: str, attempts: int = 5) -> None:
    """Drop a test's schema. A server a test started may still be finishing a write it saves after
    answering (an audit entry), and such servers stop after this fixture's teardown; PostgreSQL
    breaks the deadlock between that insert and the DROP by failing one of them, and a failed DROP
    is tried again once the write has ended."""
    import psycopg

    for attempt in range(attempts):
        try:
            with psycopg.connect(postgres_base_url, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            return
        except (psycopg.errors.DeadlockDetected, psycopg.errors.LockNotAvailable):
            if attempt == attempts - 1:
                raise
            time.sleep(0.2 * (attempt + 1))


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'humantrace.db'}"


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest) -> str:
    """A SQLAlchemy URL for an empty database, once on SQLite and once on PostgreSQL."""
    if request.param == "sqlite":
        return request.getfixturevalue("sqlite_url")
    return request.getfixturevalue("postgres_url")


# --------------------------------------------------------------------------- full runs


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--full",
        action="store_true",
        default=False,
        help="also run tests marked `full` (whole catalogues; `./dev test --full`)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--full"):
        return
    skip = pytest.mark.skip(reason="a long run over a whole catalogue: `./dev test --full` runs it")
    for item in items:
        if item.get_closest_marker("full"):
            item.add_marker(skip)


# --------------------------------------------------------------------------- browser


@pytest.fixture(scope="session")
def playwright_instance():
    from playwright.sync_api import sync_playwright

    from humantrace.core import playwright_stack

    playwright_stack.install()  # the oracles, bots and pages tests make many thousands of calls
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: run `apt-get install -y chromium` (./dev test does).")
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def browser(playwright_instance):
    browser = playwright_instance.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    yield browser
    browser.close()


@pytest.fixture
def context(browser):
    ctx = browser.new_context(viewport={"width": 1366, "height": 800})
    yield ctx
    ctx.close()


@pytest.fixture
def screenshot_dir() -> Path:
    path = Path(os.environ.get("HUMANTRACE_SCREENSHOTS", "screenshots"))
    path.mkdir(parents=True, exist_ok=True)
    return path


# --------------------------------------------------------------------------- app


@pytest.fixture
def make_settings(tmp_path: Path):
    """Settings for an app on `database_url`, with strong test secrets and a private data dir."""
    from humantrace.core.settings import Settings

    def _make(database_url: str, **overrides):
        values: dict[str, Any] = dict(
            data_dir=tmp_path / "data",
            database_url=database_url,
            secret_key="test-secret-key-" + "k" * 32,
            controller_secret="test-controller-secret-" + "c" * 32,
        )
        values.update(overrides)
        return Settings(**values)

    return _make


@pytest.fixture
def migrated_url(db_url: str) -> str:
    """`db_url` upgraded to the latest schema (SQLite and PostgreSQL)."""
    from humantrace.core import migrate

    migrate.upgrade(db_url)
    return db_url


@pytest.fixture
def app_settings(make_settings, migrated_url: str):
    """Settings for in-process apps; the presence monitor is off so tests control time."""
    return make_settings(migrated_url, run_monitor=False)


@pytest.fixture
def client(app_settings):
    """An in-process HTTP client for a fresh app on a migrated database."""
    from fastapi.testclient import TestClient

    from humantrace.dashboard.app import create_app

    with TestClient(create_app(app_settings), base_url="http://testserver") as test_client:
        yield test_client


@pytest.fixture
def db(client):
    """A database session on the same database as `client`."""
    from sqlmodel import Session

    with Session(client.app.state.engine) as session:
        yield session


def _sign_in_http(http_client, path: str):
    """Open a login link and press Sign in on its page, as a person does; returns the POST's answer."""
    from humantrace.dashboard.people.routes import sign_in_form

    page = http_client.get(path)
    assert page.status_code == 200, page.text
    return http_client.post(path, data=sign_in_form(page.text), follow_redirects=False)


@pytest.fixture
def sign_in_http():
    """sign_in_http(client, "/login/<token>") -> the answer of the Sign in button (303 when logged in)."""
    return _sign_in_http
