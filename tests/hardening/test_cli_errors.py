"""Wrong targets and inputs on the command line: a non-zero exit and one line saying why, never a
traceback. Each case runs the real `humantrace` command in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def cli(kit, sqlite_template, tmp_path, monkeypatch):
    """run(*args) -> how `humantrace ARGS` ended, on a migrated SQLite database with a study.

    In this process (a subprocess per case would take minutes on two busy cores); an exception
    that escaped the command would show as `Traceback` here, as it would in a terminal. One case
    below also runs the real command in a subprocess."""
    from typer.testing import CliRunner

    from humantrace.core.db import make_engine
    from humantrace.dashboard.cli import app

    kit.register_lab()
    url = kit.copy_template(sqlite_template, tmp_path / "db")
    engine = make_engine(url)
    kit.make_study(engine)
    engine.dispose()
    env = kit.serve_env(data_dir=tmp_path / "data", database_url=url, COLUMNS="200")
    for name, value in env.items():
        if name.startswith("HUMANTRACE_") or name == "COLUMNS":
            monkeypatch.setenv(name, value)
    runner = CliRunner()

    def run(*args: str) -> Ran:
        result = runner.invoke(app, list(args))
        stdout = result.stdout
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            stdout += "".join(traceback.format_exception(result.exception))
        return Ran(result.exit_code, stdout, result.stderr)

    run.env = env
    return run


def assert_refused(result, says: str) -> None:
    everything = result.stdout + result.stderr
    assert result.returncode != 0, f"exit 0:\n{everything}"
    assert "Traceback" not in everything and "╭" not in everything, everything
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error:"), f"not one line:\n{result.stderr}"
    assert says in lines[0], lines[0]


def human_bundle(out: Path) -> Path:
    from humantrace.exports.bundle import BundleWriter

    attempts = pd.DataFrame(
        {
            "attempt_id": [1, 2],
            "annotator": ["A1", "A2"],
            "env_id": ["shop", "shop"],
            "task_id": ["T1", "T1"],
            "difficulty": ["easy", "easy"],
            "condition": ["clean", "intervention"],
            "phase": ["cold", "cold"],
            "tier": ["primary", "primary"],
            "assignment_id": [1, 2],
            "wall_clock_s": [30.0, 40.0],
            "raw_events": [3, 4],
            "score": [1.0, 0.0],
            "passed": [True, False],
            "outcome": ["evaluated", "evaluated"],
            "rolled_back": [False, False],
        }
    )
    with BundleWriter(out, formats=("parquet",)) as writer:
        writer.append("attempts", attempts)
        writer.close()
    return out


def test_export_bundle_to_a_wrong_place(cli, kit, tmp_path):
    a_file = tmp_path / "taken.txt"
    a_file.write_text("mine")
    real = subprocess.run(
        [sys.executable, "-c", kit.CLI_SCRIPT, "export", "bundle", str(a_file)],
        env=cli.env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert_refused(real, "is a file")
    assert_refused(cli("export", "bundle", str(a_file)), "is a file")
    assert a_file.read_text() == "mine"
    assert_refused(cli("export", "bundle", str(a_file / "bundle")), "cannot create")
    assert_refused(cli("export", "bundle", "/proc/humantrace-bundle"), "cannot create")

    used = tmp_path / "used"
    used.mkdir()
    (used / "notes.txt").write_text("keep me")
    assert_refused(cli("export", "bundle", str(used)), "not empty")
    assert sorted(p.name for p in used.iterdir()) == ["notes.txt"]

    forced = cli("export", "bundle", str(used), "--force")
    assert forced.returncode == 0, forced.stdout + forced.stderr
    assert (used / "notes.txt").read_text() == "keep me" and (used / "manifest.json").is_file()
    again = cli("export", "bundle", str(used), "--force", "--format", "csv")
    assert again.returncode == 0, again.stdout + again.stderr
    assert not list(used.glob("*.parquet")), "the replaced bundle's Parquet files must go"


def test_compare_with_a_wrong_out_or_agents(cli, tmp_path):
    human = human_bundle(tmp_path / "human")
    good = tmp_path / "agents.jsonl"
    run = {
        "model": "m1",
        "task": "T1",
        "env": "shop",
        "difficulty": "easy",
        "condition": "clean",
        "score": 1.0,
        "steps": 4,
        "elapsed_s": 9.0,
        "source_variant": "",
    }
    good.write_text(json.dumps(run) + "\n")
    rejected = tmp_path / "rejected.csv"
    rejected.write_text(
        "model,task,env,difficulty,condition,score,steps,elapsed_s,source_variant\n"
        "m2,T1,shop,easy,clean,7,4,9,\nm2,T1,shop,weird,clean,1,4,9,\n"
    )

    a_file = tmp_path / "report.txt"
    a_file.write_text("mine")
    base = ["compare", "--human", str(human), "--bootstrap", "20"]
    assert_refused(cli(*base, "--agents", str(good), "--out", str(a_file)), "is a file")
    used = tmp_path / "used"
    used.mkdir()
    (used / "old.txt").write_text("x")
    assert_refused(cli(*base, "--agents", str(good), "--out", str(used)), "not empty")
    assert_refused(
        cli(*base, "--agents", str(tmp_path / "missing.csv"), "--out", str(tmp_path / "o1")), "not found"
    )
    assert_refused(
        cli(*base, "--agents", str(good), "--agents", str(rejected), "--out", str(tmp_path / "o2")),
        "no agent run could be imported",
    )

    fine = cli(*base, "--agents", str(good), "--out", str(tmp_path / "o3"))
    assert fine.returncode == 0, fine.stdout + fine.stderr
    assert (tmp_path / "o3" / "report.html").is_file()


def test_annotators_add_with_an_unknown_designed_environment(cli):
    assert_refused(
        cli("annotators", "add", "Z9", "--designed", "nosuchenv"), "unknown environment(s) nosuchenv"
    )
    listed = cli("annotators", "list")
    assert "Z9" not in listed.stdout
    added = cli("annotators", "add", "Z8", "--designed", "lab")
    assert added.returncode == 0, added.stdout + added.stderr


def test_agents_run_writes_only_inside_a_real_out_directory(cli, tmp_path):
    """`agents run --out` refuses a file, a link, and a link where it writes, before any episode."""
    a_file = tmp_path / "taken.txt"
    a_file.write_text("mine")
    base = ["agents", "run", "--agent", "oracle", "--tasks", "lab-001", "--conditions", "clean"]
    assert_refused(cli(*base, "--out", str(a_file)), "is a file")
    assert_refused(cli(*base, "--out", str(a_file / "bundle")), "cannot create")
    assert a_file.read_text() == "mine"

    real = tmp_path / "real"
    real.mkdir()
    linked = tmp_path / "linked"
    linked.symlink_to(real, target_is_directory=True)
    assert_refused(cli(*base, "--out", str(linked)), "is a symbolic link")
    assert list(real.iterdir()) == []

    outside = tmp_path / "outside.json"
    outside.write_text("keep me")
    for name in ("manifest.json", "episodes.csv", ".episodes"):
        out = tmp_path / f"with-{name}"
        out.mkdir()
        (out / name).symlink_to(outside)
        assert_refused(cli(*base, "--out", str(out)), f"{out / name} is a symbolic link")
        assert outside.read_text() == "keep me"
    saved = tmp_path / "with-saved-episode"
    (saved / ".episodes").mkdir(parents=True)
    (saved / ".episodes" / "123.json").symlink_to(outside)
    assert_refused(cli(*base, "--out", str(saved)), "123.json is a symbolic link")
