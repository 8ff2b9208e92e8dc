"""Where the running server is: `humantrace serve` leaves its public URL in the data directory.

Commands that print URLs for pages to open (`recordings new`) read it, so a server started with
`--port 9001` gets snippets that point at port 9001 even when the shell running the command
has no `HUMANTRACE_PORT`.
"""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

FILE_NAME = "server.json"


@dataclass(frozen=True)
class RunningServer:
    """A server that announced itself: its public URL and process id."""

    public_url: str
    pid: int


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, another user's
    return True


@contextmanager
def announced(data_dir: Path, public_url: str):
    """Write the server's URL and pid for the time the block runs; removed afterwards."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / FILE_NAME
    path.write_text(json.dumps({"public_url": public_url, "pid": os.getpid()}), encoding="utf-8")
    try:
        yield path
    finally:
        try:
            if json.loads(path.read_text(encoding="utf-8")).get("pid") == os.getpid():
                path.unlink()
        except (OSError, ValueError):
            pass


def running_server(data_dir: Path) -> RunningServer | None:
    """The server serving this data directory now, or None (none announced, or it has exited)."""
    try:
        found = json.loads((data_dir / FILE_NAME).read_text(encoding="utf-8"))
        server = RunningServer(public_url=str(found["public_url"]).rstrip("/"), pid=int(found["pid"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return server if _alive(server.pid) else None
