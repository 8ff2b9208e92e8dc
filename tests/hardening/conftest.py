"""Fixtures for the hardening tests: the `lab` site, a migrated SQLite template, casts of people
with assignments in any state, and `humantrace serve` subprocesses (with the lab site registered).

Helpers are exposed as fixtures (pytest runs with --import-mode=importlib, so test modules cannot
import this file by name).
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from sqlmodel import Session

ROOT = Path(__file__).resolve().parents[2]
LAB_SITE = ROOT / "tests" / "environments" / "labsite" / "site.py"
SECRET_KEY = "hardening-secret-key-" + "k" * 32
CONTROLLER_SECRET = "hardening-controller-secret-" + "c" * 32


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "heavy: a fault-injection test (subprocesses, restarts); still runs in CI")


def register_lab() -> None:
    """The framework's tiny notes site (tests/environments/labsite), registered by file path."""
    from environments import catalog, registry

    module = sys.modules.get("ht_labsite")
    if module is None:
        spec = importlib.util.spec_from_file_location("ht_labsite", LAB_SITE)
        module = importlib.util.module_from_spec(spec)
        sys.modules["ht_labsite"] = module
        spec.loader.exec_module(module)
    registry.register(module.ENVIRONMENT, replace=True)
    catalog.clear_cache()


@pytest.fixture
def lab() -> None:
    register_lab()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --------------------------------------------------------------------------- databases


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory) -> Path:
    """A SQLite file at the latest migration, built once; tests copy it."""
    from dashboard import migrate

    path = tmp_path_factory.mktemp("template") / "humantrace.db"
    migrate.upgrade(f"sqlite:///{path}")
    return path


def copy_template(template: Path, directory: Path) -> str:
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / "humantrace.db"
    shutil.copyfile(template, target)
    return f"sqlite:///{target}"


def hardening_settings(database_url: str, data_dir: Path, **overrides):
    from dashboard.settings import Settings

    values = dict(data_dir=data_dir, database_url=database_url, secret_key=SECRET_KEY,
                  controller_secret=CONTROLLER_SECRET, run_monitor=False)
    values.update(overrides)
    return Settings(**values)


# --------------------------------------------------------------------------- casts


@dataclass
class Person:
    code: str
    id: int
    session_token: str
    csrf: str

    @property
    def cookies(self) -> dict[str, str]:
        from dashboard.deps import SESSION_COOKIE

        return {SESSION_COOKIE: self.session_token}


@dataclass
class Cast:
    """Two annotators and a lead with login sessions, and the objects a route's path can name."""

    a: Person
    b: Person
    lead: Person
    study_id: int
    objects: dict[str, object] = field(default_factory=dict)


_codes = itertools.count(1)


class CastMaker:
    """Makes fresh people (unique codes) and assignments in any state on one engine."""

    def __init__(self, engine, study_id: int):
        self.engine = engine
        self.study_id = study_id

    def person(self, prefix: str, role: str = "annotator") -> Person:
        from annotators import service as accounts

        code = f"{prefix}{os.getpid() % 1000}x{next(_codes)}"[:16]
        with Session(self.engine, expire_on_commit=False) as db:
            row = accounts.add_annotator(db, code=code, role=role, tier="primary")
            token = accounts.start_login_session(db, annotator=row, ttl_hours=24)
            return Person(code=code, id=row.id, session_token=token,
                          csrf=accounts.csrf_token(secret_key=SECRET_KEY, session_token=token))

    def cast(self) -> Cast:
        return Cast(a=self.person("A"), b=self.person("B"), lead=self.person("L", role="lead"), study_id=self.study_id)

    def assignment(self, person: Person, *, state: str = "not_started", task_id: str = "lab-001",
                   condition: str = "clean") -> dict:
        """An assignment of `person` moved through the real flow to `state`; its ids."""
        from dashboard import flow
        from dashboard.models import Assignment, Outcome
        from dashboard.planning import session_seed

        with Session(self.engine, expire_on_commit=False) as db:
            from annotators import service as accounts

            annotator = accounts.get_by_code(db, code=person.code)
            row = Assignment(study_id=self.study_id, annotator_id=person.id, task_id=task_id, env_id="lab", difficulty="easy",
                             condition=condition, tier="primary", seed=session_seed(7, task_id, condition))
            db.add(row)
            db.commit()
            ids = {"assignment_id": row.id}
            if state == "not_started":
                return ids
            attempt = flow.start_assignment(db, assignment_id=row.id, annotator=annotator)
            ids.update(attempt_id=attempt.id, session_id=attempt.env_session_id, recording_id=attempt.recording_id)
            if state == "cold_active":
                return ids
            flow.end_attempt(db, attempt_id=attempt.id, annotator=annotator, outcome=Outcome.evaluated)
            if state == "warm_ready":
                return ids
            warm = flow.start_warm(db, assignment_id=row.id, annotator=annotator)
            ids.update(attempt_id=warm.id, session_id=warm.env_session_id, recording_id=warm.recording_id)
            if state == "warm_active":
                return ids
            flow.end_attempt(db, attempt_id=warm.id, annotator=annotator, outcome=Outcome.evaluated)
            if state == "rating":
                return ids
            rating = flow.submit_rating(db, assignment_id=row.id, annotator=annotator,
                                        form=flow.RatingForm(clarity=3, suspected_bug=True, comments="looks odd"))
            ids["rating_id"] = rating.id
            return ids


def make_study(engine) -> int:
    from dashboard.models import Study

    with Session(engine) as db:
        row = Study(name="Hardening study", seed=7, reading_countdown_seconds=0)
        db.add(row)
        db.commit()
        return row.id


# --------------------------------------------------------------------------- humantrace serve subprocesses

# Registers the lab site (only it, so sites under construction cannot break these servers), then
# runs the real `humantrace serve` command in this process.
SERVE_SCRIPT = f"""
import importlib.util, sys
sys.path.insert(0, {str(ROOT)!r})
spec = importlib.util.spec_from_file_location("ht_labsite", {str(LAB_SITE)!r})
module = importlib.util.module_from_spec(spec); sys.modules["ht_labsite"] = module; spec.loader.exec_module(module)
from environments import registry, sites
sites.SITES = []
registry.register(module.ENVIRONMENT, replace=True)
from dashboard.cli import app
app(sys.argv[1:], prog_name="humantrace")
"""


class ServeProcess:
    """`humantrace serve` in a subprocess; its combined output is collected in `log`."""

    def __init__(self, *, port: int, env: dict[str, str], host: str = "127.0.0.1"):
        self.port = port
        self.host = host
        self.url = f"http://127.0.0.1:{port}"
        self.env = env
        self.lines: list[str] = []
        self.proc: subprocess.Popen | None = None
        self._reader: threading.Thread | None = None

    def start(self, timeout: float = 60) -> "ServeProcess":
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SERVE_SCRIPT, "serve", "--host", self.host, "--port", str(self.port)],
            env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=str(ROOT),
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("humantrace serve exited:\n" + self.log)
            try:
                httpx.get(self.url + "/login", timeout=2)
                return self
            except httpx.HTTPError:
                time.sleep(0.2)
        raise RuntimeError("humantrace serve did not answer:\n" + self.log)

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)

    @property
    def log(self) -> str:
        return "".join(self.lines)

    def kill(self) -> None:
        """SIGKILL: no shutdown, no goodbye to the websockets."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> str:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        if self._reader is not None:
            self._reader.join(timeout=5)
        return self.log


def serve_env(*, data_dir: Path, database_url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HUMANTRACE_")}
    env.update(
        HUMANTRACE_DATA_DIR=str(data_dir),
        HUMANTRACE_DATABASE_URL=database_url,
        HUMANTRACE_SECRET_KEY=SECRET_KEY,
        HUMANTRACE_CONTROLLER_SECRET=CONTROLLER_SECRET,
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


@pytest.fixture
def serve():
    """serve(port=..., env=...) -> a started `humantrace serve` subprocess, stopped afterwards."""
    started: list[ServeProcess] = []

    def _start(**kwargs) -> ServeProcess:
        process = ServeProcess(**kwargs)
        started.append(process)
        return process.start()

    yield _start
    for process in started:
        process.stop()


# --------------------------------------------------------------------------- the routes of create_app

WS_METHOD = "WS"


@dataclass(frozen=True)
class AppRoute:
    """One callable route of the app: method (or "WS"), path template, a file to probe for mounts."""

    method: str
    path: str
    probe: str | None = None

    @property
    def id(self) -> str:
        return f"{self.method} {self.path}"


def app_routes() -> list[AppRoute]:
    """Every route and mount of a freshly built `create_app` (lab site registered), enumerated from `app.routes`."""
    import tempfile

    from fastapi.routing import iter_route_contexts

    from dashboard.app import create_app
    from dashboard.settings import Settings

    register_lab()
    tmp = Path(tempfile.mkdtemp(prefix="ht-routes-"))
    app = create_app(Settings(data_dir=tmp, database_url=f"sqlite:///{tmp / 'routes.db'}", secret_key="r" * 40,
                              controller_secret="s" * 40))
    found: list[AppRoute] = []
    for route in iter_route_contexts(app.routes):
        original = route.original_route
        methods = sorted(getattr(route, "methods", None) or [])
        if "WebSocket" in type(original).__name__:
            found.append(AppRoute(WS_METHOD, route.path))
        elif not methods:  # a mount of static files: probe its first file
            directory = Path(getattr(original.app, "directory", ""))
            files = sorted(p for p in directory.rglob("*") if p.is_file())
            probe = f"{route.path}/{files[0].relative_to(directory).as_posix()}" if files else None
            found.append(AppRoute("GET", route.path, probe))
        else:
            found.extend(AppRoute(method, route.path) for method in methods if method != "HEAD")
    shutil.rmtree(tmp, ignore_errors=True)
    return found


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "app_route" in metafunc.fixturenames:
        routes = app_routes()
        roles = getattr(metafunc.module, "ROLES", None)
        if "role" in metafunc.fixturenames and roles:
            cases = [(route, role) for route in routes for role in roles]
            metafunc.parametrize(("app_route", "role"), cases, ids=[f"{r.id} [{role}]" for r, role in cases])
        else:
            metafunc.parametrize("app_route", routes, ids=[r.id for r in routes])


@pytest.fixture(scope="session")
def kit():
    """The helpers of this folder, for test modules (which cannot import conftest by name)."""
    from types import SimpleNamespace

    return SimpleNamespace(
        register_lab=register_lab, copy_template=copy_template, settings=hardening_settings, CastMaker=CastMaker,
        make_study=make_study, SECRET_KEY=SECRET_KEY, CONTROLLER_SECRET=CONTROLLER_SECRET, WS=WS_METHOD,
        ServeProcess=ServeProcess, serve_env=serve_env, free_port=free_port,
    )
