"""UI profiles cross the base tasks like conditions: `plan_panel(profiles=...)` and `resolve_profiles`."""

from __future__ import annotations

from collections import Counter

import pytest

from humantrace.annotators.planning import PlanInfeasible, check_plan, examples, plan_panel, resolve_profiles

TASKS = examples.demo_tasks()
# Three profiles x two conditions: each base task needs six different primary annotators.
ROSTER = [*examples.demo_roster(), examples.roster_member("A5"), examples.roster_member("A6")]
PROFILES = ("default", "icon-buttons", "kit-controls")


@pytest.fixture(scope="module")
def plan():
    return plan_panel(tasks=TASKS, annotators=ROSTER, per_cell=1, seed=11, profiles=PROFILES)


def test_every_base_task_runs_in_both_conditions_under_every_profile(plan):
    primary = [r for r in plan.assignments if r.tier == "primary"]
    cross = Counter((r.task_id, r.condition, r.ui_profile) for r in primary)
    assert set(cross.values()) == {1}
    assert len(cross) == len(plan.panel_task_ids()) * 2 * len(PROFILES)
    by_task = Counter(r.task_id for r in primary)
    assert set(by_task.values()) == {2 * len(PROFILES)}
    assert plan.profiles == {env: PROFILES for env in examples.DEMO_ENVS}


def test_nobody_gets_a_base_task_twice(plan):
    held = Counter((r.annotator, r.task_id) for r in plan.assignments)
    assert max(held.values()) == 1


def test_loads_stay_balanced_in_total_per_profile_and_per_condition(plan):
    primary = [load for load in plan.summary.loads if load.tier == "primary"]
    assert {load.total for load in primary} == {15}  # 90 task-conditions over six people
    assert all(load.by_profile == dict.fromkeys(sorted(PROFILES), 5) for load in primary)
    assert plan.summary.profile_excess == 0
    assert plan.summary.condition_imbalance <= 1
    assert check_plan(plan, tasks=TASKS, annotators=ROSTER, per_cell=1) == []


def test_the_audit_is_per_cell_over_profiled_task_conditions(plan):
    dups = [r for r in plan.assignments if r.tier == "duplicate"]
    assert len(dups) == len(plan.panel)
    primaries = {(r.task_id, r.condition, r.ui_profile) for r in plan.assignments if r.tier == "primary"}
    assert all((r.task_id, r.condition, r.ui_profile) in primaries for r in dups)


def test_the_audit_spreads_over_each_sites_profiles(plan):
    """Five audited task-conditions per site over three profiles: each profile gets one or two, so
    every build of a site has recordings checked by a second person."""
    for env in examples.DEMO_ENVS:
        audited = Counter(r.ui_profile for r in plan.assignments if r.tier == "duplicate" and r.env_id == env)
        assert sum(audited.values()) == 5
        assert set(audited) == set(PROFILES) and max(audited.values()) - min(audited.values()) <= 1, (
            env,
            audited,
        )
    assert not any(note.startswith("duplicate_audit") for note in plan.notes)


def test_same_seed_same_plan_and_no_profiles_is_the_old_plan(plan):
    assert plan_panel(tasks=TASKS, annotators=ROSTER, per_cell=1, seed=11, profiles=PROFILES) == plan
    plain = plan_panel(tasks=TASKS, annotators=ROSTER[:5], per_cell=1, seed=7)
    assert plain == plan_panel(tasks=TASKS, annotators=ROSTER[:5], per_cell=1, seed=7, profiles=["default"])
    assert {r.ui_profile for r in plain.assignments} == {"default"}


def test_too_few_annotators_for_the_cross_is_refused_with_a_sentence():
    with pytest.raises(PlanInfeasible) as caught:
        plan_panel(tasks=TASKS, annotators=examples.demo_roster(), per_cell=1, seed=1, profiles=PROFILES)
    assert caught.value.constraint == "profile_split"
    message = str(caught.value)
    assert "needs six different annotators" in message
    assert "default, icon-buttons, kit-controls" in message
    assert message.endswith("only A1, A2, A3, A4 are eligible")


def test_per_env_profiles_give_each_site_its_own_cross():
    profiles = {"shop": ("default", "custom-controls"), "mail": ("default",), "booking": ("default",)}
    plan = plan_panel(tasks=TASKS, annotators=ROSTER[:5], per_cell=1, seed=3, profiles=profiles)
    primary = [r for r in plan.assignments if r.tier == "primary"]
    assert Counter(r.env_id for r in primary) == {"shop": 20, "mail": 10, "booking": 10}
    assert {r.ui_profile for r in primary if r.env_id != "shop"} == {"default"}
    assert check_plan(plan, tasks=TASKS, annotators=ROSTER[:5], per_cell=1) == []
    with pytest.raises(PlanInfeasible, match="lms, which the plan does not cover"):
        plan_panel(tasks=TASKS, annotators=ROSTER, per_cell=1, seed=3, profiles={"lms": ("default",)})


DECLARED = {
    "shop": ["default", "custom-controls", "icon-buttons"],
    "mail": ["default", "side-menu", "icon-buttons"],
    "booking": ["default"],
}


def test_resolve_bare_names_apply_to_every_site_and_site_names_to_one():
    envs = ["shop", "mail"]
    assert resolve_profiles(None, envs=envs, declared=DECLARED) == {
        "shop": ("default",),
        "mail": ("default",),
    }
    assert resolve_profiles(["default", "icon-buttons"], envs=envs, declared=DECLARED) == {
        "shop": ("default", "icon-buttons"),
        "mail": ("default", "icon-buttons"),
    }
    spec = ["default", "shop:custom-controls", "mail:side-menu"]
    assert resolve_profiles(spec, envs=envs, declared=DECLARED) == {
        "shop": ("default", "custom-controls"),
        "mail": ("default", "side-menu"),
    }


def test_resolve_refuses_a_profile_a_site_lacks_naming_its_profiles():
    with pytest.raises(PlanInfeasible) as caught:
        resolve_profiles(["default", "custom-controls"], envs=["shop", "mail"], declared=DECLARED)
    assert caught.value.constraint == "unknown_profile"
    assert "mail has no UI profile 'custom-controls' (it has: default, side-menu, icon-buttons)" in str(
        caught.value
    )
    assert "<env>:custom-controls" in str(caught.value)
    with pytest.raises(PlanInfeasible, match="shop has no UI profile 'side-menu'"):
        resolve_profiles(["shop:side-menu"], envs=["shop"], declared=DECLARED)
    with pytest.raises(PlanInfeasible, match="forum is not in this plan"):
        resolve_profiles(["default", "forum:x"], envs=["shop"], declared=DECLARED)
    with pytest.raises(PlanInfeasible, match="names no profile for mail"):
        resolve_profiles(["shop:custom-controls"], envs=["shop", "mail"], declared=DECLARED)
