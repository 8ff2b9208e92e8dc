"""check_plan catches each hand-broken plan and names the rule and the offending rows."""

from __future__ import annotations

from collections import Counter
from functools import cache

import pytest

from humantrace.annotators.planning import RULES, Plan, check_plan, examples, plan_panel

TASKS = examples.demo_tasks()
ROSTER = examples.demo_roster()


@pytest.fixture(scope="module")
def plan() -> Plan:
    return plan_panel(tasks=TASKS, annotators=ROSTER, per_cell=1, seed=7)


def with_rows(plan: Plan, rows) -> Plan:
    return plan.model_copy(update={"assignments": tuple(rows)})


def primary(plan: Plan, task_id: str, condition: str):
    return next(
        r
        for r in plan.assignments
        if r.tier == "primary" and (r.task_id, r.condition) == (task_id, condition)
    )


def holds(plan: Plan, code: str, task_id: str) -> bool:
    return any(r.annotator == code and r.task_id == task_id for r in plan.assignments)


def loads(plan: Plan) -> Counter:
    return Counter(r.annotator for r in plan.assignments if r.tier == "primary")


def movable(plan: Plan, to: str):
    """A primary row of someone else that `to` may take without holding both conditions."""
    return next(
        r
        for r in plan.assignments
        if r.tier == "primary" and r.annotator != to and not holds(plan, to, r.task_id)
    )


# Each breaker returns (broken plan, tasks, annotators, the row(s) the violation must name).
def break_unknown_task(plan):
    row = plan.assignments[0]
    bad = row.model_copy(update={"task_id": "shop-easy-99"})
    return with_rows(plan, [bad, *plan.assignments[1:]]), TASKS, ROSTER, [bad]


def break_no_variant(plan):
    task_id = plan.panel[0].task_ids[0]
    tasks = [t.model_copy(update={"has_variant": False}) if t.task_id == task_id else t for t in TASKS]
    return plan, tasks, ROSTER, []


def break_unknown_annotator(plan):
    row = plan.assignments[0]
    bad = row.model_copy(update={"annotator": "Z9"})
    return with_rows(plan, [bad, *plan.assignments[1:]]), TASKS, ROSTER, [bad]


def break_duplicate_row(plan):
    row = plan.assignments[0]
    return with_rows(plan, [*plan.assignments, row]), TASKS, ROSTER, [row]


def break_cell_size(plan):
    cell = plan.panel[0]
    extra = next(
        t.task_id
        for t in TASKS
        if (t.env_id, t.difficulty) == (cell.env_id, cell.difficulty) and t.task_id not in cell.task_ids
    )
    grown = cell.model_copy(update={"task_ids": (*cell.task_ids, extra)})
    return plan.model_copy(update={"panel": (grown, *plan.panel[1:])}), TASKS, ROSTER, []


def break_designer_exclusion(plan):
    row = next(r for r in plan.assignments if r.annotator == "A1")
    roster = [
        a.model_copy(update={"designed": frozenset({row.env_id})}) if a.code == "A1" else a for a in ROSTER
    ]
    return plan, TASKS, roster, [row]


def break_condition_split(plan):
    clean = primary(plan, plan.panel[0].task_ids[0], "clean")
    other = primary(plan, clean.task_id, "intervention")
    stolen = other.model_copy(update={"annotator": clean.annotator})
    rows = [stolen if r == other else r for r in plan.assignments]
    return with_rows(plan, rows), TASKS, ROSTER, [clean, stolen]


def break_both_conditions(plan):
    gone = primary(plan, plan.panel[3].task_ids[0], "intervention")
    return (
        with_rows(plan, [r for r in plan.assignments if r != gone]),
        TASKS,
        ROSTER,
        [primary(plan, gone.task_id, "clean")],
    )


def break_primary_balance(plan):
    counts = loads(plan)
    heavy = max(counts, key=lambda c: (counts[c], c))
    row = movable(plan, heavy)
    moved = row.model_copy(update={"annotator": heavy})
    return with_rows(plan, [moved if r == row else r for r in plan.assignments]), TASKS, ROSTER, [moved]


def break_difficulty_balance(plan):
    """Swap two rows between annotators so totals stay equal but one difficulty piles up."""
    rows = [r for r in plan.assignments if r.tier == "primary"]
    for a in rows:
        for b in rows:
            x, y = a.annotator, b.annotator
            x_in_b = sum(r.annotator == x and r.difficulty == b.difficulty for r in rows)
            if x == y or a.difficulty == b.difficulty or x_in_b < 2:
                continue
            if holds(plan, x, b.task_id) or holds(plan, y, a.task_id):
                continue
            a2, b2 = a.model_copy(update={"annotator": y}), b.model_copy(update={"annotator": x})
            swapped = [a2 if r == a else b2 if r == b else r for r in plan.assignments]
            return with_rows(plan, swapped), TASKS, ROSTER, [b2]
    raise AssertionError("no swap found")


def break_duplicate_audit(plan):
    # The last one in D1's queue, so the numbering of the rest stays 1..n.
    gone = max((r for r in plan.assignments if r.tier == "duplicate"), key=lambda r: r.order)
    return with_rows(plan, [r for r in plan.assignments if r != gone]), TASKS, ROSTER, []


def break_duplicate_independence(plan):
    dup = next(r for r in plan.assignments if r.tier == "duplicate")
    first = primary(plan, dup.task_id, dup.condition)
    same = dup.model_copy(update={"annotator": first.annotator})
    return with_rows(plan, [same if r == dup else r for r in plan.assignments]), TASKS, ROSTER, [same, first]


# A plan crossed with two UI profiles: five primary annotators (each base task needs four).
PROFILED_ROSTER = [*ROSTER, examples.roster_member("A5")]


@cache
def profiled() -> Plan:
    return plan_panel(tasks=TASKS, annotators=PROFILED_ROSTER, per_cell=1, seed=7, profiles=("default", "a"))


def profiled_primary(plan: Plan, task_id: str, condition: str, profile: str):
    return next(
        r
        for r in plan.assignments
        if r.tier == "primary" and (r.task_id, r.condition, r.ui_profile) == (task_id, condition, profile)
    )


def break_unknown_profile(_plan):
    plan = profiled()
    row = plan.assignments[0]
    bad = row.model_copy(update={"ui_profile": "zzz"})
    return with_rows(plan, [bad, *plan.assignments[1:]]), TASKS, PROFILED_ROSTER, [bad]


def break_profile_split(_plan):
    """Give the annotator of a task's clean/default row its clean/a row too."""
    plan = profiled()
    task_id = plan.panel[0].task_ids[0]
    mine = profiled_primary(plan, task_id, "clean", "default")
    other = profiled_primary(plan, task_id, "clean", "a")
    stolen = other.model_copy(update={"annotator": mine.annotator})
    rows = [stolen if r == other else r for r in plan.assignments]
    return with_rows(plan, rows), TASKS, PROFILED_ROSTER, [mine, stolen]


def break_profile_balance(_plan):
    """Swap the profiles of one task-condition's two rows: coverage and loads stay, but two people's
    loads per profile move off floor/ceil (6 each of 30 per profile over five)."""
    plan = profiled()
    task_id = plan.panel[0].task_ids[0]
    first = profiled_primary(plan, task_id, "clean", "default")
    second = profiled_primary(plan, task_id, "clean", "a")
    first2, second2 = (
        first.model_copy(update={"ui_profile": "a"}),
        second.model_copy(update={"ui_profile": "default"}),
    )
    rows = [first2 if r == first else second2 if r == second else r for r in plan.assignments]
    return with_rows(plan, rows), TASKS, PROFILED_ROSTER, [first2, second2]


def break_order(plan):
    row = plan.assignments[0]
    bad = row.model_copy(update={"order": 99})
    return with_rows(plan, [bad, *plan.assignments[1:]]), TASKS, ROSTER, [bad]


BREAKERS = {
    "unknown_task": break_unknown_task,
    "no_variant": break_no_variant,
    "unknown_annotator": break_unknown_annotator,
    "duplicate_row": break_duplicate_row,
    "cell_size": break_cell_size,
    "designer_exclusion": break_designer_exclusion,
    "condition_split": break_condition_split,
    "both_conditions": break_both_conditions,
    "primary_balance": break_primary_balance,
    "difficulty_balance": break_difficulty_balance,
    "duplicate_audit": break_duplicate_audit,
    "duplicate_independence": break_duplicate_independence,
    "order": break_order,
    "unknown_profile": break_unknown_profile,
    "profile_split": break_profile_split,
    "profile_balance": break_profile_balance,
}
# Breakages that touch only their own rule (the others also upset loads or coverage by nature).
PURE = {
    "no_variant",
    "designer_exclusion",
    "difficulty_balance",
    "duplicate_audit",
    "order",
    "profile_balance",
}


def test_every_rule_has_a_breaker():
    assert set(BREAKERS) == set(RULES)


def test_unbroken_plan_is_valid(plan):
    assert check_plan(plan, tasks=TASKS, annotators=ROSTER, per_cell=1) == []


@pytest.mark.parametrize("rule", list(BREAKERS))
def test_broken_plan_is_caught_and_named(plan, rule):
    broken, tasks, roster, offending = BREAKERS[rule](plan)
    violations = check_plan(broken, tasks=tasks, annotators=roster, per_cell=1)
    named = [v for v in violations if v.rule == rule]
    assert named, f"{rule} not reported; got {[v.rule for v in violations]}"
    for row in offending:
        assert any(row in v.rows for v in named), f"{rule} does not name {row}"
    assert all(v.message for v in named)
    if rule in PURE:
        assert {v.rule for v in violations} == {rule}


def test_designer_exclusion_names_every_row_in_that_env(plan):
    broken, tasks, roster, [row] = break_designer_exclusion(plan)
    violations = check_plan(broken, tasks=tasks, annotators=roster, per_cell=1)
    expected = {r for r in plan.assignments if r.annotator == "A1" and r.env_id == row.env_id}
    assert {r for v in violations for r in v.rows} == expected
    assert all("A1 designed " + row.env_id in v.message for v in violations)


def test_difficulty_tolerance_accepts_a_flagged_plan(plan):
    broken, tasks, roster, _ = break_difficulty_balance(plan)
    assert check_plan(broken, tasks=tasks, annotators=roster, per_cell=1, difficulty_tolerance=1) == []


def test_wrong_per_cell_is_a_cell_size_violation(plan):
    violations = check_plan(plan, tasks=TASKS, annotators=ROSTER, per_cell=2)
    assert {v.rule for v in violations} >= {"cell_size"}
    assert sum(v.rule == "cell_size" for v in violations) == 15


def test_profiled_plan_is_valid():
    assert check_plan(profiled(), tasks=TASKS, annotators=PROFILED_ROSTER, per_cell=1) == []


def test_profile_tolerance_accepts_a_flagged_plan():
    broken, tasks, roster, _ = break_profile_balance(None)
    assert check_plan(broken, tasks=tasks, annotators=roster, per_cell=1, profile_tolerance=1) == []


def test_declared_profiles_name_the_sites_profiles():
    declared = {"shop": ["default", "a"], "mail": ["default", "a"], "booking": ["default", "kit"]}
    violations = check_plan(
        profiled(), tasks=TASKS, annotators=PROFILED_ROSTER, per_cell=1, declared_profiles=declared
    )
    assert [v.rule for v in violations] == ["unknown_profile"]
    assert "booking has no UI profile 'a' (it has: default, kit)" in violations[0].message
    assert {r.env_id for r in violations[0].rows} == {"booking"}
    assert all(r.ui_profile == "a" for r in violations[0].rows)
