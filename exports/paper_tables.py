"""The papers' headline tables from bundles: per model x primitive, environment x primitive,
false-positive completion, the completion-verification gap, failure modes by primitive and
environment, time ratios and the duplicate-audit statistics.

Populations: "humans cold" and "humans warm" (primary tier) and one per agent model. Inputs are
`human_tables.analysed_attempts` rows (primary tier, `passed` as 0/1) and `agents.import_agent_runs`
runs; docs/exports.md gives each table's formulas and the paper table or figure it reproduces.
Every interval over fewer than `stats.MIN_N_FOR_CI` units is left blank with the note "n too small".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from humantrace.exports.failure_modes import AGENT_MODES, MODE_CLASS
from humantrace.exports.human_tables import task_level
from humantrace.exports.schema import CONDITIONS, PHASES, PRIMITIVES
from humantrace.exports.stats import (
    MIN_N_FOR_CI,
    N_TOO_SMALL,
    Estimate,
    bootstrap,
    ci_fields,
    cluster_bootstrap,
    cohen_kappa,
    icc_a1,
    paired_difference,
    ratio_over_units,
    wilson,
)

HUMAN_POPULATIONS = tuple(f"humans {phase}" for phase in PHASES)
AGENT_MEAN = "agents (mean over models)"
NO_VARIANTS = "no variants"
NO_PAIRS = "no paired tasks"
UNKNOWN_GROUP = "(unknown)"  # an agent task outside the human bundles, with no target_primitive given


def _note(n: int) -> str:
    return N_TOO_SMALL if n < MIN_N_FOR_CI else ""


def _blank_small(est: Estimate) -> tuple[float, float]:
    return (np.nan, np.nan) if est.n < MIN_N_FOR_CI else (est.ci_low, est.ci_high)


def _ordered_primitives(values: Iterable[object]) -> list[str]:
    present = {v for v in values if isinstance(v, str) and v}
    return [p for p in PRIMITIVES if p in present] + sorted(present - set(PRIMITIVES))


def with_primitive(runs: pd.DataFrame, meta: pd.DataFrame) -> pd.DataFrame:
    """Agent runs with `primitive`: the run's target_primitive, else the human bundle's for the task."""
    own = (
        runs["target_primitive"]
        if "target_primitive" in runs
        else pd.Series(None, index=runs.index, dtype=object)
    )
    fallback = (
        runs["task"].map(meta["primitive"])
        if not meta.empty
        else pd.Series(None, index=runs.index, dtype=object)
    )
    first = own.groupby(runs["task"]).transform("first") if len(runs) else own
    return runs.assign(primitive=first.astype(object).where(first.notna(), fallback).astype(object))


def task_values(primary: pd.DataFrame, runs: pd.DataFrame, meta: pd.DataFrame) -> pd.DataFrame:
    """Long table: population, task, env, primitive and per-task mean pass and score per condition."""
    frames = []
    for phase in PHASES:
        part = primary[primary["phase"] == phase]
        if part.empty:
            continue
        passed = task_level(part, "passed", "mean").droplevel("phase").unstack("condition")
        score = task_level(part, "score", "mean").droplevel("phase").unstack("condition")
        frame = pd.DataFrame(index=passed.index)
        for c in CONDITIONS:
            frame[f"pass_{c}"] = passed[c] if c in passed else np.nan
            frame[f"score_{c}"] = score[c] if c in score else np.nan
        frame = frame.reset_index().rename(columns={"task_id": "task"})
        frame["population"] = f"humans {phase}"
        frame["env"] = frame["task"].map(meta["env_id"])
        frame["primitive"] = frame["task"].map(meta["primitive"])
        frames.append(frame)
    if not runs.empty:
        data = runs.assign(pass_value=runs["passed"].astype(float))
        means = (
            data.groupby(["model", "task", "condition"])[["pass_value", "score"]].mean().unstack("condition")
        )
        frame = pd.DataFrame(index=means.index)
        for c in CONDITIONS:
            frame[f"pass_{c}"] = means["pass_value"][c] if ("pass_value", c) in means else np.nan
            frame[f"score_{c}"] = means["score"][c] if ("score", c) in means else np.nan
        frame = frame.reset_index().rename(columns={"model": "population"})
        labels = runs.groupby("task")[["env", "primitive"]].first()
        frame["env"] = frame["task"].map(meta["env_id"]).fillna(frame["task"].map(labels["env"]))
        frame["primitive"] = frame["task"].map(labels["primitive"])
        frames.append(frame)
    columns = [
        "population",
        "task",
        "env",
        "primitive",
        *(f"{m}_{c}" for m in ("pass", "score") for c in CONDITIONS),
    ]
    if not frames:
        return pd.DataFrame(columns=columns)
    out = pd.concat(frames, ignore_index=True)[columns]
    out["pass_drop"] = out["pass_clean"] - out["pass_intervention"]
    out["score_drop"] = out["score_clean"] - out["score_intervention"]
    return out


def _populations(values: pd.DataFrame) -> list[str]:
    found = list(dict.fromkeys(values["population"]))
    return [p for p in HUMAN_POPULATIONS if p in found] + sorted(
        p for p in found if p not in HUMAN_POPULATIONS
    )


MODEL_PRIMITIVE_COLUMNS = [
    "population",
    "primitive",
    "n_tasks",
    "clean_pass_rate",
    "intervention_pass_rate",
    "pass_drop",
    "pass_drop_ci_low",
    "pass_drop_ci_high",
    "score_drop",
    "score_drop_ci_low",
    "score_drop_ci_high",
    "note",
]


def model_primitive(values: pd.DataFrame, *, n_boot: int, seed: int) -> pd.DataFrame:
    """Tables 2/23: per population x primitive (and "all"), pass rates over base tasks with both
    conditions, the paired pass drop and score drop with bootstrap intervals over those tasks."""
    paired = values.dropna(subset=["pass_clean", "pass_intervention"])
    rows = []
    primitives = ["all", *_ordered_primitives(values["primitive"])]
    for population in _populations(values):
        mine = paired[paired["population"] == population]
        for primitive in primitives:
            part = mine if primitive == "all" else mine[mine["primitive"] == primitive]
            row = {"population": population, "primitive": primitive, "n_tasks": len(part)}
            if part.empty:
                rows.append({**row, "note": NO_PAIRS})
                continue
            key = f"model_primitive/{population}/{primitive}"
            pd_ = paired_difference(
                part["pass_clean"], part["pass_intervention"], n_boot=n_boot, seed=seed, key=key + "/pass"
            )
            sd = paired_difference(
                part["score_clean"], part["score_intervention"], n_boot=n_boot, seed=seed, key=key + "/score"
            )
            (pl, ph), (sl, sh) = _blank_small(pd_), _blank_small(sd)
            rows.append(
                {
                    **row,
                    "clean_pass_rate": float(part["pass_clean"].mean()),
                    "intervention_pass_rate": float(part["pass_intervention"].mean()),
                    "pass_drop": pd_.estimate,
                    "pass_drop_ci_low": pl,
                    "pass_drop_ci_high": ph,
                    "score_drop": sd.estimate,
                    "score_drop_ci_low": sl,
                    "score_drop_ci_high": sh,
                    "note": _note(len(part)),
                }
            )
    return pd.DataFrame(rows, columns=MODEL_PRIMITIVE_COLUMNS)


ENV_PRIMITIVE_COLUMNS = [
    "population",
    "env",
    "primitive",
    "n_tasks",
    "mean_score_drop",
    "mean_pass_drop",
    "note",
]


def env_primitive(values: pd.DataFrame) -> pd.DataFrame:
    """Table 27 / Figure 14: mean paired score and pass drop per population x environment x
    primitive, plus the mean over agent models; a cell no task covers says "no variants"."""
    paired = values.dropna(subset=["pass_clean", "pass_intervention"])
    agents = paired[~paired["population"].isin(HUMAN_POPULATIONS)]
    if not agents.empty:
        mean = agents.groupby("task", as_index=False).agg(
            env=("env", "first"),
            primitive=("primitive", "first"),
            pass_drop=("pass_drop", "mean"),
            score_drop=("score_drop", "mean"),
        )
        paired = pd.concat([paired, mean.assign(population=AGENT_MEAN)], ignore_index=True)
    envs = sorted(values["env"].dropna().unique())
    primitives = _ordered_primitives(values["primitive"])
    covered = set(zip(values["env"], values["primitive"], strict=True))
    rows = []
    for population in _populations(paired) if not paired.empty else []:
        mine = paired[paired["population"] == population]
        for env in envs:
            for primitive in primitives:
                part = mine[(mine["env"] == env) & (mine["primitive"] == primitive)]
                row = {"population": population, "env": env, "primitive": primitive, "n_tasks": len(part)}
                if (env, primitive) not in covered:
                    row["note"] = NO_VARIANTS
                elif part.empty:
                    row["note"] = NO_PAIRS
                else:
                    row.update(
                        mean_score_drop=float(part["score_drop"].mean()),
                        mean_pass_drop=float(part["pass_drop"].mean()),
                        note=_note(len(part)),
                    )
                rows.append(row)
    return pd.DataFrame(rows, columns=ENV_PRIMITIVE_COLUMNS)


FPR_COLUMNS = [
    "population",
    "condition",
    "n_episodes",
    "n_unknown",
    "n_claimed",
    "claim_rate",
    "n_claimed_failed",
    "fpr",
    "fpr_ci_low",
    "fpr_ci_high",
    "ci_note",
]


def claimed_completion(primary: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """Per episode: population, task, condition, passed, completed (claimed), event_match_score.

    A person claims completion by pressing Evaluate (outcome evaluated); an agent by its
    `completed` flag, else a done verb as its terminal action (null when neither is known).
    """
    human = pd.DataFrame(
        {
            "source": "human",
            "population": "humans " + primary["phase"].astype(str),
            "episode": primary["attempt_id"].astype(str),
            "task": primary["task_id"],
            "condition": primary["condition"],
            "passed": primary["passed"].astype(float),
            "completed": (primary["outcome"] == "evaluated").astype(object),
            "event_match_score": pd.to_numeric(primary["event_match_score"], errors="coerce")
            if "event_match_score" in primary
            else np.nan,
        }
    )
    agent = pd.DataFrame(
        {
            "source": "agent",
            "population": runs["model"],
            "episode": runs["run_id"]
            .astype(object)
            .where(runs["run_id"].notna(), runs["source_file"] + ":" + runs["source_line"].astype(str)),
            "task": runs["task"],
            "condition": runs["condition"],
            "passed": runs["passed"].astype(float),
            "completed": runs["completed"].astype(object) if "completed" in runs else None,
            "event_match_score": pd.to_numeric(runs["event_match_score"], errors="coerce")
            if "event_match_score" in runs
            else np.nan,
        }
    )
    frames = [f for f in (human, agent) if not f.empty]
    if not frames:
        return pd.DataFrame(columns=list(human.columns))
    return pd.concat(frames, ignore_index=True)


def false_positive_completion(episodes: pd.DataFrame) -> pd.DataFrame:
    """Table 4 (FPR) / Figure 5(b): of the episodes that claimed completion, the share that failed
    the evaluator, per population x condition, with a Wilson interval over those episodes."""
    rows = []
    for population in _populations(episodes) if not episodes.empty else []:
        for condition in CONDITIONS:
            part = episodes[(episodes["population"] == population) & (episodes["condition"] == condition)]
            if part.empty:
                continue
            known = part[part["completed"].notna()]
            claimed = known[known["completed"].astype(bool)]
            failed = int((claimed["passed"] < 1).sum())
            est = wilson(failed, len(claimed))
            low, high = _blank_small(est)
            rows.append(
                {
                    "population": population,
                    "condition": condition,
                    "n_episodes": len(part),
                    "n_unknown": len(part) - len(known),
                    "n_claimed": len(claimed),
                    "claim_rate": len(claimed) / len(known) if len(known) else np.nan,
                    "n_claimed_failed": failed,
                    "fpr": est.estimate,
                    "fpr_ci_low": low,
                    "fpr_ci_high": high,
                    "ci_note": _note(len(claimed)) if len(claimed) else "no claimed completions",
                }
            )
    return pd.DataFrame(rows, columns=FPR_COLUMNS)


GAP_TASK_COLUMNS = [
    "population",
    "task",
    "condition",
    "n",
    "pass_rate",
    "ems_rate",
    "completion_rate",
    "done_and_pass",
    "over_claim",
    "under_claim",
    "pass_not_ems",
    "ems_not_pass",
]
GAP_COLUMNS = [
    "population",
    "condition",
    "n",
    "n_without_ems",
    "pass_rate",
    "pass_ci_low",
    "pass_ci_high",
    "ems_rate",
    "ems_ci_low",
    "ems_ci_high",
    "completion_rate",
    "completion_ci_low",
    "completion_ci_high",
    "done_and_pass",
    "over_claim",
    "under_claim",
    "pass_not_ems",
    "ems_not_pass",
    "completion_minus_ems",
    "completion_minus_ems_ci_low",
    "completion_minus_ems_ci_high",
    "n_tasks",
    "pass_minus_ems",
    "ci_note",
]


def _gap_rates(part: pd.DataFrame) -> dict[str, Any]:
    done = part["completed"].astype(bool)
    ems = part["event_match_score"] >= 1.0
    passed = part["passed"] >= 1.0
    return {
        "pass_rate": float(passed.mean()),
        "ems_rate": float(part["event_match_score"].mean()),
        "completion_rate": float(done.mean()),
        "done_and_pass": float((done & ems).mean()),
        "over_claim": float((done & ~ems).mean()),
        "under_claim": float((~done & ems).mean()),
        "pass_not_ems": float((passed & ~ems).mean()),
        "ems_not_pass": float((~passed & ems).mean()),
    }


def verification_gap(
    episodes: pd.DataFrame, *, n_boot: int = 2000, seed: int = 0
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """WebPageBench Section 5.2: outcome pass (canonical diff), Event-Match Score and the claimed
    completion side by side; (per population x condition with Wilson intervals, per task).

    Only episodes with an event-match score count (tasks without event conditions have none);
    completion is null-safe: an episode whose completion is unknown counts as not completed.
    Rates carry Wilson intervals over episodes; the completion − EMS gap a bootstrap interval over
    base tasks (a task's episodes resampled together), n_tasks.
    """
    summary, by_task = [], []
    if episodes.empty:
        return pd.DataFrame(columns=GAP_COLUMNS), pd.DataFrame(columns=GAP_TASK_COLUMNS)
    data = episodes.assign(
        completed=episodes["completed"].astype(object).where(episodes["completed"].notna(), False)
    )
    for population in _populations(data):
        for condition in CONDITIONS:
            part = data[(data["population"] == population) & (data["condition"] == condition)]
            scored = part[part["event_match_score"].notna()]
            if scored.empty:
                continue
            rates = _gap_rates(scored)
            p = wilson(int((scored["passed"] >= 1).sum()), len(scored))
            e = wilson(int((scored["event_match_score"] >= 1).sum()), len(scored))
            c = wilson(int(scored["completed"].astype(bool).sum()), len(scored))
            (pl, ph), (el, eh), (cl, ch) = _blank_small(p), _blank_small(e), _blank_small(c)
            gap_units = (
                scored.assign(
                    gap=scored["completed"].astype(bool).astype(float)
                    - scored["event_match_score"].astype(float)
                )
                .groupby("task")["gap"]
                .agg(["sum", "count"])
            )
            g = ratio_over_units(
                gap_units["sum"],
                gap_units["count"],
                n_boot=n_boot,
                seed=seed,
                key=f"verification_gap/{population}/{condition}",
            )
            summary.append(
                {
                    "population": population,
                    "condition": condition,
                    "n": len(scored),
                    "n_without_ems": len(part) - len(scored),
                    **rates,
                    "pass_ci_low": pl,
                    "pass_ci_high": ph,
                    "ems_ci_low": el,
                    "ems_ci_high": eh,
                    "completion_ci_low": cl,
                    "completion_ci_high": ch,
                    "completion_minus_ems": rates["completion_rate"] - rates["ems_rate"],
                    "completion_minus_ems_ci_low": g.ci_low,
                    "completion_minus_ems_ci_high": g.ci_high,
                    "n_tasks": g.n,
                    "pass_minus_ems": rates["pass_rate"] - rates["ems_rate"],
                    "ci_note": _note(len(scored)),
                }
            )
            for task, tpart in scored.groupby("task", sort=True):
                by_task.append(
                    {
                        "population": population,
                        "task": task,
                        "condition": condition,
                        "n": len(tpart),
                        **_gap_rates(tpart),
                    }
                )
    return pd.DataFrame(summary, columns=GAP_COLUMNS), pd.DataFrame(by_task, columns=GAP_TASK_COLUMNS)


FAILURE_BY_COLUMNS = [
    "population",
    "dimension",
    "group",
    "n_failed",
    "n_classified",
    "mode",
    "mode_class",
    "count",
    "share",
    "ci_low",
    "ci_high",
]


def failure_modes_by(labelled: pd.DataFrame, *, dimension: str) -> pd.DataFrame:
    """Tables 24 (by primitive) and 28 (by environment): failed intervention episodes per mode.

    `labelled` has population, condition, passed, failure_mode and the `dimension` column.
    share = count / classified failures (abandoned_run and episodes without features excluded,
    as in Table 3); rows are only the modes that occur.
    """
    rows = []
    failed = labelled[(labelled["condition"] == "intervention") & (labelled["passed"] < 1)]
    failed = failed.assign(
        **{dimension: failed[dimension].astype(object).where(failed[dimension].notna(), UNKNOWN_GROUP)}
    )
    for (population, group), part in failed.groupby(["population", dimension], sort=True):
        modes = part["failure_mode"].astype(object).where(part["failure_mode"].notna(), "no_features")
        classified = int((~modes.isin(["abandoned_run", "no_features"])).sum())
        for mode in (*AGENT_MODES, "unclassified", "no_features"):
            count = int((modes == mode).sum())
            if not count:
                continue
            counted = mode not in ("abandoned_run", "no_features")
            est = wilson(count, classified) if counted else Estimate(np.nan, np.nan, np.nan, 0)
            rows.append(
                {
                    "population": population,
                    "dimension": dimension,
                    "group": group,
                    "n_failed": len(part),
                    "n_classified": classified,
                    "mode": mode,
                    "mode_class": MODE_CLASS.get(mode, "no_features"),
                    "count": count,
                    "share": est.estimate,
                    "ci_low": est.ci_low,
                    "ci_high": est.ci_high,
                }
            )
    return pd.DataFrame(rows, columns=FAILURE_BY_COLUMNS)


FAILURE_CLASS_COLUMNS = ["population", "mode_class", "count", "n", "share", "ci_low", "ci_high", "ci_note"]


def failure_classes(labelled: pd.DataFrame) -> pd.DataFrame:
    """Table 4 / Figure 5(a): share of belief, action and overreach failures among the classified
    failed intervention episodes of each population, with Wilson intervals."""
    failed = labelled[(labelled["condition"] == "intervention") & (labelled["passed"] < 1)]
    classified = failed[failed["failure_mode"].notna() & (failed["failure_mode"] != "abandoned_run")]
    rows = []
    for population in _populations(classified) if not classified.empty else []:
        part = classified[classified["population"] == population]
        classes = part["failure_mode"].map(MODE_CLASS)
        for mode_class in ("belief", "action", "overreach"):
            est = wilson(int((classes == mode_class).sum()), len(part))
            low, high = _blank_small(est)
            rows.append(
                {
                    "population": population,
                    "mode_class": mode_class,
                    "count": int((classes == mode_class).sum()),
                    "n": len(part),
                    "share": est.estimate,
                    "ci_low": low,
                    "ci_high": high,
                    "ci_note": _note(len(part)),
                }
            )
    return pd.DataFrame(rows, columns=FAILURE_CLASS_COLUMNS)


TIME_RATIO_COLUMNS = [
    "model",
    "human_phase",
    "condition",
    "n_pairs",
    "median_human_s",
    "median_agent_s",
    "ratio",
    "ratio_ci_low",
    "ratio_ci_high",
    "ci_note",
]
HUMAN_TIME_COLUMNS = ["condition", "phase", "n_attempts", "median_s", "ci_low", "ci_high", "ci_note"]


def _ratio_of_medians(values: np.ndarray) -> float:
    human = np.median(values[:, 0])
    return float(np.median(values[:, 1]) / human) if human > 0 else float("nan")


def _ratio_of_medians_batched(boots: np.ndarray) -> np.ndarray:
    ratio: np.ndarray = np.median(boots[:, :, 1], axis=1) / np.median(boots[:, :, 0], axis=1)
    return ratio


def _median_ratio_batched(boots: np.ndarray) -> np.ndarray:
    ratio: np.ndarray = np.median(boots[:, :, 1] / boots[:, :, 0], axis=1)
    return ratio


def time_ratio(primary: pd.DataFrame, runs: pd.DataFrame, *, n_boot: int, seed: int) -> pd.DataFrame:
    """Figure 6(a): agent / human time on task-conditions both completed (passed).

    Unit: a task-condition where the primary human attempts of the phase passed and the model's
    runs passed; its human time is the median wall clock of those attempts, its agent time the
    median elapsed_s of those runs. ratio = median agent time / median human time, with a bootstrap
    interval over the units.
    """
    rows = []
    if runs.empty:
        return pd.DataFrame(columns=TIME_RATIO_COLUMNS)
    ok_runs = runs[runs["passed"].astype(bool) & runs["elapsed_s"].notna()]
    agent = ok_runs.groupby(["model", "task", "condition"])["elapsed_s"].median()
    for phase in PHASES:
        ok = primary[(primary["phase"] == phase) & (primary["passed"] >= 1)]
        human = ok.groupby(["task_id", "condition"])["wall_clock_s"].median()
        for model in sorted(runs["model"].unique()):
            mine = agent[agent.index.get_level_values("model") == model].droplevel("model")
            both = pd.concat(
                [human.rename("human"), mine.rename("agent").rename_axis(["task_id", "condition"])],
                axis=1,
                join="inner",
            ).dropna()
            for condition in ("all", *CONDITIONS):
                part = (
                    both
                    if condition == "all"
                    else both[both.index.get_level_values("condition") == condition]
                )
                key = f"time_ratio/{model}/{phase}/{condition}"
                est = bootstrap(
                    part[["human", "agent"]].to_numpy(),
                    _ratio_of_medians,
                    n_boot=n_boot,
                    seed=seed,
                    key=key,
                    batched=_ratio_of_medians_batched,
                )
                low, high = _blank_small(est)
                rows.append(
                    {
                        "model": model,
                        "human_phase": phase,
                        "condition": condition,
                        "n_pairs": len(part),
                        "median_human_s": float(part["human"].median()) if len(part) else np.nan,
                        "median_agent_s": float(part["agent"].median()) if len(part) else np.nan,
                        "ratio": est.estimate,
                        "ratio_ci_low": low,
                        "ratio_ci_high": high,
                        "ci_note": _note(len(part)) if len(part) else "no task-condition both passed",
                    }
                )
    return pd.DataFrame(rows, columns=TIME_RATIO_COLUMNS)


def human_time(primary: pd.DataFrame, *, n_boot: int, seed: int) -> pd.DataFrame:
    """Median human wall-clock seconds per condition x phase, bootstrap interval over attempts."""
    rows = []
    for condition in CONDITIONS:
        for phase in PHASES:
            values = primary.loc[
                (primary["condition"] == condition) & (primary["phase"] == phase), "wall_clock_s"
            ].dropna()
            if values.empty:
                continue
            est = bootstrap(
                values.to_numpy(),
                np.median,
                n_boot=n_boot,
                seed=seed,
                key=f"human_time/{condition}/{phase}",
                batched=lambda b: np.median(b, axis=1),
            )
            low, high = _blank_small(est)
            rows.append(
                {
                    "condition": condition,
                    "phase": phase,
                    "n_attempts": est.n,
                    "median_s": est.estimate,
                    "ci_low": low,
                    "ci_high": high,
                    "ci_note": _note(est.n),
                }
            )
    return pd.DataFrame(rows, columns=HUMAN_TIME_COLUMNS)


DUPLICATE_STAT_COLUMNS = ["statistic", "estimate", "ci_low", "ci_high", "n", "n_pairs", "ci_note", "meaning"]
_MEANINGS = {
    "pass_fail_agreement": "share of primary/duplicate pairs with the same pass/fail verdict (interval over task-conditions)",
    "cohen_kappa": "agreement on pass/fail beyond chance (1 perfect, 0 chance level); undefined when every attempt had one verdict",
    "median_time_ratio": "median of duplicate / primary wall-clock time (1 = the same speed)",
    "icc_log_time": "ICC(A,1) of log wall-clock time: how much of the time variance is between tasks rather than between the two annotators (1 = interchangeable)",
    "median_step_ratio": "median of duplicate / primary raw event count (the paper's step ratio uses raw events)",
    "icc_log_steps": "ICC(A,1) of log raw event count",
}


def _task_conditions(pairs: pd.DataFrame) -> list[tuple[object, object]]:
    return list(zip(pairs["task_id"], pairs["condition"], strict=True))


def duplicate_statistics(pairs: pd.DataFrame, *, n_boot: int, seed: int) -> pd.DataFrame:
    """Table 31: duplicate-audit agreement (share, Cohen's kappa) and time/step ratios with ICC.

    The unit is the task-condition, as in the paper: both phases of a task-condition come from
    the same two annotators, so every interval resamples task-conditions (a task-condition's cold
    and warm pairs together) and n counts task-conditions; the minimum n applies to that count.
    Empty when the bundle has no duplicate recordings."""
    if pairs.empty:
        return pd.DataFrame(columns=DUPLICATE_STAT_COLUMNS)
    verdicts = pairs[["primary_passed", "duplicate_passed"]].astype(float)
    all_times = pairs[["primary_wall_clock_s", "duplicate_wall_clock_s"]].astype(float)
    timed = (all_times > 0).all(axis=1).to_numpy()
    all_steps = pairs[["primary_raw_events", "duplicate_raw_events"]].astype(float)
    stepped = (all_steps > 0).all(axis=1).to_numpy()
    units = _task_conditions(pairs)
    timed_units = [u for u, keep in zip(units, timed, strict=True) if keep]
    stepped_units = [u for u, keep in zip(units, stepped, strict=True) if keep]
    boot = {"n_boot": n_boot, "seed": seed}

    def median_ratio(v: np.ndarray) -> float:
        return float(np.median(v[:, 1] / v[:, 0]))

    estimates = {
        "pass_fail_agreement": cluster_bootstrap(
            pairs["agree"].astype(float).to_numpy(), units, lambda v: float(v.mean()), key="dup/agree", **boot
        ),
        "cohen_kappa": cluster_bootstrap(verdicts.to_numpy(), units, cohen_kappa, key="dup/kappa", **boot),
        "median_time_ratio": cluster_bootstrap(
            all_times.to_numpy()[timed], timed_units, median_ratio, key="dup/time", **boot
        ),
        "icc_log_time": cluster_bootstrap(
            np.log(all_times.to_numpy()[timed]), timed_units, icc_a1, key="dup/icc_time", **boot
        ),
        "median_step_ratio": cluster_bootstrap(
            all_steps.to_numpy()[stepped], stepped_units, median_ratio, key="dup/steps", **boot
        ),
        "icc_log_steps": cluster_bootstrap(
            np.log(all_steps.to_numpy()[stepped]), stepped_units, icc_a1, key="dup/icc_steps", **boot
        ),
    }
    rows = []
    for name, est in estimates.items():
        fields = ci_fields(est)
        fields["n_pairs"] = int(
            len(pairs)
            if name in ("pass_fail_agreement", "cohen_kappa")
            else (timed if "time" in name else stepped).sum()
        )
        if np.isnan(est.estimate) and name == "cohen_kappa":
            fields["ci_note"] = "undefined: every attempt had the same verdict"
        rows.append({"statistic": name, **fields, "meaning": _MEANINGS[name]})
    return pd.DataFrame(rows, columns=DUPLICATE_STAT_COLUMNS)
