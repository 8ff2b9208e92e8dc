"""Screenshots of a site's UI profiles for docs/ui-variants/<site>.md.

Starts the environments on a throw-away SQLite database and takes each `Shot` (a task's page on
one profile, after an optional action such as opening a custom select) at 1366x768 into
docs/ui-variants/img/. A site's script lists its shots and calls `take(shots)`:

    from shots import Shot, take  # run as: .venv/bin/python docs/ui-variants/shots_<site>.py
    take([Shot("shop-001", "custom-controls", "/", "shop-custom-select.png",
               lambda page: page.get_by_role("combobox", name="Sort by").click())])
"""

from __future__ import annotations

import socket
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx
import uvicorn
from fastapi import FastAPI
from playwright.sync_api import Page, sync_playwright
from sqlalchemy import create_engine
from sqlmodel import SQLModel

IMG = Path(__file__).parent / "img"
SECRET = "docs-shots-secret"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@dataclass(frozen=True)
class Shot:
    """One screenshot: `task_id`'s session on `profile`, at `path` under the site, into `out`."""

    task_id: str
    profile: str
    path: str
    out: str
    action: Callable[[Page], None] | None = None
    condition: str = "clean"
    full_page: bool = False


def _serve() -> tuple[str, uvicorn.Server]:
    import humantrace.environments.models  # noqa: F401
    from humantrace.core.settings import Settings
    from humantrace.environments import mount_environments

    engine = create_engine(
        f"sqlite:///{tempfile.mkdtemp()}/shots.db", connect_args={"check_same_thread": False}
    )
    SQLModel.metadata.create_all(engine)
    app = FastAPI()
    app.state.engine = engine
    app.state.settings = Settings(controller_secret=SECRET, secret_key="docs-shots-key")
    mount_environments(app)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    )
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}", server


def take(shots: Sequence[Shot]) -> None:
    """Take every shot (overwriting older images) and print where each went."""
    base, server = _serve()
    IMG.mkdir(exist_ok=True)
    control = httpx.Client(base_url=base, headers={"X-Controller-Secret": SECRET}, timeout=60)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            for shot in shots:
                info = control.post(
                    "/control/sessions",
                    json={"task_id": shot.task_id, "condition": shot.condition, "ui_profile": shot.profile},
                )
                info.raise_for_status()
                context = browser.new_context(viewport={"width": 1366, "height": 768})
                page = context.new_page()
                page.goto(base + info.json()["enter_url"])
                if shot.path:
                    page.goto(f"{base}/env/{info.json()['env_id']}{shot.path}")
                page.wait_for_load_state("networkidle")
                if shot.action:
                    shot.action(page)
                    page.wait_for_timeout(300)
                page.screenshot(path=str(IMG / shot.out), full_page=shot.full_page)
                print(IMG / shot.out)
                context.close()
            browser.close()
    finally:
        control.close()
        server.should_exit = True
