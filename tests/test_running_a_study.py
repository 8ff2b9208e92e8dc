"""Docs as tests: every `humantrace` command in docs/running-a-study.md runs, in order, as a lead would
type it (the real command line in its own process, `serve` in the background, the bot in Chromium),
and the study ends as a verified bundle."""

from __future__ import annotations

import csv
import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "running-a-study.md"
FENCE = re.compile(r"^```(\w+)(?: +(\S+))?\n(.*?)^```", re.MULTILINE | re.DOTALL)

pytestmark = pytest.mark.browser


def guide_steps() -> list[tuple[str, str]]:
    """("file", name + content) for each named csv block and ("run", command) for each command line, in order."""
    steps = []
    for language, name, body in FENCE.findall(GUIDE.read_text()):
        if language == "csv" and name:
            steps.append(("file", f"{name}\n{body}"))
        elif language == "bash":
            for line in body.splitlines():
                line = line.split(" #")[0].strip()
                if line:
                    steps.append(("run", line))
    return steps


def test_the_guide_has_every_step_and_only_humantrace_commands():
    commands = [value for kind, value in guide_steps() if kind == "run"]
    assert all(c.startswith("humantrace ") for c in commands), commands
    said = " ".join(commands)
    for needed in (
        "study create",
        "annotators import",
        "panel plan",
        "study open",
        "serve",
        "annotators links",
        "study close",
        "export bundle",
        "export verify",
    ):
        assert f"humantrace {needed}" in said


def test_every_command_of_the_guide_runs_and_ends_in_a_verified_bundle(tmp_path, port, monkeypatch):
    from sqlmodel import Session, select
    from typer.testing import CliRunner

    from humantrace.core.db import make_engine
    from humantrace.dashboard.cli import app
    from humantrace.dashboard.studies.models import Assignment, Study, StudyChange

    work = tmp_path / "lab"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HUMANTRACE_")}
    env.update(
        PYTHONPATH=str(ROOT),
        PYTHONUNBUFFERED="1",
        HUMANTRACE_DATA_DIR=str(work / "data"),
        HUMANTRACE_PORT=str(port),
        HUMANTRACE_HOST="127.0.0.1",
        HUMANTRACE_PUBLIC_URL=f"http://127.0.0.1:{port}",
    )
    humantrace = [sys.executable, "-m", "humantrace.dashboard.cli"]
    # `serve` runs as its own process; the other commands run in this one (the same code, without
    # paying the interpreter's start-up twenty times).
    for key in [k for k in os.environ if k.startswith("HUMANTRACE_") and k not in env]:
        monkeypatch.delenv(key)  # e.g. a secret key another test of this worker set: the server has its own
    for key, value in env.items():
        if key.startswith("HUMANTRACE_"):
            monkeypatch.setenv(key, value)
    monkeypatch.chdir(work)
    runner = CliRunner()
    server = None
    outputs: dict[str, str] = {}
    try:
        for kind, value in guide_steps():
            if kind == "file":
                name, _, content = value.partition("\n")
                (work / name).write_text(content)
                continue
            args = shlex.split(value)[1:]
            if args[0] == "serve":
                # A file, not a pipe: an unread pipe fills up and stalls the server.
                server_log = (work / "serve.log").open("w")
                server = subprocess.Popen(
                    humantrace + args,
                    env=env,
                    cwd=work,
                    stdout=server_log,
                    stderr=subprocess.STDOUT,
                    text=True,
                )
                _wait_for(f"http://127.0.0.1:{port}/login", server)
                continue
            done = runner.invoke(app, args)
            assert done.exit_code == 0, f"`{value}` failed:\n{done.output}\n{done.exception!r}"
            outputs[value] = done.output
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=20)

    links = list(csv.DictReader((work / "links.csv").open()))
    assert [r["code"] for r in links] == ["A1", "A2", "A3", "A4", "D1"] and all(
        "/login/" in r["url"] for r in links
    )
    bundle = work / "pilot-bundle"
    manifest = json.loads((bundle / "manifest.json").read_text())
    assert (
        manifest["study_settings"]["name"] == "Usability pilot" and manifest["study_settings"]["seed"] == 42
    )
    assert manifest["row_counts"]["attempts"] == 2  # the bot's cold and warm attempt
    engine = make_engine(f"sqlite:///{work / 'data' / 'humantrace.db'}")
    with Session(engine) as db:
        study = db.exec(select(Study)).one()
        assert (study.status, study.rollback_grace_seconds, study.reading_countdown_seconds) == (
            "archived",
            15,
            30,
        )
        states = db.exec(select(Assignment.state).where(Assignment.study_id == study.id)).all()
        assert states.count("completed") == 1
        # close and archive came after the first attempt: both are in the audit trail
        assert [(c.key, c.new) for c in db.exec(select(StudyChange))] == [
            ("status", "closed"),
            ("status", "archived"),
        ]
    engine.dispose()


def _wait_for(url: str, process: subprocess.Popen, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError("humantrace serve exited (see serve.log)")
        try:
            httpx.get(url, timeout=2)
            return
        except httpx.HTTPError:
            time.sleep(0.3)
    raise AssertionError("humantrace serve did not answer")
