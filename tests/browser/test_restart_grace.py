"""Stopping and restarting the server inside the grace period does not roll an assignment back."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from humantrace.dashboard.bots.service import sign_in
from tests.waits import answers, count_of, poll_until, wait_for_text

pytestmark = pytest.mark.browser


class DemoServer:
    def __init__(self, data_dir: Path, port: int):
        self.data_dir, self.port = data_dir, port
        self.url = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen | None = None
        self.links: dict[str, str] = {}

    def start(self, demo: bool) -> None:
        env = dict(os.environ, HUMANTRACE_DATA_DIR=str(self.data_dir))
        env.pop("HUMANTRACE_DATABASE_URL", None)
        cli = Path(sys.executable).with_name("humantrace")
        args = [str(cli), "serve", "--port", str(self.port)] + (["--demo"] if demo else [])
        self.proc = subprocess.Popen(
            args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        deadline = time.time() + 180  # a bound, not a wait: start-up took >60 s under load
        assert self.proc.stdout is not None
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            parts = line.split()
            if len(parts) == 3 and parts[2].startswith("http") and "/login/" in parts[2]:
                self.links[parts[0]] = parts[2]
            if line.startswith("Serving on"):
                break
        poll_until(
            lambda: answers(self.url + "/login"),
            timeout_s=max(deadline - time.time(), 1),
            what="server start",
        )

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def state(self, assignment_id: int) -> str:
        engine = create_engine(f"sqlite:///{self.data_dir / 'humantrace.db'}")
        with engine.connect() as conn:
            value = conn.execute(
                text("SELECT state FROM assignment WHERE id = :i"), {"i": assignment_id}
            ).scalar_one()
        engine.dispose()
        return value


@pytest.fixture
def server(tmp_path, port):
    s = DemoServer(tmp_path / "data", port)
    s.start(demo=True)
    yield s
    if s.proc and s.proc.poll() is None:
        s.proc.terminate()
        s.proc.wait(timeout=10)


def test_restart_within_grace_keeps_the_assignment(server, context):
    control = context.new_page()
    sign_in(control, server.links["A1"])
    row = control.locator("#assignments tbody tr").first
    assignment_id = int(row.get_attribute("data-assignment"))
    # Start opens the website tab inside the click (popup blocking); Start now lets it begin.
    with context.expect_page() as popup, control.expect_navigation():
        row.locator("button", has_text="Start").click()
    website = popup.value
    control.bring_to_front()  # the website tab opened over it: a background tab may not take input
    control.click("#start-now")
    website.wait_for_load_state("load")
    wait_for_text(control, "#events", lambda t: count_of(t) > 0)
    assert server.state(assignment_id) == "cold_active"

    server.kill()
    time.sleep(14)  # longer than the 10 s grace period, but the server was down: it does not count
    server.start(demo=False)
    time.sleep(6)  # the tabs reconnect; the monitor forgives the downtime
    assert server.state(assignment_id) == "cold_active"
    # the recorder resumed: new events are acknowledged after the restart
    before = int(control.locator("#events").inner_text())
    website.mouse.click(5, 5)
    website.keyboard.press("Tab")
    wait_for_text(control, "#events", lambda t: count_of(t) > before, timeout_ms=20000)

    website.close()  # a real close after the restart is still caught
    poll_until(
        lambda: server.state(assignment_id) == "not_started",
        timeout_s=30,
        what="rollback after the close",
        every_s=0.5,
    )
