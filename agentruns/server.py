"""The humantrace server that agent episodes run against, and a client for its controller API.

By default each worker process starts its own server (`humantrace serve` in a subprocess, on
SQLite in a temporary data directory) the first time a task needs one, and stops it at exit.
`HUMANTRACE_AGENTS_SERVER_URL` (with `HUMANTRACE_AGENTS_CONTROLLER_SECRET`) points the tasks at a
running server instead. The server is a separate process started through the CLI, so this
package never imports the web app.
"""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
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

from humantrace.agentruns.settings import AgentSettings

SECRET_HEADER = "X-Controller-Secret"
START_TIMEOUT_S = 300.0  # each of `db upgrade` and `serve`; a loaded machine needs minutes


class ServerError(RuntimeError):
    """The humantrace server could not be started or reached, or refused a controller call."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _die_with_parent() -> None:
    """In the server's process before exec: end when the process that started it ends (Linux),
    so a runner that is killed leaves no server behind."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "humantrace.dashboard.cli", *args]


@dataclass
class Server:
    """A humantrace server: its base URL, controller secret and (when we started it) its process."""

    base_url: str
    controller_secret: str
    process: subprocess.Popen | None = None
    data_dir: Path | None = None
    _client: httpx.Client | None = field(default=None, repr=False)

    @property
    def client(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(
                base_url=self.base_url, headers={SECRET_HEADER: self.controller_secret}, timeout=60.0
            )
        return self._client

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        """One controller call; a refusal raises ServerError naming the call and the answer."""
        try:
            response = self.client.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise ServerError(
                f"{method} {path}: the humantrace server at {self.base_url} did not answer ({exc})"
            ) from exc
        if response.status_code >= 400:
            raise ServerError(f"{method} {path}: {response.status_code} {response.text[:300]}")
        return response.json()

    def stop(self) -> None:
        """Stop the server if we started it, and remove its data directory."""
        if self._client is not None:
            self._client.close()
            self._client = None
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        self.process = None
        if self.data_dir is not None:
            shutil.rmtree(self.data_dir, ignore_errors=True)
            self.data_dir = None


def start_server(*, log_path: Path | None = None) -> Server:
    """Start `humantrace serve` on SQLite in a fresh temporary data directory and wait until it answers."""
    data_dir = Path(tempfile.mkdtemp(prefix="humantrace-agents-"))
    port = _free_port()
    env = {
        **os.environ,
        "HUMANTRACE_ENVIRONMENT": "local",
        "HUMANTRACE_DATA_DIR": str(data_dir),
        "HUMANTRACE_DATABASE_URL": f"sqlite:///{data_dir / 'humantrace.db'}",
        "HUMANTRACE_SECRET_KEY": secrets.token_urlsafe(48),
        "HUMANTRACE_CONTROLLER_SECRET": secrets.token_urlsafe(48),
        "HUMANTRACE_HOST": "127.0.0.1",
        "HUMANTRACE_PORT": str(port),
        "HUMANTRACE_PUBLIC_URL": f"http://127.0.0.1:{port}",
        # No study runs here: presence rollback and time limits have nothing to watch.
        "HUMANTRACE_RUN_MONITOR": "false",
    }
    log = open(log_path or data_dir / "server.log", "ab")  # noqa: SIM115 (kept open for the process)
    upgrade = subprocess.run(
        _cli("db", "upgrade"),
        check=False,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        timeout=START_TIMEOUT_S,
    )
    if upgrade.returncode != 0:
        log.close()
        raise ServerError(f"`humantrace db upgrade` failed in {data_dir} (see {log.name})")
    process = subprocess.Popen(
        _cli("serve"), env=env, stdout=log, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent
    )  # noqa: PLW1509
    log.close()
    server = Server(
        base_url=f"http://127.0.0.1:{port}",
        controller_secret=env["HUMANTRACE_CONTROLLER_SECRET"],
        process=process,
        data_dir=data_dir,
    )
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            text = (data_dir / "server.log").read_text(errors="replace")[-2000:] if log_path is None else ""
            raise ServerError(f"`humantrace serve` exited with {process.returncode}: {text}")
        try:
            if server.client.get("/control/tasks").status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    server.stop()
    raise ServerError(f"`humantrace serve` did not answer within {START_TIMEOUT_S:.0f} s")


_lock = threading.Lock()
_current: Server | None = None


def current_server(settings: AgentSettings | None = None) -> Server:
    """This process's server: the configured running one, else one started on first use."""
    global _current
    with _lock:
        if _current is None:
            settings = settings or AgentSettings()
            if settings.server_url:
                if not settings.controller_secret:
                    raise ServerError(
                        "HUMANTRACE_AGENTS_SERVER_URL needs HUMANTRACE_AGENTS_CONTROLLER_SECRET"
                    )
                _current = Server(
                    base_url=settings.server_url.rstrip("/"), controller_secret=settings.controller_secret
                )
            else:
                _current = start_server()
                atexit.register(stop_current_server)
        return _current


def stop_current_server() -> None:
    """Stop this process's server (if it started one)."""
    global _current
    with _lock:
        if _current is not None:
            _current.stop()
            _current = None
