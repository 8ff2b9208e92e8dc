"""Helpers for the agent runner tests: the `humantrace` CLI in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# One site for the suite (20 clean task-conditions); `./dev test --full` runs every site.
SITE = "shop"


def cli(
    *args: str, env: dict | None = None, timeout: float = 1500, ok: bool = True
) -> subprocess.CompletedProcess:
    """`humantrace ARGS` in a subprocess with this checkout first on the path; fails loudly unless
    `ok` is False (then the caller judges the exit code)."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", **(env or {})}
    done = subprocess.run(
        [sys.executable, "-m", "humantrace.dashboard.cli", *args],
        check=False,
        cwd=ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0 or not ok, (
        f"humantrace {' '.join(args)} failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    )
    return done
