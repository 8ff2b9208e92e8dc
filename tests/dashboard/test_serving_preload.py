"""A serve process does its one-off start-up work before the first request, not inside it.

Run in a fresh interpreter each: what is already imported by the test session would hide it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PROBE = r"""
import json, logging, sys
logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
from humantrace.environments import catalog
if sys.argv[1] == "broken":
    catalog.build_catalog = lambda envs: (catalog.Catalog(), ["shop/tasks/bad.yaml: not a task"])
from humantrace.dashboard.app import create_app_from_env
app = create_app_from_env()
print(json.dumps({
    "catalog_loaded": catalog._cache is not None,
    "preloaded": [m for m in ("networkx.algorithms.bipartite", "pyarrow.pandas_compat", "humantrace.environments.evaluator", "humantrace.cleaning") if m in sys.modules],
    "routes": len(app.routes),
}))
"""


def probe(tmp_path: Path, mode: str) -> tuple[dict, str]:
    env = {
        **os.environ,
        "HUMANTRACE_SECRET_KEY": "preload-test-secret",
        "HUMANTRACE_DATABASE_URL": f"sqlite:///{tmp_path / 'preload.db'}",
    }
    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def test_a_serve_process_loads_the_catalog_and_the_evaluator_at_start_up(tmp_path):
    result, _ = probe(tmp_path, "ok")
    assert result["catalog_loaded"] is True
    assert result["preloaded"] == [
        "networkx.algorithms.bipartite",
        "pyarrow.pandas_compat",
        "humantrace.environments.evaluator",
        "humantrace.cleaning",
    ]


def test_a_broken_catalog_is_logged_at_start_up_and_the_server_still_starts(tmp_path):
    result, log = probe(tmp_path, "broken")
    assert result["catalog_loaded"] is False and result["routes"] > 10
    assert "the task catalog has errors" in log and "shop/tasks/bad.yaml: not a task" in log
