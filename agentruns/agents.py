"""Agents the runner drives: any BrowserGym-style agent, and the built-in oracle, random and replay.

An agent is an object with `get_action(obs) -> str` (or `(str, info)`, as AgentLab's agents
return). Its actions go through BrowserGym's action mapping: the agent's own `action_set`
(anything with `to_python_code`, as AgentLab's agents carry), else BrowserGym's high-level action
set (`click('12')`, `fill('12', 'text')`, `send_msg_to_user('...')`, ...). An agent whose
`action_set` is None sends raw Playwright code (the replay agent). `--agent module:factory`
names a callable that returns such an agent; it may take the episode's `seed` keyword. The module
is found as `python -m` finds it (the current folder first, then `sys.path`);
`--agent path/to/agent.py:factory` loads a file instead. The runner calls the factory once per
worker process and reuses the agent for that process's episodes, calling its `reset()` and
`begin(...)` (when it has them) as each begins (`agentruns.runner._agent_for`).

The oracle is privileged: it runs the task's oracle solution (BrowserGym's `cheat`) and then says
it is done. It exists to prove the plumbing and to report what the intervention costs a competent
solver; it is not an agent to compare with.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import json
import os
import random
import sys
from collections.abc import Callable
from pathlib import Path
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


def _is_file_spec(target: str) -> bool:
    return target.endswith(".py") or "/" in target or os.sep in target


def _load_file(spec: str, target: str) -> Any:
    """The module in file `target`, loaded as `python path/to/agent.py` would (its folder first on
    `sys.path`, so it can import its neighbours), under its file name when that name is free."""
    path = Path(target).expanduser().resolve()
    if not path.is_file():
        raise AgentLoadError(f"--agent {spec!r}: no file {path}")
    name = path.stem if path.stem.isidentifier() else "agent_module"
    loaded = sys.modules.get(name)
    if loaded is not None and Path(getattr(loaded, "__file__", "") or "").resolve() == path:
        return loaded
    if loaded is not None:
        name = f"humantrace_agent_{abs(hash(str(path)))}"
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise AgentLoadError(f"--agent {spec!r}: {path} is not a Python module")
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise AgentLoadError(
            f"--agent {spec!r}: importing {path} failed: {type(exc).__name__}: {exc}"
        ) from exc
    return module


def _load_module(spec: str, module_name: str) -> Any:
    """Module `module_name`, found as `python -m` finds it: the current folder first, then `sys.path`."""
    here = os.getcwd()
    if here not in sys.path:
        sys.path.insert(0, here)
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            raise AgentLoadError(
                f"--agent {spec!r}: no module {module_name!r} in the current folder ({here}) or on "
                f"sys.path; for a file elsewhere give its path: --agent path/to/{module_name.split('.')[-1]}.py:"
                f"{spec.rpartition(':')[2]}"
            ) from exc
        raise AgentLoadError(
            f"--agent {spec!r}: importing {module_name} failed: {type(exc).__name__}: {exc}"
        ) from exc
    except Exception as exc:
        raise AgentLoadError(
            f"--agent {spec!r}: importing {module_name} failed: {type(exc).__name__}: {exc}"
        ) from exc


def import_factory(spec: str) -> Callable[..., Any]:
    """The callable named by `module:factory` or `path/to/file.py:factory`."""
    target, _, attr = spec.rpartition(":")
    if not target or not attr or not attr.isidentifier():
        raise AgentLoadError(
            f"--agent {spec!r}: use one of {', '.join(BUILT_IN)}, module:factory or path/to/agent.py:factory"
        )
    module = _load_file(spec, target) if _is_file_spec(target) else _load_module(spec, target)
    factory = getattr(module, attr, None)
    if not callable(factory):
        where = getattr(module, "__file__", None) or module.__name__
        raise AgentLoadError(f"--agent {spec!r}: {where} has no callable {attr!r}")
    return factory


def absolute_spec(spec: str) -> str:
    """`spec` with a relative file path made absolute, so worker processes load the same file."""
    target, sep, attr = spec.rpartition(":")
    if sep and _is_file_spec(target):
        return f"{Path(target).expanduser().resolve()}:{attr}"
    return spec


def load_agent(spec: str, *, seed: int, human_bundle: str | None = None) -> Any:
    """The agent named by `spec`: a built-in name, `module:factory` or `path/to/agent.py:factory`."""
    if spec == "oracle":
        return OracleAgent()
    if spec == "random":
        return RandomAgent(seed=seed)
    if spec == "replay":
        from humantrace.agentruns.replay import ReplayAgent

        if not human_bundle:
            raise AgentLoadError("the replay agent needs --human BUNDLE (a human reference bundle)")
        return ReplayAgent(human_bundle)
    factory = import_factory(spec)
    takes_seed = "seed" in inspect.signature(factory).parameters
    agent = factory(seed=seed) if takes_seed else factory()
    if not callable(getattr(agent, "get_action", None)):
        raise AgentLoadError(
            f"--agent {spec!r}: the factory returned {type(agent).__name__}, which has no get_action(obs)"
        )
    return agent


def agent_name(agent: Any, spec: str) -> str:
    """The `model` column: the agent's `name` (or `model_name`), else the spec (a file spec by its
    file's name, `agent.py:factory`, so the column does not depend on where the file lies)."""
    for attr in ("name", "model_name"):
        value = getattr(agent, attr, None)
        if isinstance(value, str) and value:
            return value
    target, sep, factory = spec.rpartition(":")
    if sep and _is_file_spec(target):
        return f"{Path(target).name}:{factory}"
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
