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

from tests.agentruns.helpers import ROOT, SITE, cli


@pytest.fixture(scope="session")
def human_bundle(tmp_path_factory) -> Path:
    """A human reference bundle made by a bot: the demo study with a panel of one site, bot A1 plays
    one assignment (cold and warm) through the real pages, then the study is exported."""
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
        [sys.executable, "-m", "dashboard.cli", "serve", "--demo"],
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
        # A panel of the suite's one site, so the bot plays a task of it.
        cli("panel", "plan", "--per-cell", "1", "--env", SITE, "--replace", env=env)
        cli("bots", "--annotators", "A1", "--assignments", "1", env=env)
    finally:
        server.terminate()
        server.wait(timeout=30)
    bundle = base / "bundle"
    cli("export", "bundle", str(bundle), "--format", "csv", env=env)
    return bundle
