"""Typed inputs and outputs of panel planning.

Inputs are plain values the lead engineer builds from database rows (`model_validate(row)` works on
objects with attributes); outputs are frozen models so a plan can be stored, compared and shown.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Difficulty = Literal["easy", "medium", "hard", "expert", "frontier"]
Condition = Literal["clean", "intervention"]
Tier = Literal["primary", "duplicate"]

DIFFICULTIES: tuple[Difficulty, ...] = ("easy", "medium", "hard", "expert", "frontier")
CONDITIONS: tuple[Condition, ...] = ("clean", "intervention")
DEFAULT_PROFILE = "default"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, from_attributes=True, extra="forbid")


class PlanTask(_Frozen):
    """A base task that could enter the panel; only tasks with a variant can (both conditions)."""

    task_id: str
    env_id: str
    difficulty: Difficulty
    has_variant: bool


class PlanAnnotator(_Frozen):
    """An annotator who may receive assignments. Leads are never passed in."""

    code: str
    tier: Tier
    designed: frozenset[str] = frozenset()
    active: bool = True


class PanelCell(_Frozen):
    """The base tasks chosen for one (environment, difficulty) cell, sorted by task_id."""

    env_id: str
    difficulty: Difficulty
    task_ids: tuple[str, ...]


class PlannedAssignment(_Frozen):
    """One row of the plan: an annotator x task-condition x tier, with its place in their queue.

    `order` counts from 1 within each annotator's own list.
    """

    annotator: str
    task_id: str
    env_id: str
    difficulty: Difficulty
    condition: Condition
    tier: Tier
    order: int
    # The site's UI profile the task-condition runs on (environments.ui); "default" is today's build.
    ui_profile: str = DEFAULT_PROFILE


class AnnotatorLoad(_Frozen):
    """How many task-conditions one annotator records (each is a cold and a warm attempt)."""

    annotator: str
    tier: Tier
    total: int
    by_difficulty: dict[str, int]
    by_condition: dict[str, int]
    by_profile: dict[str, int] = Field(default_factory=dict)


class PlanSummary(_Frozen):
    """Counts a lead checks at a glance; attempts = task-conditions x 2 (cold and warm)."""

    cells: int
    base_tasks: int
    primary_task_conditions: int
    primary_attempts: int
    duplicate_task_conditions: int
    duplicate_attempts: int
    loads: tuple[AnnotatorLoad, ...]
    # Largest amount by which any primary annotator's load in one difficulty falls outside
    # floor/ceil of (task-conditions of that difficulty / primary annotators). 0 unless the designer
    # exclusions make per-difficulty balance impossible.
    difficulty_excess: int
    # Largest |clean - intervention| over primary annotators (soft goal: each annotator sees both
    # conditions about equally, so annotator and condition effects are not confounded).
    condition_imbalance: int
    # Largest amount by which any primary annotator's load under one UI profile falls outside
    # floor/ceil of (task-conditions under that profile / primary annotators). 0 unless the
    # designer exclusions make per-profile balance impossible.
    profile_excess: int = 0


class Plan(_Frozen):
    """A panel and its assignments, with everything needed to re-check or reproduce it."""

    seed: int
    per_cell: int
    duplicates_per_cell: int
    envs: tuple[str, ...]
    difficulties: tuple[Difficulty, ...]
    panel: tuple[PanelCell, ...]
    assignments: tuple[PlannedAssignment, ...]
    summary: PlanSummary
    notes: tuple[str, ...] = Field(default=(), description="Soft goals the solver could not fully meet.")
    # The UI profiles each environment's base tasks are crossed with (every panel task of the env
    # is planned in both conditions under each); an env not listed runs on the default only.
    profiles: dict[str, tuple[str, ...]] = Field(default_factory=dict)

    def panel_task_ids(self) -> list[str]:
        """Every base task in the panel, in cell order."""
        return [task_id for cell in self.panel for task_id in cell.task_ids]

    def profiles_of(self, env_id: str) -> tuple[str, ...]:
        """The UI profiles `env_id`'s base tasks are planned under (the default when none is listed)."""
        return self.profiles.get(env_id) or (DEFAULT_PROFILE,)


class Violation(_Frozen):
    """One broken rule: a stable `rule` code, a sentence, and the offending rows (may be empty)."""

    rule: str
    message: str
    rows: tuple[PlannedAssignment, ...] = ()
