"""`humantrace serve --demo` in a subprocess; a person opens their printed login link in Chromium."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from humantrace.dashboard.bots.service import sign_in
from tests.waits import answers, poll_until

pytestmark = pytest.mark.browser


@pytest.fixture
def demo_server(tmp_path, port):
    env = dict(os.environ, HUMANTRACE_DATA_DIR=str(tmp_path / "data"))
    env.pop("HUMANTRACE_DATABASE_URL", None)
    cli = Path(sys.executable).with_name("humantrace")
    proc = subprocess.Popen(
        [str(cli), "serve", "--demo", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    deadline = time.time() + 180  # a bound, not a wait: start-up took >60 s under load
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("Serving on"):
            break
    base = f"http://127.0.0.1:{port}"
    poll_until(
        lambda: answers(base + "/login"), timeout_s=max(deadline - time.time(), 1), what="the demo server"
    )
    links = dict(re.findall(r"^\s+(\w+)\s+\w+\s+(http\S+)", "".join(lines), flags=re.M))

    def stop() -> str:
        """Stop the server; everything it printed."""
        if proc.poll() is None:
            proc.terminate()
            try:
                output, _ = proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                output, _ = proc.communicate()
            lines.append(output or "")
        return "".join(lines)

    yield base, links, stop
    stop()


def test_demo_prints_a_link_per_person_and_each_logs_in(demo_server, context, screenshot_dir):
    base, links, _stop = demo_server
    assert set(links) == {"A1", "A2", "A3", "A4", "D1", "L1"}

    page = context.new_page()
    page.goto(links["A1"])
    # opening the link only shows its sign-in page (a mail program's preview uses nothing up)
    assert page.locator("h1").inner_text() == "Sign in to humantrace"
    assert "A1" in page.locator("main").inner_text()
    page.screenshot(path=str(screenshot_dir / "login_confirm.png"), full_page=True)
    with page.expect_navigation():
        page.get_by_role("button", name="Sign in as A1").click()
    assert page.url.endswith("/assignments")
    assert page.locator("h1").inner_text() == "My assignments"
    assert page.locator(".who .badge").inner_text() == "A1"
    # the demo planned a panel: A1 can start recording at once
    assert page.locator("#assignments tbody tr").count() >= 5
    assert page.locator("#assignments button", has_text="Start").count() >= 5
    page.screenshot(path=str(screenshot_dir / "annotator_home.png"), full_page=True)

    page.goto(base + "/lead")
    assert "for study leads" in page.content()

    lead = context.browser.new_context(viewport={"width": 1366, "height": 800}).new_page()
    sign_in(lead, links["L1"])
    assert lead.url.endswith("/lead")
    assert lead.locator("h1").inner_text() == "Study overview"
    assert lead.locator("#people").inner_text().count("A") >= 4
    lead.screenshot(path=str(screenshot_dir / "lead_home.png"), full_page=True)

    lead.locator("button", has_text="Log out").click()
    assert "/login" in lead.url and "You are logged out" in lead.content()
    lead.context.close()


def test_no_client_address_in_the_server_log(demo_server, context):
    base, links, stop = demo_server
    page = context.new_page()
    sign_in(page, links["A2"])
    page.goto(base + "/assignments")
    logged = stop()
    # the request log is there, the client address is not
    request_lines = [line for line in logged.splitlines() if "humantrace.http" in line]
    assert any("GET /assignments 200" in line for line in request_lines), logged
    after_start = logged.split("Application startup complete", 1)[1]
    assert "127.0.0.1" not in "\n".join(request_lines)
    assert "127.0.0.1" not in after_start.replace(f"http://127.0.0.1:{base.rsplit(':', 1)[1]}", "")
