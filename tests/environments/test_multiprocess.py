"""Two app processes on one PostgreSQL schema share intervention counters and never lose a write;
concurrent writes to one session on SQLite are serialised too."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

APP_SCRIPT = """
import sys
import uvicorn
from fastapi import FastAPI
from sqlalchemy import create_engine
from humantrace.core.settings import Settings
from humantrace.environments import mount_environments
url, port, secret = sys.argv[1], int(sys.argv[2]), sys.argv[3]
app = FastAPI()
app.state.engine = create_engine(url, pool_size=10)
app.state.settings = Settings(controller_secret=secret, secret_key="k")
mount_environments(app)
uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def second_process(lab_loader_code):
    """Start another app process (a subprocess running uvicorn) for a database URL."""
    started: list[subprocess.Popen] = []

    def start(url: str) -> str:
        port = _free_port()
        proc = subprocess.Popen(
            [sys.executable, "-c", lab_loader_code + APP_SCRIPT, url, str(port), "ctl-secret-7f3a9c"],
            env={**os.environ, "HT_LAB_ONLY": "1"},
        )
        started.append(proc)
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert proc.poll() is None, "the second app process exited"
            try:
                httpx.get(base + "/env/lab/", timeout=1)
                return base
            except httpx.TransportError:
                time.sleep(0.2)
        raise RuntimeError("the second app process did not start")

    yield start
    for proc in started:
        proc.terminate()
        proc.wait(timeout=10)


def test_two_processes_share_counters_and_writes(server_factory, postgres_url, port, second_process):
    first = server_factory(postgres_url, port)
    second = second_process(postgres_url)
    info = first.create("lab-001", "clean", 42)
    sid = info["session_id"]
    rule = {"action": "error_then_success", "url_pattern": "/notes", "methods": ["GET"], "fail_count": 3}
    with first.control() as control:
        assert (
            control.put(f"/control/sessions/{sid}/interventions", json={"network": [rule]}).status_code == 200
        )
    clients = [
        httpx.Client(base_url=base, headers={"X-Env-Session": sid}, timeout=30)
        for base in (first.base_url, second)
    ]
    try:
        statuses = [clients[i % 2].get("/api/env/lab/notes").status_code for i in range(5)]
        assert statuses == [500, 500, 500, 200, 200]

        def add(i: int) -> int:
            return clients[i % 2].post("/api/env/lab/notes", json={"title": f"parallel {i}"}).status_code

        with ThreadPoolExecutor(max_workers=8) as pool:
            assert list(pool.map(add, range(16))) == [201] * 16
    finally:
        for client in clients:
            client.close()
    with first.control() as control:
        notes = control.get(f"/control/sessions/{sid}/state").json()["state"]["notes"]
        audit = control.get(f"/control/sessions/{sid}/audit").json()["entries"]
    titles = [n["title"] for n in notes if n["title"].startswith("parallel ")]
    assert sorted(titles) == sorted(f"parallel {i}" for i in range(16))
    assert len({n["id"] for n in notes}) == len(notes)  # fresh ids never collide
    assert len(audit) == 5 + 16


def test_concurrent_writes_on_sqlite_are_serialised(lab_server):
    info = lab_server.create("lab-002", "clean", 3)
    with httpx.Client(
        base_url=lab_server.base_url, headers={"X-Env-Session": info["session_id"]}, timeout=60
    ) as api:
        with ThreadPoolExecutor(max_workers=8) as pool:
            statuses = list(
                pool.map(
                    lambda i: api.post("/api/env/lab/notes", json={"title": f"w{i}"}).status_code, range(16)
                )
            )
    assert statuses == [201] * 16
    with lab_server.control() as control:
        state = control.get(f"/control/sessions/{info['session_id']}/state").json()["state"]
        events = control.get(f"/control/sessions/{info['session_id']}/events").json()["events"]
    assert sorted(n["title"] for n in state["notes"] if n["title"].startswith("w")) == sorted(
        f"w{i}" for i in range(16)
    )
    assert [e["seq"] for e in events] == list(range(16))
