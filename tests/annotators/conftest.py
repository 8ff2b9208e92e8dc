"""Synthetic catalogues and annotator rosters for the planning tests.

Human-140 dimensions: 7 environments x 5 difficulties, 6 tasks per cell of which 5 have a variant
(so K=4 leaves the seed a real choice), four primary annotators who each designed one or two
environments and four duplicate-tier annotators with their own designer exclusions.
"""

from __future__ import annotations

import pytest

from annotators.planning import DIFFICULTIES, Plan, PlanAnnotator, PlanTask, plan_panel

PAPER_ENVS = ("shop", "mail", "booking", "bank", "forum", "lms", "portal")
DEMO_ENVS = ("shop", "mail", "booking")


def _make_tasks(envs, *, per_cell: int, with_variant: int) -> list[PlanTask]:
    """`per_cell` tasks per cell, the first `with_variant` of which have a variant."""
    return [
        PlanTask(task_id=f"{env}-{difficulty}-{i:02d}", env_id=env, difficulty=difficulty, has_variant=i < with_variant)
        for env in envs
        for difficulty in DIFFICULTIES
        for i in range(per_cell)
    ]


def _annotator(code: str, *designed: str, tier: str | None = None, active: bool = True) -> PlanAnnotator:
    return PlanAnnotator(
        code=code,
        tier=tier or ("primary" if code.startswith("A") else "duplicate"),
        designed=frozenset(designed),
        active=active,
    )


@pytest.fixture(scope="session")
def make_tasks():
    """The task factory: make_tasks(envs, per_cell=..., with_variant=...)."""
    return _make_tasks


@pytest.fixture(scope="session")
def make_annotator():
    """The annotator factory: make_annotator("A1", "shop", tier=None, active=True)."""
    return _annotator


@pytest.fixture(scope="session")
def paper_tasks() -> list[PlanTask]:
    return _make_tasks(PAPER_ENVS, per_cell=6, with_variant=5)


@pytest.fixture(scope="session")
def paper_annotators() -> list[PlanAnnotator]:
    return [
        _annotator("A1", "shop"),
        _annotator("A2", "mail", "booking"),
        _annotator("A3", "bank"),
        _annotator("A4", "forum", "lms"),
        _annotator("D1", "portal"),
        _annotator("D2", "shop", "mail"),
        _annotator("D3"),
        _annotator("D4", "bank"),
    ]


@pytest.fixture(scope="session")
def paper_plan(paper_tasks, paper_annotators) -> Plan:
    """One Human-140 plan, solved once for the whole session (it takes a few seconds)."""
    return plan_panel(tasks=paper_tasks, annotators=paper_annotators, per_cell=4, seed=42)


@pytest.fixture(scope="session")
def demo_tasks() -> list[PlanTask]:
    return _make_tasks(DEMO_ENVS, per_cell=2, with_variant=2)


@pytest.fixture(scope="session")
def demo_annotators() -> list[PlanAnnotator]:
    return [_annotator(code) for code in ("A1", "A2", "A3", "A4", "D1")]


@pytest.fixture(scope="session")
def demo_plan(demo_tasks, demo_annotators) -> Plan:
    return plan_panel(tasks=demo_tasks, annotators=demo_annotators, per_cell=1, seed=7)
