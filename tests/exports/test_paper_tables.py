"""The papers' tables on the synthetic study of conftest.py; every expected value is worked out
by hand from the rows listed there (PRIMARY, DUPLICATE, M1, M2, EMS, M1_EMS, session_rows)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from humantrace.exports.features import extract_features

Z = 1.959963984540054


def wilson(k: int, n: int) -> tuple[float, float]:
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return centre - half, centre + half


def row(frame: pd.DataFrame, **where) -> pd.Series:
    mask = np.ones(len(frame), dtype=bool)
    for key, value in where.items():
        mask &= (frame[key] == value).to_numpy()
    assert mask.sum() == 1, (where, mask.sum())
    return frame[mask].iloc[0]


def test_model_primitive_pass_rates_and_paired_drops(compared):
    table = compared.tables["model_primitive"]
    # humans cold over T1..T5: clean passes 1,1,0,1,1; intervention 0,1,0,1,0; scores 1.0 / 0.4.
    r = row(table, population="humans cold", primitive="all")
    assert (r.n_tasks, r.clean_pass_rate, r.intervention_pass_rate) == (5, 0.8, 0.4)
    assert r.pass_drop == pytest.approx(0.4) and r.score_drop == pytest.approx(0.88 - 0.64)
    assert r.pass_drop_ci_low <= r.pass_drop <= r.pass_drop_ci_high and r.note == ""
    # grounding = T1, T2: two tasks, so no interval, and the row says why.
    r = row(table, population="humans cold", primitive="grounding")
    assert (r.n_tasks, r.pass_drop, r.note) == (2, 0.5, "n too small") and math.isnan(r.pass_drop_ci_low)
    r = row(table, population="humans warm", primitive="verification")
    assert r.pass_drop == pytest.approx(1 / 3) and r.score_drop == pytest.approx(0.6 / 3)
    # M1 ran T9 too, outside the panel, so it is left out (scope panel): five paired tasks,
    # clean T1 T2 T3 T5 pass = 4/5, intervention T2 = 1/5, drop 3/5.
    r = row(table, population="M1", primitive="all")
    assert (r.n_tasks, r.clean_pass_rate, r.pass_drop, r.scope) == (
        5,
        pytest.approx(4 / 5),
        pytest.approx(3 / 5),
        "panel",
    )


def test_env_primitive_cells_and_no_variants(compared):
    table = compared.tables["env_primitive"]
    r = row(table, population="humans warm", env="mail", primitive="verification")
    assert r.n_tasks == 3 and r.mean_score_drop == pytest.approx(0.6 / 3)
    # agents' mean: per task the mean over M1 and M2 (T3 (1+0)/2, T4 0, T5 (0.8+0)/2), then over tasks.
    r = row(table, population="agents (mean over models)", env="mail", primitive="verification")
    assert r.mean_score_drop == pytest.approx((0.5 + 0 + 0.4) / 3)
    empty = row(table, population="M1", env="mail", primitive="grounding")
    assert empty.note == "no variants" and empty.n_tasks == 0 and math.isnan(empty.mean_score_drop)


def test_false_positive_completion(compared):
    table = compared.tables["false_positive_completion"]
    # Cold intervention: Evaluate on T1 (fail), T2, T4, T5 (fail); T3 timed out (no claim).
    r = row(table, population="humans cold", condition="intervention")
    assert (r.n_episodes, r.n_claimed, r.n_claimed_failed, r.fpr, r.ci_note) == (5, 4, 2, 0.5, "n too small")
    r = row(table, population="humans warm", condition="intervention")
    assert (r.n_claimed, r.n_claimed_failed) == (5, 1)
    assert (r.fpr_ci_low, r.fpr_ci_high) == pytest.approx(wilson(1, 5))
    # M1 ends T1, T2, T4 with finish (T1, T4 failed); T4 clean has no terminal verb: unknown.
    r = row(table, population="M1", condition="intervention")
    assert (r.n_claimed, r.n_claimed_failed) == (3, 2) and r.fpr == pytest.approx(2 / 3)
    assert row(table, population="M1", condition="clean").n_unknown == 1
    r = row(table, population="M2", condition="clean")
    assert r.n_claimed == 0 and r.ci_note == "no claimed completions"


def test_completion_verification_gap_and_event_match_scores(compared):
    gap = compared.tables["verification_gap"]
    r = row(gap, population="humans cold", condition="intervention")  # attempts 3 (fail, EMS 1) and 7
    assert (r.n, r.pass_rate, r.ems_rate, r.completion_rate, r.ems_not_pass) == (2, 0.5, 1.0, 1.0, 0.5)
    assert r.pass_minus_ems == pytest.approx(-0.5)
    r = row(gap, population="humans warm", condition="intervention")  # attempt 4 passed with EMS 0
    assert (r.pass_rate, r.ems_rate, r.over_claim, r.pass_not_ems, r.completion_minus_ems) == (
        1.0,
        0.5,
        0.5,
        0.5,
        0.5,
    )
    # T1 (fail) and T2 (pass), both EMS 0, both finish; T3, T4, T5 have no EMS (T9 is outside the panel)
    r = row(gap, population="M1", condition="intervention")
    assert (r.n, r.n_without_ems, r.pass_rate, r.ems_rate, r.over_claim, r.done_and_pass) == (
        2,
        3,
        0.5,
        0.0,
        1.0,
        0.0,
    )
    by_task = compared.tables["verification_gap_by_task"]
    assert row(by_task, population="M1", task="T2", condition="intervention").pass_not_ems == 1.0
    episodes = compared.tables["event_match"]
    humans = episodes[(episodes["source"] == "human") & episodes["event_match_score"].notna()]
    assert dict(zip(humans["episode"].astype(int), humans["event_match_score"], strict=True)) == {
        1: 1.0,
        2: 1.0,
        3: 1.0,
        4: 0.0,
        5: 1.0,
        6: 1.0,
        7: 1.0,
        8: 1.0,
    }


def test_failure_modes_by_primitive_and_environment(compared):
    prim = compared.tables["failure_modes_by_primitive"]
    # humans cold: T1 Evaluate with a failed obligation; T5 the same; T3 timed out after 45 steps.
    assert row(prim, population="humans cold", group="grounding", mode="premature_done")["count"] == 1
    r = row(prim, population="humans cold", group="verification", mode="premature_done")
    assert (r.n_failed, r.n_classified, r["count"], r.share) == (2, 1, 1, 1.0)
    assert math.isnan(row(prim, population="humans cold", group="verification", mode="abandoned_run").share)
    assert row(prim, population="humans warm", group="verification", mode="silent_overreach")["count"] == 1
    for mode in ("retry_loop", "premature_done", "plan_collapse"):
        assert row(prim, population="M1", group="verification", mode=mode).share == pytest.approx(1 / 3)
    # T9 (no primitive known, outside the panel) is left out: scope panel
    assert not len(prim[(prim["population"] == "M1") & (prim["group"] == "(unknown)")])
    env = compared.tables["failure_modes_by_environment"]
    r = row(env, population="M1", group="shop", mode="misleading_success_taken")  # T1 (T2 passed)
    assert (r.n_failed, r.n_classified, r.share, r.scope) == (1, 1, 1.0, "panel")
    classes = compared.tables["failure_classes"]
    assert row(classes, population="humans cold", mode_class="belief").share == 1.0
    r = row(classes, population="M1", mode_class="action")
    assert (r["count"], r.n, r.share) == (2, 4, 0.5) and r.ci_note == "n too small"


def test_human_features_come_from_the_bundle(compared):
    features = compared.tables["failure_features"].set_index("attempt_id")
    # attempt 3's audit log has one 503 among three calls; attempt 11 timed out.
    assert features.loc[3, "action_error_count"] == 1 and features.loc[3, "terminal_verb"] == "evaluate"
    assert features.loc[3, "failure_mode"] == "premature_done"
    assert (
        features.loc[11, "terminal_verb"] == "time_out"
        and features.loc[11, "failure_mode"] == "abandoned_run"
    )
    assert (
        features.loc[12, "failed_negative_checks"] == 1
        and features.loc[12, "failure_mode"] == "silent_overreach"
    )


def test_extract_features_on_hand_built_tables():
    episodes = pd.DataFrame(
        [
            {"attempt_id": 1, "terminal_verb": "click('a51')", "final_thought": "Trying again."},
            {"attempt_id": 2, "outcome": "evaluated"},
            {"attempt_id": 3, "outcome": "abandoned"},
        ]
    )
    actions = pd.DataFrame(
        [
            (1, 0, "fill", "b22", None),
            (1, 1, "fill", "b22", None),
            (1, 2, "click", "a51", "Element a51 doesn't exist"),
            (1, 3, "click", "a51", None),
            (1, 4, "click", "a51", "Could not click"),
            (1, 5, "scroll", "", None),
            (1, 6, "click", "a51", None),
        ],
        columns=["attempt_id", "step", "verb", "target", "error"],
    )
    clean = pd.DataFrame(
        [
            (2, 0, "click", "/html/x"),
            (2, 1, "fill", "/html/in"),
            (2, 2, "fill", "/html/in"),
            (2, 3, "click", "/html/x"),
        ],
        columns=["attempt_id", "step", "type", "xpath"],
    )
    audit = pd.DataFrame({"attempt_id": [2, 2, 2], "status": [200, 409, 503]})
    verdicts = pd.DataFrame(
        [(1, "positive", True), (2, "positive", False), (2, "negative", True)],
        columns=["attempt_id", "polarity", "passed"],
    )
    out = extract_features(
        episodes, actions=actions, events_clean=clean, backend_audit=audit, verdicts=verdicts
    )
    out = out.set_index("attempt_id")
    assert out.loc[1, ["max_repeat_run", "action_error_count", "steps"]].tolist() == [3, 2, 7]
    assert out.loc[1, "terminal_verb"] == "click('a51')" and out.loc[1, "final_thought"] == "Trying again."
    assert out.loc[2, ["max_repeat_run", "action_error_count", "steps", "terminal_verb"]].tolist() == [
        2,
        2,
        4,
        "evaluate",
    ]
    assert (out.loc[2, "failed_positive_checks"], out.loc[2, "failed_negative_checks"]) == (1, 0)
    assert out.loc[3, "terminal_verb"] == "abandon" and pd.isna(out.loc[3, "failed_positive_checks"])


def test_time_ratio_on_task_conditions_both_passed(compared):
    table = compared.tables["time_ratio"]
    # warm passes vs M1 passes: T1c (20, 61), T2c (40, 63), T2i (44, 64), T3c (50, 65), T5c (30, 69).
    r = row(table, model="M1", human_phase="warm", condition="all")
    assert (r.n_pairs, r.median_human_s, r.median_agent_s) == (5, 40.0, 64.0) and r.ratio == pytest.approx(
        1.6
    )
    assert r.ratio_ci_low <= r.ratio <= r.ratio_ci_high
    r = row(table, model="M1", human_phase="warm", condition="clean")
    assert r.ratio == pytest.approx(64 / 35) and r.ci_note == "n too small"
    human = compared.tables["human_time"]
    assert row(human, condition="clean", phase="cold").median_s == 40.0
    assert row(human, condition="intervention", phase="warm").median_s == 42.0


def test_duplicate_audit_statistics(compared):
    stats = compared.tables["duplicate_audit_statistics"].set_index("statistic")
    # pairs (primary, duplicate): T2i cold (P 70s 60ev, F 100s 80ev), T2i warm (P 44 36, P 55 45),
    # T3c cold (F 90 80, P 60 40), T3c warm (P 50 40, P 50 44).
    assert stats.loc["pass_fail_agreement", "estimate"] == 0.5
    p_o, p_e = 0.5, 0.75 * 0.75 + 0.25 * 0.25
    assert stats.loc["cohen_kappa", "estimate"] == pytest.approx((p_o - p_e) / (1 - p_e))
    assert stats.loc["median_time_ratio", "estimate"] == pytest.approx((1.0 + 55 / 44) / 2)
    assert stats.loc["median_step_ratio", "estimate"] == pytest.approx((44 / 40 + 45 / 36) / 2)
    y = np.log([[70, 100], [44, 55], [90, 60], [50, 50]])
    n, k = y.shape
    grand = y.mean()
    msr = k * ((y.mean(1) - grand) ** 2).sum() / (n - 1)
    msc = n * ((y.mean(0) - grand) ** 2).sum() / (k - 1)
    mse = (((y - y.mean(1, keepdims=True) - y.mean(0) + grand) ** 2).sum()) / ((n - 1) * (k - 1))
    icc = (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)
    assert stats.loc["icc_log_time", "estimate"] == pytest.approx(icc)
    assert (stats["ci_note"] == "n too small").all() and stats["ci_low"].isna().all()
    assert stats["meaning"].str.len().min() > 20
