"""Human-side comparison tables, computed from a bundle's `attempts` (and `verdicts`).

Conventions (docs/exports.md has the formulas): rolled-back attempts are excluded everywhere;
headline tables use the primary tier only; a pass rate is the share of attempt rows with
passed = true; a paired drop is clean minus intervention over base tasks that have both.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humantrace.exports.failure_modes import HUMAN_ENDINGS, classify_human_endings
from humantrace.exports.schema import CONDITIONS, PHASES, split_list
from humantrace.exports.stats import (
    Estimate,
    bootstrap,
    cluster_bootstrap,
    paired_difference,
    ratio_over_units,
    stratified_weighted_mean,
    wilson,
)

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


def review_excluded(attempts: pd.DataFrame) -> pd.Series:
    """Boolean mask: the attempts a lead excluded in review (`review_decision = exclude_attempt`,
    schema 2.2; an older bundle left them out itself)."""
    if "review_decision" not in attempts.columns:
        return pd.Series(False, index=attempts.index)
    return (attempts["review_decision"].astype(object) == "exclude_attempt").astype(bool)


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


def panel_summary(primary: pd.DataFrame, *, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Table 5: pass rate and medians for clean/intervention x cold/warm (attempt rows).

    The pass rate (passed rows / rows) has a 95% bootstrap interval over the cell's base tasks
    (a task's attempts are resampled together); n = base tasks.
    """
    rows = []
    for condition in CONDITIONS:
        for phase in PHASES:
            cell = primary[(primary["condition"] == condition) & (primary["phase"] == phase)]
            row: dict[str, object] = {
                "condition": condition,
                "phase": phase,
                "n_attempts": len(cell),
                "n_tasks": cell["task_id"].nunique(),
            }
            for name, column, statistic in METRICS:
                values = cell[column].dropna()
                row[name] = float(getattr(values, statistic)()) if len(values) else np.nan
            per_task = cell.groupby("task_id")["passed"].agg(["sum", "count"])
            est = ratio_over_units(
                per_task["sum"],
                per_task["count"],
                n_boot=n_boot,
                seed=seed,
                key=f"panel/rate/{condition}/{phase}",
            )
            row["pass_ci_low"], row["pass_ci_high"] = est.ci_low, est.ci_high
            rows.append(row)
    return pd.DataFrame(rows)


def _relative(a: pd.Series, b: pd.Series, *, n_boot: int, seed: int, key: str) -> Estimate:
    """median(b) / median(a) - 1 over paired tasks, bootstrap over the tasks (NaN when median(a) = 0)."""
    values = np.column_stack([a.to_numpy(dtype=float), b.to_numpy(dtype=float)])

    def ratio(v: np.ndarray) -> float:
        base = np.median(v[:, 0])
        return float(np.median(v[:, 1]) / base - 1.0) if base > 0 else float("nan")

    def batched(boots: np.ndarray) -> np.ndarray:
        out: np.ndarray = np.median(boots[:, :, 1], axis=1) / np.median(boots[:, :, 0], axis=1) - 1.0
        return out

    return bootstrap(values, ratio, n_boot=n_boot, seed=seed, key=key, batched=batched)


def panel_changes(primary: pd.DataFrame, *, n_boot: int, seed: int) -> pd.DataFrame:
    """Paired drops (clean - intervention, per phase) and warm gains (warm - cold, per condition).

    For the medians (time, raw events, cleaned steps) also the relative change, as the paper
    reports time: intervention / clean - 1 for a drop (+0.08: the intervention takes 8% longer),
    warm / cold - 1 for a warm gain, each with its bootstrap interval over the same tasks.
    """
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
            relative = Estimate(np.nan, np.nan, np.nan, est.n)
            if statistic == "median":
                # the changed side over the reference side: intervention / clean, warm / cold
                base, changed = (a, b) if comparison == "drop" else (b, a)
                relative = _relative(
                    paired[base], paired[changed], n_boot=n_boot, seed=seed, key=key + "/relative"
                )
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
                    "relative_change": relative.estimate,
                    "relative_ci_low": relative.ci_low,
                    "relative_ci_high": relative.ci_high,
                    "n_tasks": est.n,
                }
            )
    return pd.DataFrame(rows)


def annotator_pass_rates(primary: pd.DataFrame) -> pd.DataFrame:
    """Per-annotator marginal pass rates for every condition x phase the annotator covered, with a
    95% Wilson interval over the annotator's attempts (each on its own task-condition)."""
    grouped = primary.groupby(["annotator", "condition", "phase"], sort=True)["passed"]
    table = grouped.agg(n_attempts="size", n_passed="sum", pass_rate="mean").reset_index()
    table["n_passed"] = table["n_passed"].astype(int)
    intervals = [wilson(k, n) for k, n in zip(table["n_passed"], table["n_attempts"], strict=True)]
    table["pass_ci_low"] = [e.ci_low for e in intervals]
    table["pass_ci_high"] = [e.ci_high for e in intervals]
    return table


def duplicate_audit(
    attempts: pd.DataFrame, *, n_boot: int = 2000, seed: int = 0
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(pairs, summary): each duplicate attempt against the primary attempt of the same
    task-condition and phase; agreement of pass/fail, duplicate/primary time and event ratios.

    The summary's agreement interval resamples task-conditions (both phases of one come from the
    same two annotators), and its n is the number of task-conditions."""
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
        agreement = cluster_bootstrap(
            part["agree"].astype(float).to_numpy(),
            list(zip(part["task_id"], part["condition"], strict=True)),
            lambda v: float(v.mean()),
            n_boot=n_boot,
            seed=seed,
            key=f"dup/summary/{phase}",
        )
        summary.append(
            {
                "phase": phase,
                "n_pairs": len(part),
                "n_task_conditions": part[["task_id", "condition"]].drop_duplicates().shape[0],
                "agreement_rate": float(part["agree"].mean()) if len(part) else np.nan,
                "agreement_ci_low": agreement.ci_low,
                "agreement_ci_high": agreement.ci_high,
                "median_time_ratio": float(part["time_ratio"].median()) if len(part) else np.nan,
                "median_event_ratio": float(part["event_ratio"].median()) if len(part) else np.nan,
            }
        )
    return out, pd.DataFrame(summary)


FULL_WEIGHT_COLUMNS = [
    "env",
    "difficulty",
    "phase",
    "quantity",
    "n_full",
    "k_panel",
    "k",
    "weight",
    "included",
]
FULL_COLUMNS = [
    "phase",
    "quantity",
    "panel_value",
    "weighted_estimate",
    "ci_low",
    "ci_high",
    "n_tasks",
    "n_tasks_left_out",
    "n_cells",
    "n_single_task_cells",
    "covered_full_tasks",
    "total_full_tasks",
]


def _cell_tasks(meta: pd.DataFrame) -> dict[tuple[object, object], list[object]]:
    return {
        (env, difficulty): list(part.index)
        for (env, difficulty), part in meta.groupby(["env_id", "difficulty"], sort=True)
    }


def full_benchmark(
    primary: pd.DataFrame, task_counts: pd.DataFrame, *, n_boot: int, seed: int
) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """(weights, estimates, warnings): post-stratified full-benchmark pass rates and drops.

    w(e, d) = N_full(e, d) / k(e, d), k = the cell's panel base tasks that have the quantity (a
    drop needs both conditions). A panel cell missing from the task counts gets weight 0 and its
    tasks are left out of the weighted estimate **and** of `panel_value`, which is the unweighted
    mean over exactly the tasks the weighted estimate uses, so the two differ by the weighting
    alone. A cell holding one task adds no within-cell resampling variance to the interval (its
    mean is the same in every resample): a warning names such cells.
    """
    warnings: list[str] = []
    renamed = task_counts.rename(columns={"env_id": "env"})
    grouped = renamed.groupby(["env", "difficulty"], as_index=False)["n_tasks"].sum()
    counts: dict[tuple[object, object], float] = {
        (env, difficulty): float(n)
        for env, difficulty, n in zip(grouped["env"], grouped["difficulty"], grouped["n_tasks"], strict=True)
    }
    meta = primary.groupby("task_id")[["env_id", "difficulty"]].first()
    cells = _cell_tasks(meta)
    for cell in cells:
        if cell not in counts:
            warnings.append(
                f"panel cell ({cell[0]}, {cell[1]}) is not in the task-count table; its {len(cells[cell])} "
                "task(s) get weight 0 and are left out of the weighted estimates and of their panel values"
            )
    uncovered = [(cell, n) for cell, n in counts.items() if cell not in cells and n > 0]
    if uncovered:
        warnings.append(
            f"{int(sum(n for _, n in uncovered))} benchmark tasks in {len(uncovered)} cell(s) have no panel task; "
            "the weighted estimates cover the other cells only"
        )
    total = float(sum(counts.values()))
    values = task_level(primary, "passed", "mean").rename("passed")
    weight_rows, rows = [], []
    single: set[tuple[object, object]] = set()
    every_cell = sorted(set(cells) | set(counts), key=lambda c: (str(c[0]), str(c[1])))
    for phase in PHASES:
        paired = pairs(values, level="condition", a="clean", b="intervention", fixed={"phase": phase})
        quantities = {
            "clean_pass_rate": cell_values(values, condition="clean", phase=phase),
            "intervention_pass_rate": cell_values(values, condition="intervention", phase=phase),
            "drop": paired["clean"] - paired["intervention"],
        }
        for quantity, per_task in quantities.items():
            per_task = per_task.dropna()
            strata, used, left_out = [], [], 0
            for cell in every_cell:
                tasks = cells.get(cell, [])
                y = per_task[per_task.index.isin(tasks)]
                n_full = counts.get(cell, np.nan)
                included = bool(len(y)) and n_full == n_full and n_full > 0
                weight_rows.append(
                    {
                        "env": cell[0],
                        "difficulty": cell[1],
                        "phase": phase,
                        "quantity": quantity,
                        "n_full": n_full,
                        "k_panel": len(tasks),
                        "k": len(y),
                        "weight": n_full / len(y) if included else (0.0 if len(y) else np.nan),
                        "included": included,
                    }
                )
                if not included:
                    left_out += len(y)
                    continue
                strata.append((n_full, y.to_numpy()))
                used.append(y)
                if len(y) == 1:
                    single.add(cell)
            est = stratified_weighted_mean(strata, n_boot=n_boot, seed=seed, key=f"full/{phase}/{quantity}")
            same_tasks = pd.concat(used) if used else pd.Series(dtype=float)
            rows.append(
                {
                    "phase": phase,
                    "quantity": quantity,
                    "panel_value": float(same_tasks.mean()) if len(same_tasks) else np.nan,
                    "weighted_estimate": est.estimate,
                    "ci_low": est.ci_low,
                    "ci_high": est.ci_high,
                    "n_tasks": est.n,
                    "n_tasks_left_out": left_out,
                    "n_cells": len(strata),
                    "n_single_task_cells": sum(len(y) == 1 for _, y in strata),
                    "covered_full_tasks": float(sum(n for n, _ in strata)),
                    "total_full_tasks": total,
                }
            )
    if single:
        listed = ", ".join(f"({env}, {difficulty})" for env, difficulty in sorted(single, key=str))
        warnings.append(
            f"{len(single)} full-benchmark cell(s) hold a single panel task for at least one estimate: {listed}; "
            "such a cell adds no within-cell resampling variance, so the weighted interval understates "
            "its uncertainty (n_single_task_cells in full_benchmark.csv)"
        )
    weights = pd.DataFrame(weight_rows, columns=FULL_WEIGHT_COLUMNS)
    return weights, pd.DataFrame(rows, columns=FULL_COLUMNS), warnings


HUMAN_OUTCOME_COLUMNS = ["condition", "phase", "n_failed", "ending", "count", "share", "ci_low", "ci_high"]


def human_outcomes(primary: pd.DataFrame, verdicts: pd.DataFrame | None) -> pd.DataFrame:
    """How failed primary attempts ended, per condition x phase: count and share of the cell's
    failed attempts (95% Wilson interval). Not the Appendix I taxonomy (`failure_modes.csv`)."""
    labelled = primary.assign(ending=classify_human_endings(primary, verdicts))
    rows = []
    for condition in CONDITIONS:
        for phase in PHASES:
            cell = labelled[(labelled["condition"] == condition) & (labelled["phase"] == phase)]
            failed = cell[cell["ending"].notna()]
            for ending in HUMAN_ENDINGS:
                count = int((failed["ending"] == ending).sum())
                est = wilson(count, len(failed))
                rows.append(
                    {
                        "condition": condition,
                        "phase": phase,
                        "n_failed": len(failed),
                        "ending": ending,
                        "count": count,
                        "share": est.estimate,
                        "ci_low": est.ci_low,
                        "ci_high": est.ci_high,
                    }
                )
    return pd.DataFrame(rows, columns=HUMAN_OUTCOME_COLUMNS)
