"""Our task-conditions are BrowserGym tasks: `gym.make` works in a fresh process, the env seed is
the study seed whatever `reset` is given, the goal is the humans' instruction, and a test agent
written only against BrowserGym's public API completes an easy task through `agents run`.

The end protocol is the humans' (`agentruns.protocol`), inside the task: an agent that reaches the
goal and then undoes it fails, with `passed_midway`, through plain gymnasium (ending with a done
alias its own action set defines) as through `agents run`; `--stop-at-first-pass` stops at the pass
and says so in the bundle, and a bundle never holds both protocols."""

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

# The humans' protocol through plain gymnasium: the undo agent adds the charger, deletes it again
# and ends with `finish()`, the done action of its own action set, which writes nothing to the chat.
from browsergym.core.action.highlevel import HighLevelActionSet
from tests.agentruns.axtree_agent import AXTreeUndoAgent
actions = HighLevelActionSet(subsets=["chat", "infeas", "bid", "nav"], multiaction=False)
def mapping(action):
    return "pass" if action.startswith("finish(") else actions.to_python_code(action)
env = gym.make("humantrace.agentruns.gym:browsergym/humantrace.shop-001.clean", action_mapping=mapping)
agent = AXTreeUndoAgent(done_action="finish")
obs, info = env.reset()
steps = []
for _ in range(30):
    action, _info = agent.get_action(obs)
    obs, reward, terminated, truncated, info = env.step(action)
    steps.append({"action": action, "reward": reward, "error": obs["last_action_error"]})
    if terminated or truncated:
        break
out["undo"] = {"steps": steps, "terminated": terminated, "truncated": truncated,
               "task_info": info["task_info"],
               "chat": [m["role"] for m in env.unwrapped.chat.messages]}
env.close()

# The step limit is the task's too (a task kwarg): the last allowed action truncates the episode,
# scored on its final state.
env = gym.make("humantrace.agentruns.gym:browsergym/humantrace.shop-001.clean", task_kwargs={"max_steps": 1})
env.reset()
obs, reward, terminated, truncated, info = env.step("noop(100)")
out["limit"] = {"reward": reward, "terminated": terminated, "truncated": truncated, "task_info": info["task_info"]}
env.close()
print("RESULT " + json.dumps(out))
"""


def _add_and_delete_steps(verbs: list[str]) -> tuple[int, int]:
    """The undo agent's clicks are, in order: the product link, Add to cart, the cart, Delete."""
    clicks = [i for i, verb in enumerate(verbs) if verb == "click"]
    assert len(clicks) == 4, verbs
    return clicks[1], clicks[3]


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

    # Reached the goal, undid it, declared it done with the alias: scored on the final state, failed.
    undo = result["undo"]
    steps = undo["steps"]
    assert undo["terminated"] is True and undo["truncated"] is False, steps
    assert steps[-1]["action"].startswith("finish(")  # the alias ended it, nothing after it
    assert "assistant" not in undo["chat"][1:]  # not by a chat message (the first is BrowserGym's greeting)
    info = undo["task_info"]
    assert (info["ended_by"], info["passed"], info["protocol"], steps[-1]["reward"]) == (
        "message",
        False,
        "final_state",
        0.0,
    ), info
    add, delete = _add_and_delete_steps([s["action"].split("(")[0] for s in steps])
    assert info["passed_midway"] is True and add <= info["passed_midway_step"] < delete, (info, steps)
    assert steps[info["passed_midway_step"]]["reward"] == 1.0  # the live reward said so at the time

    limit = result["limit"]
    assert (limit["terminated"], limit["truncated"], limit["reward"]) == (False, True, 0.0)
    assert (limit["task_info"]["ended_by"], limit["task_info"]["steps"]) == ("step_limit", 1)


def _run(out, *flags: str, ok: bool = True):
    return cli(
        "agents",
        "run",
        "--agent",
        "tests.agentruns.axtree_agent:make_undo",
        "--tasks",
        "shop-001",
        "--conditions",
        "clean",
        "--out",
        str(out),
        *flags,
        ok=ok,
    )


@pytest.mark.timeout(1200)
def test_an_agent_on_browsergym_public_api_completes_an_easy_task_and_is_scored_at_its_end(tmp_path):
    # Stopped at the first pass (the training option): the episode ends the moment the state passes.
    first = tmp_path / "first-pass"
    _run(first, "--stop-at-first-pass")
    tables = read_agent_bundle(first)
    episode = tables["episodes"].iloc[0]
    assert episode["model"] == "axtree-undo-agent"
    assert bool(episode["passed"]), tables["actions"][["action", "error"]].to_dict(orient="records")
    assert (episode["ended_by"], episode["protocol"], bool(episode["passed_midway"])) == (
        "pass",
        "first_pass",
        False,
    )
    verbs = tables["actions"]["verb"].tolist()
    assert (
        verbs[:2] == ["fill", "press"] and verbs.count("click") in (2, 3) and "send_msg_to_user" not in verbs
    )
    manifest = json.loads((first / "manifest.json").read_text())
    assert (manifest["protocol"], manifest["settings"]["protocol"], manifest["schema_version"]) == (
        "first_pass",
        "first_pass",
        "1.3",
    )
    # The recorder saw the agent act, as it sees a person: a fill and clicks in the cleaned trace.
    clean = tables["events_clean"]
    assert "fill" in set(clean["type"]) and "click" in set(clean["type"])
    assert clean.loc[clean["type"] == "fill", "value"].str.contains("Arcline").any()

    # The same folder under the humans' protocol is refused: one bundle, one protocol.
    refused = _run(first, ok=False)
    assert refused.returncode == 1
    assert "holds 1 episode(s) that ended under the first_pass protocol; this run uses final_state" in (
        refused.stderr + refused.stdout
    ).replace("\n", " ")

    # The humans' protocol (the default): the agent goes on, deletes the charger, says it is done.
    final = tmp_path / "final-state"
    done = _run(final)
    assert "0 passed, 1 failed this run" in done.stdout
    tables = read_agent_bundle(final)
    episode = tables["episodes"].iloc[0]
    actions = tables["actions"]
    verbs = actions["verb"].tolist()
    add, delete = _add_and_delete_steps(verbs)
    assert (episode["ended_by"], bool(episode["passed"]), episode["protocol"]) == (
        "message",
        False,
        "final_state",
    ), actions[["action", "error"]].to_dict(orient="records")
    assert episode["terminal_verb"] == "send_msg_to_user" and episode["failed_positive_checks"] == 1
    assert bool(episode["passed_midway"]) and add <= episode["passed_midway_step"] < delete
    assert actions.loc[actions["step"] == episode["passed_midway_step"], "reward"].item() == 1.0
    assert json.loads((final / "manifest.json").read_text())["protocol"] == "final_state"
