"""The planning problem after the panel is chosen: who may record which task-condition."""

from __future__ import annotations

from dataclasses import dataclass, field

from annotators.planning.schemas import CONDITIONS, Condition, Difficulty, PanelCell, PlanAnnotator


@dataclass(frozen=True)
class TaskCondition:
    """One base task of the panel in one condition: the unit that is assigned."""

    task_id: str
    env_id: str
    difficulty: Difficulty
    condition: Condition


@dataclass(frozen=True)
class PlanningProblem:
    """Everything the solver needs, sorted so that the model is built the same way every time."""

    panel: tuple[PanelCell, ...]
    primaries: tuple[PlanAnnotator, ...]
    duplicates: tuple[PlanAnnotator, ...]
    duplicates_per_cell: int
    seed: int
    task_conditions: tuple[TaskCondition, ...] = field(init=False)

    def __post_init__(self) -> None:
        rows = [
            TaskCondition(task_id, cell.env_id, cell.difficulty, condition)
            for cell in self.panel
            for task_id in cell.task_ids
            for condition in CONDITIONS
        ]
        object.__setattr__(self, "task_conditions", tuple(rows))

    @property
    def primary_total(self) -> int:
        """Primary task-conditions: every base task in both conditions."""
        return len(self.task_conditions)

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
