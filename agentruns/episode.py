"""One agent episode on one task-condition, and everything it leaves: the episode row, its
actions, the raw and cleaned DOM trace (same recorder, same cleaning as a person's), the backend
audit log, the semantic events, the verdict's checks and the event-match score.
"""

from __future__ import annotations

import json
import traceback
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import gymnasium
import pandas as pd

from humantrace.agentruns.agents import action_mapping, split_action
from humantrace.agentruns.gym import gym_id
from humantrace.agentruns.protocol import (
    DEFAULT_MAX_STEPS,
    DONE_VERBS,
    FINAL_STATE,
    INFEASIBLE_VERBS,
    action_verbs,
    check_protocol,
    final_message,
    parse_action,
)
from humantrace.agentruns.task import task_name
from humantrace.cleaning import clean, raw_frame
from humantrace.environments import catalog
from humantrace.environments.ui import DEFAULT_PROFILE
from humantrace.exports.agent_bundle import episode_attempt_id, verdict_rows
from humantrace.exports.features import extract_features
from humantrace.exports.schema import join_list

__all__ = ["DEFAULT_MAX_STEPS", "EpisodeResult", "parse_action", "run_episode"]


@dataclass
class EpisodeResult:
    """The episode's tables, keyed by agent-bundle table name (each a list of row dicts)."""

    tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def row(self) -> dict[str, Any]:
        return self.tables["episodes"][0]


def run_episode(
    agent: Any,
    *,
    model: str,
    task_id: str,
    condition: str,
    seed: int,
    max_steps: int = DEFAULT_MAX_STEPS,
    env_kwargs: dict[str, Any] | None = None,
    ui_profile: str = DEFAULT_PROFILE,
    protocol: str = FINAL_STATE,
) -> EpisodeResult:
    """Run `agent` on one task-condition (env seed `seed`, UI profile `ui_profile`) for at most
    `max_steps` actions, ending and scoring it as the task does (`protocol`, see
    `agentruns.protocol`)."""
    check_protocol(protocol)
    attempt_id = episode_attempt_id(model, task_id, condition, seed, ui_profile)
    task_spec = catalog.get_task(task_id)
    variant = catalog.variant_for(task_id) if condition == "intervention" else None
    env = gymnasium.make(
        gym_id(task_id, condition, ui_profile),
        # The task ends the episode and scores it (the same under plain gymnasium or AgentLab).
        task_kwargs={"env_seed": seed, "max_steps": max_steps, "protocol": protocol},
        action_mapping=action_mapping(agent),
        # an agent may set BrowserGym options of its own (the replay agent reads no observation)
        **{**getattr(agent, "env_kwargs", {}), **(env_kwargs or {})},
    )
    actions: list[dict[str, Any]] = []
    started = datetime.now(UTC)
    error = None
    final_thought = None
    task: Any = None
    if hasattr(agent, "reset"):
        agent.reset()
    try:
        obs, _info = env.reset(seed=seed)
        unwrapped: Any = env.unwrapped
        task = unwrapped.task
        if hasattr(agent, "begin"):
            agent.begin(task_id=task_id, condition=condition, seed=seed)
        if getattr(agent, "privileged", False):
            text = agent.solve(env)
            actions.append(
                {
                    "attempt_id": attempt_id,
                    "step": 0,
                    "action": text,
                    "verb": "cheat",
                    "target": task_id,
                    "error": None,
                    "url": unwrapped.page.url,
                    "reward": None,
                }
            )
        for step in range(len(actions), max_steps):
            action, _agent_info = split_action(agent.get_action(obs))
            obs, reward, terminated, truncated, _info = env.step(action)
            verb, target = parse_action(action)
            if any(v in DONE_VERBS or v in INFEASIBLE_VERBS for v in action_verbs(action)):
                # A report_infeasible's reason is the agent's last word too (Appendix I's final thought).
                final_thought = final_message(action)
            actions.append(
                {
                    "attempt_id": attempt_id,
                    "step": step,
                    "action": action,
                    "verb": verb,
                    "target": target,
                    "error": obs.get("last_action_error") or None,
                    "url": obs.get("url"),
                    "reward": float(reward),
                }
            )
            if terminated or truncated:
                break
        if not task.done:
            # Only the oracle's cheat, counted as an action, can use up the limit before a step.
            task.end(unwrapped.page, "step_limit")
        artifacts = task.artifacts()
    except Exception as exc:  # noqa: BLE001 - one broken episode is reported, the run goes on
        error = f"{type(exc).__name__}: {exc}"
        traceback.print_exc()
        browser_env: Any = env.unwrapped
        task = getattr(browser_env, "task", None)
        artifacts = {"trace": {"events": []}, "audit": [], "semantic_events": []}
        if task is not None and getattr(task, "info", None):
            # As the paper scores every run: the final state, also after an unrecoverable error.
            try:
                if not task.done:
                    task.end(browser_env.page, "error")
            except Exception:  # noqa: BLE001 - keep the first error, which says what went wrong
                traceback.print_exc()
            try:
                artifacts = task.artifacts()
            except Exception:  # noqa: BLE001 - keep the first error, which says what went wrong
                traceback.print_exc()
    finally:
        env.close()
    verdict = (getattr(task, "final_verdict", None) if task is not None else None) or {
        "score": 0.0,
        "passed": False,
    }
    elapsed = getattr(task, "elapsed_s", None) or 0.0
    midway_step = getattr(task, "passed_midway_step", None)
    ended = datetime.now(UTC)

    trace = artifacts["trace"]
    raw = raw_frame([{"attempt_id": attempt_id, **event} for event in trace.get("events", [])])
    cleaned = (
        clean(raw)
        if not raw.empty
        else raw.assign(step=pd.Series(dtype="int64"), source_seqs=pd.Series(dtype=object))
    )
    events_clean = cleaned.drop(columns=[c for c in ("trigger",) if c in cleaned.columns])
    if not events_clean.empty:
        events_clean = events_clean.assign(source_seqs=events_clean["source_seqs"].map(join_list))
    audit = [
        {
            "attempt_id": attempt_id,
            "seq": i,
            "t": entry["t"],
            "method": entry["method"],
            "path": entry["path"],
            "status": entry["status"],
            "intervention": entry.get("intervention"),
            "intervention_fired": bool(entry.get("intervention")),
            "duration_ms": entry.get("duration_ms"),
        }
        for i, entry in enumerate(artifacts["audit"])
    ]
    semantic = [
        {
            "attempt_id": attempt_id,
            "seq": e["seq"],
            "t_ms": e["t_ms"],
            "event": e["event"],
            "params": json.dumps(e.get("params") or {}, sort_keys=True),
        }
        for e in artifacts["semantic_events"]
    ]
    # The evaluator reports the task's event conditions beside the score (WebPageBench EMS).
    event_match = verdict.get("event_match_score")
    event_checks = [
        {
            "attempt_id": attempt_id,
            "index": c["index"],
            "event": c.get("event"),
            "params": json.dumps(c.get("params") or {}, sort_keys=True, default=str),
            "match": c.get("match"),
            "passed": c["passed"],
            "matched_event": c.get("matched_event"),
            "diagnosis": c.get("diagnosis"),
        }
        for c in verdict.get("event_checks") or []
    ]
    verdicts = verdict_rows(attempt_id, verdict)
    row = {
        "attempt_id": attempt_id,
        "run_id": f"{model}/{task_name(task_id, condition, ui_profile).removeprefix('humantrace.')}.{seed}",
        "model": model,
        "env_id": task_spec.env_id,
        "task_id": task_id,
        "difficulty": task_spec.difficulty,
        "primitives": join_list(task_spec.primary_primitives),
        "target_primitive": variant.target_primitive if variant else None,
        "condition": condition,
        "source_variant": variant.variant_id if variant else None,
        "seed": seed,
        "task_seed": getattr(task, "task_seed", None),
        "ui_profile": ui_profile,
        "viewport_w": trace.get("viewport_w"),
        "viewport_h": trace.get("viewport_h"),
        "user_agent": trace.get("user_agent"),
        "started_at": started,
        "ended_at": ended,
        "elapsed_s": round(elapsed, 3),
        "steps": len(actions),
        "raw_events": len(raw),
        "clean_steps": len(events_clean),
        "score": float(verdict.get("score", 0.0)),
        "passed": bool(verdict.get("passed", False)),
        "ended_by": "error" if error else task.ended_by,
        "protocol": protocol,
        "passed_midway": midway_step is not None,
        "passed_midway_step": midway_step,
        "event_match_score": event_match,
        "final_thought": final_thought,
        "error": error,
    }
    row["terminal_verb"] = actions[-1]["verb"] if actions else None
    features = extract_features(
        pd.DataFrame([row]),
        actions=pd.DataFrame(actions, columns=["attempt_id", "step", "verb", "target", "error"]),
        verdicts=pd.DataFrame(verdicts) if verdicts else None,
    ).iloc[0]
    for name in (
        "terminal_verb",
        "max_repeat_run",
        "action_error_count",
        "failed_positive_checks",
        "failed_negative_checks",
    ):
        value = features[name]
        row[name] = None if pd.isna(value) else value
    return EpisodeResult(
        tables={
            "episodes": [row],
            "actions": actions,
            "events_raw": _records(raw),
            "events_clean": _records(events_clean),
            "verdicts": verdicts,
            "semantic_events": semantic,
            "backend_audit": audit,
            "event_checks": event_checks,
        }
    )


def _records(frame: pd.DataFrame) -> list[dict[Any, Any]]:
    """Rows as plain dicts with None for every missing value (pandas NA does not survive JSON)."""
    return frame.astype(object).where(frame.notna(), None).to_dict(orient="records")
