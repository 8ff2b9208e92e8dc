"""`threshold_drops` (paper_quantities.csv) on a hand-made study, including a model that ran one
condition only (a replay of clean attempts): it has no pair and no estimate, not an error (compare
failed with a numpy shape error on such a bundle)."""

from __future__ import annotations

import math

import pandas as pd

from humantrace.exports.paper_quantities import threshold_drops


def test_a_population_with_one_condition_gets_no_estimate_and_the_others_their_drop():
    # Humans, warm: T1 clean passed (1.0), intervention failed at 0.6; T2 clean passed, intervention
    # passed. Pass drop at 1.0 = mean(1-0, 1-1) = 0.5; at 0.5 both intervention scores clear it: 0.
    primary = pd.DataFrame(
        {
            "phase": ["warm"] * 4,
            "task_id": ["T1", "T1", "T2", "T2"],
            "condition": ["clean", "intervention", "clean", "intervention"],
            "score": [1.0, 0.6, 1.0, 1.0],
            "passed": [True, False, True, True],
        }
    )
    # The replay model ran clean only.
    runs = pd.DataFrame(
        {
            "model": ["replay", "replay"],
            "task": ["T1", "T2"],
            "condition": ["clean", "clean"],
            "score": [1.0, 1.0],
            "passed": [True, True],
        }
    )
    rows = {(r["quantity"], r["population"]): r for r in threshold_drops(primary, runs, n_boot=50, seed=1)}
    assert rows[("pass_drop_threshold_1", "humans warm")]["estimate"] == 0.5
    assert rows[("pass_drop_threshold_1", "humans warm")]["n"] == 2
    assert rows[("pass_drop_threshold_0.5", "humans warm")]["estimate"] == 0.0
    replay = rows[("pass_drop_threshold_1", "replay")]
    assert replay["n"] == 0 and math.isnan(replay["estimate"])


def test_a_study_with_no_intervention_attempt_at_all_gets_no_drop_and_no_error():
    # Every attempt and run is clean, on two base tasks (a pilot, or a replay of clean attempts):
    # there is no intervention column to pair with, so each population has n = 0 and no estimate.
    primary = pd.DataFrame(
        {
            "phase": ["cold", "warm", "cold", "warm"],
            "task_id": ["T1", "T1", "T2", "T2"],
            "condition": ["clean"] * 4,
            "score": [1.0, 1.0, 0.5, 1.0],
            "passed": [True, True, False, True],
        }
    )
    runs = pd.DataFrame(
        {
            "model": ["replay"] * 2,
            "task": ["T1", "T2"],
            "condition": ["clean"] * 2,
            "score": [1.0] * 2,
            "passed": [True] * 2,
        }
    )
    rows = threshold_drops(primary, runs, n_boot=50, seed=1)
    assert {(r["population"], r["n"]) for r in rows} == {
        ("humans cold", 0),
        ("humans warm", 0),
        ("replay", 0),
    }
    assert all(math.isnan(r["estimate"]) for r in rows)
