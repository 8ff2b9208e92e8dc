"""`humantrace agents run`: many episodes, in worker processes, into one agent bundle.

Each finished episode is saved at once under `OUT/.episodes/` (one JSON file), so a run that
stops can be started again with the same arguments: finished episodes are skipped (an episode
that ended in an error is tried again). After every run the bundle's tables and manifest are
rewritten from all saved episodes. A bundle holds one end protocol (`agentruns.protocol`): a run
into a folder whose episodes ended under the other one is refused.
"""

from __future__ import annotations

import fnmatch
import json
import multiprocessing
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from humantrace.agentruns.agents import agent_name, load_agent
from humantrace.agentruns.episode import run_episode
from humantrace.agentruns.protocol import DEFAULT_MAX_STEPS, FINAL_STATE, check_protocol
from humantrace.environments.ui import DEFAULT_PROFILE
from humantrace.exports.agent_bundle import (
    AGENT_TABLES,
    LEGACY_PROTOCOL,
    MANIFEST,
    episode_attempt_id,
    write_manifest,
    write_table,
)
from humantrace.exports.bundle import BundleError, resumable_output_dir

EPISODE_DIR = ".episodes"


class RunError(ValueError):
    """The run's arguments select nothing, or name something that does not exist."""


@dataclass(frozen=True)
class EpisodeSpec:
    """One episode to run: a task-condition at a seed on a UI profile, and (replay) the human
    attempt to replay."""

    task_id: str
    condition: str
    seed: int
    tag: int | None = None
    ui_profile: str = DEFAULT_PROFILE

    def key(self, model: str) -> int:
        return episode_attempt_id(
            model,
            self.task_id,
            self.condition,
            self.seed if self.tag is None else self.seed * 10**9 + self.tag,
            self.ui_profile,
        )


@dataclass(frozen=True)
class RunConfig:
    """What `agents run` was asked to do."""

    agent: str
    out: str
    tasks: str = "*"
    conditions: tuple[str, ...] = ("clean", "intervention")
    seed: int = 42
    max_steps: int = DEFAULT_MAX_STEPS
    workers: int = 1
    human: str | None = None
    profiles: tuple[str, ...] = (DEFAULT_PROFILE,)
    # final_state (the humans' protocol) or first_pass (`--stop-at-first-pass`, for training).
    protocol: str = FINAL_STATE
    # `--model NAME`: the bundle's `model` column; None: the agent's `name`/`model_name`, else the spec.
    model: str | None = None


def select(config: RunConfig, all_pairs: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The task-conditions whose task id matches the `tasks` glob(s) (comma-separated) and condition."""
    patterns = [p.strip() for p in config.tasks.split(",") if p.strip()] or ["*"]
    chosen = [
        (t, c)
        for t, c in all_pairs
        if c in config.conditions and any(fnmatch.fnmatchcase(t, p) for p in patterns)
    ]
    if not chosen:
        raise RunError(
            f"no task-condition matches --tasks {config.tasks!r} and --conditions {','.join(config.conditions)}"
        )
    return chosen


def cross_profiles(
    config: RunConfig, pairs: Iterable[tuple[str, str]], site_profiles: Callable[[str], list[str]]
) -> list[tuple[str, str, str]]:
    """(task_id, condition, ui_profile) for every selected pair and every profile of `--profiles`
    that the task's site has. A profile that no selected task's site has is an error (a typo
    would otherwise run nothing on it)."""
    chosen: list[tuple[str, str, str]] = []
    used: set[str] = set()
    known: set[str] = set()
    for task_id, condition in pairs:
        have = site_profiles(task_id)
        known.update(have)
        for profile in config.profiles:
            if profile in have:
                chosen.append((task_id, condition, profile))
                used.add(profile)
    unused = [p for p in config.profiles if p not in used]
    if unused:
        raise RunError(
            f"no selected task's site has UI profile(s) {', '.join(unused)} "
            f"(the selected sites have: {', '.join(sorted(known))})"
        )
    return chosen


def plan(config: RunConfig) -> tuple[str, list[EpisodeSpec]]:
    """(model name, the episodes to run). The replay agent runs one episode per passed human attempt.

    The parent builds this process's agent (`_agent_for`) only when it must: to learn the `model`
    column (no `--model`) or the replay agent's episodes. With one worker the episodes run in this
    process and reuse it, so the factory is called once in all."""
    from humantrace.agentruns.gym import site_profiles, task_conditions

    needs_agent = config.model is None or config.agent == "replay"
    agent = _agent_for(config) if needs_agent else None
    pairs = select(config, task_conditions())
    if agent is not None and hasattr(agent, "episodes"):
        # The replay agent replays each attempt on the profile it was recorded on.
        specs = [
            EpisodeSpec(t, c, seed, tag, profile)
            for t, c, tag, seed, profile in agent.episodes(pairs, default_seed=config.seed)
            if profile in config.profiles
        ]
    else:
        specs = [
            EpisodeSpec(t, c, config.seed, ui_profile=p)
            for t, c, p in cross_profiles(config, pairs, site_profiles)
        ]
    return model_name(config, agent), specs


def model_name(config: RunConfig, agent: Any) -> str:
    """The `model` column: `--model`, else the agent's `name`/`model_name`, else the spec."""
    return config.model or agent_name(agent, config.agent)


def _episode_path(out: Path, model: str, spec: EpisodeSpec) -> Path:
    return out / EPISODE_DIR / f"{spec.key(model)}.json"


def _finished(path: Path) -> bool:
    if not path.is_file():
        return False
    try:
        return json.loads(path.read_text(encoding="utf-8"))["episodes"][0]["ended_by"] != "error"
    except (json.JSONDecodeError, KeyError, IndexError, OSError):
        return False


# This process's agents, by (spec, seed, human bundle): one per worker process.
_agents: dict[tuple[str, int, str | None], Any] = {}


def _agent_for(config: RunConfig) -> Any:
    """This process's agent, built on first use (the factory is called once per process) and
    reused for every episode the process runs. `run_episode` tells it each episode begins: its
    `reset()` before the env is reset, its `begin(task_id=, condition=, seed=)` after; an agent
    that keeps state between episodes clears it there."""
    key = (config.agent, config.seed, config.human)
    if key not in _agents:
        _agents[key] = load_agent(config.agent, seed=config.seed, human_bundle=config.human)
    return _agents[key]


def _run_one(job: tuple[dict, dict, str]) -> tuple[str, bool, str]:
    """Run one episode in this (worker) process and save it; returns (run id, passed, ended_by)."""
    config_dict, spec_dict, path = job
    config = RunConfig(**config_dict)
    spec = EpisodeSpec(**spec_dict)
    agent = _agent_for(config)
    model = model_name(config, agent)
    if hasattr(agent, "select"):
        agent.select(spec.tag)
    max_steps = max(config.max_steps, getattr(agent, "steps_needed", 0))
    result = run_episode(
        agent,
        model=model,
        task_id=spec.task_id,
        condition=spec.condition,
        seed=spec.seed,
        max_steps=max_steps,
        ui_profile=spec.ui_profile,
        protocol=config.protocol,
    )
    row = result.row
    if spec.tag is not None:
        row["replayed_attempt_id"] = spec.tag
        row["attempt_id"] = spec.key(model)
        row["run_id"] = f"{row['run_id']}.h{spec.tag}"
        for name, rows in result.tables.items():
            if name != "episodes":
                for item in rows:
                    item["attempt_id"] = row["attempt_id"]
        if hasattr(agent, "failure") and not row["passed"]:
            row["replay_failure"] = agent.failure(result)
    target = Path(path)
    tmp = target.with_suffix(".tmp")
    tmp.write_text(json.dumps(result.tables, default=str), encoding="utf-8")
    tmp.replace(target)
    return row["run_id"], bool(row["passed"]), row["ended_by"]


def prepare_run_dir(out: str | Path) -> Path:
    """Create or reopen the bundle directory `out`; a `RunError` line when it is a link, a file,
    or holds a link where the run writes (its tables, manifest or saved episodes)."""
    owned = [MANIFEST, EPISODE_DIR, *(f"{name}.csv" for name in AGENT_TABLES)]
    try:
        path = resumable_output_dir(out, owned=owned, what="an agent bundle")
        (path / EPISODE_DIR).mkdir(exist_ok=True)
    except BundleError as exc:
        raise RunError(str(exc)) from None
    except OSError as exc:
        raise RunError(f"cannot create {Path(out) / EPISODE_DIR}: {exc.strerror or exc}") from None
    return path


def run(
    config: RunConfig,
    *,
    progress: Callable[[str, bool, str], None] | None = None,
    total: Callable[[int, int], None] | None = None,
) -> Path:
    """Run every selected episode not already finished in `config.out`, then write the bundle."""
    if config.workers < 1:
        raise RunError("--workers must be at least 1")
    try:
        check_protocol(config.protocol)
    except ValueError as exc:
        raise RunError(str(exc)) from exc
    out = prepare_run_dir(config.out)
    _refuse_other_protocol(out, config.protocol)
    model, specs = plan(config)
    todo = [s for s in specs if not _finished(_episode_path(out, model, s))]
    if total is not None:
        total(len(specs), len(specs) - len(todo))
    jobs = [(asdict(config), asdict(s), str(_episode_path(out, model, s))) for s in todo]
    if config.workers == 1 or len(jobs) <= 1:
        for job in jobs:
            result = _run_one(job)
            if progress:
                progress(*result)
    else:
        # spawn: each worker is a fresh interpreter with its own Playwright, browser and humantrace
        # server (started on first use, stopped when the worker exits).
        context = multiprocessing.get_context("spawn")
        with context.Pool(processes=config.workers) as pool:
            for result in pool.imap_unordered(_run_one, jobs):
                if progress:
                    progress(*result)
    keys = {s.key(model) for s in specs}
    write_bundle(out, settings={**asdict(config), "model": model}, only=keys)
    return out


def _saved_protocol(path: Path) -> str | None:
    """The protocol a saved episode ended under (episodes saved before protocols: first_pass)."""
    try:
        row = json.loads(path.read_text(encoding="utf-8"))["episodes"][0]
    except (json.JSONDecodeError, KeyError, IndexError, OSError):
        return None  # unreadable: not finished, it runs again
    return str(row.get("protocol") or LEGACY_PROTOCOL)


def _refuse_other_protocol(out: Path, protocol: str) -> None:
    """One bundle, one protocol: resuming into episodes that ended another way would mix them."""
    other = [
        p
        for p in sorted((out / EPISODE_DIR).glob("*.json"))
        if (saved := _saved_protocol(p)) is not None and saved != protocol
    ]
    if other:
        theirs = _saved_protocol(other[0])
        raise RunError(
            f"{out} holds {len(other)} episode(s) that ended under the {theirs} protocol; this run "
            f"uses {protocol}. One bundle holds one protocol: use another --out"
            + (
                " (or add --stop-at-first-pass)"
                if theirs != FINAL_STATE
                else " (or drop --stop-at-first-pass)"
            )
        )


def write_bundle(out: Path, *, settings: dict[str, Any], only: set[int] | None = None) -> dict[str, int]:
    """Assemble the bundle's tables from the saved episodes (all, or those in `only`); the manifest
    states `settings["protocol"]` (default final_state)."""
    tables: dict[str, list[dict]] = {name: [] for name in AGENT_TABLES}
    for path in sorted((out / EPISODE_DIR).glob("*.json")):
        if only is not None and int(path.stem) not in only:
            continue
        saved = json.loads(path.read_text(encoding="utf-8"))
        for name, rows in saved.items():
            tables[name].extend(rows)
    counts = {}
    for name, spec in AGENT_TABLES.items():
        frame = pd.DataFrame(tables[name], columns=[c.name for c in spec.columns])
        if name == "episodes":
            frame = frame.sort_values(["task_id", "condition", "ui_profile", "run_id"], kind="stable")
        counts[name] = write_table(out / f"{name}.csv", name, frame)
    write_manifest(out, row_counts=counts, settings=settings, protocol=settings.get("protocol", FINAL_STATE))
    return counts
