"""Fixtures for the hardening tests: the `lab` site, a migrated SQLite template, casts of people
with assignments in any state, and `humantrace serve` subprocesses (with the lab site registered).

Helpers are exposed as fixtures (pytest runs with --import-mode=importlib, so test modules cannot
import this file by name).
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlmodel import Session

ROOT = Path(__file__).resolve().parents[2]
LAB_SITE = ROOT / "tests" / "environments" / "labsite" / "site.py"
SECRET_KEY = "hardening-secret-key-" + "k" * 32
CONTROLLER_SECRET = "hardening-controller-secret-" + "c" * 32


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "heavy: a fault-injection test (subprocesses, restarts); still runs in CI"
    )


def register_lab() -> None:
    """The framework's tiny notes site (tests/environments/labsite), registered by file path."""
    from humantrace.environments import catalog, registry

    module = sys.modules.get("ht_labsite")
    if module is None:
        spec = importlib.util.spec_from_file_location("ht_labsite", LAB_SITE)
        assert spec is not None and spec.loader is not None
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
    from humantrace.core import migrate

    path = tmp_path_factory.mktemp("template") / "humantrace.db"
    migrate.upgrade(f"sqlite:///{path}")
    return path


def copy_template(template: Path, directory: Path) -> str:
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / "humantrace.db"
    shutil.copyfile(template, target)
    return f"sqlite:///{target}"


def hardening_settings(database_url: str, data_dir: Path, **overrides):
    from humantrace.core.settings import Settings

    values: dict[str, Any] = dict(
        data_dir=data_dir,
        database_url=database_url,
        secret_key=SECRET_KEY,
        controller_secret=CONTROLLER_SECRET,
        run_monitor=False,
    )
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
        from humantrace.dashboard.web.deps import SESSION_COOKIE

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
# A seed no page would contain by chance (a page must never show the seed; "7" is in every page).
HARDENING_SEED = 480913


class CastMaker:
    """Makes fresh people (unique codes) and assignments in any state on one engine."""

    def __init__(self, engine, study_id: int):
        self.engine = engine
        self.study_id = study_id

    def person(self, prefix: str, role: str = "annotator") -> Person:
        from humantrace.annotators import service as accounts

        code = f"{prefix}{os.getpid() % 1000}x{next(_codes)}"[:16]
        with Session(self.engine, expire_on_commit=False) as db:
            row = accounts.add_annotator(db, code=code, role=role, tier="primary", study_id=self.study_id)
            token = accounts.start_login_session(db, annotator=row, ttl_hours=24)
            assert row.id is not None
            return Person(
                code=code,
                id=row.id,
                session_token=token,
                csrf=accounts.csrf_token(secret_key=SECRET_KEY, session_token=token),
            )

    def cast(self) -> Cast:
        return Cast(
            a=self.person("A"), b=self.person("B"), lead=self.person("L", role="lead"), study_id=self.study_id
        )

    def assignment(
        self,
        person: Person,
        *,
        state: str = "not_started",
        task_id: str = "lab-001",
        condition: str = "clean",
    ) -> dict:
        """An assignment of `person` moved through the real flow to `state`; its ids."""
        from humantrace.dashboard.flow import service as flow
        from humantrace.dashboard.studies.models import Assignment, Outcome
        from humantrace.dashboard.studies.planning import session_seed

        with Session(self.engine, expire_on_commit=False) as db:
            from humantrace.annotators import service as accounts

            annotator = accounts.get_by_code(db, code=person.code)
            row = Assignment(
                study_id=self.study_id,
                annotator_id=person.id,
                task_id=task_id,
                env_id="lab",
                difficulty="easy",
                condition=condition,
                tier="primary",
                seed=session_seed(HARDENING_SEED),
            )
            db.add(row)
            db.commit()
            assert row.id is not None
            ids = {"assignment_id": row.id, "study_id": self.study_id, "code": person.code}
            if state == "not_started":
                return ids
            attempt = flow.start_assignment(db, assignment_id=row.id, annotator=annotator)
            assert attempt.id is not None  # read from the database
            flow.begin_recording(db, attempt_id=attempt.id, annotator=annotator)  # the website starts ("go")
            ids.update(
                attempt_id=attempt.id, session_id=attempt.env_session_id, recording_id=attempt.recording_id
            )
            if state == "cold_active":
                return ids
            assert attempt.id is not None
            flow.end_attempt(db, attempt_id=attempt.id, annotator=annotator, outcome=Outcome.evaluated)
            if state == "warm_ready":
                return ids
            warm = flow.start_warm(db, assignment_id=row.id, annotator=annotator)
            ids.update(attempt_id=warm.id, session_id=warm.env_session_id, recording_id=warm.recording_id)
            if state == "warm_active":
                return ids
            assert warm.id is not None
            flow.end_attempt(db, attempt_id=warm.id, annotator=annotator, outcome=Outcome.evaluated)
            if state == "rating":
                return ids
            rating = flow.submit_rating(
                db,
                assignment_id=row.id,
                annotator=annotator,
                form=flow.RatingForm(clarity=3, suspected_bug=True, comments="looks odd"),
            )
            ids["rating_id"] = rating.id
            return ids


def make_study(engine, name: str = "Hardening study") -> int:
    from humantrace.dashboard.studies.models import Study, StudyStatus

    with Session(engine) as db:
        row = Study(name=name, seed=HARDENING_SEED, reading_countdown_seconds=0, status=StudyStatus.open)
        db.add(row)
        db.commit()
        assert row.id is not None
        return row.id


# --------------------------------------------------------------------------- humantrace serve subprocesses

# Registers the lab site (only it, so sites under construction cannot break these servers), then
# runs the real `humantrace` command line (`serve`, `export bundle`, ...) in this process.
CLI_SCRIPT = f"""
import importlib.util, sys
sys.path.insert(0, {str(ROOT)!r})
spec = importlib.util.spec_from_file_location("ht_labsite", {str(LAB_SITE)!r})
module = importlib.util.module_from_spec(spec); sys.modules["ht_labsite"] = module; spec.loader.exec_module(module)
from humantrace.environments import registry, sites
sites.SITES = []
registry.register(module.ENVIRONMENT, replace=True)
from humantrace.dashboard.cli import app
app(sys.argv[1:], prog_name="humantrace")
"""


class ServeProcess:
    """`humantrace serve` in a subprocess; its combined output is collected in `log`."""

    def __init__(self, *, port: int, env: dict[str, str], host: str = "127.0.0.1"):
        self.port = port
        self.host = host
        self.url = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
        self.env = env
        self.lines: list[str] = []
        self.proc: subprocess.Popen | None = None
        self._reader: threading.Thread | None = None

    def start(self, timeout: float = 60) -> ServeProcess:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", CLI_SCRIPT, "serve", "--host", self.host, "--port", str(self.port)],
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=str(ROOT),
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

    from humantrace.core.settings import Settings
    from humantrace.dashboard.app import create_app

    register_lab()
    tmp = Path(tempfile.mkdtemp(prefix="ht-routes-"))
    app = create_app(
        Settings(
            data_dir=tmp,
            database_url=f"sqlite:///{tmp / 'routes.db'}",
            secret_key="r" * 40,
            controller_secret="s" * 40,
        )
    )
    found: list[AppRoute] = []
    for route in iter_route_contexts(app.routes):
        original = route.original_route
        path = route.path
        assert path is not None, f"{original} has a path"
        methods = sorted(getattr(route, "methods", None) or [])
        if "WebSocket" in type(original).__name__:
            found.append(AppRoute(WS_METHOD, path))
        elif not methods:  # a mount of static files: probe its first file
            directory = Path(getattr(getattr(original, "app", None), "directory", ""))
            files = sorted(p for p in directory.rglob("*") if p.is_file())
            probe = f"{path}/{files[0].relative_to(directory).as_posix()}" if files else None
            found.append(AppRoute("GET", path, probe))
        else:
            found.extend(AppRoute(method, path) for method in methods if method != "HEAD")
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
        register_lab=register_lab,
        copy_template=copy_template,
        settings=hardening_settings,
        CastMaker=CastMaker,
        make_study=make_study,
        SECRET_KEY=SECRET_KEY,
        CONTROLLER_SECRET=CONTROLLER_SECRET,
        WS=WS_METHOD,
        ServeProcess=ServeProcess,
        serve_env=serve_env,
        free_port=free_port,
        FlowAnnotator=FlowAnnotator,
        login_link=login_link,
        make_event=make_event,
        CLI_SCRIPT=CLI_SCRIPT,
        ControlTab=ControlTab,
    )


# --------------------------------------------------------------------------- an annotator without a browser


@dataclass
class Played:
    """What one attempt sent and got: its id, the events sent and the highest seq acknowledged."""

    attempt_id: int
    sent: int
    acked: int
    outcome: dict


class FlowAnnotator:
    """An annotator driven over HTTP and websockets exactly as the pages do (no browser).

    `base_url` is the dashboard for the control tab; `env_url` (default the same server) serves the
    website tab: its pages, API calls and the recorder's websocket, always under the environments'
    host name (127.0.0.1 and localhost swapped), as a browser reaches it.
    """

    def __init__(
        self, base_url: str, *, env_url: str | None = None, address: str | None = None, timeout: float = 30
    ):
        self.base_url = base_url.rstrip("/")
        from humantrace.core.settings import other_loopback_host

        self.env_url = other_loopback_host((env_url or base_url).rstrip("/"))
        self.assignment_id: int | None = None
        # `address`: connect there (e.g. "::1") while every URL and Host header names `base_url`,
        # as a browser does when a name resolves to that address.
        self.address = address
        self.http = self._client(self.base_url, timeout)
        self.env = self._client(self.env_url, timeout)
        self.csrf = ""

    def _client(self, url: str, timeout: float) -> httpx.Client:
        if self.address is None:
            return httpx.Client(base_url=url, timeout=timeout, follow_redirects=False)
        parsed = httpx.URL(url)
        host = f"[{self.address}]" if ":" in self.address else self.address
        return httpx.Client(
            base_url=f"{parsed.scheme}://{host}:{parsed.port}",
            timeout=timeout,
            follow_redirects=False,
            headers={"Host": f"{parsed.host}:{parsed.port}"},
        )

    def _connect(self, url: str):
        from websockets.sync.client import connect

        if self.address is None:
            return connect(url, open_timeout=20)
        parsed = httpx.URL(url)
        return connect(
            url, sock=socket.create_connection((self.address, parsed.port), timeout=20), open_timeout=20
        )

    def close(self) -> None:
        self.http.close()
        self.env.close()

    def login(self, link: str) -> None:
        from humantrace.dashboard.people.routes import sign_in_form

        path = link[link.index("/login/") :]
        page = self.http.get(path)
        assert page.status_code == 200, page.text
        response = self.http.post(path, data=sign_in_form(page.text))
        assert response.status_code == 303, response.text
        # The website tab never holds the dashboard's cookies (another host name).

    def control(self, assignment_id: int) -> dict[str, str]:
        """The control tab's data attributes (attempt id, state, CSRF token) and its instruction."""
        import html as html_lib

        page = self.http.get(f"/assignments/{assignment_id}/control")
        assert page.status_code == 200, page.status_code
        self.assignment_id = assignment_id
        found = {k: v for k, v in re.findall(r'data-([a-z-]+)="([^"]*)"', page.text)}
        self.csrf = found.get("csrf", self.csrf)
        instruction = re.search(r'id="instruction">([^<]*)<', page.text)
        found["instruction"] = html_lib.unescape(instruction.group(1)) if instruction else ""
        return found

    def post(
        self, path: str, data: dict | None = None, *, client: httpx.Client | None = None
    ) -> httpx.Response:
        return (client or self.http).post(
            path, data=data or {}, headers={"X-CSRF-Token": self.csrf, "Accept": "application/json"}
        )

    def start(self, assignment_id: int) -> int:
        home = self.http.get("/assignments")
        found = re.search(r'name="csrf_token" value="([^"]+)"', home.text)
        assert found is not None, "the assignments page has a CSRF token"
        self.csrf = found.group(1)
        response = self.http.post(f"/assignments/{assignment_id}/start", data={"csrf_token": self.csrf})
        assert response.status_code == 303, response.text
        return int(self.control(assignment_id)["attempt"])

    def open_environment(self, attempt_id: int) -> str:
        """The website tab (on `env_url`) after "go": its single-use ticket from the control tab's
        page, the cover, then `/website/go` (env session and recorder cookies) and the start page.
        `attempt_id` is the running attempt of the assignment whose control tab was read last."""
        ticket = self.http.get(f"/assignments/{self.assignment_id}/website").json()["url"]
        entered = self.env.get(ticket[ticket.index("/enter/") :])
        assert entered.status_code == 303 and entered.headers["location"] == "/website/cover", (
            entered.status_code
        )
        self.post(
            f"/attempts/{attempt_id}/begin"
        )  # "Start now": the server gives "go" (a second press is harmless)
        went = self.env.get("/website/go")
        assert went.status_code == 303 and went.headers["location"].startswith("/env/"), (
            went.status_code,
            went.headers,
        )
        page = self.env.get(went.headers["location"])
        assert page.status_code == 200 and 'data-token="' in page.text, page.status_code
        return self.env_url + went.headers["location"]

    @property
    def recorder_token(self) -> str:
        return self.env.cookies["htrec"]

    def ws_url(self, path: str, base: str | None = None) -> str:
        return (base or self.env_url).replace("http://", "ws://", 1) + path

    def record(
        self, *, url: str, count: int, first_seq: int = 0, batch: int = 20, base: str | None = None
    ) -> int:
        """Send `count` events (in batches) on one recorder connection; the highest seq acknowledged."""
        import json

        acked = first_seq - 1
        with self._connect(self.ws_url(f"/recorder/ws?token={self.recorder_token}", base)) as socket:
            hello = json.loads(socket.recv(timeout=20))
            assert hello["type"] == "ack", hello
            acked = hello["seq"]
            if first_seq == 0 and acked == -1:
                socket.send(
                    json.dumps(
                        {
                            "type": "meta",
                            "user_agent": "flow-annotator",
                            "viewport_w": 1280,
                            "viewport_h": 800,
                            "screen_w": 1920,
                            "screen_h": 1080,
                        }
                    )
                )
                assert json.loads(socket.recv(timeout=20))["type"] == "ack"
            seq = acked + 1
            end = first_seq + count
            while seq < end:
                events = [make_event(s, url) for s in range(seq, min(seq + batch, end))]
                socket.send(json.dumps({"type": "batch", "events": events}))
                reply = json.loads(socket.recv(timeout=20))
                assert reply["type"] == "ack", reply
                acked = reply["seq"]
                seq = acked + 1
        return acked

    def pin_target(self, instruction: str) -> None:
        """What a person does on the lab site: find the note named in the instruction and pin it."""
        quoted = re.search(r'"(.+)"', instruction)
        assert quoted is not None, "the instruction quotes the note's title"
        title = quoted.group(1)
        notes = self.env.get("/api/env/lab/notes")
        assert notes.status_code == 200, notes.text
        note = next(n for n in notes.json()["notes"] if n["title"] == title)
        changed = self.env.patch(f"/api/env/lab/notes/{note['id']}", json={"pinned": True})
        assert changed.status_code == 200, changed.text

    def play_attempt(self, assignment_id: int, attempt_id: int, *, events: int = 30) -> Played:
        control = self.control(assignment_id)
        assert self.post(f"/attempts/{attempt_id}/begin").status_code == 200
        url = self.open_environment(attempt_id)
        acked = self.record(url=url, count=events)
        self.pin_target(control["instruction"])
        ended = self.post(f"/attempts/{attempt_id}/end", {"outcome": "evaluated"})
        assert ended.status_code == 200, ended.text
        return Played(attempt_id=attempt_id, sent=events, acked=acked, outcome=ended.json())

    def play_assignment(self, assignment_id: int, *, events: int = 30) -> list[Played]:
        """Start, cold attempt, warm attempt, rating: the whole assignment."""
        cold = self.play_attempt(assignment_id, self.start(assignment_id), events=events)
        self.control(assignment_id)
        warm_id = self.post(f"/assignments/{assignment_id}/warm").json()["attempt_id"]
        warm = self.play_attempt(assignment_id, warm_id, events=events)
        self.control(assignment_id)
        rated = self.http.post(
            f"/assignments/{assignment_id}/rating",
            data={"csrf_token": self.csrf, "clarity": "4", "realism": "4", "fun_value": "3"},
        )
        assert rated.status_code == 303, rated.text
        return [cold, warm]


def make_event(seq: int, url: str) -> dict:
    """A plausible raw event of a few kinds, by seq."""
    t_ms = 1_700_000_000_000 + seq * 250
    kind = seq % 4
    if kind == 0:
        return {
            "seq": seq,
            "t_ms": t_ms,
            "type": "mousemove",
            "x": 10.0 + seq,
            "y": 20.0,
            "xpath": "/html/body",
            "url": url,
        }
    if kind == 1:
        return {
            "seq": seq,
            "t_ms": t_ms,
            "type": "click",
            "x": 12.0,
            "y": 30.0,
            "xpath": "/html/body/ul/li[1]/button",
            "url": url,
        }
    if kind == 2:
        return {
            "seq": seq,
            "t_ms": t_ms,
            "type": "keydown",
            "key": "a",
            "xpath": "/html/body/form/input[1]",
            "url": url,
        }
    return {
        "seq": seq,
        "t_ms": t_ms,
        "type": "input",
        "value": f"text {seq}",
        "xpath": "/html/body/form/input[1]",
        "url": url,
    }


def login_link(engine, code: str, base_url: str) -> str:
    from humantrace.annotators import service as accounts

    with Session(engine) as db:
        return accounts.create_login_link(db, secret_key=SECRET_KEY, code=code, base_url=base_url)


# --------------------------------------------------------------------------- faults: a switchable TCP proxy


class TcpProxy:
    """A TCP proxy on 127.0.0.1 whose upstream can be switched, or cut (`down`) and restored (`up`).

    Stands in for a load balancer that moves clients to a surviving process, or for a network
    path to the database that goes away.
    """

    def __init__(self, upstream: tuple[str, int]):
        self.upstream = upstream
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(256)
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.cut = False
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.cut:
                client.close()
                continue
            try:
                server = socket.create_connection(self.upstream, timeout=5)
                server.settimeout(None)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._open.update((client, server))
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, source: socket.socket, target: socket.socket) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                target.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, target):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()
            with self._lock:
                self._open.difference_update((source, target))

    def drop_connections(self) -> None:
        with self._lock:
            live = list(self._open)
        for sock in live:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def switch(self, upstream: tuple[str, int]) -> None:
        """New connections go to `upstream`; open ones are dropped (their server is gone)."""
        self.upstream = upstream
        self.drop_connections()

    def down(self) -> None:
        self.cut = True
        self.drop_connections()

    def up(self) -> None:
        self.cut = False

    def close(self) -> None:
        self._closed = True
        self.down()
        self.listener.close()


@pytest.fixture
def tcp_proxy():
    """tcp_proxy((host, port)) -> a started TcpProxy, closed afterwards."""
    made: list[TcpProxy] = []

    def _make(upstream: tuple[str, int]) -> TcpProxy:
        proxy = TcpProxy(upstream)
        made.append(proxy)
        return proxy

    yield _make
    for proxy in made:
        proxy.close()


class ControlTab:
    """The control tab's live channel (`/ws/control/{id}`) held open in a thread; every snapshot kept."""

    def __init__(self, base_url: str, assignment_id: int, session_cookie: str):
        self.url = base_url.replace("http://", "ws://", 1) + f"/ws/control/{assignment_id}"
        self.origin = base_url.rstrip("/")
        self.cookie = session_cookie
        self.snapshots: list[dict] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        import json

        from websockets.sync.client import connect

        with connect(
            self.url,
            # As the control tab's page: the channel refuses other origins.
            additional_headers={"Cookie": f"ht_session={self.cookie}", "Origin": self.origin},
            open_timeout=20,
        ) as channel:
            while not self._stop.is_set():
                try:
                    self.snapshots.append(json.loads(channel.recv(timeout=0.5)))
                except TimeoutError:
                    continue
                except Exception:
                    return

    def wait_for(self, predicate, timeout: float = 60) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for snapshot in list(self.snapshots):
                if predicate(snapshot):
                    return snapshot
            time.sleep(0.2)
        raise AssertionError(f"no such snapshot within {timeout}s; last: {self.snapshots[-3:]}")

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


# --------------------------------------------------------------------------- a private PostgreSQL server


class PrivatePostgres:
    """A throw-away PostgreSQL cluster (initdb in a temp dir, its own port), so restarting it in a
    test disturbs nobody else's database."""

    def __init__(self, bindir: Path, root: Path, port: int):
        self.bindir, self.root, self.port = bindir, root, port
        self.data = root / "data"
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"

    def _pg(self, *args: str) -> None:
        command = [str(self.bindir / args[0]), *args[1:]]
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def init(self) -> PrivatePostgres:
        self._pg("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync")
        return self.start()

    def start(self) -> PrivatePostgres:
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100"
        )
        self._pg(
            "pg_ctl", "-D", str(self.data), "-l", str(self.root / "server.log"), "-o", options, "-w", "start"
        )
        return self

    def stop(self, mode: str = "fast") -> None:
        self._pg("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")


@pytest.fixture
def private_postgres():
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    if not versions:
        pytest.skip("no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)")
    root = Path(tempfile.mkdtemp(prefix="ht-pg-"))
    if os.geteuid() == 0:
        import pwd

        postgres = pwd.getpwnam("postgres")
        os.chown(root, postgres.pw_uid, postgres.pw_gid)
    server = PrivatePostgres(versions[-1].parent, root, free_port()).init()
    yield server
    try:
        server.stop("immediate")
    except subprocess.CalledProcessError:
        pass  # already stopped
    shutil.rmtree(root, ignore_errors=True)
