"""`humantrace recordings new` prints a snippet for the server that really runs (issue 19, item 8)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from sqlmodel import Session, select

from humantrace.core.db import make_engine
from humantrace.recorder.models import Recording

pytestmark = pytest.mark.browser

CLI = Path(sys.executable).with_name("humantrace")


def humantrace(env: dict, *args: str) -> str:
    done = subprocess.run([str(CLI), *args], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture
def served(tmp_path, port):
    """`humantrace serve --port <a free port>` on its own data directory (no HUMANTRACE_PORT)."""
    env = dict(os.environ, HUMANTRACE_DATA_DIR=str(tmp_path / "data"))
    for name in ("HUMANTRACE_DATABASE_URL", "HUMANTRACE_PORT", "HUMANTRACE_PUBLIC_URL", "HUMANTRACE_HOST"):
        env.pop(name, None)
    humantrace(env, "db", "upgrade")
    proc = subprocess.Popen(
        [str(CLI), "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            httpx.get(base + "/login", timeout=1)
            break
        except httpx.HTTPError:
            time.sleep(0.2)
    yield env, base, proc
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_snippet_points_at_the_running_server_and_records(served, context, foreign_page, tmp_path):
    env, base, proc = served
    assert not base.endswith(":8000")
    out = humantrace(env, "recordings", "new", "--label", "pilot")
    assert "the running server's public URL " + base in out
    snippet = re.search(r"<script .*?</script>", out, flags=re.S).group(0)
    assert f'data-server="{base}"' in snippet
    rid = int(out.split("Recording ")[1].split()[0])

    page = context.new_page()
    page.goto(foreign_page(snippet))
    page.click("#go")
    page.click("#go")
    engine = make_engine(f"sqlite:///{tmp_path / 'data' / 'humantrace.db'}")
    deadline = time.time() + 30
    acked = -1
    while time.time() < deadline and acked < 2:
        with Session(engine) as db:
            acked = db.exec(select(Recording.acked_seq).where(Recording.id == rid)).one()
        time.sleep(0.2)
    engine.dispose()
    assert acked >= 2  # load and two clicks reached the server the snippet named

    elsewhere = humantrace(
        env, "recordings", "new", "--label", "other", "--server", "https://rec.example.org/"
    )
    assert "Snippet for --server https://rec.example.org." in elsewhere
    assert 'data-server="https://rec.example.org"' in elsewhere

    proc.terminate()
    proc.communicate(timeout=15)
    stopped = humantrace(env, "recordings", "new", "--label", "after")
    assert "the configured public URL http://127.0.0.1:8000 (no running server found" in stopped


@pytest.fixture
def foreign_page():
    """page(snippet) -> URL of a page on another origin with the snippet pasted into its head."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    pages: dict[str, bytes] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server naming)
            body = pages.get(self.path, b"")
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()

    def page(snippet: str) -> str:
        pages["/p.html"] = (
            f"<!doctype html><html><head>{snippet}</head><body><button id='go'>Go</button></body></html>".encode()
        )
        return f"http://127.0.0.1:{httpd.server_address[1]}/p.html"

    yield page
    httpd.shutdown()
    httpd.server_close()
