"""Our task-conditions are BrowserGym tasks: `gym.make` works in a fresh process, the env seed is
the study seed whatever `reset` is given, the goal is the humans' instruction, and a test agent
written only against BrowserGym's public API completes an easy task through `agents run`."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from humantrace.exports.agent_bundle import read_agent_bundle
from tests.agentruns.helpers import ROOT, cli

pytestmark = pytest.mark.browser

FRESH_PROCESS = """
import json, gymnasium as gym
env = gym.make("humantrace.agentruns.gym:browsergym/humantrace.shop-001.intervention")
from humantrace.environments import catalog
from humantrace.agentruns.gym import site_profiles
ids = [i for i in gym.registry if i.startswith("browsergym/humantrace.")]
# One id per task-condition and UI profile of its site.
pairs = sum((1 + (catalog.variant_for(t.task_id) is not None)) * len(site_profiles(t.task_id)) for t in catalog.list_tasks())
obs, info = env.reset(seed=1234)
task = env.unwrapped.task
page_text = env.unwrapped.page.content()
out = {"ids": len(ids), "pairs": pairs, "goal": obs["goal"], "seed": task.info["seed"], "sha": task.info["initial_sha256"],
       "instruction": task.info["instruction"], "condition": task.info["condition"],
       "has_axtree": bool(obs["axtree_object"]), "url": obs["url"],
       "leaks": [w for w in ("intervention", task.info["variant_id"]) if w in page_text]}
obs, reward, terminated, truncated, info = env.step("send_msg_to_user('I give up.')")
out.update(reward=reward, terminated=terminated)
env.close()
print("RESULT " + json.dumps(out))
"""


@pytest.mark.timeout(900)
def test_gym_make_in_a_fresh_process():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", FRESH_PROCESS],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    result = json.loads(next(line for line in done.stdout.splitlines() if line.startswith("RESULT "))[7:])
    # Counted in the fresh process: this worker's catalog also holds the tests' lab site.
    assert result["ids"] == result["pairs"] > 100
    assert result["seed"] == 42 and result["condition"] == "intervention"  # reset(seed=1234) changed nothing
    assert result["goal"] == result["instruction"] and "Arcline" in result["goal"]
    assert result["has_axtree"] and result["url"].endswith("/env/shop/")
    assert result["leaks"] == []
    # Ending with a message scores the untouched state: a failed episode, reward 0.
    assert result["terminated"] is True and result["reward"] == 0.0


@pytest.mark.timeout(900)
def test_an_agent_on_browsergym_public_api_completes_an_easy_task(tmp_path):
    out = tmp_path / "axtree"
    cli(
        "agents",
        "run",
        "--agent",
        "tests.agentruns.axtree_agent:make",
        "--tasks",
        "shop-001",
        "--conditions",
        "clean",
        "--out",
        str(out),
    )
    tables = read_agent_bundle(out)
    episode = tables["episodes"].iloc[0]
    assert episode["model"] == "axtree-test-agent"
    assert bool(episode["passed"]), tables["actions"][["action", "error"]].to_dict(orient="records")
    assert episode["ended_by"] == "pass" and 3 <= episode["steps"] <= 10
    verbs = tables["actions"]["verb"].tolist()
    assert verbs[:2] == ["fill", "press"] and "click" in verbs
    # The recorder saw the agent act, as it sees a person: a fill and clicks in the cleaned trace.
    clean = tables["events_clean"]
    assert "fill" in set(clean["type"]) and "click" in set(clean["type"])
    assert clean.loc[clean["type"] == "fill", "value"].str.contains("Arcline").any()
