"""The shop's task and variant catalogue: balanced difficulties, one variant per task, the
primitive-purity rule, and the intervention families the study needs."""

from __future__ import annotations

from collections import Counter

import pytest

from humantrace.environments import catalog
from humantrace.environments.oracles import load_oracles
from humantrace.environments.registry import get

pytestmark = pytest.mark.all_sites


def _shop_tasks():
    return sorted(
        (t for t in catalog.load_catalog().tasks.values() if t.env_id == "shop"), key=lambda t: t.task_id
    )


def test_twenty_tasks_four_per_difficulty_with_sensible_budgets():
    tasks = _shop_tasks()
    assert [t.task_id for t in tasks] == [f"shop-{n:03d}" for n in range(1, 21)]
    assert Counter(t.difficulty for t in tasks) == {
        d: 4 for d in ("easy", "medium", "hard", "expert", "frontier")
    }
    limits = {d: [t.time_limit_seconds for t in tasks if t.difficulty == d] for d in ("easy", "frontier")}
    assert max(limits["easy"]) <= 180 and min(limits["frontier"]) >= 900
    frontier = [t for t in tasks if t.difficulty == "frontier"]
    assert all(
        any(entry.bijection for entry in t.canonical_diff.create + t.canonical_diff.delete) for t in frontier
    ), "every frontier task has a set-valued obligation"


def test_every_task_has_a_pure_variant_and_both_solutions():
    found = load_oracles(get("shop"))
    for task in _shop_tasks():
        variant = catalog.variant_for(task.task_id)
        assert variant is not None and variant.variant_id == f"{task.task_id}-v1"
        assert len(set(task.primary_primitives) | {variant.target_primitive}) <= 2, task.task_id
        assert task.task_id in found.oracles and task.task_id in found.wrong


def test_variants_cover_layers_primitives_and_families():
    variants = [catalog.variant_for(t.task_id) for t in _shop_tasks()]
    layers = {layer for v in variants for layer in v.layers()}
    assert layers == {"seed", "server", "network", "client"}
    assert len({v.target_primitive for v in variants}) >= 6
    actions = {(i.layer, i.params.action) for v in variants for i in v.injections}
    assert ("seed", "shop.add_confusing_decoys") in actions
    assert {("network", "silent_fail"), ("network", "misleading_success")} <= actions
    assert {("network", "error_then_success"), ("network", "stale_data"), ("network", "delay")} <= actions
    assert any(layer == "client" for layer, _ in actions)
