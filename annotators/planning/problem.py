"""The planning problem after the panel is chosen: who may record which task-condition."""

from __future__ import annotations

from dataclasses import dataclass, field

from humantrace.annotators.planning.schemas import (
    CONDITIONS,
    DEFAULT_PROFILE,
    Condition,
    Difficulty,
    PanelCell,
    PlanAnnotator,
)


@dataclass(frozen=True)
class TaskCondition:
    """One base task of the panel in one condition under one UI profile: the unit that is assigned."""

    task_id: str
    env_id: str
    difficulty: Difficulty
    condition: Condition
    ui_profile: str = DEFAULT_PROFILE


@dataclass(frozen=True)
class PlanningProblem:
    """Everything the solver needs, sorted so that the model is built the same way every time."""

    panel: tuple[PanelCell, ...]
    primaries: tuple[PlanAnnotator, ...]
    duplicates: tuple[PlanAnnotator, ...]
    duplicates_per_cell: int
    seed: int
    # UI profiles per env (an env not listed: the default only).
    profiles: dict[str, tuple[str, ...]] = field(default_factory=dict)
    task_conditions: tuple[TaskCondition, ...] = field(init=False)

    def __post_init__(self) -> None:
        rows = [
            TaskCondition(task_id, cell.env_id, cell.difficulty, condition, profile)
            for cell in self.panel
            for task_id in cell.task_ids
            for profile in self.profiles_of(cell.env_id)
            for condition in CONDITIONS
        ]
        object.__setattr__(self, "task_conditions", tuple(rows))

    def profiles_of(self, env_id: str) -> tuple[str, ...]:
        """The UI profiles of `env_id`'s base tasks."""
        return self.profiles.get(env_id) or (DEFAULT_PROFILE,)

    def rows_per_task(self, env_id: str) -> int:
        """Task-conditions of one base task of `env_id`: both conditions under each profile, each
        for a different person."""
        return len(CONDITIONS) * len(self.profiles_of(env_id))

    @property
    def primary_total(self) -> int:
        """Primary task-conditions: every base task in both conditions under each of its profiles."""
        return len(self.task_conditions)

    def profile_totals(self) -> dict[str, int]:
        """Primary task-conditions per UI profile name."""
        totals: dict[str, int] = {}
        for tc in self.task_conditions:
            totals[tc.ui_profile] = totals.get(tc.ui_profile, 0) + 1
        return totals

    def load_bounds(self, total: int) -> tuple[int, int]:
        """floor and ceil of `total` spread over the primary annotators."""
        count = len(self.primaries)
        return total // count, -(-total // count)

    def difficulty_totals(self) -> dict[str, int]:
        """Primary task-conditions per difficulty."""
        totals: dict[str, int] = {}
        for tc in self.task_conditions:
            totals[tc.difficulty] = totals.get(tc.difficulty, 0) + 1
        return totals

    def base_tasks_by_env(self) -> dict[str, list[str]]:
        """Panel base tasks per environment, in panel order."""
        out: dict[str, list[str]] = {}
        for cell in self.panel:
            out.setdefault(cell.env_id, []).extend(cell.task_ids)
        return out


def may_record(annotator: PlanAnnotator, env_id: str) -> bool:
    """The designer exclusion: nobody records an environment they designed."""
    return env_id not in annotator.designed
