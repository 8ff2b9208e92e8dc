"""Agents the runner drives: any BrowserGym-style agent, and the built-in oracle, random and replay.

An agent is an object with `get_action(obs) -> str` (or `(str, info)`, as AgentLab's agents
return). Its actions go through BrowserGym's action mapping: the agent's own `action_set`
(anything with `to_python_code`, as AgentLab's agents carry), else BrowserGym's high-level action
set (`click('12')`, `fill('12', 'text')`, `send_msg_to_user('...')`, ...). An agent whose
`action_set` is None sends raw Playwright code (the replay agent). `--agent module:factory`
names a callable that returns such an agent; it may take the episode's `seed` keyword.

The oracle is privileged: it runs the task's oracle solution (BrowserGym's `cheat`) and then says
it is done. It exists to prove the plumbing and to report what the intervention costs a competent
solver; it is not an agent to compare with.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import random
from collections.abc import Callable
from typing import Any

from browsergym.core.action.highlevel import HighLevelActionSet

DEFAULT_ACTION_SET = HighLevelActionSet(subsets=["chat", "infeas", "bid", "nav", "tab"], multiaction=False)
BUILT_IN = ("oracle", "random", "replay")
# The oracle solution waits as long as it does in the oracle tests (Playwright's default, 30 s),
# not the agent's 10 s action timeout: on a loaded machine a page can take longer than 10 s.
ORACLE_TIMEOUT_MS = 30_000


class AgentLoadError(ValueError):
    """`--agent` does not name a built-in agent or an importable `module:factory`."""


class OracleAgent:
    """Runs the task's oracle solution, then tells the user it is done."""

    name = "oracle"
    privileged = True

    def solve(self, env: Any) -> str:
        """Run the oracle in the agent's page; returns the action text logged for it."""
        browser_env = env.unwrapped
        task = browser_env.task
        browser_env.context.set_default_timeout(ORACLE_TIMEOUT_MS)
        try:
            task.cheat(browser_env.page, browser_env.chat.messages)
        finally:
            browser_env.context.set_default_timeout(task.timeout)
        return f"cheat({task.task_id!r})"

    def get_action(self, obs: dict) -> str:
        return "send_msg_to_user('Done.')"


class RandomAgent:
    """Seeded random clicks, fills and scrolls on the elements BrowserGym marked: a floor.

    Each episode's random stream is seeded from (seed, task id, condition), so the same seed gives
    the same actions on the same pages, and two tasks with the same start page are not played
    with the same actions.
    """

    name = "random"

    def __init__(self, seed: int = 0, stop_probability: float = 0.05) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.stop_probability = stop_probability

    def begin(self, *, task_id: str, condition: str, seed: int) -> None:
        """Seed this episode's stream (the runner calls this after the environment is reset)."""
        key = f"{self.seed}\x00{task_id}\x00{condition}\x00{seed}".encode()
        self.rng = random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))

    def get_action(self, obs: dict) -> str:
        if self.rng.random() < self.stop_probability:
            return "send_msg_to_user('I am done.')"
        props = obs.get("extra_element_properties") or {}
        clickable = sorted(
            bid for bid, p in props.items() if p.get("clickable") and (p.get("visibility") or 0) > 0.5
        )
        choice = self.rng.random()
        if not clickable or choice < 0.1:
            return f"scroll(0, {self.rng.choice([-400, 400])})"
        bid = self.rng.choice(clickable)
        if choice < 0.3:
            return f"fill({bid!r}, {self.rng.choice(['1', 'test', 'yes'])!r})"
        return f"click({bid!r})"


def load_agent(spec: str, *, seed: int, human_bundle: str | None = None) -> Any:
    """The agent named by `spec`: a built-in name, or `module:factory`."""
    if spec == "oracle":
        return OracleAgent()
    if spec == "random":
        return RandomAgent(seed=seed)
    if spec == "replay":
        from agentruns.replay import ReplayAgent

        if not human_bundle:
            raise AgentLoadError("the replay agent needs --human BUNDLE (a human reference bundle)")
        return ReplayAgent(human_bundle)
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise AgentLoadError(f"--agent {spec!r}: use one of {', '.join(BUILT_IN)} or module:factory")
    try:
        factory: Callable[..., Any] = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise AgentLoadError(f"--agent {spec!r}: cannot import {attr} from {module_name} ({exc})") from exc
    takes_seed = "seed" in inspect.signature(factory).parameters
    agent = factory(seed=seed) if takes_seed else factory()
    if not callable(getattr(agent, "get_action", None)):
        raise AgentLoadError(
            f"--agent {spec!r}: the factory returned {type(agent).__name__}, which has no get_action(obs)"
        )
    return agent


def agent_name(agent: Any, spec: str) -> str:
    """The `model` column: the agent's `name` (or `model_name`), else the spec."""
    for attr in ("name", "model_name"):
        value = getattr(agent, attr, None)
        if isinstance(value, str) and value:
            return value
    return spec


def action_mapping(agent: Any) -> Callable[[str], str] | None:
    """How the agent's action strings become code: its action set, raw code, or BrowserGym's set."""
    if hasattr(agent, "action_set"):
        action_set = agent.action_set
        return None if action_set is None else action_set.to_python_code
    return DEFAULT_ACTION_SET.to_python_code


def split_action(result: Any) -> tuple[str, dict]:
    """(action, agent info) from what `get_action` returned."""
    if isinstance(result, tuple) and len(result) == 2:
        action, info = result
        info = info if isinstance(info, dict) else {"info": str(info)}
    else:
        action, info = result, {}
    if not isinstance(action, str):
        raise TypeError(f"get_action returned {type(action).__name__}, not an action string")
    return action, json.loads(json.dumps(info, default=str))
