"""Issue #39, "the tables": scope, n and too_few on every table, the full-benchmark panel value, the
duplicate audit's unit, relative time changes and lead review decisions, each on a small bundle
whose right answer is worked out by hand (the study of conftest.py unless a test builds its own).

Per-task primary outcomes of conftest's study (P pass, F fail; wall-clock seconds):
        clean cold  clean warm  int cold     int warm
  T1    P (30)      P (20)      F (50)       P (30)      shop/easy   grounding
  T2    P (60)      P (40)      P (70)       P (44)      shop/hard   grounding
  T3    F (90)      P (50)      F (100)      F (80)      mail/easy   verification
  T4    P (40)      P (24)      P (48)       P (36)      mail/hard   verification
  T5    P (36)      P (30)      F (66)       P (42)      mail/easy   verification
"""

from __future__ import annotations

import math
import re
from html import unescape

import numpy as np
import pandas as pd
import pytest

from humantrace.exports import human_tables as ht
from humantrace.exports import paper_tables as pt
from humantrace.exports.bundle import BundleWriter
from humantrace.exports.compare import TABLE_FILES, compare
from humantrace.exports.table_meta import TABLES
from tests.exports.conftest import (
    CLEANING_CONFIG,
    STUDY_SETTINGS,
    TASK_COUNTS,
    attempt_rows,
    verdict_rows,
    write_agent_files,
    write_study_bundle,
)

approx = pytest.approx


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    root = tmp_path_factory.mktemp("rules")
    bundle = write_study_bundle(root / "bundle")
    files = write_agent_files(root / "agents")
    return compare(bundle, files, root / "out", task_counts=TASK_COUNTS, bootstrap=400, seed=0)


def _csv(result, name: str) -> pd.DataFrame:
    return pd.read_csv(result.csv_paths[name])


def _row(frame: pd.DataFrame, **match) -> pd.Series:
    mask = np.ones(len(frame), dtype=bool)
    for key, value in match.items():
        mask &= (frame[key] == value).to_numpy()
    assert mask.sum() == 1, (match, frame[mask])
    return frame[mask].iloc[0]


# ------------------------------------------------------------------ 7, 8: n, too_few and scope


def test_every_estimate_table_states_scope_n_and_too_few(result):
    for name in TABLE_FILES:
        if name not in result.csv_paths:
            continue
        frame = _csv(result, name)
        assert "scope" in frame.columns, name
        assert set(frame["scope"].dropna()) <= {"panel", "all"}, name
        if TABLES[name].n is not None:
            assert {"n", "too_few"} <= set(frame.columns), name
            # too_few is exactly n < 5, and no interval is printed where it holds
            assert (frame["too_few"] == ~(frame["n"] >= 5)).all(), name


def test_small_cells_have_no_interval_in_the_csv_and_say_so_in_the_report(result):
    prims = _csv(result, "primitive_drops")
    # grounding = T1, T2: two paired tasks. The bootstrap over two tasks gives [0, 1]-like
    # intervals; the CSV leaves them blank, as the report does, and says too_few.
    grounding = _row(prims, primitive="grounding")
    assert (grounding.n, bool(grounding.too_few)) == (2, True)
    assert math.isnan(grounding.human_warm_ci_low) and math.isnan(grounding.agent_pass_ci_high)
    env = _csv(result, "by_environment")
    shop = _row(env, group="shop", population="human_cold")
    # shop cold drops: T1 1, T2 0 -> 0.5 over n = 2, no interval
    assert (shop["drop"], shop.n, bool(shop.too_few)) == (0.5, 2, True) and math.isnan(shop.ci_low)
    html = result.report_path.read_text()
    grounding_row = re.search(r"<tr><td>grounding</td>.*?</tr>", html, re.S).group(0)
    assert grounding_row.count("n too small") >= 4 and "[" not in grounding_row


def test_headline_and_annotator_rates_carry_n_and_intervals(result):
    summary = _csv(result, "panel_summary")
    cold = _row(summary, condition="clean", phase="cold")
    # 4 of 5 tasks pass; resampling tasks: K/5 with K ~ Binomial(5, 0.8): P(K <= 2) = 0.058 > 0.025
    # and P(K <= 1) = 0.007 -> low 2/5 (or 3/5); high 1.0
    assert (cold.pass_rate, cold.n, bool(cold.too_few), cold.pass_ci_high) == (0.8, 5, False, 1.0)
    assert cold.pass_ci_low in (approx(0.4), approx(0.6))
    a = _csv(result, "annotators")
    a1 = _row(a, annotator="A1", condition="clean", phase="cold")
    # A1 clean cold: T1 P, T3 F -> 1/2 over n = 2 attempts: too few for an interval
    assert (a1.pass_rate, a1.n, bool(a1.too_few)) == (0.5, 2, True) and math.isnan(a1.pass_ci_low)


def test_agent_runs_outside_the_panel_leave_the_panel_tables(result):
    fpr = _csv(result, "false_positive_completion")
    # M1 clean on the panel: T1, T2, T3, T5 finish (claimed), T4 without features (unknown);
    # T9 (outside the panel) would be a sixth episode and a fifth claim.
    m1 = _row(fpr, population="M1", condition="clean")
    assert (m1.scope, m1.n_episodes, m1.n_unknown, m1.n_claimed) == ("panel", 5, 1, 4)
    agents = _csv(result, "agents_by_model")
    # the per-row scope keeps both: M1 ran 6 paired tasks in all, 5 on the panel
    assert _row(agents, model="M1", scope="all").n_paired_tasks == 6
    assert _row(agents, model="M1", scope="panel").n_paired_tasks == 5
    assert any("outside the panel (T9)" in w for w in result.warnings)
    html = unescape(result.report_path.read_text())
    assert html.count("Scope: the panel's 5 base tasks") >= 10


def test_heatmap_cells_under_the_minimum_n_are_italic():
    table = pd.DataFrame(
        [
            {
                "population": "humans warm",
                "env": "mail",
                "primitive": "verification",
                "n_tasks": 3,
                "mean_score_drop": 0.2,
                "note": "",
            },
            {
                "population": "humans warm",
                "env": "shop",
                "primitive": "verification",
                "n_tasks": 6,
                "mean_score_drop": 0.1,
                "note": "",
            },
        ]
    )
    from humantrace.exports.charts import env_primitive

    svg = env_primitive(table, None)
    assert "cell-humans warm-mail-verification-small" in svg
    assert "cell-humans warm-shop-verification-ok" in svg
    assert "italic" in svg


# ------------------------------------------------------------------ 4: full benchmark


def test_panel_value_uses_the_same_tasks_as_the_weighted_estimate():
    primary = ht.primary_tier(ht.analysed_attempts(pd.DataFrame(attempt_rows())))
    # the task counts lack shop/easy, T1's cell: T1 gets weight 0 and leaves both numbers
    counts = TASK_COUNTS[~((TASK_COUNTS["env"] == "shop") & (TASK_COUNTS["difficulty"] == "easy"))]
    weights, table, warnings = ht.full_benchmark(primary, counts, n_boot=200, seed=0)
    cold = table[(table["phase"] == "cold") & (table["quantity"] == "drop")].iloc[0]
    # cold drops T2 0, T3 0, T4 0, T5 1; weighted (20*0 + 30*(0+1)/2 + 40*0) / 90 = 1/6;
    # the panel value over the same four tasks is 1/4 (over all five it would be 2/5)
    assert cold.weighted_estimate == approx(1 / 6)
    assert cold.panel_value == approx(0.25)
    assert (cold.n_tasks, cold.n_tasks_left_out, cold.covered_full_tasks) == (4, 1, 90)
    t1 = weights[
        (weights["env"] == "shop") & (weights["difficulty"] == "easy") & (weights["phase"] == "cold")
    ]
    assert set(t1["weight"]) == {0.0} and not t1["included"].any()
    # shop/hard (T2) and mail/hard (T4) hold one task each
    assert cold.n_single_task_cells == 2
    assert any("(shop, easy) is not in the task-count table" in w and "weight 0" in w for w in warnings)
    assert any("2 full-benchmark cell(s) hold a single panel task" in w for w in warnings)


def test_the_weight_is_the_one_applied_to_each_quantity():
    primary = ht.primary_tier(ht.analysed_attempts(pd.DataFrame(attempt_rows())))
    # drop T5's warm intervention attempt: mail/easy keeps T3 and T5 for the clean pass rate
    # but only T3 has a warm drop, so that estimate weighs T3 by 30 / 1, not 30 / 2
    primary = primary[
        ~(
            (primary["task_id"] == "T5")
            & (primary["condition"] == "intervention")
            & (primary["phase"] == "warm")
        )
    ]
    weights, table, _ = ht.full_benchmark(primary, TASK_COUNTS, n_boot=100, seed=0)
    cell = weights[
        (weights["env"] == "mail") & (weights["difficulty"] == "easy") & (weights["phase"] == "warm")
    ]
    applied = dict(zip(cell["quantity"], zip(cell["k"], cell["weight"], strict=True), strict=True))
    assert applied == {"clean_pass_rate": (2, 15.0), "intervention_pass_rate": (1, 30.0), "drop": (1, 30.0)}
    warm = table[(table["phase"] == "warm") & (table["quantity"] == "drop")].iloc[0]
    # warm drops: T1 0, T2 0, T3 1, T4 0 -> (10*0 + 20*0 + 30*1 + 40*0) / 100
    assert warm.weighted_estimate == approx(0.3)


# ------------------------------------------------------------------ 6: duplicate audit unit


def _pairs(n_task_conditions: int) -> pd.DataFrame:
    """Each task-condition: the cold pair agrees, the warm pair does not; times 10 s vs 20 s."""
    rows = []
    for i in range(n_task_conditions):
        for phase, dup_passed in (("cold", True), ("warm", False)):
            rows.append(
                {
                    "task_id": f"T{i}",
                    "condition": "clean",
                    "phase": phase,
                    "primary_passed": True,
                    "duplicate_passed": dup_passed,
                    "agree": dup_passed,
                    "primary_wall_clock_s": 10.0,
                    "duplicate_wall_clock_s": 20.0,
                    "primary_raw_events": 10.0,
                    "duplicate_raw_events": 10.0 + i,
                }
            )
    return pd.DataFrame(rows)


def test_duplicate_audit_intervals_resample_task_conditions():
    stats = pt.duplicate_statistics(_pairs(5), n_boot=500, seed=0).set_index("statistic")
    agreement = stats.loc["pass_fail_agreement"]
    # every task-condition agrees on exactly one of its two pairs, so any resample of whole
    # task-conditions has agreement 1/2: the interval is [0.5, 0.5] (resampling the 10 pairs
    # one by one would spread it to about [0.2, 0.8])
    assert (agreement.estimate, agreement.ci_low, agreement.ci_high) == (0.5, 0.5, 0.5)
    assert (agreement.n, agreement.n_pairs) == (5, 10)
    small = pt.duplicate_statistics(_pairs(4), n_boot=200, seed=0).set_index("statistic")
    # eight pairs but four task-conditions: under the minimum n, no interval
    assert (
        small.loc["pass_fail_agreement", "n"] == 4
        and small.loc["pass_fail_agreement", "ci_note"] == "n too small"
    )


def test_duplicate_audit_summary_counts_task_conditions(result):
    s = _csv(result, "duplicate_audit_summary")
    everything = _row(s, phase="all")
    # four pairs from two task-conditions (T2 intervention, T3 clean): n = 2, too few
    assert (everything.n_pairs, everything.n, bool(everything.too_few)) == (4, 2, True)
    assert math.isnan(everything.agreement_ci_low)


# ------------------------------------------------------------------ 9: time as the paper reports it


def test_time_changes_are_relative_beside_seconds(result):
    t = _csv(result, "panel_changes")
    cold = _row(t, comparison="drop", within="cold", metric="median_wall_clock_s")
    # cold medians over the 5 paired tasks: clean 40, intervention 66: -26 s, +65% (66 / 40 - 1)
    assert (cold.estimate, cold.relative_change) == (approx(-26), approx(0.65))
    assert cold.relative_ci_low <= 0.65 <= cold.relative_ci_high
    warm = _row(t, comparison="drop", within="warm", metric="median_wall_clock_s")
    assert warm.relative_change == approx(42 / 30 - 1)
    # warm gain in clean: warm 30 / cold 40 - 1 = -25%
    gain = _row(t, comparison="warm_gain", within="clean", metric="median_wall_clock_s")
    assert gain.relative_change == approx(-0.25)
    assert math.isnan(_row(t, comparison="drop", within="cold", metric="pass_rate").relative_change)
    assert "+65.0%" in result.report_path.read_text()


# ------------------------------------------------------------------ 11: lead review decisions


def _reviewed_bundle(path):
    rows = attempt_rows()
    for row in rows:
        # the lead excluded A3's T5 intervention assignment and marked T2 clean "fix task"
        if row["task_id"] == "T5" and row["condition"] == "intervention":
            row["review_decision"] = "exclude_attempt"
        if row["task_id"] == "T2" and row["condition"] == "clean" and row["tier"] == "primary":
            row["review_decision"] = "fix_task"
    rating = {
        "assignment_id": next(
            r["assignment_id"] for r in rows if r.get("review_decision") == "exclude_attempt"
        ),
        "annotator": "A3",
        "task_id": "T5",
        "condition": "intervention",
        "suspected_bug": True,
        "review_decision": "exclude_attempt",
        "review_note": "the page did not load",
        "reviewed_by": "L1",
        "reviewed_at": pd.Timestamp("2026-03-03T10:00:00Z"),
    }
    with BundleWriter(path, formats=("csv",)) as writer:
        writer.append("attempts", pd.DataFrame(rows))
        writer.append("verdicts", pd.DataFrame(verdict_rows(rows)))
        writer.append("ratings", pd.DataFrame([rating]))
        writer.close(study_settings=STUDY_SETTINGS, cleaning_config=CLEANING_CONFIG)
    return path


def test_compare_excludes_what_the_lead_excluded_and_counts_it(tmp_path):
    from humantrace.exports.bundle import read_bundle

    bundle = _reviewed_bundle(tmp_path / "bundle")
    ratings = read_bundle(bundle).ratings
    assert ratings[["review_decision", "review_note", "reviewed_by"]].iloc[0].tolist() == [
        "exclude_attempt",
        "the page did not load",
        "L1",
    ]
    out = compare(bundle, [], tmp_path / "out", bootstrap=100, seed=0)
    summary = out.tables["panel_summary"].set_index(["condition", "phase"])
    # without T5's intervention attempts: cold T1 F, T2 P, T3 F, T4 P = 2/4; warm T1 P, T2 P, T3 F, T4 P = 3/4
    assert summary.loc[("intervention", "cold"), ["n_attempts", "pass_rate"]].tolist() == [4, 0.5]
    assert summary.loc[("intervention", "warm"), "pass_rate"] == 0.75
    assert summary.loc[("clean", "cold"), "n_attempts"] == 5  # T5 clean stays (another assignment)
    assert (
        "2 attempt(s) of 1 assignment(s) excluded by a lead in review (review_decision = exclude_attempt)"
        in out.warnings
    )
    assert any("'fix task' (T2/clean)" in w for w in out.warnings)
    assert "2 attempt(s) excluded by lead review" in out.report_path.read_text()


def test_a_bundle_before_2_2_reads_without_review_decisions(tmp_path):
    from humantrace.exports.bundle import read_bundle

    bundle = write_study_bundle(tmp_path / "bundle", formats=("csv",))
    manifest = bundle / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"schema_version": "2.2"', '"schema_version": "2.1"'))
    read = read_bundle(bundle, verify=False)
    assert read.attempts["review_decision"].isna().all()
    assert read.ratings["reviewed_by"].isna().all()


# ------------------------------------------------------------------ 10: the paper's remaining quantities


def test_paper_quantities(result):
    q = _csv(result, "paper_quantities")
    fail = "clean_solved_fail_under_intervention"
    # humans cold solve T1 T2 T4 T5 clean; under intervention T1 and T5 fail -> 2/4 (n = 4: no interval)
    cold = _row(q, quantity=fail, population="humans cold")
    assert (cold.estimate, cold.n, bool(cold.too_few)) == (0.5, 4, True) and math.isnan(cold.ci_low)
    # humans warm solve all five clean; T3 fails under intervention -> 1/5 with a Wilson interval
    warm = _row(q, quantity=fail, population="humans warm")
    assert (warm.estimate, warm.n) == (0.2, 5) and warm.ci_low == approx(0.0362, abs=1e-3)
    # M1 solves T1 T2 T3 T5 clean (T4 scores 0.5); T1, T3, T5 fail under intervention -> 3/4
    assert _row(q, quantity=fail, population="M1").estimate == 0.75
    # warm intervention raw events: failed T3 70, passed 24, 30, 32, 36 (median 31) -> 39 more
    gap = _row(q, quantity="raw_event_gap_failed_minus_passed_warm", population="humans warm")
    assert (gap.estimate, gap.n, bool(gap.too_few)) == (39, 1, True)
    # the 0.5 threshold: M2's T2 intervention run scores 0.7, a fail at 1.0 and a pass at 0.5, so
    # its drop falls from 1/5 to 0; people score 1.0 or 0.4 here, so theirs stay 0.4 (cold)
    assert _row(q, quantity="pass_drop_threshold_1", population="M2").estimate == approx(0.2)
    assert _row(q, quantity="pass_drop_threshold_0.5", population="M2").estimate == approx(0.0)
    assert _row(q, quantity="pass_drop_threshold_0.5", population="humans cold").estimate == approx(0.4)
    # Spearman over two primitives, per primitive the mean over models of each model's mean drop:
    # grounding: M1 pass (1 + 0)/2, score (0.6 + 0)/2; M2 pass (0 + 1)/2, score (0 + 0.3)/2 -> 0.5, 0.225
    # verification: M1 pass (1 + 0 + 1)/3, score (1 + 0 + 0.8)/3 = 0.6; M2 0, 0 -> 1/3, 0.3
    # grounding first by pass, verification first by score: the orders disagree, rho = -1
    rho = _row(
        q, quantity="spearman_primitive_order_pass_vs_score_drop", population="agents (mean over models)"
    )
    assert (rho.estimate, rho.n) == (-1.0, 2) and "no interval" in rho.note
