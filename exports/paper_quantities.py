"""BreakingWeb's remaining single numbers, from bundles: the share of clean-solved tasks that fail
under intervention (Section 4.1), the raw-event gap between failed and passed warm attempts
(Section 5), the Spearman agreement of the primitive orderings by pass drop and by score drop,
and the pass drop at a 0.5 pass threshold (both Section 4, "Run lifecycle and scoring").

One long table, `paper_quantities.csv`: quantity, population, estimate, interval, n, the unit n
counts, and a note (why a row has no interval). Inputs are those of `exports.paper_tables`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from humantrace.exports.schema import PHASES
from humantrace.exports.stats import CI_LEVEL, Estimate, paired_difference, rng_for, wilson

COLUMNS = ["quantity", "population", "estimate", "ci_low", "ci_high", "n", "unit", "note"]
HUMAN_POPULATIONS = tuple(f"humans {phase}" for phase in PHASES)
AGENT_MEAN = "agents (mean over models)"
THRESHOLDS = (1.0, 0.5)


def _row(quantity: str, population: str, est: Estimate, unit: str, note: str = "") -> dict[str, object]:
    return {
        "quantity": quantity,
        "population": population,
        "estimate": est.estimate,
        "ci_low": est.ci_low,
        "ci_high": est.ci_high,
        "n": est.n,
        "unit": unit,
        "note": note,
    }


def _populations(values: pd.DataFrame) -> list[str]:
    found = list(dict.fromkeys(values["population"]))
    return [p for p in HUMAN_POPULATIONS if p in found] + sorted(
        p for p in found if p not in HUMAN_POPULATIONS
    )


def clean_solved_fail(values: pd.DataFrame) -> list[dict[str, object]]:
    """Per population: of the base tasks solved in the clean condition (every clean attempt / run
    passed) that were also tried under intervention, the share not solved under intervention
    (some intervention attempt / run failed); Wilson interval over those tasks."""
    rows = []
    for population in _populations(values):
        mine = values[(values["population"] == population) & values["pass_intervention"].notna()]
        solved = mine[mine["pass_clean"] >= 1.0]
        failed = int((solved["pass_intervention"] < 1.0).sum())
        rows.append(
            _row(
                "clean_solved_fail_under_intervention", population, wilson(failed, len(solved)), "base tasks"
            )
        )
    return rows


def _two_sample_median_gap(
    a: np.ndarray, b: np.ndarray, *, n_boot: int, seed: int, key: str
) -> tuple[float, float, float]:
    """median(a) - median(b), with a bootstrap that resamples each group on its own."""
    estimate = float(np.median(a) - np.median(b))
    if n_boot <= 0:
        return estimate, float("nan"), float("nan")
    rng = rng_for(seed, key)
    boots = np.median(a[rng.integers(0, len(a), (n_boot, len(a)))], axis=1) - np.median(
        b[rng.integers(0, len(b), (n_boot, len(b)))], axis=1
    )
    tail = (1.0 - CI_LEVEL) / 2.0
    low, high = np.quantile(boots, [tail, 1.0 - tail])
    return estimate, float(low), float(high)


def raw_event_gap(primary: pd.DataFrame, *, n_boot: int, seed: int) -> list[dict[str, object]]:
    """Warm intervention attempts: median raw events of the failed minus of the passed ones (the
    paper: failed attempts hold about 25 more raw events: people try to recover). Each group is
    resampled on its own; n = the smaller group (both must reach the minimum n)."""
    warm = primary[(primary["phase"] == "warm") & (primary["condition"] == "intervention")]
    warm = warm.dropna(subset=["raw_events"])
    failed = warm.loc[warm["passed"] < 1, "raw_events"].to_numpy(dtype=float)
    passed = warm.loc[warm["passed"] >= 1, "raw_events"].to_numpy(dtype=float)
    unit = "attempts (the smaller of failed and passed)"
    if not len(failed) or not len(passed):
        est = Estimate(np.nan, np.nan, np.nan, min(len(failed), len(passed)))
        return [
            _row(
                "raw_event_gap_failed_minus_passed_warm",
                "humans warm",
                est,
                unit,
                "no failed or no passed attempt",
            )
        ]
    value, low, high = _two_sample_median_gap(failed, passed, n_boot=n_boot, seed=seed, key="raw_event_gap")
    est = Estimate(value, low, high, min(len(failed), len(passed)))
    note = f"{len(failed)} failed, {len(passed)} passed; medians"
    return [_row("raw_event_gap_failed_minus_passed_warm", "humans warm", est, unit, note)]


def primitive_rank_agreement(values: pd.DataFrame) -> list[dict[str, object]]:
    """Spearman rho between the primitive orderings by mean pass drop and by mean score drop: over
    the agent models (per primitive the mean over models of each model's mean paired drop), and
    for each human phase. No interval: an ordering of at most seven primitives (the note says so)."""
    paired = values.dropna(subset=["pass_clean", "pass_intervention"])
    paired = paired[paired["primitive"].notna()]
    per = paired.groupby(["population", "primitive"])[["pass_drop", "score_drop"]].mean().reset_index()
    groups: dict[str, pd.DataFrame] = {}
    agents = per[~per["population"].isin(HUMAN_POPULATIONS)]
    if not agents.empty:
        groups[AGENT_MEAN] = agents.groupby("primitive")[["pass_drop", "score_drop"]].mean()
    for population in HUMAN_POPULATIONS:
        mine = per[per["population"] == population]
        if not mine.empty:
            groups[population] = mine.set_index("primitive")[["pass_drop", "score_drop"]]
    rows = []
    for population, table in groups.items():
        n = len(table)
        note = "no interval: a rank agreement over at most seven primitives"
        if n < 2 or table["pass_drop"].nunique() < 2 or table["score_drop"].nunique() < 2:
            rho, note = float("nan"), "undefined: fewer than two primitives, or one ordering is all ties"
        else:
            rho = float(spearmanr(table["pass_drop"], table["score_drop"]).statistic)
        est = Estimate(rho, np.nan, np.nan, n)
        rows.append(_row("spearman_primitive_order_pass_vs_score_drop", population, est, "primitives", note))
    return rows


def threshold_drops(
    primary: pd.DataFrame, runs: pd.DataFrame, *, n_boot: int, seed: int
) -> list[dict[str, object]]:
    """The paired pass drop with pass = score >= 1.0 (the evaluator's pass) and with score >= 0.5
    (the robustness check: is the drop only runs that narrowly miss?), per population, bootstrap
    over base tasks. At 1.0 a person's pass is the evaluator's `passed` (a negative check failing
    fails it whatever the score); at 0.5 it is the score alone, for people and agents alike."""
    frames = []
    for phase in PHASES:
        part = primary[primary["phase"] == phase]
        if not part.empty:
            frames.append(
                part.assign(population=f"humans {phase}", task=part["task_id"], passed_at_1=part["passed"])[
                    ["population", "task", "condition", "score", "passed_at_1"]
                ]
            )
    if not runs.empty:
        frames.append(
            runs.assign(population=runs["model"], passed_at_1=runs["passed"].astype(float))[
                ["population", "task", "condition", "score", "passed_at_1"]
            ]
        )
    if not frames:
        return []
    data = pd.concat(frames, ignore_index=True)
    data["score"] = pd.to_numeric(data["score"], errors="coerce")
    rows = []
    for threshold in THRESHOLDS:
        passed = (
            data["passed_at_1"].astype(float)
            if threshold == 1.0
            else (data["score"] >= threshold).astype(float)
        )
        per_task = (
            data.assign(p=passed)
            .groupby(["population", "task", "condition"])["p"]
            .mean()
            .unstack("condition")
        )
        for population in _populations(data):
            mine = per_task.loc[population] if population in per_task.index.get_level_values(0) else None
            # One row per base task with both conditions as columns (NaN where a condition was not
            # run, so such a task leaves the pairs): a population that ran one condition only has
            # no pair and no estimate, not a shape error.
            frame = mine if isinstance(mine, pd.DataFrame) else pd.DataFrame()
            pairs = frame.reindex(columns=["clean", "intervention"])
            est = paired_difference(
                pairs["clean"],
                pairs["intervention"],
                n_boot=n_boot,
                seed=seed,
                key=f"threshold/{threshold}/{population}",
            )
            rows.append(_row(f"pass_drop_threshold_{threshold:g}", population, est, "base tasks"))
    return rows


def paper_quantities(
    primary: pd.DataFrame, runs: pd.DataFrame, values: pd.DataFrame, *, n_boot: int, seed: int
) -> pd.DataFrame:
    """Every row of `paper_quantities.csv` (see the module docstring and docs/exports.md)."""
    rows = [
        *clean_solved_fail(values),
        *raw_event_gap(primary, n_boot=n_boot, seed=seed),
        *primitive_rank_agreement(values),
        *threshold_drops(primary, runs, n_boot=n_boot, seed=seed),
    ]
    return pd.DataFrame(rows, columns=COLUMNS)
