"""plan_panel on the paper's Human-140 dimensions and on the three-environment demo study."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from humantrace.annotators.planning import (
    DIFFICULTIES,
    Plan,
    PlanAnnotator,
    PlanTask,
    check_plan,
    examples,
    plan_panel,
)


@pytest.fixture(scope="module")
def paper_tasks() -> list[PlanTask]:
    return examples.paper_tasks()


@pytest.fixture(scope="module")
def paper_annotators() -> list[PlanAnnotator]:
    return examples.paper_roster()


@pytest.fixture(scope="module")
def paper_plan(paper_tasks, paper_annotators) -> Plan:
    """One Human-140 plan (K=4, seed 42), solved once for this module: it takes a few seconds."""
    return plan_panel(tasks=paper_tasks, annotators=paper_annotators, per_cell=4, seed=42)


@pytest.fixture(scope="module")
def demo_tasks() -> list[PlanTask]:
    return examples.demo_tasks()


@pytest.fixture(scope="module")
def demo_annotators() -> list[PlanAnnotator]:
    return examples.demo_roster()


@pytest.fixture(scope="module")
def demo_plan(demo_tasks, demo_annotators) -> Plan:
    return plan_panel(tasks=demo_tasks, annotators=demo_annotators, per_cell=1, seed=7)


def test_human140_plan_passes_every_rule(paper_plan, paper_tasks, paper_annotators):
    assert check_plan(paper_plan, tasks=paper_tasks, annotators=paper_annotators, per_cell=4) == []


def test_human140_totals_match_the_paper(paper_plan):
    s = paper_plan.summary
    # Appendix H.1: 140 base tasks, 280 primary task-conditions, 560 primary attempts; 35 duplicated
    # task-conditions (one per cell), 70 duplicate attempts.
    assert (s.cells, s.base_tasks) == (35, 140)
    assert (s.primary_task_conditions, s.primary_attempts) == (280, 560)
    assert (s.duplicate_task_conditions, s.duplicate_attempts) == (35, 70)
    assert len(paper_plan.assignments) == 280 + 35


def test_human140_panel_has_four_tasks_with_variants_per_cell(paper_plan, paper_tasks):
    variant = {t.task_id: t.has_variant for t in paper_tasks}
    assert {(c.env_id, c.difficulty) for c in paper_plan.panel} == {
        (e, d) for e in paper_plan.envs for d in DIFFICULTIES
    }
    for cell in paper_plan.panel:
        assert len(set(cell.task_ids)) == 4
        assert all(variant[t] for t in cell.task_ids)


def test_human140_loads_are_balanced(paper_plan):
    primary = [load for load in paper_plan.summary.loads if load.tier == "primary"]
    duplicate = [load for load in paper_plan.summary.loads if load.tier == "duplicate"]
    # "Four primary annotators each completed 70 task-conditions": 14 per difficulty, and here
    # also 35 clean + 35 intervention each.
    assert [load.total for load in primary] == [70, 70, 70, 70]
    assert all(load.by_difficulty == {d: 14 for d in DIFFICULTIES} for load in primary)
    assert all(load.by_condition == {"clean": 35, "intervention": 35} for load in primary)
    # "Four duplicate annotators each completed 8-9 task-conditions."
    assert sorted(load.total for load in duplicate) == [8, 9, 9, 9]
    assert paper_plan.summary.difficulty_excess == 0
    assert paper_plan.notes == ()


def test_human140_nobody_records_what_they_designed(paper_plan, paper_annotators):
    designed = {a.code: a.designed for a in paper_annotators}
    assert not [r for r in paper_plan.assignments if r.env_id in designed[r.annotator]]
    # D2 designed shop and mail, so every duplicate in those envs went to someone else.
    assert {
        r.annotator for r in paper_plan.assignments if r.tier == "duplicate" and r.env_id in {"shop", "mail"}
    } <= {"D1", "D3", "D4"}


def test_human140_conditions_of_a_task_go_to_different_people(paper_plan):
    holders = Counter((r.annotator, r.task_id) for r in paper_plan.assignments)
    assert max(holders.values()) == 1


def test_queue_spreads_difficulties(paper_plan):
    queue = sorted((r for r in paper_plan.assignments if r.annotator == "A1"), key=lambda r: r.order)
    assert [r.order for r in queue] == list(range(1, 71))
    # Every block of five consecutive assignments holds all five difficulties, so nobody works
    # through all the easy tasks first.
    for start in range(0, 70, 5):
        assert {r.difficulty for r in queue[start : start + 5]} == set(DIFFICULTIES)


def test_same_seed_same_plan_whatever_the_input_order(paper_plan, paper_tasks, paper_annotators):
    tasks = list(paper_tasks)
    annotators = list(paper_annotators)
    random.Random(3).shuffle(tasks)
    annotators.reverse()
    again = plan_panel(tasks=tasks, annotators=annotators, per_cell=4, seed=42)
    assert again == paper_plan


def test_other_seed_other_panel(paper_plan, paper_tasks, paper_annotators):
    other = plan_panel(tasks=paper_tasks, annotators=paper_annotators, per_cell=4, seed=43)
    assert check_plan(other, tasks=paper_tasks, annotators=paper_annotators, per_cell=4) == []
    assert other.panel != paper_plan.panel
    # Each cell is drawn from its own seeded stream: with 5 candidates for 4 places, many cells
    # differ, not just one.
    changed = sum(a.task_ids != b.task_ids for a, b in zip(other.panel, paper_plan.panel, strict=True))
    assert changed >= 10


def test_env_subset_keeps_the_other_cells_choices(paper_plan, paper_tasks, paper_annotators):
    small = plan_panel(
        tasks=paper_tasks, annotators=paper_annotators, per_cell=4, seed=42, envs=["shop", "lms", "brokerage"]
    )
    assert small.envs == ("brokerage", "lms", "shop")
    assert check_plan(small, tasks=paper_tasks, annotators=paper_annotators, per_cell=4) == []
    full = {(c.env_id, c.difficulty): c.task_ids for c in paper_plan.panel}
    assert all(full[c.env_id, c.difficulty] == c.task_ids for c in small.panel)
    assert small.summary.base_tasks == 3 * 5 * 4


def test_demo_study_three_envs_one_task_per_cell(demo_plan, demo_tasks, demo_annotators):
    assert check_plan(demo_plan, tasks=demo_tasks, annotators=demo_annotators, per_cell=1) == []
    s = demo_plan.summary
    assert (s.cells, s.base_tasks, s.primary_task_conditions, s.duplicate_task_conditions) == (15, 15, 30, 15)
    loads = {load.annotator: load.total for load in s.loads}
    assert sorted(loads[c] for c in ("A1", "A2", "A3", "A4")) == [7, 7, 8, 8]
    assert loads["D1"] == 15
    # 6 task-conditions per difficulty over 4 annotators: 1 or 2 each.
    for load in s.loads:
        if load.tier == "primary":
            assert set(load.by_difficulty.values()) <= {1, 2}


def test_demo_without_duplicate_audit(demo_tasks, demo_annotators):
    plan = plan_panel(
        tasks=demo_tasks, annotators=demo_annotators[:4], per_cell=1, seed=7, duplicates_per_cell=0
    )
    assert (
        check_plan(plan, tasks=demo_tasks, annotators=demo_annotators[:4], per_cell=1, duplicates_per_cell=0)
        == []
    )
    assert plan.summary.duplicate_task_conditions == 0


def test_difficulty_subset(demo_tasks, demo_annotators):
    plan = plan_panel(
        tasks=demo_tasks, annotators=demo_annotators, per_cell=2, seed=1, difficulties=["hard", "easy"]
    )
    assert plan.difficulties == ("easy", "hard")
    assert {c.difficulty for c in plan.panel} == {"easy", "hard"}
    assert check_plan(plan, tasks=demo_tasks, annotators=demo_annotators, per_cell=2) == []


def test_inactive_annotators_get_nothing(demo_tasks, demo_annotators):
    roster = [
        *demo_annotators,
        examples.roster_member("A5", active=False),
        examples.roster_member("D2", active=False),
    ]
    plan = plan_panel(tasks=demo_tasks, annotators=roster, per_cell=1, seed=7)
    assert {r.annotator for r in plan.assignments} == {"A1", "A2", "A3", "A4", "D1"}
    assert check_plan(plan, tasks=demo_tasks, annotators=roster, per_cell=1) == []


def test_two_duplicates_per_cell(demo_tasks):
    roster = [examples.roster_member(c) for c in ("A1", "A2", "A3", "D1", "D2")]
    plan = plan_panel(tasks=demo_tasks, annotators=roster, per_cell=1, seed=5, duplicates_per_cell=2)
    assert check_plan(plan, tasks=demo_tasks, annotators=roster, per_cell=1, duplicates_per_cell=2) == []
    assert plan.summary.duplicate_task_conditions == 30
    # One base task per cell: the two duplicated task-conditions are its two conditions, and the
    # condition split sends them to different duplicate-tier annotators.
    for cell in plan.panel:
        dups = [r for r in plan.assignments if r.tier == "duplicate" and r.task_id == cell.task_ids[0]]
        assert sorted(r.condition for r in dups) == ["clean", "intervention"]
        assert {r.annotator for r in dups} == {"D1", "D2"}


def test_inputs_read_from_database_rows(demo_plan, demo_tasks):
    """The lead passes ORM rows: attributes are read, unrelated columns ignored, enums coerced."""
    from enum import StrEnum
    from types import SimpleNamespace

    class TierColumn(StrEnum):
        primary = "primary"
        duplicate = "duplicate"

    rows = [
        SimpleNamespace(
            id=i,
            code=code,
            role="annotator",
            tier=TierColumn.duplicate if code == "D1" else TierColumn.primary,
            designed=[],
            active=True,
        )
        for i, code in enumerate(("A1", "A2", "A3", "A4", "D1"))
    ]
    task_rows = [SimpleNamespace(**t.model_dump(), title="ignored") for t in demo_tasks]
    annotators = [PlanAnnotator.model_validate(r) for r in rows]
    tasks = [PlanTask.model_validate(r) for r in task_rows]
    assert plan_panel(tasks=tasks, annotators=annotators, per_cell=1, seed=7) == demo_plan


def test_human140_on_the_real_catalogue_once_it_is_full(paper_annotators):
    """The paper's panel over the seven real sites (K=4, designers kept off their sites). Until every
    cell of the seven has four tasks with a variant, the test names the short cells and skips."""
    from humantrace.dashboard.studies.planning import catalogue_tasks

    tasks = [t for t in catalogue_tasks() if t.env_id in examples.PAPER_ENVS]
    counts = Counter((t.env_id, t.difficulty) for t in tasks if t.has_variant)
    short = [
        f"{e}/{d}: {counts[e, d]}" for e in examples.PAPER_ENVS for d in DIFFICULTIES if counts[e, d] < 4
    ]
    if short:
        pytest.skip(f"the catalogue is not full yet; cells short of 4 tasks: {', '.join(short)}")
    plan = plan_panel(tasks=tasks, annotators=paper_annotators, per_cell=4, seed=42)
    assert check_plan(plan, tasks=tasks, annotators=paper_annotators, per_cell=4) == []
    assert (plan.summary.primary_task_conditions, plan.summary.duplicate_task_conditions) == (280, 35)
    designed = {a.code: a.designed for a in paper_annotators}
    assert not [r for r in plan.assignments if r.env_id in designed[r.annotator]]
