"""Impossible requests are refused with PlanInfeasible naming the rule that cannot be met."""

from __future__ import annotations

import pytest

from humantrace.annotators.planning import PlanInfeasible, PlanTask, examples, plan_panel
from humantrace.annotators.planning.panel import select_panel
from humantrace.annotators.planning.problem import PlanningProblem
from humantrace.annotators.planning.solver import solve

member = examples.roster_member
PAPER_TASKS = examples.paper_tasks()
DEMO_TASKS = examples.demo_tasks()


def refuse(**kwargs) -> PlanInfeasible:
    with pytest.raises(PlanInfeasible) as caught:
        plan_panel(**kwargs)
    return caught.value


def test_cell_with_too_few_variants():
    # shop/expert keeps only two of its tasks with a variant.
    tasks = [
        t.model_copy(update={"has_variant": False})
        if t.task_id in {"shop-expert-02", "shop-expert-03", "shop-expert-04"}
        else t
        for t in PAPER_TASKS
    ]
    error = refuse(tasks=tasks, annotators=examples.paper_roster(), per_cell=4, seed=1)
    assert error.constraint == "cell_size"
    assert (
        "cell (shop, expert) has 2 tasks with a variant (4 more without a variant); --per-cell 4 needs 4"
        in str(error)
    )
    # The other cells are fine and are not mentioned.
    assert str(error).count("cell (") == 1


def test_every_primary_designed_the_env():
    roster = [member("A1", "mail"), member("A2", "mail"), member("D1")]
    error = refuse(tasks=DEMO_TASKS, annotators=roster, per_cell=1, seed=1)
    assert error.constraint == "designer_exclusion"
    assert str(error) == "env mail: every primary annotator designed it (A1, A2): nobody may record it"


def test_only_one_primary_may_record_an_env():
    roster = [member("A1", "shop"), member("A2", "shop"), member("A3"), member("A4", "shop"), member("D1")]
    error = refuse(tasks=DEMO_TASKS, annotators=roster, per_cell=1, seed=1)
    assert error.constraint == "condition_split"
    assert "needs two different annotators who did not design shop" in str(error)
    assert str(error).startswith("base task shop-")
    assert str(error).endswith("only A3 is eligible")


def test_no_duplicate_annotator_may_record_an_env():
    roster = [*[member(c) for c in ("A1", "A2", "A3")], member("D1", "booking")]
    error = refuse(tasks=DEMO_TASKS, annotators=roster, per_cell=1, seed=1)
    assert error.constraint == "duplicate_audit"
    assert str(error).startswith(
        "duplicate audit needs a duplicate-tier annotator who did not design booking; none"
    )


def test_no_duplicate_annotators_at_all():
    roster = [member(c) for c in ("A1", "A2")]
    error = refuse(tasks=DEMO_TASKS, annotators=roster, per_cell=1, seed=1)
    assert error.constraint == "duplicate_audit"
    assert "duplicates_per_cell=0" in str(error)
    # ...and without the audit the same roster is fine.
    plan_panel(tasks=DEMO_TASKS, annotators=roster, per_cell=1, seed=1, duplicates_per_cell=0)


def test_no_primary_annotators():
    roster = [member("D1"), member("A1", active=False)]
    error = refuse(tasks=DEMO_TASKS, annotators=roster, per_cell=1, seed=1)
    assert error.constraint == "no_primary_annotators"
    assert str(error).startswith("no primary annotators")


def test_annotator_who_designed_too_much_cannot_carry_a_balanced_load():
    # A1 may record only booking: 5 base tasks, so at most 5 task-conditions; the load is 7-8.
    roster = [member("A1", "shop", "mail"), *[member(c) for c in ("A2", "A3", "A4", "D1")]]
    error = refuse(tasks=DEMO_TASKS, annotators=roster, per_cell=1, seed=1)
    assert error.constraint == "primary_balance"
    assert "A1 designed mail, shop and may record at most 5 task-conditions" in str(error)
    assert "balanced load is 7-8" in str(error)


def test_envs_with_too_few_allowed_recorders():
    # 7 envs x 5 difficulties x 1 task: 70 task-conditions over six primaries, 11-12 each. A1-A4
    # designed brokerage, booking, mail and shop, so only A5 and A6 may record those four envs: any
    # three of them hold 30 task-conditions, more than the 24 that A5 and A6 can carry.
    designed = ("brokerage", "booking", "mail", "shop")
    roster = [*[member(f"A{i}", *designed) for i in range(1, 5)], member("A5"), member("A6"), member("D1")]
    error = refuse(tasks=PAPER_TASKS, annotators=roster, per_cell=1, seed=1)
    assert error.constraint == "primary_balance"
    assert str(error).startswith("envs booking, brokerage, mail need 30 primary task-conditions")
    assert "(A5, A6) can take at most 24" in str(error)


def test_annotators_confined_to_too_little_work():
    # A2-A4 may record only shop (10 task-conditions) but need at least 3 each (16 over 5).
    tasks = examples.synthetic_tasks(["shop", "mail"], per_cell=2, with_variant=2)
    roster = [
        member("A1"),
        member("A2", "mail"),
        member("A3", "mail"),
        member("A4", "mail"),
        member("A5"),
        member("D1"),
    ]
    error = refuse(
        tasks=tasks,
        annotators=roster,
        per_cell=1,
        seed=1,
        difficulties=["easy", "hard", "expert", "frontier"],
    )
    assert error.constraint == "primary_balance"
    assert "A2, A3, A4 may record only shop" in str(error)
    assert "9 in all, but it has only 8" in str(error)


def test_two_duplicates_of_a_one_task_cell_need_two_people():
    roster = [*[member(c) for c in ("A1", "A2")], member("D1", "mail"), member("D2")]
    error = refuse(tasks=DEMO_TASKS, annotators=roster, per_cell=1, seed=1, duplicates_per_cell=2)
    assert error.constraint == "condition_split"
    assert "only D2 may record mail" in str(error)


@pytest.mark.parametrize(
    ("kwargs", "text"),
    [
        ({"per_cell": 0}, "--per-cell must be at least 1"),
        ({"duplicates_per_cell": -1}, "duplicates_per_cell must be 0 or more"),
        ({"duplicates_per_cell": 3}, "duplicates_per_cell 3 exceeds the 2 task-conditions of a cell"),
        ({"envs": ["shop", "casino"]}, "env casino: no tasks at all"),
        ({"difficulties": ["impossible"]}, "unknown difficulty impossible"),
        ({"tasks": [*DEMO_TASKS, DEMO_TASKS[0]]}, "task_id given more than once: shop-easy-00"),
        ({"annotators": [*examples.demo_roster(), member("A1")]}, "annotator code given more than once: A1"),
    ],
)
def test_malformed_requests(kwargs, text):
    request = {"tasks": DEMO_TASKS, "annotators": examples.demo_roster(), "per_cell": 1, "seed": 1, **kwargs}
    error = refuse(**request)
    assert text in str(error)


def test_solver_infeasibility_is_diagnosed_by_relaxation():
    """When a request slips past the pre-checks, re-solving without each rule group names it.

    This calls the solver directly on a problem the lower-load pre-check would have refused, to
    exercise the diagnosis itself.
    """
    tasks: list[PlanTask] = examples.synthetic_tasks(["shop", "mail"], per_cell=2, with_variant=2)
    panel = select_panel(
        tasks=tasks,
        envs=["mail", "shop"],
        difficulties=["easy", "hard", "expert", "frontier"],
        per_cell=1,
        seed=1,
    )
    roster = [member("A1"), member("A2", "mail"), member("A3", "mail"), member("A4", "mail"), member("A5")]
    problem = PlanningProblem(
        panel=panel, primaries=tuple(roster), duplicates=(member("D1"),), duplicates_per_cell=1, seed=1
    )
    with pytest.raises(PlanInfeasible) as caught:
        solve(problem)
    assert caught.value.constraint == "primary_balance"
    assert str(caught.value).startswith(
        "no plan meets every rule; primary_balance cannot be met together with the others"
    )
    assert "A2 designed mail" in str(caught.value)
