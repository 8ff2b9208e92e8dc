"""Synthetic planning inputs of the paper's Human-140 size and of the demo study.

Used by the tests, the benchmark and the docs, and handy for trying the planner by hand; the task
ids are made up (`shop-hard-03`), the rosters follow Appendix H (four primary annotators who each
designed one or two environments, four duplicate-tier annotators D1-D4).
"""

from __future__ import annotations

from collections.abc import Iterable

from humantrace.annotators.planning.schemas import DIFFICULTIES, PlanAnnotator, PlanTask

PAPER_ENVS = ("shop", "mail", "booking", "brokerage", "forum", "portal", "lms")
DEMO_ENVS = ("shop", "mail", "booking")


def synthetic_tasks(envs: Iterable[str], *, per_cell: int, with_variant: int) -> list[PlanTask]:
    """`per_cell` tasks in every (env, difficulty) cell; the first `with_variant` have a variant."""
    return [
        PlanTask(
            task_id=f"{env}-{difficulty}-{i:02d}",
            env_id=env,
            difficulty=difficulty,
            has_variant=i < with_variant,
        )
        for env in envs
        for difficulty in DIFFICULTIES
        for i in range(per_cell)
    ]


def roster_member(code: str, *designed: str, active: bool = True) -> PlanAnnotator:
    """An annotator whose tier follows the code convention: A* primary, D* duplicate."""
    return PlanAnnotator(
        code=code,
        tier="duplicate" if code.startswith("D") else "primary",
        designed=frozenset(designed),
        active=active,
    )


def paper_roster() -> list[PlanAnnotator]:
    """Four primary annotators who each designed sites of the seven (A1 mail and shop, A2 booking
    and brokerage, A3 forum and patient portal, A4 the learning system), so nobody records a site
    they designed, and the duplicate tier D1-D4 (D2 and D4 designed some too)."""
    return [
        roster_member("A1", "mail", "shop"),
        roster_member("A2", "booking", "brokerage"),
        roster_member("A3", "forum", "portal"),
        roster_member("A4", "lms"),
        roster_member("D1"),
        roster_member("D2", "shop", "mail"),
        roster_member("D3"),
        roster_member("D4", "brokerage"),
    ]


def paper_tasks() -> list[PlanTask]:
    """7 envs x 5 difficulties x 6 tasks, 5 of each cell with a variant (so K=4 leaves a choice)."""
    return synthetic_tasks(PAPER_ENVS, per_cell=6, with_variant=5)


def demo_roster() -> list[PlanAnnotator]:
    """The demo study: A1-A4 and D1, nobody designed anything."""
    return [roster_member(code) for code in ("A1", "A2", "A3", "A4", "D1")]


def demo_tasks() -> list[PlanTask]:
    """shop, mail, booking with two tasks (both with a variant) per cell."""
    return synthetic_tasks(DEMO_ENVS, per_cell=2, with_variant=2)
