"""Study-flow fixtures: the `lab` test site, a study with people, assignments and live servers."""

from __future__ import annotations

import importlib.util
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
import uvicorn
from sqlmodel import Session

LAB_SITE = Path(__file__).resolve().parent.parent / "environments" / "labsite" / "site.py"


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
def lab():
    register_lab()


@pytest.fixture
def study(client, lab):
    """A study with A1, A2 (primary), D1 (duplicate) and L1 (lead)."""
    from humantrace.annotators import service as accounts
    from humantrace.dashboard.studies.models import Study

    with Session(client.app.state.engine, expire_on_commit=False) as db:
        row = Study(name="Test study", seed=7, reading_countdown_seconds=0, status="open")
        db.add(row)
        db.commit()
        db.refresh(row)
        for code, role, tier in [
            ("A1", "annotator", "primary"),
            ("A2", "annotator", "primary"),
            ("D1", "annotator", "duplicate"),
            ("L1", "lead", "primary"),
        ]:
            accounts.add_annotator(db, code=code, role=role, tier=tier, study_id=row.id)
        return row


@pytest.fixture
def make_assignment(client, study):
    """make_assignment(code, task_id="lab-001", condition="clean") -> assignment id."""
    from humantrace.annotators import service as accounts
    from humantrace.dashboard.studies.models import Assignment
    from humantrace.dashboard.studies.planning import session_seed

    def _make(code: str, task_id: str = "lab-001", condition: str = "clean", tier: str = "primary") -> int:
        with Session(client.app.state.engine) as db:
            person = accounts.get_by_code(db, code=code)
            assert person.id is not None
            row = Assignment(
                study_id=study.id,
                annotator_id=person.id,
                task_id=task_id,
                env_id="lab",
                difficulty="easy",
                condition=condition,
                tier=tier,
                seed=session_seed(study.seed),
            )
            db.add(row)
            db.commit()
            assert row.id is not None
            return row.id

    return _make


@pytest.fixture
def person(client):
    """person(code) -> the Annotator row."""
    from humantrace.annotators import service as accounts

    def _get(code: str):
        with Session(client.app.state.engine, expire_on_commit=False) as db:
            return accounts.get_by_code(db, code=code)

    return _get


@pytest.fixture
def login_as(sign_in_http):
    """login_as(client, code): a new login link for the person, signed in with on `client`."""
    from humantrace.annotators import service as accounts

    def login(http_client, code: str) -> None:
        settings = http_client.app.state.settings
        with Session(http_client.app.state.engine) as db:
            url = accounts.create_login_link(
                db, secret_key=settings.secret_key, code=code, base_url="http://testserver"
            )
        sign_in_http(http_client, url.removeprefix("http://testserver"))

    return login


class LiveServer:
    def __init__(self, app, port: int):
        self.app = app
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        # log_config=None: leave the process's logging alone (other tests capture uvicorn's log lines)
        from humantrace.recorder.protocol import uvicorn_ws_options

        self.server = uvicorn.Server(
            uvicorn.Config(
                app, host="127.0.0.1", port=port, access_log=False, log_config=None, **uvicorn_ws_options()
            )
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> LiveServer:
        self.thread.start()
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                httpx.get(self.url + "/login", timeout=1)
                return self
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("live server did not start")

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture
def live(app_settings, lab, port):
    """A real uvicorn server (in a thread) for the app on the migrated test database."""
    from humantrace.dashboard.app import create_app

    # A live server behaves like production: its presence monitor runs in real time.
    server = LiveServer(create_app(app_settings.model_copy(update={"run_monitor": True})), port).start()
    yield server
    server.stop()


@pytest.fixture
def live_with(app_settings, lab, port):
    """live_with(**settings) -> a live server like `live`'s, with these settings changed."""
    from humantrace.dashboard.app import create_app

    started: list[LiveServer] = []

    def _start(**overrides) -> LiveServer:
        settings = app_settings.model_copy(update={"run_monitor": True, **overrides})
        started.append(LiveServer(create_app(settings), port).start())
        return started[-1]

    yield _start
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def popup_blocking_browser(playwright_instance):
    """Chromium as people run it: popup blocking on (Playwright turns it off by default)."""
    import os

    args = [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
    ]
    browser = playwright_instance.chromium.launch(
        executable_path=os.environ.get("HUMANTRACE_CHROMIUM", "/usr/bin/chromium"),
        args=args,
        headless=True,
        ignore_default_args=["--disable-popup-blocking"],
    )
    yield browser
    browser.close()


@pytest.fixture
def study_context(popup_blocking_browser):
    """A browser context of the popup-blocking Chromium at 1366x768."""
    ctx = popup_blocking_browser.new_context(viewport={"width": 1366, "height": 768})
    yield ctx
    ctx.close()
