"""Fixtures for the environments framework: the `lab` test site, engines, and live servers.

`lab` (tests/environments/labsite) is a tiny notes website with tasks, variants and oracles; it is
registered only here. Live servers are real uvicorn servers on free ports, serving a small FastAPI
app with `mount_environments(app)`, on SQLite or PostgreSQL.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import ModuleType

import httpx
import pytest
import uvicorn
from fastapi import FastAPI
from sqlalchemy import Engine, create_engine, event
from sqlmodel import SQLModel

LAB_DIR = Path(__file__).parent / "labsite"
CONTROLLER_SECRET = "ctl-secret-7f3a9c"
SECRET_KEY = "page-secret-key-0b1d"


def load_lab_module() -> ModuleType:
    """Import the lab site by file path (once per process) and register it."""
    from humantrace.environments import registry

    module = sys.modules.get("ht_labsite")
    if module is None:
        spec = importlib.util.spec_from_file_location("ht_labsite", LAB_DIR / "site.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["ht_labsite"] = module
        spec.loader.exec_module(module)
    registry.register(module.ENVIRONMENT, replace=True)
    return module


LAB_LOADER = f"""
import importlib.util, os, sys
LAB_ONLY = os.environ.get("HT_LAB_ONLY") == "1"
sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
spec = importlib.util.spec_from_file_location("ht_labsite", {str(LAB_DIR / "site.py")!r})
module = importlib.util.module_from_spec(spec); sys.modules["ht_labsite"] = module; spec.loader.exec_module(module)
from humantrace.environments import registry, sites
if LAB_ONLY:
    sites.SITES = []
registry.register(module.ENVIRONMENT, replace=True)
"""


@pytest.fixture(autouse=True)
def only_the_lab_site(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Framework tests see only the lab site, so a site under construction cannot break them.
    Tests marked `all_sites` (oracles, determinism) see every registered site as well."""
    from humantrace.environments import registry, sites

    if request.node.get_closest_marker("all_sites"):
        yield
        return
    monkeypatch.setattr(sites, "SITES", [])
    registry.forget_discovery()
    load_lab_module()
    yield
    monkeypatch.undo()
    registry.forget_discovery()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "all_sites: sees every registered site, not only the lab test site")


@pytest.fixture
def lab() -> ModuleType:
    """The lab test site, registered."""
    return load_lab_module()


@pytest.fixture
def lab_loader_code() -> str:
    """Python source that registers the lab site (for subprocesses)."""
    return LAB_LOADER


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _profile_digest(profile: str, task_id: str) -> str:
    return _digest(f"{profile}/{task_id}")


def sampled_profile(task_id: str, names: list[str]) -> str:
    """The UI profile a task's oracle runs on in the default suite: one of the site's profiles
    (the default included) chosen by a hash of the task id, so the choice never changes by run."""
    digest = int(hashlib.sha256(task_id.encode()).hexdigest(), 16)
    return names[digest % len(names)]


WRONG_SHARE = 4  # the default suite runs one wrong solution in four, at least one per site


def _wrong_sample(task_ids: list[str]) -> set[str]:
    """The tasks whose wrong solution the default suite runs: a quarter of a site's (rounded up),
    the first in the order of a hash of the task id, so the choice never changes by run."""
    ranked = sorted(task_ids, key=lambda task_id: _digest(f"wrong/{task_id}"))
    return set(ranked[: -(-len(ranked) // WRONG_SHARE)])


def oracle_cases(full: bool = False) -> list[tuple[str, str, str, str, str]]:
    """(kind, env_id, task_id, condition, ui_profile) for the oracle and wrong solutions of every site.

    Default suite: every task-condition once, on one UI profile chosen by a hash of the task id;
    a profile that drew fewer than two of a site's tasks gets more (clean) until it has two, so each
    build is exercised by several oracles; and a quarter of the wrong solutions (by a hash of the
    task id, at least one per site).
    `full`: every task-condition on every profile, and every wrong solution.
    """
    from humantrace.environments import catalog, registry, ui
    from humantrace.environments.oracles import load_oracles

    load_lab_module()
    cases = []
    for env in registry.all_environments():
        found = load_oracles(env)
        names = list(ui.profiles(env))
        task_ids = sorted(t.task_id for t in catalog.load_catalog().tasks.values() if t.env_id == env.env_id)
        chosen = {task_id: sampled_profile(task_id, names) for task_id in task_ids}
        wrong = set(found.wrong) if full else _wrong_sample([t for t in task_ids if t in found.wrong])
        for task_id in task_ids:
            conditions = ["clean"] + (["intervention"] if catalog.variant_for(task_id) else [])
            for condition in conditions:
                for profile in names if full else [chosen[task_id]]:
                    cases.append(("oracle", env.env_id, task_id, condition, profile))
                # A wrong solution must fail; one condition shows it (the clean one, where nothing
                # else can explain the failure), which keeps the browser suite's length in check.
                # The default suite runs a quarter of them (by a hash of the task id); `full`, all.
                if task_id in wrong and condition == "clean":
                    cases.append(("wrong", env.env_id, task_id, condition, chosen[task_id]))
        if not full:
            # every profile on at least two tasks: one that drew fewer gets the next ones in its
            # own hash order (with three profiles and twenty tasks, the hash alone nearly always
            # gives each profile several)
            for profile in names:
                drawn = sum(chosen[t] == profile for t in task_ids)
                others = sorted(
                    (t for t in task_ids if chosen[t] != profile),
                    key=partial(_profile_digest, profile),
                )
                missing = max(0, min(2, len(task_ids)) - drawn)
                cases.extend(("oracle", env.env_id, t, "clean", profile) for t in others[:missing])
    return cases


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "oracle_case" in metafunc.fixturenames:
        cases = oracle_cases(full=bool(metafunc.config.getoption("--full", default=False)))
        metafunc.parametrize("oracle_case", cases, ids=[f"{k}-{t}-{c}-{p}" for k, _, t, c, p in cases])


def make_engine(url: str) -> Engine:
    """An engine like the app's: SQLite with WAL and a long busy timeout, or PostgreSQL."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection, _record) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        return engine
    return create_engine(url, pool_size=10, max_overflow=10)


@pytest.fixture
def engine_factory() -> Iterator[Callable[[str], Engine]]:
    """Make engines with every table created; disposed at the end of the test."""
    import humantrace.environments.models  # noqa: F401

    made: list[Engine] = []

    def factory(url: str) -> Engine:
        engine = make_engine(url)
        SQLModel.metadata.create_all(engine)
        made.append(engine)
        return engine

    yield factory
    for engine in made:
        engine.dispose()


@dataclass
class LiveServer:
    """A running app: its URL, engine and a controller client."""

    base_url: str
    engine: Engine
    app: FastAPI

    def control(self) -> httpx.Client:
        return httpx.Client(
            base_url=self.base_url, headers={"X-Controller-Secret": CONTROLLER_SECRET}, timeout=30
        )

    def public(self, session_id: str | None = None) -> httpx.Client:
        headers = {"X-Env-Session": session_id} if session_id else {}
        return httpx.Client(base_url=self.base_url, headers=headers, timeout=30)

    def create(
        self, task_id: str, condition: str = "clean", seed: int = 42, ui_profile: str = "default"
    ) -> dict:
        with self.control() as client:
            response = client.post(
                "/control/sessions",
                json={"task_id": task_id, "condition": condition, "seed": seed, "ui_profile": ui_profile},
            )
        assert response.status_code == 201, response.text
        return response.json()


def build_app(engine: Engine) -> FastAPI:
    from humantrace.core.settings import Settings
    from humantrace.environments import mount_environments

    app = FastAPI()
    app.state.engine = engine
    app.state.settings = Settings(controller_secret=CONTROLLER_SECRET, secret_key=SECRET_KEY)
    mount_environments(app)
    return app


@pytest.fixture
def server_factory(engine_factory) -> Iterator[Callable[..., LiveServer]]:
    """Start a uvicorn server for a database URL on a port (all stopped after the test)."""
    servers: list[tuple[uvicorn.Server, threading.Thread]] = []

    def start(url: str, port: int) -> LiveServer:
        load_lab_module()
        engine = engine_factory(url)
        app = build_app(engine)
        config = uvicorn.Config(
            app,
            host="127.0.0.1",
            port=port,
            log_level="warning",
            access_log=False,
            log_config=None,
            lifespan="off",
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 20
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        servers.append((server, thread))
        return LiveServer(base_url=f"http://127.0.0.1:{port}", engine=engine, app=app)

    yield start
    for server, thread in servers:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture
def lab_server(server_factory, sqlite_url: str, port: int) -> LiveServer:
    """The lab site on SQLite."""
    return server_factory(sqlite_url, port)
