"""Importing this module registers every task-condition as a BrowserGym task.

    import gymnasium as gym
    env = gym.make("agentruns.gym:browsergym/humantrace.shop-001.clean")

(gymnasium imports the module named before the colon, so this works in a fresh process.) Ids are
`browsergym/humantrace.<task_id>.<condition>` on the default UI profile and
`browsergym/humantrace.<task_id>.<condition>.<ui_profile>` on each profile the task's site
declares; `task_id`, `condition` and `ui_profile` are frozen, `env_seed`
defaults to the study seed (`HUMANTRACE_AGENTS_SEED`, 42). Main-browser options default to
Debian's Chromium (`pw_chromium_kwargs`), and Playwright is pointed at the browsers folder that
BrowserGym's chat window needs (see `agentruns.browsers`).

The env is BrowserGym's `BrowserEnv` with two changes (`HumanTraceEnv`): the task sees the action
text before it validates (so a done alias of an agent's own action set, `finish()`, ends the
episode as `send_msg_to_user` does), and an episode that the task ended at its step limit is
`truncated` rather than `terminated`, as gymnasium's time limits are. Task kwargs: `env_seed`,
`max_steps` (40) and `protocol` (`final_state`; `first_pass` stops at the first pass, for training).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium
from browsergym.core.env import BrowserEnv
from browsergym.core.registration import frozen_partial

from humantrace.agentruns.browsers import use_debian_chromium
from humantrace.agentruns.settings import AgentSettings
from humantrace.agentruns.task import HumanTraceTask, task_name
from humantrace.environments import catalog, registry
from humantrace.environments.ui import DEFAULT_PROFILE, profiles


def task_conditions() -> list[tuple[str, str]]:
    """Every (task_id, condition) of every registered site, sorted."""
    pairs = []
    for summary in catalog.list_tasks():
        pairs.append((summary.task_id, "clean"))
        if catalog.variant_for(summary.task_id) is not None:
            pairs.append((summary.task_id, "intervention"))
    return sorted(pairs)


def site_profiles(task_id: str) -> list[str]:
    """The UI profiles of a task's site, the default first."""
    return list(profiles(registry.get(catalog.get_task(task_id).env_id)))


def task_condition_profiles() -> list[tuple[str, str, str]]:
    """Every (task_id, condition, ui_profile) of every registered site, sorted."""
    return sorted((t, c, p) for t, c in task_conditions() for p in site_profiles(t))


def gym_id(task_id: str, condition: str, ui_profile: str = DEFAULT_PROFILE) -> str:
    """The gymnasium id (`browsergym/humantrace.<task_id>.<condition>[.<ui_profile>]`)."""
    return f"browsergym/{task_name(task_id, condition, ui_profile)}"


class HumanTraceEnv(BrowserEnv):
    """BrowserGym's env, telling the task which action it validates, and truncating at the step limit."""

    def _task_validate(self):
        if isinstance(self.task, HumanTraceTask):
            self.task.last_action = self.last_action
        return super()._task_validate()

    def post_step(self, info: dict[str, Any], validate: bool = True):
        obs, reward, terminated, truncated, info = super().post_step(info, validate)
        if terminated and isinstance(self.task, HumanTraceTask) and self.task.ended_by == "step_limit":
            terminated, truncated = False, True
        return obs, reward, terminated, truncated, info


def _make_env(task_entrypoint, *args, **kwargs) -> BrowserEnv:
    # Debian's Chromium unless the caller passes its own launch options.
    settings = AgentSettings()
    launch = use_debian_chromium(settings)
    kwargs.setdefault("pw_chromium_kwargs", launch)
    kwargs.setdefault("headless", settings.headless)
    return HumanTraceEnv(task_entrypoint, *args, **kwargs)


def register_all(settings: AgentSettings | None = None) -> list[str]:
    """Register every task-condition on every UI profile of its site (idempotent); returns the
    gymnasium ids."""
    settings = settings or AgentSettings()
    ids = []
    for task_id, condition, ui_profile in task_condition_profiles():
        env_id = gym_id(task_id, condition, ui_profile)
        ids.append(env_id)
        if env_id in gymnasium.registry:
            continue
        task = frozen_partial(HumanTraceTask, task_id=task_id, condition=condition, ui_profile=ui_profile)
        entry = partial(task, env_seed=settings.seed)
        gymnasium.register(id=env_id, entry_point=partial(_make_env, entry), nondeterministic=False)
    return ids


REGISTERED = register_all()
