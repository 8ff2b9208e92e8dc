"""Human-side comparison tables, computed from a bundle's `attempts` (and `verdicts`).

Conventions (docs/exports.md has the formulas): rolled-back attempts are excluded everywhere;
headline tables use the primary tier only; a pass rate is the share of attempt rows with
passed = true; a paired drop is clean minus intervention over base tasks that have both.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humantrace.exports.failure_modes import HUMAN_MODE_CLASS, classify_human_failures
from humantrace.exports.schema import CONDITIONS, PHASES, split_list
from humantrace.exports.stats import paired_difference, stratified_weighted_mean

# (output column, attempts column, statistic)
METRICS = (
    ("pass_rate", "passed", "mean"),
    ("median_wall_clock_s", "wall_clock_s", "median"),
    ("median_raw_events", "raw_events", "median"),
    ("median_clean_steps", "clean_steps", "median"),
)
_NUMERIC = ("passed", "wall_clock_s", "raw_events", "clean_steps", "score")


def analysed_attempts(attempts: pd.DataFrame) -> pd.DataFrame:
    """Attempts that count: rolled-back ones removed, numeric columns as float (passed as 0/1)."""
    kept = attempts[~attempts["rolled_back"].fillna(False).astype(bool)].copy()
    for column in _NUMERIC:
        kept[column] = pd.to_numeric(kept[column].astype(object), errors="coerce").astype(float)
    return kept


def primary_tier(attempts: pd.DataFrame) -> pd.DataFrame:
    return attempts[attempts["tier"] == "primary"]


def _first_listed(value: object) -> str | None:
    """The first primitive of a list cell, or None for an empty one."""
    listed = split_list(value)
    return listed[0] if listed else None


def task_primitive(attempts: pd.DataFrame) -> pd.Series:
    """task_id -> the primitive its results are grouped by.

    The variant's target primitive (intervention rows) when given, else the first of the task's
    primary primitives.
    """
    tasks = pd.Index(sorted(attempts["task_id"].unique()), name="task_id")
    if "target_primitive" in attempts:
        target = attempts["target_primitive"]
    else:
        target = pd.Series(None, index=attempts.index, dtype=object)
    target = target.astype(object).where(target.notna() & (target.astype(str) != ""))
    by_target = target.groupby(attempts["task_id"]).first()
    first_listed = attempts["primitives"].astype(object).map(_first_listed)
    by_listed = first_listed.groupby(attempts["task_id"]).first()
    return by_target.reindex(tasks).astype(object).fillna(by_listed.reindex(tasks).astype(object))


def task_meta(attempts: pd.DataFrame) -> pd.DataFrame:
    """task_id -> env_id, difficulty, primitive."""
    meta = attempts.groupby("task_id", sort=True)[["env_id", "difficulty"]].first()
    meta["primitive"] = task_primitive(attempts)
    return meta


def task_level(attempts: pd.DataFrame, column: str, statistic: str) -> pd.Series:
    """One value per (task_id, condition, phase): the mean or median over its attempts."""
    grouped = attempts.groupby(["task_id", "condition", "phase"], sort=True)[column]
    return grouped.mean() if statistic == "mean" else grouped.median()


def pairs(values: pd.Series, *, level: str, a: str, b: str, fixed: dict[str, str]) -> pd.DataFrame:
    """Per-task columns a and b of `values` (indexed by task_id, condition, phase), both present."""
    mask = np.ones(len(values), dtype=bool)
    for name, value in fixed.items():
        mask &= values.index.get_level_values(name) == value
    wide = values[mask].droplevel(list(fixed)).unstack(level)
    if a not in wide or b not in wide:
        return pd.DataFrame(columns=[a, b], dtype=float)
    return wide[[a, b]].dropna()


def cell_values(values: pd.Series, *, condition: str, phase: str) -> pd.Series:
    """Per-task values of one condition x phase, indexed by task_id."""
    frame = values.reset_index()
    frame = frame[(frame["condition"] == condition) & (frame["phase"] == phase)]
    return frame.set_index("task_id")[values.name]


def panel_summary(primary: pd.DataFrame) -> pd.DataFrame:
    """Table 5: pass rate and medians for clean/intervention x cold/warm (attempt rows)."""
    rows = []
    for condition in CONDITIONS:
        for phase in PHASES:
            cell = primary[(primary["condition"] == condition) & (primary["phase"] == phase)]
            row = {
                "condition": condition,
                "phase": phase,
                "n_attempts": len(cell),
                "n_tasks": cell["task_id"].nunique(),
            }
            for name, column, statistic in METRICS:
                values = cell[column].dropna()
                row[name] = float(getattr(values, statistic)()) if len(values) else np.nan
            rows.append(row)
    return pd.DataFrame(rows)


def panel_changes(primary: pd.DataFrame, *, n_boot: int, seed: int) -> pd.DataFrame:
    """Paired drops (clean - intervention, per phase) and warm gains (warm - cold, per condition)."""
    rows = []
    for name, column, statistic in METRICS:
        values = task_level(primary, column, statistic).rename(column)
        plans = [("drop", "phase", phase, "condition", "clean", "intervention") for phase in PHASES]
        plans += [("warm_gain", "condition", cond, "phase", "warm", "cold") for cond in CONDITIONS]
        for comparison, fixed_name, fixed_value, level, a, b in plans:
            paired = pairs(values, level=level, a=a, b=b, fixed={fixed_name: fixed_value})
            key = f"panel/{comparison}/{fixed_value}/{name}"
            est = paired_difference(
                paired[a], paired[b], statistic=statistic, n_boot=n_boot, seed=seed, key=key
            )
            stat = np.mean if statistic == "mean" else np.median
            rows.append(
                {
                    "comparison": comparison,
                    "within": fixed_value,
                    "metric": name,
                    "a": a,
                    "a_value": float(stat(paired[a])) if len(paired) else np.nan,
                    "b": b,
                    "b_value": float(stat(paired[b])) if len(paired) else np.nan,
                    "estimate": est.estimate,
                    "ci_low": est.ci_low,
                    "ci_high": est.ci_high,
                    "n_tasks": est.n,
                }
            )
    return pd.DataFrame(rows)


def annotator_pass_rates(primary: pd.DataFrame) -> pd.DataFrame:
    """Per-annotator marginal pass rates for every condition x phase the annotator covered."""
    grouped = primary.groupby(["annotator", "condition", "phase"], sort=True)["passed"]
    table = grouped.agg(n_attempts="size", n_passed="sum", pass_rate="mean").reset_index()
    table["n_passed"] = table["n_passed"].astype(int)
    return table


def duplicate_audit(attempts: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(pairs, summary): each duplicate attempt against the primary attempt of the same
    task-condition and phase; agreement of pass/fail, duplicate/primary time and event ratios."""
    key = ["task_id", "condition", "phase"]
    cols = [*key, "annotator", "passed", "wall_clock_s", "raw_events"]
    prim = attempts.loc[attempts["tier"] == "primary", cols].groupby(key, as_index=False).first()
    dup = attempts.loc[attempts["tier"] == "duplicate", cols]
    merged = dup.merge(prim, on=key, suffixes=("_duplicate", "_primary"), how="inner")
    out = pd.DataFrame(
        {
            "task_id": merged["task_id"],
            "condition": merged["condition"],
            "phase": merged["phase"],
            "primary_annotator": merged["annotator_primary"],
            "duplicate_annotator": merged["annotator_duplicate"],
            "primary_passed": merged["passed_primary"].astype(bool),
            "duplicate_passed": merged["passed_duplicate"].astype(bool),
            "agree": merged["passed_primary"] == merged["passed_duplicate"],
            "primary_wall_clock_s": merged["wall_clock_s_primary"],
            "duplicate_wall_clock_s": merged["wall_clock_s_duplicate"],
            "time_ratio": merged["wall_clock_s_duplicate"] / merged["wall_clock_s_primary"],
            "primary_raw_events": merged["raw_events_primary"],
            "duplicate_raw_events": merged["raw_events_duplicate"],
            "event_ratio": merged["raw_events_duplicate"] / merged["raw_events_primary"],
        }
    ).sort_values(key, ignore_index=True)
    out = out.replace([np.inf, -np.inf], np.nan)
    summary = []
    for phase in ("all", *PHASES):
        part = out if phase == "all" else out[out["phase"] == phase]
        summary.append(
            {
                "phase": phase,
                "n_pairs": len(part),
                "n_task_conditions": part[["task_id", "condition"]].drop_duplicates().shape[0],
                "agreement_rate": float(part["agree"].mean()) if len(part) else np.nan,
                "median_time_ratio": float(part["time_ratio"].median()) if len(part) else np.nan,
                "median_event_ratio": float(part["event_ratio"].median()) if len(part) else np.nan,
            }
        )
    return out, pd.DataFrame(summary)


def full_benchmark(
    primary: pd.DataFrame, task_counts: pd.DataFrame, *, n_boot: int, seed: int
) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """(weights, estimates, warnings): post-stratified full-benchmark pass rates and drops.

    w(e, d) = N_full(e, d) / k(e, d), k = the panel's base tasks in the cell.
    """
    warnings: list[str] = []
    counts = task_counts.rename(columns={"env_id": "env"}).copy()
    counts = counts.groupby(["env", "difficulty"])["n_tasks"].sum().reset_index()
    meta = primary.groupby("task_id")[["env_id", "difficulty"]].first()
    k = (
        meta.groupby(["env_id", "difficulty"])
        .size()
        .rename("k")
        .reset_index()
        .rename(columns={"env_id": "env"})
    )
    weights = counts.merge(k, on=["env", "difficulty"], how="outer")
    missing = weights[weights["n_tasks"].isna()]
    for _, row in missing.iterrows():
        warnings.append(
            f"panel cell ({row['env']}, {row['difficulty']}) is not in the task-count table; "
            "its tasks are left out of the weighted estimates"
        )
    uncovered = weights[weights["k"].isna() & weights["n_tasks"].gt(0)]
    if len(uncovered):
        warnings.append(
            f"{int(uncovered['n_tasks'].sum())} benchmark tasks in {len(uncovered)} cell(s) have no panel task; "
            "the weighted estimates cover the other cells only"
        )
    weights = weights.rename(columns={"n_tasks": "n_full"})
    weights["k"] = weights["k"].fillna(0).astype(int)
    weights["weight"] = np.where(
        weights["k"] > 0, weights["n_full"] / weights["k"].where(weights["k"] > 0), np.nan
    )
    weights = weights.sort_values(["env", "difficulty"], ignore_index=True)
    n_full = {
        (env, difficulty): n
        for env, difficulty, k_cell, n in zip(
            weights["env"], weights["difficulty"], weights["k"], weights["n_full"], strict=True
        )
        if k_cell > 0 and n == n
    }
    covered = sum(n_full.values())
    total = float(weights["n_full"].sum())
    values = task_level(primary, "passed", "mean").rename("passed")
    rows = []
    for phase in PHASES:
        paired = pairs(values, level="condition", a="clean", b="intervention", fixed={"phase": phase})
        quantities = {
            "clean_pass_rate": cell_values(values, condition="clean", phase=phase),
            "intervention_pass_rate": cell_values(values, condition="intervention", phase=phase),
            "drop": paired["clean"] - paired["intervention"],
        }
        for quantity, per_task in quantities.items():
            cells = []
            for cell, n in n_full.items():
                tasks = meta.index[(meta["env_id"] == cell[0]) & (meta["difficulty"] == cell[1])]
                cells.append((n, per_task[per_task.index.isin(tasks)].to_numpy()))
            est = stratified_weighted_mean(cells, n_boot=n_boot, seed=seed, key=f"full/{phase}/{quantity}")
            rows.append(
                {
                    "phase": phase,
                    "quantity": quantity,
                    "panel_value": float(per_task.mean()) if len(per_task) else np.nan,
                    "weighted_estimate": est.estimate,
                    "ci_low": est.ci_low,
                    "ci_high": est.ci_high,
                    "n_tasks": est.n,
                    "covered_full_tasks": covered,
                    "total_full_tasks": total,
                }
            )
    return weights[["env", "difficulty", "n_full", "k", "weight"]], pd.DataFrame(rows), warnings


def human_failure_modes(primary: pd.DataFrame, verdicts: pd.DataFrame | None) -> pd.DataFrame:
    """Failed primary attempts by mode, per condition x phase (share of all failed attempts)."""
    labelled = primary.assign(mode=classify_human_failures(primary, verdicts))
    rows = []
    for condition in CONDITIONS:
        for phase in PHASES:
            cell = labelled[(labelled["condition"] == condition) & (labelled["phase"] == phase)]
            failed = cell[cell["mode"].notna()]
            for mode, mode_class in HUMAN_MODE_CLASS.items():
                count = int((failed["mode"] == mode).sum())
                rows.append(
                    {
                        "population": "human",
                        "condition": condition,
                        "phase": phase,
                        "n_failed": len(failed),
                        "mode": mode,
                        "mode_class": mode_class,
                        "count": count,
                        "share": count / len(failed) if len(failed) else np.nan,
                    }
                )
    return pd.DataFrame(rows)
