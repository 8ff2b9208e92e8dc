"""Property tests on random small studies: every plan passes the checker, and the pre-checks only
refuse requests that the solver itself finds impossible (they never turn away a feasible one)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from humantrace.annotators.planning import DIFFICULTIES, PlanInfeasible, check_plan, examples, plan_panel
from humantrace.annotators.planning.panel import select_panel
from humantrace.annotators.planning.problem import PlanningProblem
from humantrace.annotators.planning.solver import solve

ENVS = ("shop", "mail", "booking", "bank")


@st.composite
def studies(draw):
    envs = draw(st.lists(st.sampled_from(ENVS), min_size=1, max_size=4, unique=True))
    difficulties = draw(st.lists(st.sampled_from(DIFFICULTIES), min_size=1, max_size=3, unique=True))
    per_cell = draw(st.integers(1, 2))
    tasks = examples.synthetic_tasks(
        envs, per_cell=per_cell + draw(st.integers(0, 1)), with_variant=per_cell + draw(st.integers(0, 1))
    )
    # Mostly one designed env or none, sometimes two: enough refusals to test, enough plans too.
    designed = st.one_of(st.just(frozenset()), st.frozensets(st.sampled_from(envs), max_size=2))
    primaries = [
        examples.roster_member(f"A{i}", *draw(designed)) for i in range(1, draw(st.integers(2, 6)) + 1)
    ]
    duplicates = [
        examples.roster_member(f"D{i}", *draw(designed)) for i in range(1, draw(st.integers(0, 2)) + 1)
    ]
    return {
        "tasks": tasks,
        "annotators": primaries + duplicates,
        "per_cell": per_cell,
        "seed": draw(st.integers(0, 10_000)),
        "duplicates_per_cell": draw(st.integers(0, 2)),
        "difficulties": difficulties,
    }


@settings(
    max_examples=int(os.environ.get("PLANNER_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(studies())
def test_plans_are_valid_and_refusals_are_real(study):
    try:
        plan = plan_panel(**study)
    except PlanInfeasible as error:
        event(f"refused: {error.constraint}")
        if error.constraint in {"invalid_request", "cell_size"}:
            return
        # A pre-check refused: the solver, given the same problem without pre-checks, must agree.
        active = sorted(study["annotators"], key=lambda a: a.code)
        panel = select_panel(
            tasks=study["tasks"],
            envs=sorted({t.env_id for t in study["tasks"]}),
            difficulties=[d for d in DIFFICULTIES if d in study["difficulties"]],
            per_cell=study["per_cell"],
            seed=study["seed"],
        )
        problem = PlanningProblem(
            panel=panel,
            primaries=tuple(a for a in active if a.tier == "primary"),
            duplicates=tuple(a for a in active if a.tier == "duplicate"),
            duplicates_per_cell=study["duplicates_per_cell"],
            seed=study["seed"],
        )
        if not problem.primaries:
            return
        try:
            solve(problem)
        except PlanInfeasible:
            return
        raise AssertionError(f"pre-check refused a feasible request: {error}") from None
    event("planned")
    violations = check_plan(
        plan,
        tasks=study["tasks"],
        annotators=study["annotators"],
        per_cell=study["per_cell"],
        duplicates_per_cell=study["duplicates_per_cell"],
        difficulty_tolerance=plan.summary.difficulty_excess,
    )
    assert violations == []
    assert plan.summary.primary_task_conditions == 2 * plan.summary.base_tasks
