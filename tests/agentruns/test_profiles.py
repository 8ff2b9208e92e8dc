"""Agents on UI profiles, on the lab test site (profiles `icon-buttons` and `kit-controls`): the
BrowserGym ids carry the profile, `agents run --profiles` crosses tasks x conditions x profiles
into episodes that carry it, the oracle passes on a profile, and an agent's page names the
profile's build but never the condition.

The lab site lives under tests/, so the server and the runner are the real `humantrace` command
line in subprocesses that register it first (as tests/hardening's servers do).
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest

from humantrace.agentruns.runner import RunConfig, RunError, cross_profiles
from humantrace.exports.agent_bundle import AGENT_SCHEMA_VERSION, read_agent_bundle
from humantrace.exports.agents import import_agent_runs
from tests.agentruns.helpers import ROOT

LAB_SITE = ROOT / "tests" / "environments" / "labsite" / "site.py"
# Registers only the lab site, then runs what follows (the CLI, or a test's own code).
LAB_ONLY = f"""
import importlib.util, sys
sys.path.insert(0, {str(ROOT)!r})
spec = importlib.util.spec_from_file_location("ht_labsite", {str(LAB_SITE)!r})
module = importlib.util.module_from_spec(spec); sys.modules["ht_labsite"] = module; spec.loader.exec_module(module)
from humantrace.environments import registry, sites
sites.SITES = []
registry.register(module.ENVIRONMENT, replace=True)
"""
LAB_CLI = (
    LAB_ONLY
    + """
from humantrace.dashboard.cli import app
app(sys.argv[1:], prog_name="humantrace")
"""
)


def test_profiles_are_crossed_with_the_sites_that_have_them():
    profiles = {"lab-001": ["default", "icon-buttons", "kit-controls"], "shop-001": ["default"]}
    pairs = [("lab-001", "clean"), ("lab-001", "intervention"), ("shop-001", "clean")]
    config = RunConfig(agent="oracle", out="x", profiles=("default", "icon-buttons"))
    assert cross_profiles(config, pairs, profiles.__getitem__) == [
        ("lab-001", "clean", "default"),
        ("lab-001", "clean", "icon-buttons"),
        ("lab-001", "intervention", "default"),
        ("lab-001", "intervention", "icon-buttons"),
        ("shop-001", "clean", "default"),  # shop has no icon-buttons: it runs on the default only
    ]
    # A profile that no selected site has is refused, naming the ones they have.
    typo = RunConfig(agent="oracle", out="x", profiles=("icon-button",))
    with pytest.raises(RunError, match="icon-button.*default, icon-buttons, kit-controls"):
        cross_profiles(typo, pairs, profiles.__getitem__)


def _run(args: list[str], env: dict[str, str], timeout: float = 1500) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-c", *args],
        check=False,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, f"{args[1:]} failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done


@pytest.fixture(scope="module")
def lab_server(tmp_path_factory) -> Iterator[dict[str, str]]:
    """`humantrace serve` with the lab site on SQLite; yields the runner's settings to reach it."""
    data = tmp_path_factory.mktemp("lab-server")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    secret = secrets.token_urlsafe(32)
    env = {
        "HUMANTRACE_ENVIRONMENT": "local",
        "HUMANTRACE_DATA_DIR": str(data),
        "HUMANTRACE_DATABASE_URL": f"sqlite:///{data / 'humantrace.db'}",
        "HUMANTRACE_SECRET_KEY": secrets.token_urlsafe(48),
        "HUMANTRACE_CONTROLLER_SECRET": secret,
        "HUMANTRACE_HOST": "127.0.0.1",
        "HUMANTRACE_PORT": str(port),
        "HUMANTRACE_PUBLIC_URL": f"http://127.0.0.1:{port}",
        "HUMANTRACE_RUN_MONITOR": "false",
    }
    _run([LAB_CLI, "db", "upgrade"], env, timeout=300)
    with (data / "server.log").open("ab") as log:
        server = subprocess.Popen(
            [sys.executable, "-c", LAB_CLI, "serve"],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT), **env},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            assert server.poll() is None, (data / "server.log").read_text(errors="replace")[-3000:]
            try:
                answer = httpx.get(url + "/control/tasks", headers={"X-Controller-Secret": secret}, timeout=5)
                if answer.status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        yield {"HUMANTRACE_AGENTS_SERVER_URL": url, "HUMANTRACE_AGENTS_CONTROLLER_SECRET": secret}
    finally:
        server.terminate()
        server.wait(timeout=30)


BLIND = """
import json, gymnasium as gym
import humantrace.agentruns.gym
ids = sorted(i for i in gym.registry if i.startswith("browsergym/humantrace.lab-001."))
env = gym.make("humantrace.agentruns.gym:browsergym/humantrace.lab-001.intervention.kit-controls")
obs, info = env.reset(seed=0)
task = env.unwrapped.task
page = env.unwrapped.page
text = page.content()
out = {
    "ids": ids,
    "profile": page.evaluate("document.documentElement.dataset.uiProfile"),
    "select": page.evaluate("document.documentElement.dataset.uiSelect"),
    "condition": task.info["condition"],
    "leaks": [w for w in ("intervention", task.info["variant_id"], "lab-001-v1") if w.lower() in text.lower()],
    "axtree_leaks": "intervention" in json.dumps(obs["axtree_object"]).lower(),
    "goal": obs["goal"] == task.info["instruction"],
}
env.close()
print("RESULT " + json.dumps(out))
"""


@pytest.mark.browser
@pytest.mark.timeout(900)
def test_an_agent_on_a_profile_sees_its_build_but_not_the_condition(lab_server):
    done = _run([LAB_ONLY + BLIND], lab_server, timeout=900)
    result = json.loads(next(line for line in done.stdout.splitlines() if line.startswith("RESULT "))[7:])
    # Every declared profile of the site has its ids; the default keeps the id without a profile.
    assert result["ids"] == [
        f"browsergym/humantrace.lab-001.{condition}{suffix}"
        for condition in ("clean", "intervention")
        for suffix in ("", ".icon-buttons", ".kit-controls")
    ]
    assert result["profile"] == "kit-controls" and result["select"] == "custom"
    assert result["condition"] == "intervention" and result["goal"]
    # The humans' blindness holds for agents on a profile too: nothing on the page names the condition.
    assert result["leaks"] == [] and result["axtree_leaks"] is False


@pytest.mark.browser
@pytest.mark.timeout(1800)
def test_the_oracle_runs_on_a_profile_through_agents_run(lab_server, tmp_path):
    out = tmp_path / "oracle"
    args = [LAB_CLI, "agents", "run", "--agent", "oracle", "--tasks", "lab-001", "--conditions", "clean"]
    args += ["--profiles", "default,icon-buttons", "--out", str(out)]
    done = _run(args, lab_server)
    assert "2 passed, 0 failed this run" in done.stdout, done.stdout[-2000:]
    episodes = read_agent_bundle(out)["episodes"].sort_values("ui_profile")
    assert episodes["ui_profile"].tolist() == ["default", "icon-buttons"]
    assert episodes["run_id"].tolist() == ["oracle/lab-001.clean.42", "oracle/lab-001.clean.icon-buttons.42"]
    assert episodes["passed"].astype(bool).all() and episodes["attempt_id"].nunique() == 2
    assert json.loads((out / "manifest.json").read_text())["schema_version"] == AGENT_SCHEMA_VERSION
    # compare's importer keeps the profile.
    runs = import_agent_runs(out).runs
    assert sorted(runs["ui_profile"]) == ["default", "icon-buttons"]
    # Resumable per profile: the same arguments run nothing again.
    again = _run(args, lab_server)
    assert "0 passed, 0 failed this run" in again.stdout
