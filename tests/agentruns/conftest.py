"""Fixtures for the agent runner tests: the CLI in a subprocess, and a bot-made human bundle.

`humantrace agents run` runs in its own process (its own Playwright, BrowserGym's browsers and a
humantrace server on SQLite in a temporary folder), exactly as a user runs it; these tests read
what it writes.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.agentruns.helpers import ROOT, cli

# The task-conditions bot A1 plays for the replay test, with the UI profile of each: shop-014 (a
# recall: notifications, two return forms with a checkbox and a reason <select>, a cancel dialog; a
# CI run once replayed its cold attempt to 0.75) on the shop's `custom-controls`, where the reason is
# a custom listbox whose options exist only while it is open, so the recorder's XPaths must replay
# on a profile's markup; and an expert mail task (typing into a compose form) on the default build.
REPLAY_SAMPLE = (("shop-014", "clean", "custom-controls"), ("mail-013", "clean", "default"))


def _assign(data_dir: Path, code: str, sample: tuple[tuple[str, str, str], ...]) -> None:
    """Give annotator `code` exactly the task-conditions of `sample` on their UI profiles, in that
    order (the planner picks its own panel; the test needs a fixed one). They are played through the
    real pages after."""
    from sqlmodel import Session, select

    from humantrace.annotators import service as accounts
    from humantrace.core.db import make_engine
    from humantrace.dashboard.studies.models import Assignment
    from humantrace.dashboard.studies.planning import session_seed
    from humantrace.dashboard.studies.service import resolve_study
    from humantrace.environments import catalog

    engine = make_engine(f"sqlite:///{data_dir / 'humantrace.db'}")
    try:
        with Session(engine) as db:
            person = accounts.get_by_code(db, code=code)
            study = resolve_study(db, ref=None)  # the demo's one study
            assert study.id is not None and person.id is not None
            for row in db.exec(select(Assignment).where(Assignment.annotator_id == person.id)).all():
                db.delete(row)
            db.commit()
            for order, (task_id, condition, profile) in enumerate(sample):
                task = catalog.get_task(task_id)
                db.add(
                    Assignment(
                        study_id=study.id,
                        annotator_id=person.id,
                        task_id=task_id,
                        env_id=task.env_id,
                        difficulty=str(task.difficulty),
                        condition=condition,
                        ui_profile=profile,
                        order_index=order,
                        seed=session_seed(study.seed),
                    )
                )
            db.commit()
    finally:
        engine.dispose()


@pytest.fixture(scope="session")
def human_bundle(tmp_path_factory) -> Path:
    """A human reference bundle made by a bot: the demo study, bot A1 plays the assignments of
    `REPLAY_SAMPLE` (cold and warm) through the real pages, then the study is exported."""
    base = tmp_path_factory.mktemp("human")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {
        "HUMANTRACE_DATA_DIR": str(base / "data"),
        "HUMANTRACE_PORT": str(port),
        "HUMANTRACE_RUN_MONITOR": "false",
    }
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    server = subprocess.Popen(
        [sys.executable, "-m", "humantrace.dashboard.cli", "serve", "--demo"],
        cwd=ROOT,
        env=full_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/", timeout=2).status_code < 500:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        _assign(base / "data", "A1", REPLAY_SAMPLE)
        cli("bots", "--annotators", "A1", "--assignments", str(len(REPLAY_SAMPLE)), env=env)
    finally:
        server.terminate()
        server.wait(timeout=30)
    bundle = base / "bundle"
    cli("export", "bundle", str(bundle), "--format", "csv", env=env)
    return bundle
