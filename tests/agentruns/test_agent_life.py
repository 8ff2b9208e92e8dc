"""How often `agents run` builds an agent, how it tells the agent an episode begins, what names
the `model` column, and what an episode records of how it ended (final_thought, task_seed)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from humantrace.agentruns import runner
from humantrace.agentruns.runner import RunConfig, plan
from humantrace.agentruns.server import start_server
from humantrace.exports.agent_bundle import read_agent_bundle
from tests.agentruns import counting_agent
from tests.agentruns.helpers import cli

AGENT = str(Path(counting_agent.__file__).resolve()) + ":make"


@pytest.fixture
def log(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "calls.jsonl"
    path.touch()
    monkeypatch.setenv(counting_agent.LOG, str(path))
    monkeypatch.setattr(runner, "_agents", {})  # a fresh process: no agent built yet
    return path


def test_one_process_builds_the_agent_once_and_model_names_the_column(log, tmp_path):
    config = RunConfig(
        agent=AGENT, out=str(tmp_path / "out"), tasks="shop-001,shop-002", conditions=("clean",)
    )
    model, specs = plan(config)
    # No `name`/`model_name` on the agent: the column is the spec, a file by its name.
    assert model == "counting_agent.py:make" and len(specs) == 2
    # With one worker the episodes run in this process and reuse the agent the plan built.
    assert runner._agent_for(config) is runner._agent_for(config)
    assert [c["call"] for c in counting_agent.calls(log)] == ["factory"]

    # --model names the column, and the parent need not build the agent to learn it.
    runner._agents.clear()
    named = RunConfig(**{**config.__dict__, "model": "gpt-x-2026"})
    model, specs = plan(named)
    assert model == "gpt-x-2026" and {s.key(model) for s in specs} != {
        s.key("counting_agent.py:make") for s in specs
    }
    assert [c["call"] for c in counting_agent.calls(log)] == ["factory"]


@pytest.fixture(scope="module")
def running_server():
    server = start_server()
    yield server
    server.stop()


@pytest.mark.browser
@pytest.mark.timeout(1200)
def test_agents_run_builds_one_agent_per_worker_and_keeps_the_infeasible_reason(
    running_server, log, tmp_path
):
    out = tmp_path / "bundle"
    cli(
        "agents",
        "run",
        "--agent",
        AGENT,
        "--tasks",
        "shop-001,shop-002",
        "--conditions",
        "clean",
        "--workers",
        "2",
        "--model",
        "ending-agent-v1",
        "--out",
        str(out),
        env={
            counting_agent.LOG: str(log),
            "HUMANTRACE_AGENTS_SERVER_URL": running_server.base_url,
            "HUMANTRACE_AGENTS_CONTROLLER_SECRET": running_server.controller_secret,
        },
    )
    calls = counting_agent.calls(log)
    factories = [c for c in calls if c["call"] == "factory"]
    begins = [c for c in calls if c["call"] == "begin"]
    # Once per worker process, never in the parent (--model gave the name); each episode is
    # announced to the worker's agent: reset, then begin with the task.
    assert factories and all(c["worker"] for c in factories)
    assert len({c["pid"] for c in factories}) == len(factories) <= 2
    assert {c["pid"] for c in begins} <= {c["pid"] for c in factories}
    assert sorted(c["task_id"] for c in begins) == ["shop-001", "shop-002"]
    assert [c["call"] for c in calls].count("reset") == 2
    assert os.getpid() not in {c["pid"] for c in calls}

    episodes = read_agent_bundle(out, tables=["episodes"])["episodes"].set_index("task_id")
    assert set(episodes["model"]) == {"ending-agent-v1"}
    assert all(r.startswith("ending-agent-v1/") for r in episodes["run_id"])
    assert episodes.loc["shop-002", "ended_by"] == "infeasible"
    assert episodes.loc["shop-002", "final_thought"] == counting_agent.INFEASIBLE_REASON
    assert episodes.loc["shop-001", "ended_by"] == "message"
    assert episodes.loc["shop-001", "final_thought"] == counting_agent.DONE_MESSAGE
    # `agents run` passes the env seed to reset, and the episode records what reset was given.
    assert episodes["task_seed"].tolist() == [42, 42] and episodes["seed"].tolist() == [42, 42]
