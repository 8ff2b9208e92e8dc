"""The `random` built-in agent (a floor): seeded, so the same seed gives the same actions, and its
runs write valid agent bundles. Both runs use one humantrace server started here, through the
setting that points the tasks at a running server (`HUMANTRACE_AGENTS_SERVER_URL`)."""

from __future__ import annotations

import json

import pytest

from humantrace.agentruns.agents import RandomAgent
from humantrace.agentruns.server import start_server
from humantrace.exports.agent_bundle import ENDED_BY, read_agent_bundle
from humantrace.exports.agents import import_agent_runs
from tests.agentruns.helpers import cli
from tests.agentruns.test_oracle_run import _human_schema_check

TASK = "shop-002"  # at seed 42 its stream acts for all MAX_STEPS steps (shop-001's stops at once)
MAX_STEPS = 4

# An observation as BrowserGym gives it: per-bid properties (clickable, visibility).
OBS = {
    "extra_element_properties": {str(b): {"clickable": True, "visibility": 1.0} for b in range(40)}
    | {"hidden": {"clickable": True, "visibility": 0.0}, "text": {"clickable": False, "visibility": 1.0}}
}


def _actions(seed: int, n: int = 30, task_id: str | None = None) -> list[str]:
    agent = RandomAgent(seed=seed, stop_probability=0.0)
    if task_id is not None:
        agent.begin(task_id=task_id, condition="clean", seed=42)
    return [agent.get_action(OBS) for _ in range(n)]


def test_random_agent_actions_follow_its_seed():
    assert _actions(7) == _actions(7)
    assert _actions(7) != _actions(8)
    assert _actions(7, task_id="shop-001") == _actions(7, task_id="shop-001")
    assert _actions(7, task_id="shop-001") != _actions(7, task_id="shop-002")
    # Only visible clickable elements are acted on, with BrowserGym's high-level actions.
    actions = _actions(3, 200)
    assert not any("'hidden'" in a or "'text'" in a for a in actions)
    assert {a.split("(")[0] for a in actions} == {"click", "fill", "scroll"}


@pytest.fixture(scope="module")
def running_server():
    server = start_server()
    yield server
    server.stop()


@pytest.mark.browser
@pytest.mark.timeout(1500)
def test_random_agent_runs_reproducibly_into_a_valid_bundle(running_server, tmp_path):
    env = {
        "HUMANTRACE_AGENTS_SERVER_URL": running_server.base_url,
        "HUMANTRACE_AGENTS_CONTROLLER_SECRET": running_server.controller_secret,
    }
    args = (
        "agents",
        "run",
        "--agent",
        "random",
        "--tasks",
        TASK,
        "--conditions",
        "clean",
        "--seed",
        "42",
        "--max-steps",
        str(MAX_STEPS),
    )
    first, second = tmp_path / "first", tmp_path / "second"
    cli(*args, "--out", str(first), env=env)
    cli(*args, "--out", str(second), env=env)
    # Resumable: the same arguments again find the episode finished, run nothing, change no table.
    manifest = json.loads((first / "manifest.json").read_text())
    again_run = cli(*args, "--out", str(first), env=env)
    assert "0 passed, 0 failed this run" in again_run.stdout
    assert json.loads((first / "manifest.json").read_text())["files"] == manifest["files"]

    tables = read_agent_bundle(first)  # every table present, each matching its manifest sha256
    episodes = tables["episodes"]
    assert episodes["task_id"].tolist() == [TASK]
    assert set(episodes["model"]) == {"random"} and (episodes["seed"] == 42).all()
    assert episodes["error"].isna().all(), episodes["error"].tolist()
    # "pass" ends an episode only under --stop-at-first-pass.
    assert set(episodes["ended_by"]) <= set(ENDED_BY) - {"error", "pass"}
    assert (episodes["steps"] >= 1).all() and (episodes["steps"] <= MAX_STEPS).all()
    assert (episodes["raw_events"] > 0).all()  # the recorder saw the episodes
    actions = tables["actions"]
    assert set(actions["attempt_id"]) == set(episodes["attempt_id"])
    assert set(actions["verb"]) <= {"click", "fill", "scroll", "send_msg_to_user"}
    assert {"click", "fill"} & set(actions["verb"])

    # Same recorder as people: the episode's raw and cleaned traces pass the human bundle's schema.
    _human_schema_check(tables, tmp_path)

    # The Appendix I failure-mode features come from the episodes themselves: every failed run is classified.
    runs = import_agent_runs(first)
    assert runs.errors == []
    failed = runs.runs[~runs.runs["passed"]]
    assert len(failed) >= 1 and failed["failure_mode"].notna().all(), failed.to_dict(orient="records")

    # Same seed, same actions: the instance is the same and so is the agent's stream. A step whose
    # outcome differs (BrowserGym's 500 ms click timeout on a loaded machine) can change the page and
    # so the later choices; up to that step, and including the action chosen there, they agree.
    again = read_agent_bundle(second, tables=["actions"])["actions"]
    assert set(again["attempt_id"]) == set(actions["attempt_id"])
    for attempt_id, mine in actions.groupby("attempt_id"):
        mine = mine.sort_values("step").reset_index(drop=True)
        theirs = again[again["attempt_id"] == attempt_id].sort_values("step").reset_index(drop=True)
        same_outcome = [
            i
            for i in range(min(len(mine), len(theirs)))
            if mine.at[i, "error"] is None
            and theirs.at[i, "error"] is None
            and mine.at[i, "url"] == theirs.at[i, "url"]
        ]
        agree = next(
            (i for i in range(min(len(mine), len(theirs))) if i not in same_outcome),
            min(len(mine), len(theirs)) - 1,
        )
        assert mine["action"][: agree + 1].tolist() == theirs["action"][: agree + 1].tolist()
