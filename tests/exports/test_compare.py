"""Every number of the comparison CSVs against values worked out by hand from conftest's study.

Per-task primary outcomes (P pass, F fail; wall-clock seconds in brackets):
        clean cold  clean warm  int cold     int warm
  T1    P (30)      P (20)      F (50)       P (30)
  T2    P (60)      P (40)      P (70)       P (44)
  T3    F (90) abd  P (50)      F (100) t/o  F (80) overreach
  T4    P (40)      P (24)      P (48)       P (36)
  T5    P (36)      P (30)      F (66)       P (42)
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

approx = pytest.approx


def csv(result, name: str) -> pd.DataFrame:
    return pd.read_csv(result.csv_paths[name], keep_default_na=True)


def row(frame: pd.DataFrame, **match) -> pd.Series:
    mask = pd.Series(True, index=frame.index)
    for key, value in match.items():
        mask &= frame[key] == value
    hits = frame[mask]
    assert len(hits) == 1, (match, hits)
    return hits.iloc[0]


def test_panel_summary(compared):
    t = csv(compared, "panel_summary")
    # clean cold: T1 P, T2 P, T3 F, T4 P, T5 P = 4/5; times 30,36,40,60,90 -> 40; raw 20,26,30,50,80 -> 30;
    # clean steps 10,13,15,25,40 -> 15. The rolled-back A3 attempt (500 s, fail) is not counted.
    assert row(t, condition="clean", phase="cold")[
        ["n_attempts", "pass_rate", "median_wall_clock_s", "median_raw_events", "median_clean_steps"]
    ].tolist() == [5, 0.8, 40, 30, 15]
    # clean warm: all pass; times 20,24,30,40,50 -> 30; raw 16,20,22,30,40 -> 22; steps 8,10,11,15,20 -> 11
    assert row(t, condition="clean", phase="warm")[
        ["pass_rate", "median_wall_clock_s", "median_raw_events", "median_clean_steps"]
    ].tolist() == [1.0, 30, 22, 11]
    # intervention cold: T2, T4 pass = 2/5; times 48,50,66,70,100 -> 66; raw 36,40,50,60,90 -> 50; steps 18,20,25,30,45 -> 25
    assert row(t, condition="intervention", phase="cold")[
        ["pass_rate", "median_wall_clock_s", "median_raw_events", "median_clean_steps"]
    ].tolist() == [0.4, 66, 50, 25]
    # intervention warm: T3 fails = 4/5; times 30,36,42,44,80 -> 42; raw 24,30,32,36,70 -> 32; steps 12,14,16,18,35 -> 16
    assert row(t, condition="intervention", phase="warm")[
        ["pass_rate", "median_wall_clock_s", "median_raw_events", "median_clean_steps"]
    ].tolist() == [0.8, 42, 32, 16]


def test_panel_drops_gains_and_bootstrap_intervals(compared):
    t = csv(compared, "panel_changes")
    cold = row(t, comparison="drop", within="cold", metric="pass_rate")
    # per-task cold drops (clean - int): T1 1, T2 0, T3 0, T4 0, T5 1 -> mean 0.4.
    # Bootstrap mean = K/5 with K ~ Binomial(5, 0.4): P(K=0) = 0.6^5 = 0.078 > 0.025 -> low 0;
    # P(K<=3) = 0.913 < 0.975 <= P(K<=4) = 0.990 -> high 4/5 = 0.8.
    assert [cold.estimate, cold.ci_low, cold.ci_high, cold.n_tasks] == approx([0.4, 0.0, 0.8, 5])
    warm = row(t, comparison="drop", within="warm", metric="pass_rate")
    # warm drops: only T3 (1 - 0) -> 0.2; K ~ Binomial(5, 0.2): P(K=0) = 0.328 -> low 0;
    # P(K<=2) = 0.942 < 0.975 <= P(K<=3) = 0.993 -> high 3/5 = 0.6.
    assert [warm.estimate, warm.ci_low, warm.ci_high] == approx([0.2, 0.0, 0.6])
    # warm gains: clean 1.0 - 0.8 = 0.2; intervention 0.8 - 0.4 = 0.4
    assert row(t, comparison="warm_gain", within="clean", metric="pass_rate").estimate == approx(0.2)
    assert row(t, comparison="warm_gain", within="intervention", metric="pass_rate").estimate == approx(0.4)
    # time drops are clean - intervention medians over paired tasks: cold 40 - 66, warm 30 - 42
    assert row(t, comparison="drop", within="cold", metric="median_wall_clock_s").estimate == approx(-26)
    assert row(t, comparison="drop", within="warm", metric="median_wall_clock_s").estimate == approx(-12)
    # time warm gains: clean 30 - 40, intervention 42 - 66; raw events: cold drop 30 - 50, warm drop 22 - 32
    assert row(t, comparison="warm_gain", within="clean", metric="median_wall_clock_s").estimate == approx(
        -10
    )
    assert row(
        t, comparison="warm_gain", within="intervention", metric="median_wall_clock_s"
    ).estimate == approx(-24)
    assert row(t, comparison="drop", within="cold", metric="median_raw_events").estimate == approx(-20)
    assert row(t, comparison="drop", within="warm", metric="median_raw_events").estimate == approx(-10)
    assert row(t, comparison="drop", within="warm", metric="median_clean_steps").estimate == approx(11 - 16)
    # every interval contains its estimate
    assert ((t.ci_low <= t.estimate + 1e-9) & (t.estimate <= t.ci_high + 1e-9)).all()


def test_same_seed_same_tables(compared, tmp_path, study_bundle, agent_files):
    from humantrace.exports.compare import compare

    again = compare(study_bundle, agent_files, tmp_path / "again", bootstrap=2000, seed=0)
    for name in ("panel_changes", "agents_by_model", "primitive_drops", "by_environment"):
        pd.testing.assert_frame_equal(csv(compared, name), csv(again, name))


def test_agents_by_model(compared):
    t = csv(compared, "agents_by_model")
    m1 = row(t, model="M1", scope="panel")
    # M1 clean: T4 scores 0.5 -> 4/5; intervention: only T2 scores 1 -> 1/5; per-task drops 1,0,1,0,1 -> 0.6
    # mean scores: clean (1+1+1+0.5+1)/5 = 0.9, intervention (0.4+1+0+0.5+0.2)/5 = 0.42, drop 0.48
    assert m1[
        [
            "clean_pass_rate",
            "intervention_pass_rate",
            "pass_drop",
            "clean_mean_score",
            "intervention_mean_score",
            "score_drop",
            "n_paired_tasks",
        ]
    ].tolist() == approx([0.8, 0.2, 0.6, 0.9, 0.42, 0.48, 5])
    m2 = row(t, model="M2", scope="panel")
    # M2 clean: T3 fails -> 4/5; intervention: T2 (0.7) and T3 fail -> 3/5; drops 0,1,0,0,0 -> 0.2
    # mean scores: clean 4/5 = 0.8, intervention 3.7/5 = 0.74, drop 0.06
    assert m2[
        [
            "clean_pass_rate",
            "intervention_pass_rate",
            "pass_drop",
            "clean_mean_score",
            "intervention_mean_score",
            "score_drop",
        ]
    ].tolist() == approx([0.8, 0.6, 0.2, 0.8, 0.74, 0.06])
    # M2 drops: one 1 among 5 -> K ~ Binomial(5, 0.2): interval [0, 0.6] as for the warm human drop
    assert [m2.pass_drop_ci_low, m2.pass_drop_ci_high] == approx([0.0, 0.6])
    # scope "all" adds M1's T9 (clean pass, intervention fail): clean 5/6, intervention 1/6, drop 4/6
    all_m1 = row(t, model="M1", scope="all")
    assert all_m1[
        ["clean_pass_rate", "intervention_pass_rate", "pass_drop", "n_paired_tasks"]
    ].tolist() == approx([5 / 6, 1 / 6, 4 / 6, 6])


def test_primitives_and_per_task_scatter(compared):
    t = csv(compared, "primitive_drops")
    # agent pass drop per task = mean over M1, M2: T1 (1+0)/2, T2 (0+1)/2, T3 (1+0)/2, T4 0, T5 (1+0)/2
    g = row(t, primitive="grounding")  # T1, T2
    # human warm drops T1 0, T2 0 -> 0; cold T1 1, T2 0 -> 0.5; agents (0.5 + 0.5)/2 = 0.5; gap 0.5
    assert g[
        ["n_tasks", "human_warm_drop", "human_cold_drop", "agent_pass_drop", "gap_vs_warm"]
    ].tolist() == approx([2, 0.0, 0.5, 0.5, 0.5])
    v = row(t, primitive="verification")  # T3, T4, T5
    # human warm T3 1, T4 0, T5 0 -> 1/3; cold T3 0, T4 0, T5 1 -> 1/3; agents (0.5 + 0 + 0.5)/3 = 1/3
    assert v[
        ["n_tasks", "human_warm_drop", "human_cold_drop", "agent_pass_drop", "gap_vs_warm"]
    ].tolist() == approx([3, 1 / 3, 1 / 3, 1 / 3, 0.0], abs=1e-9)
    # agent score drops per task: T1 (0.6+0)/2 = 0.3, T2 (0+0.3)/2 = 0.15 -> grounding 0.225
    assert g.agent_score_drop == approx(0.225)

    s = csv(compared, "task_time_vs_agent_drop").set_index("task_id")
    # ln(warm intervention / warm clean): T1 30/20, T2 44/40, T3 80/50, T4 36/24, T5 42/30
    assert s.log_time_ratio.tolist() == approx(
        [math.log(1.5), math.log(1.1), math.log(1.6), math.log(1.5), math.log(1.4)]
    )
    # agent score drops: T3 (1 + 0)/2, T4 0, T5 (0.8 + 0)/2
    assert s.loc[["T1", "T2", "T3", "T4", "T5"], "agent_score_drop"].tolist() == approx(
        [0.3, 0.15, 0.5, 0.0, 0.4]
    )
    assert "T9" not in s.index  # no human times for a task outside the panel


def test_environment_and_difficulty(compared):
    env = csv(compared, "by_environment")
    # shop = T1, T2: cold clean 2/2, int 1/2 (T1 fails), drop 0.5; mail = T3, T4, T5 warm: clean 3/3, int 2/3
    assert row(env, group="shop", population="human_cold")[
        ["clean_pass_rate", "intervention_pass_rate", "drop"]
    ].tolist() == approx([1.0, 0.5, 0.5])
    assert row(env, group="mail", population="human_warm")[
        ["clean_pass_rate", "intervention_pass_rate", "drop"]
    ].tolist() == approx([1.0, 2 / 3, 1 / 3])
    # M1 on mail: clean T3 1, T4 0, T5 1 -> 2/3; intervention all fail -> 0; drop 2/3
    assert row(env, group="mail", population="M1", scope="panel")[
        ["clean_pass_rate", "intervention_pass_rate", "drop"]
    ].tolist() == approx([2 / 3, 0.0, 2 / 3])
    diff = csv(compared, "by_difficulty")
    # easy = T1, T3, T5 cold: clean 2/3, intervention 0/3, drop 2/3; hard = T2, T4: no drop
    assert row(diff, group="easy", population="human_cold")[
        ["clean_pass_rate", "intervention_pass_rate", "drop"]
    ].tolist() == approx([2 / 3, 0.0, 2 / 3])
    assert row(diff, group="hard", population="human_warm")["drop"] == 0
    # M1's T9 (medium) only exists in scope "all"
    assert row(diff, group="medium", population="M1", scope="all")["drop"] == 1
    assert len(diff[(diff.group == "medium") & (diff.scope == "panel")]) == 0


def test_full_benchmark_weights_and_estimates(compared):
    w = csv(compared, "full_benchmark_weights")
    # N_full / k: shop-easy 10/1, shop-hard 20/1, mail-easy 30/2 (T3, T5), mail-hard 40/1
    assert row(w, env="mail", difficulty="easy", phase="cold", quantity="drop")[
        ["n_full", "k", "weight", "included"]
    ].tolist() == [30, 2, 15, True]
    assert row(w, env="shop", difficulty="hard", phase="warm", quantity="clean_pass_rate").weight == 20
    # no panel task: uncovered, reported, no weight to apply
    expert = row(w, env="mail", difficulty="expert", phase="cold", quantity="drop")
    assert expert.k == 0 and math.isnan(expert.weight) and not expert.included
    t = csv(compared, "full_benchmark")
    # cold clean cells: se 1, sh 1, me (0+1)/2, mh 1 -> (10 + 20 + 15 + 40) / 100 = 0.85
    assert row(t, phase="cold", quantity="clean_pass_rate").weighted_estimate == approx(0.85)
    # cold intervention: se 0, sh 1, me 0, mh 1 -> 60/100
    assert row(t, phase="cold", quantity="intervention_pass_rate").weighted_estimate == approx(0.6)
    # cold drop: se 1, sh 0, me 0.5, mh 0 -> 25/100. Within-cell bootstrap: only mail-easy varies,
    # its mean is 0, 0.5 or 1 (p = 1/4, 1/2, 1/4) -> (10 + 30 m)/100 in {0.1, 0.25, 0.4}: interval [0.1, 0.4]
    cold = row(t, phase="cold", quantity="drop")
    assert [cold.weighted_estimate, cold.ci_low, cold.ci_high, cold.panel_value] == approx(
        [0.25, 0.1, 0.4, 0.4]
    )
    # warm drop: only mail-easy T3 = 1 -> 30 * 0.5 / 100 = 0.15; interval {0, 0.3}
    warm = row(t, phase="warm", quantity="drop")
    assert [warm.weighted_estimate, warm.ci_low, warm.ci_high] == approx([0.15, 0.0, 0.3])
    assert cold.covered_full_tasks == 100 and cold.total_full_tasks == 105
    # three cells (shop-easy, shop-hard, mail-hard) hold one task each: no within-cell variance
    assert cold.n_single_task_cells == 3 and cold.n_cells == 4
    assert any("5 benchmark tasks in 1 cell(s) have no panel task" in w for w in compared.warnings)
    assert any(
        "3 full-benchmark cell(s) hold a single panel task" in w and "(mail, hard)" in w
        for w in compared.warnings
    )


def test_annotators_and_duplicate_audit(compared):
    a = csv(compared, "annotators")
    # A1 clean cold: T1 P, T3 F -> 0.5; A3 clean cold: T4 only (the rolled-back T1 attempt is excluded) -> 1.0
    assert row(a, annotator="A1", condition="clean", phase="cold")[["n_attempts", "pass_rate"]].tolist() == [
        2,
        0.5,
    ]
    assert row(a, annotator="A3", condition="clean", phase="cold")[["n_attempts", "pass_rate"]].tolist() == [
        1,
        1.0,
    ]
    # A3 intervention warm: T3 F, T5 P -> 0.5; A2 intervention cold: T1 F -> 0
    assert row(a, annotator="A3", condition="intervention", phase="warm").pass_rate == 0.5
    assert row(a, annotator="A2", condition="intervention", phase="cold").pass_rate == 0.0
    assert set(a.annotator) == {"A1", "A2", "A3"}  # D1 is duplicate tier

    d = csv(compared, "duplicate_audit")
    t2 = row(d, task_id="T2", phase="cold")
    # primary A1 passed in 70 s / 60 events, D1 failed in 100 s / 80 events
    assert [t2.agree, t2.time_ratio, t2.event_ratio] == [False, approx(100 / 70), approx(80 / 60)]
    s = csv(compared, "duplicate_audit_summary")
    # agreement: T2 cold no, T2 warm yes, T3 cold no, T3 warm yes -> 2/4
    # time ratios 10/7, 55/44 = 1.25, 60/90, 50/50 -> median (1 + 1.25)/2; events 4/3, 1.25, 0.5, 1.1 -> (1.1 + 1.25)/2
    assert row(s, phase="all")[
        ["n_pairs", "agreement_rate", "median_time_ratio", "median_event_ratio"]
    ].tolist() == approx([4, 0.5, 1.125, 1.175])
    # cold only: agreement 0; time ratios 10/7 and 2/3 -> 22/21
    assert row(s, phase="cold")[["agreement_rate", "median_time_ratio"]].tolist() == approx([0.0, 22 / 21])


def test_failure_modes_humans_next_to_agents(compared):
    """One taxonomy: the Appendix I rules on each attempt's features, people and agents alike."""
    f = csv(compared, "failure_modes")
    f["phase"] = f["phase"].fillna("")
    # humans, intervention cold failures: T1 and T5 pressed Evaluate (a done verb) on a state whose
    # obligation failed = premature_done (belief); T3 timed out (no done verb, 45 steps) = abandoned_run,
    # left out of the share: 2 of 2 classified
    r = row(f, population="human", condition="intervention", phase="cold", mode="premature_done")
    assert r[["count", "n", "share", "mode_class"]].tolist() == [2, 2, 1.0, "belief"]
    assert (
        row(f, population="human", condition="intervention", phase="cold", mode="abandoned_run")["count"] == 1
    )
    # T3 warm intervention met its obligation but broke the invariant after Evaluate = silent_overreach
    r = row(f, population="human", condition="intervention", phase="warm", mode="silent_overreach")
    assert r[["count", "share"]].tolist() == [1, 1.0]
    # two classified failures: too few for an interval, blank in the CSV as in the report
    assert bool(r.too_few) and math.isnan(r.ci_low)
    # M1 intervention failures on the panel: T1 misleading, T4 premature, T3 retry loop, T5 plan
    # collapse: 1/4 each (T9, outside the panel, is left out: scope panel)
    for mode in ("misleading_success_taken", "premature_done", "retry_loop", "plan_collapse"):
        assert row(f, population="M1", condition="intervention", mode=mode)[["count", "share"]].tolist() == [
            1,
            0.25,
        ]
    assert row(f, population="M1", condition="intervention", mode="abandoned_run")["count"] == 0
    assert set(f["scope"]) == {"panel"}
    # M2: T2 overreach classified, T3 has no features
    assert row(f, population="M2", condition="intervention", mode="silent_overreach")[
        ["count", "share"]
    ].tolist() == [1, 1.0]
    assert row(f, population="M2", condition="intervention", mode="no_features")["count"] == 1


def test_human_outcomes_are_apart_from_the_taxonomy(compared):
    o = csv(compared, "human_outcomes")
    # intervention cold failures: T1 and T5 evaluated with a failed obligation, T3 timed out -> 2/3, 1/3
    r = row(o, condition="intervention", phase="cold", ending="evaluated_obligation_failed")
    assert r[["count", "n_failed", "share"]].tolist() == approx([2, 3, 2 / 3])
    assert row(o, condition="intervention", phase="cold", ending="timed_out")["count"] == 1
    assert row(o, condition="clean", phase="cold", ending="abandoned")[["count", "share"]].tolist() == [
        1,
        1.0,
    ]
    assert row(o, condition="intervention", phase="warm", ending="evaluated_invariant_broken")["count"] == 1
    # no ending shares a name with an Appendix I mode or class
    assert not set(o["ending"]) & {"premature_done", "belief", "overreach", "belief_failure"}


def test_unmatched_tasks_and_progress_are_reported(compared):
    assert compared.agent_import.unmatched_tasks == ["T9"]
    assert any("T9" in w for w in compared.warnings)
    assert "1 rolled-back attempt(s) excluded" in compared.warnings
    assert compared.progress_messages[0] == "verifying the human bundle"
    assert (compared.out_dir / "report.html").stat().st_size > 10_000


def test_a_corrupted_bundle_is_refused(tmp_path, study_bundle, agent_files):
    from humantrace.exports.bundle import BundleError
    from humantrace.exports.compare import compare

    (study_bundle / "verdicts.csv").write_text("tampered")
    with pytest.raises(BundleError, match="verdicts.csv: sha256 mismatch"):
        compare(study_bundle, agent_files, tmp_path / "out")


def test_human_only_comparison_still_reports_human_tables(tmp_path, study_bundle):
    from humantrace.exports.compare import compare

    result = compare(study_bundle, [], tmp_path / "out", bootstrap=200)
    prims = csv(result, "primitive_drops").set_index("primitive")
    # without agents the per-primitive human drops still use every task with a warm pair
    assert prims.loc["verification", ["n_tasks", "human_warm_drop"]].tolist() == approx([3, 1 / 3])
    assert prims["agent_pass_drop"].isna().all()
    assert csv(result, "agents_by_model").empty
    assert "Humans vs. agents" in result.report_path.read_text()


def _agents_with_seed(folder, seeds: dict[str, int | None]):
    rows = []
    for task, seed in seeds.items():
        for cond in ("clean", "intervention"):
            rows.append(
                {
                    "run_id": f"s-{task}-{cond}",
                    "model": "S",
                    "task": task,
                    "env": "shop",
                    "difficulty": "easy",
                    "condition": cond,
                    "score": 1.0,
                    "steps": 5,
                    "elapsed_s": 10.0,
                    "source_variant": f"{task}_v1" if cond == "intervention" else "",
                    "seed": seed,
                }
            )
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "seeded.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_compare_warns_when_an_agent_run_used_another_seed(tmp_path, study_bundle):
    from humantrace.exports.compare import compare

    agents = _agents_with_seed(tmp_path / "agents", {"T1": 7, "T2": 42, "T4": None})
    result = compare(study_bundle, [agents], tmp_path / "out", bootstrap=50, seed=0)
    seed_warnings = [w for w in result.warnings if "used seed" in w]
    assert len(seed_warnings) == 1 and seed_warnings[0].startswith("task T1: agent runs used seed(s) 7")
    assert (
        "not comparable" in seed_warnings[0]
        and seed_warnings[0] in (tmp_path / "out" / "report.html").read_text()
    )
    # The T1 runs at seed 7 match no human attempt in by_interaction_class either (T4's, without a seed, do).
    matched = result.tables["by_interaction_class"].query("matched")
    assert any(w.startswith("S: 2 of 6 run(s)") and "UI profile" in w for w in result.warnings), (
        result.warnings
    )
    assert not matched.empty


def test_a_schema_1_bundle_still_reads_and_compares(tmp_path, study_bundle, agent_files):
    import json

    from humantrace.exports.bundle import read_bundle, verify_bundle
    from humantrace.exports.compare import compare

    manifest = study_bundle / "manifest.json"
    data = json.loads(manifest.read_text())
    data["schema_version"] = "1.0"
    manifest.write_text(json.dumps(data))
    assert verify_bundle(study_bundle) == []
    assert len(read_bundle(study_bundle, tables=["attempts"]).attempts) > 0
    assert compare(study_bundle, agent_files, tmp_path / "out", bootstrap=50, seed=0).tables
