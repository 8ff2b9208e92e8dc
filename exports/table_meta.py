"""What every comparison table states: its scope, its n (the units its estimates resample) and
which rows are too few for an interval, the same in the CSV and the report.

`finish(name, frame)` is applied by `exports.compare` to every table before it is written: it adds
`scope` (when the table has no per-row scope), `n` (a copy of the table's unit count when that is
named otherwise) and `too_few` (n < `stats.MIN_N_FOR_CI`), and blanks each interval whose own n is
under the minimum, so a CSV never shows an interval the report calls "n too small".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from humantrace.exports.stats import MIN_N_FOR_CI

PANEL = "panel"
ALL = "all"

SCOPE_TEXT = {
    PANEL: "the panel's base tasks (human attempts and the agent runs on those tasks)",
    ALL: "every imported agent run, tasks outside the panel included",
}


@dataclass(frozen=True)
class Interval:
    """The (low, high) columns of one interval and the column counting its units."""

    low: str
    high: str
    n: str = "n"


@dataclass(frozen=True)
class TableMeta:
    """scope: `panel`, `all`, or `rows` (a `scope` column says per row); n: the column counting the
    units of the row's estimates (None for listings: one row per run, attempt or problem);
    unit: what those units are; intervals: the interval columns and the n each one rests on."""

    scope: str
    n: str | None
    unit: str
    intervals: tuple[Interval, ...] = ()


def _ci(prefix: str, n: str = "n") -> Interval:
    return Interval(f"{prefix}ci_low", f"{prefix}ci_high", n)


TABLES: dict[str, TableMeta] = {
    "panel_summary": TableMeta(PANEL, "n_tasks", "base tasks", (_ci("pass_"),)),
    "panel_changes": TableMeta(PANEL, "n_tasks", "base tasks", (_ci(""), _ci("relative_"))),
    "agents_by_model": TableMeta(
        "rows",
        "n_paired_tasks",
        "base tasks",
        (
            _ci("clean_pass_", "n_clean_tasks"),
            _ci("intervention_pass_", "n_intervention_tasks"),
            _ci("pass_drop_"),
            _ci("score_drop_"),
        ),
    ),
    "primitive_drops": TableMeta(
        PANEL,
        "n_tasks",
        "base tasks",
        (
            _ci("human_cold_", "n_tasks_cold"),
            _ci("human_warm_"),
            _ci("human_warm_score_"),
            _ci("agent_pass_"),
            _ci("agent_score_"),
        ),
    ),
    "task_time_vs_agent_drop": TableMeta(PANEL, "n_models", "agent models (per task)"),
    "by_environment": TableMeta("rows", "n_tasks", "base tasks", (_ci(""),)),
    "by_difficulty": TableMeta("rows", "n_tasks", "base tasks", (_ci(""),)),
    "full_benchmark_weights": TableMeta(PANEL, "k", "panel base tasks of the cell"),
    "full_benchmark": TableMeta(PANEL, "n_tasks", "base tasks (resampled within cells)", (_ci(""),)),
    "annotators": TableMeta(
        PANEL, "n_attempts", "attempts (each on its own task-condition)", (_ci("pass_"),)
    ),
    "duplicate_audit": TableMeta(PANEL, None, "one row per primary/duplicate pair"),
    "duplicate_audit_summary": TableMeta(PANEL, "n_task_conditions", "task-conditions", (_ci("agreement_"),)),
    "failure_modes": TableMeta(PANEL, "n", "failed attempts / runs in the share's denominator", (_ci(""),)),
    "human_outcomes": TableMeta(PANEL, "n_failed", "failed attempts", (_ci(""),)),
    "model_primitive": TableMeta(
        PANEL, "n_tasks", "base tasks", (_ci("pass_drop_", "n_tasks"), _ci("score_drop_", "n_tasks"))
    ),
    "env_primitive": TableMeta(PANEL, "n_tasks", "base tasks"),
    "false_positive_completion": TableMeta(PANEL, "n_claimed", "claimed episodes", (_ci("fpr_"),)),
    "verification_gap": TableMeta(
        PANEL,
        "n",
        "episodes (Wilson) / base tasks (bootstrap of differences)",
        (_ci("pass_"), _ci("ems_"), _ci("completion_"), _ci("completion_minus_ems_", "n_tasks")),
    ),
    "verification_gap_by_task": TableMeta(PANEL, "n", "episodes"),
    "event_match": TableMeta(PANEL, None, "one row per attempt / episode"),
    "failure_classes": TableMeta(PANEL, "n", "classified failed episodes", (_ci(""),)),
    "failure_modes_by_primitive": TableMeta(PANEL, "n_classified", "classified failed episodes", (_ci(""),)),
    "failure_modes_by_environment": TableMeta(
        PANEL, "n_classified", "classified failed episodes", (_ci(""),)
    ),
    "failure_features": TableMeta(PANEL, None, "one row per attempt"),
    "time_ratio": TableMeta(PANEL, "n_pairs", "task-conditions", (_ci("ratio_"),)),
    "human_time": TableMeta(PANEL, "n_attempts", "attempts", (_ci(""),)),
    "duplicate_audit_statistics": TableMeta(PANEL, "n", "task-conditions", (_ci(""),)),
    "paper_quantities": TableMeta(PANEL, "n", "see the unit column", (_ci(""),)),
    "by_interaction_class": TableMeta(
        PANEL,
        "human_n",
        "attempts / episodes",
        (
            Interval("human_pass_ci_low", "human_pass_ci_high", "human_n"),
            Interval("agent_pass_ci_low", "agent_pass_ci_high", "agent_n"),
        ),
    ),
    "agent_runs": TableMeta(ALL, None, "one row per imported run"),
    "replay_reproduce": TableMeta(ALL, "replays", "replay episodes"),
    "import_errors": TableMeta(ALL, None, "one row per rejected row or file problem"),
}


def _small(values: pd.Series) -> np.ndarray:
    numbers = pd.to_numeric(values, errors="coerce").astype(float)
    return ~(numbers >= MIN_N_FOR_CI).to_numpy(dtype=bool)


def finish(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with `scope`, `n` and `too_few` columns and its under-minimum intervals blanked."""
    meta = TABLES.get(name)
    if meta is None:
        return frame
    out = frame.copy()
    if meta.scope != "rows" and "scope" not in out.columns:
        out.insert(0, "scope", meta.scope)
    if meta.n is None:
        return out
    if "n" not in out.columns:
        out["n"] = out[meta.n] if meta.n in out.columns else np.nan
    out["too_few"] = _small(out["n"])
    for interval in meta.intervals:
        if interval.low not in out.columns or interval.high not in out.columns:
            continue
        counts = out[interval.n] if interval.n in out.columns else out["n"]
        small = _small(counts)
        out.loc[small, [interval.low, interval.high]] = np.nan
    return out
