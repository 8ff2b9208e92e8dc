"""The dashboard's window onto `environments`: env sessions, task texts, verdicts.

One module so the study flow does not depend on the framework's internals.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import Session


@dataclass(frozen=True)
class TaskCard:
    """What an annotator may know about a task before starting it (no primitive, no intervention)."""

    task_id: str
    env_id: str
    title: str
    difficulty: str
    time_limit_seconds: int
    start_path: str


@dataclass(frozen=True)
class Scored:
    score: float
    passed: bool
    verdict: dict[str, Any]


def task_card(task_id: str) -> TaskCard:
    from humantrace.environments import catalog

    task = catalog.get_task(task_id)
    return TaskCard(
        task_id=task.task_id,
        env_id=task.env_id,
        title=task.title,
        difficulty=str(task.difficulty),
        time_limit_seconds=int(task.time_limit_seconds),
        start_path=task.start_path,
    )


def mask_selectors(env_id: str) -> tuple[str, ...]:
    """The CSS selectors of the fields this site declares sensitive (the recorder masks them)."""
    from humantrace.environments import registry

    try:
        return tuple(registry.get(env_id).mask_selectors)
    except registry.UnknownEnvironment:
        return ()


def create_session(
    db: Session, *, task_id: str, condition: str, seed: int, ui_profile: str = "default"
) -> str:
    """A fresh env session of the task-condition at `seed`, on the site's UI profile `ui_profile`."""
    from humantrace.environments import sessions

    return sessions.create(db, task_id=task_id, condition=condition, seed=seed, ui_profile=ui_profile)


def end_session(db: Session, *, session_id: str) -> None:
    """Freeze the attempt's env session in the caller's transaction: its writes are refused from then on."""
    from humantrace.environments import sessions

    sessions.end(db, session_id=session_id)


def instruction(db: Session, *, session_id: str) -> str:
    """The instruction with its targets resolved (shown in the control tab only)."""
    from humantrace.environments import catalog, sessions

    row = sessions.get_session(db, session_id=session_id)
    return catalog.render_instruction(catalog.get_task(row.task_id), row.targets)


def evaluate(db: Session, *, session_id: str) -> Scored:
    from humantrace.environments import sessions

    verdict = sessions.evaluate_session(db, session_id=session_id)
    return Scored(
        score=float(verdict.score), passed=bool(verdict.passed), verdict=verdict.model_dump(mode="json")
    )
