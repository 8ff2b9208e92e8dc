"""A server killed with SIGKILL in the middle of typing and restarted: the trace comes out complete."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from humantrace.recorder.schemas import MAX_FRAME_BYTES
from tests.waits import poll_until

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]


def start_server(
    *, port: int, database_url: str, secret: str, pages: Path, log_path: Path
) -> subprocess.Popen:
    env = {
        **os.environ,
        "HUMANTRACE_RECORDER_DATABASE_URL": database_url,
        "HUMANTRACE_RECORDER_SECRET": secret,
        "HUMANTRACE_RECORDER_PAGES": str(pages),
    }
    command = [
        sys.executable,
        "-m",
        "uvicorn",
        "humantrace.recorder.standalone:app_from_env",
        "--factory",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-access-log",
        "--ws-max-size",
        str(MAX_FRAME_BYTES),
        "--ws-per-message-deflate",
        "false",
    ]  # as `humantrace serve` runs it
    log = open(log_path, "ab")  # noqa: SIM115 (kept open for the child's lifetime)
    proc = subprocess.Popen(command, env=env, cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120  # a bound, not a wait: start-up took >30 s under load
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited early: {log_path.read_text()}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/recorder/recorder.js", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError("server did not start")


def recorder_state(page, token):
    import json

    return json.loads(page.evaluate("(k) => sessionStorage.getItem(k)", f"humantrace:{token}") or "null")


def test_sigkill_and_restart_mid_typing(
    tmp_path,
    port,
    sqlite_url,
    sqlite_engine,
    recorder_secret,
    pages_dir,
    server_handle,
    context,
    wait_all_acked,
):
    server = server_handle(f"http://127.0.0.1:{port}", sqlite_engine)
    rid, token = server.new_recording()
    log_path = tmp_path / "server.log"
    opts = dict(
        port=port, database_url=sqlite_url, secret=recorder_secret, pages=pages_dir, log_path=log_path
    )
    proc = start_server(**opts)
    try:
        context.add_cookies([{"name": "htrec", "value": token, "url": server.base_url}])
        page = context.new_page()
        page.goto(server.base_url + "/env/page1.html")
        page.click("#notes")
        page.keyboard.type("hel", delay=30)
        deadline = time.monotonic() + 10
        while server.acked(rid) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.acked(rid) >= 3, "some events should be stored before the crash"
        page.keyboard.type("lo ", delay=30)
        proc.send_signal(signal.SIGKILL)  # mid-stream: these last keys may be sent but not stored
        proc.wait(timeout=10)
        page.keyboard.type("world", delay=60)
        page.wait_for_timeout(1500)  # the recorder retries (socket and HTTP) against a dead port
        pending = recorder_state(page, token)
        assert pending["events"], "events typed while the server was down wait in sessionStorage"
        assert server.acked(rid) < pending["next"] - 1
        before = log_path.read_text().count("[accepted]")
        proc = start_server(**opts)
        # The recorder reconnects its websocket by itself (backoff is capped at 5 s).
        poll_until(
            lambda: log_path.read_text().count("[accepted]") > before,
            timeout_s=30,
            what="the recorder's reconnect",
        )
        page.keyboard.type("!", delay=30)
        state = wait_all_acked(page, token, server, rid, timeout=60)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=15)

    frame = server.frame(rid)
    assert frame["seq"].tolist() == list(range(state["next"]))
    assert "".join(frame[frame["type"] == "keydown"]["key"]) == "hello world!"
    assert frame[frame["type"] == "input"]["value"].tolist() == ["hello world!"[: n + 1] for n in range(12)]
    assert frame["t_ms"].is_monotonic_increasing
    # The server's own log lines never name the browser's address.
    lines = [line for line in log_path.read_text().splitlines() if "WebSocket" in line or "POST" in line]
    assert lines and not any("127.0.0.1" in line for line in lines)
