"""Server processes tune their garbage collector; apps built inside another program do not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROBE = (
    "import gc\n"
    "before = gc.get_threshold()[0]\n"
    "{build}\n"
    "print(before, gc.get_threshold()[0], gc.get_freeze_count() > 0)\n"
)


def _probe(build: str, tmp_path: Path) -> list[str]:
    env = {
        **os.environ,
        "HUMANTRACE_RECORDER_SECRET": "probe-secret",
        "HUMANTRACE_RECORDER_DATABASE_URL": f"sqlite:///{tmp_path / 'probe.db'}",
    }
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(build=build)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_server_entry_point_freezes_and_raises_the_young_threshold(tmp_path):
    from humantrace.recorder.gc_tuning import YOUNG_THRESHOLD

    before, after, frozen = _probe(
        "from humantrace.recorder.standalone import app_from_env; app_from_env()", tmp_path
    )
    assert (int(before), int(after), frozen) == (700, YOUNG_THRESHOLD, "True")


def test_building_an_app_in_another_program_leaves_the_collector_alone(tmp_path):
    build = (
        "from humantrace.recorder.standalone import create_app; "
        f"create_app(database_url='sqlite:///{tmp_path / 'other.db'}', secret_key='probe-secret')"
    )
    assert _probe(build, tmp_path) == ["700", "700", "False"]
