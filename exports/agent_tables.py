"""Agent-side and human-vs-agent comparison tables.

Agent runs come from `exports.agents.import_agent_runs` (one row per run, `passed` boolean);
human attempts from `exports.human_tables.analysed_attempts` (primary tier). Scope "panel"
keeps the agent runs on the human study's base tasks; scope "all" keeps every imported run.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humantrace.exports.failure_modes import AGENT_MODES, MODE_CLASS
from humantrace.exports.human_tables import pairs, task_level
from humantrace.exports.schema import CONDITIONS, PHASES, PRIMITIVES
from humantrace.exports.stats import mean_with_ci, paired_difference, ratio_over_units, wilson

_TASK_VALUE_COLUMNS = [
    "pass_clean",
    "score_clean",
    "pass_intervention",
    "score_intervention",
    "pass_drop",
    "score_drop",
]
AGENTS_BY_MODEL_COLUMNS = [
    "scope",
    "model",
    "n_clean_runs",
    "n_intervention_runs",
    "clean_pass_rate",
    "clean_pass_ci_low",
    "clean_pass_ci_high",
    "n_clean_tasks",
    "intervention_pass_rate",
    "intervention_pass_ci_low",
    "intervention_pass_ci_high",
    "n_intervention_tasks",
    "pass_drop",
    "pass_drop_ci_low",
    "pass_drop_ci_high",
    "clean_mean_score",
    "intervention_mean_score",
    "score_drop",
    "score_drop_ci_low",
    "score_drop_ci_high",
    "n_paired_tasks",
    "median_elapsed_s_clean",
    "median_elapsed_s_intervention",
]
PRIMITIVE_COLUMNS = [
    "primitive",
    "n_tasks",
    "human_cold_drop",
    "human_cold_ci_low",
    "human_cold_ci_high",
    "human_warm_drop",
    "human_warm_ci_low",
    "human_warm_ci_high",
    "n_tasks_cold",
    "human_warm_score_drop",
    "human_warm_score_ci_low",
    "human_warm_score_ci_high",
    "agent_pass_drop",
    "agent_pass_ci_low",
    "agent_pass_ci_high",
    "agent_score_drop",
    "agent_score_ci_low",
    "agent_score_ci_high",
    "gap_vs_warm",
]
GROUP_COLUMNS = [
    "dimension",
    "group",
    "population",
    "scope",
    "clean_pass_rate",
    "intervention_pass_rate",
    "drop",
    "ci_low",
    "ci_high",
    "n_tasks",
]
FAILURE_COLUMNS = [
    "population",
    "condition",
    "phase",
    "n_failed",
    "mode",
    "mode_class",
    "count",
    "n",
    "share",
    "ci_low",
    "ci_high",
]


def _median(values: pd.Series) -> float:
    values = pd.to_numeric(values, errors="coerce").dropna()
    return float(values.median()) if len(values) else np.nan


def agent_task_values(runs: pd.DataFrame) -> pd.DataFrame:
    """Per (model, task): mean pass and mean score in each condition, and the paired drops."""
    if runs.empty:
        return pd.DataFrame(columns=["model", "task", *_TASK_VALUE_COLUMNS])
    data = runs.assign(pass_value=runs["passed"].astype(float))
    means = data.groupby(["model", "task", "condition"])[["pass_value", "score"]].mean().unstack("condition")
    out = pd.DataFrame(index=means.index)
    for condition in CONDITIONS:
        out[f"pass_{condition}"] = (
            means["pass_value"][condition] if ("pass_value", condition) in means else np.nan
        )
        out[f"score_{condition}"] = means["score"][condition] if ("score", condition) in means else np.nan
    out["pass_drop"] = out["pass_clean"] - out["pass_intervention"]
    out["score_drop"] = out["score_clean"] - out["score_intervention"]
    return out.reset_index()


def agents_by_model(runs: pd.DataFrame, *, panel_tasks: set[str], n_boot: int, seed: int) -> pd.DataFrame:
    """Per model and scope: pass rates (bootstrap interval over the tasks the model ran in that
    condition, a task's runs together) and mean scores per condition, paired drops with CIs."""
    rows = []
    for scope in ("panel", "all"):
        scoped = runs[runs["task"].isin(panel_tasks)] if scope == "panel" else runs
        for model, part in scoped.groupby("model", sort=True):
            per_task = agent_task_values(part)
            clean, inter = part[part["condition"] == "clean"], part[part["condition"] == "intervention"]
            pass_drop = paired_difference(
                per_task["pass_clean"],
                per_task["pass_intervention"],
                n_boot=n_boot,
                seed=seed,
                key=f"agent/{scope}/{model}/pass",
            )
            score_drop = paired_difference(
                per_task["score_clean"],
                per_task["score_intervention"],
                n_boot=n_boot,
                seed=seed,
                key=f"agent/{scope}/{model}/score",
            )
            rates = {}
            for condition, runs_of in (("clean", clean), ("intervention", inter)):
                per = (
                    runs_of.assign(p=runs_of["passed"].astype(float))
                    .groupby("task")["p"]
                    .agg(["sum", "count"])
                )
                rates[condition] = ratio_over_units(
                    per["sum"],
                    per["count"],
                    n_boot=n_boot,
                    seed=seed,
                    key=f"agent/{scope}/{model}/{condition}/rate",
                )
            rows.append(
                {
                    "scope": scope,
                    "model": model,
                    "n_clean_runs": len(clean),
                    "n_intervention_runs": len(inter),
                    "clean_pass_rate": float(clean["passed"].mean()) if len(clean) else np.nan,
                    "clean_pass_ci_low": rates["clean"].ci_low,
                    "clean_pass_ci_high": rates["clean"].ci_high,
                    "n_clean_tasks": rates["clean"].n,
                    "intervention_pass_rate": float(inter["passed"].mean()) if len(inter) else np.nan,
                    "intervention_pass_ci_low": rates["intervention"].ci_low,
                    "intervention_pass_ci_high": rates["intervention"].ci_high,
                    "n_intervention_tasks": rates["intervention"].n,
                    "pass_drop": pass_drop.estimate,
                    "pass_drop_ci_low": pass_drop.ci_low,
                    "pass_drop_ci_high": pass_drop.ci_high,
                    "clean_mean_score": float(clean["score"].mean()) if len(clean) else np.nan,
                    "intervention_mean_score": float(inter["score"].mean()) if len(inter) else np.nan,
                    "score_drop": score_drop.estimate,
                    "score_drop_ci_low": score_drop.ci_low,
                    "score_drop_ci_high": score_drop.ci_high,
                    "n_paired_tasks": pass_drop.n,
                    "median_elapsed_s_clean": _median(clean["elapsed_s"]),
                    "median_elapsed_s_intervention": _median(inter["elapsed_s"]),
                }
            )
    return pd.DataFrame(rows, columns=AGENTS_BY_MODEL_COLUMNS)


def agent_task_means(runs: pd.DataFrame) -> pd.DataFrame:
    """Per task: the pass and score drops averaged over the models that ran it in both conditions."""
    per_model = agent_task_values(runs).dropna(subset=["pass_drop"])
    if per_model.empty:
        columns = ["agent_pass_drop", "agent_score_drop", "n_models"]
        return pd.DataFrame(columns=columns, index=pd.Index([], name="task"), dtype=float)
    grouped = per_model.groupby("task")
    return pd.DataFrame(
        {
            "agent_pass_drop": grouped["pass_drop"].mean(),
            "agent_score_drop": grouped["score_drop"].mean(),
            "n_models": grouped.size(),
        }
    )


def primitive_drops(
    primary: pd.DataFrame, runs: pd.DataFrame, meta: pd.DataFrame, *, n_boot: int, seed: int
) -> pd.DataFrame:
    """Figure 6(b): per primitive, human cold/warm pass drops against the mean agent pass drop.

    Tasks of a primitive: panel base tasks with a warm human pair and, when any agent ran panel
    tasks in both conditions, at least one agent pair (so both sides use the same tasks).
    """
    passed = task_level(primary, "passed", "mean").rename("passed")
    warm = pairs(passed, level="condition", a="clean", b="intervention", fixed={"phase": "warm"})
    cold = pairs(passed, level="condition", a="clean", b="intervention", fixed={"phase": "cold"})
    scores = task_level(primary, "score", "mean").rename("score")
    warm_score = pairs(scores, level="condition", a="clean", b="intervention", fixed={"phase": "warm"})
    agents = agent_task_means(runs[runs["task"].isin(meta.index)])
    present = [p for p in PRIMITIVES if p in set(meta["primitive"].dropna())]
    present += sorted(set(meta["primitive"].dropna()) - set(PRIMITIVES))
    rows = []
    for primitive in present:
        tasks = [t for t in meta.index[meta["primitive"] == primitive] if t in warm.index]
        if not agents.empty:  # compare both sides on the same tasks
            tasks = [t for t in tasks if t in agents.index]
        w, c = warm.loc[tasks], cold.loc[[t for t in tasks if t in cold.index]]
        a = agents.reindex(tasks)
        key = f"primitive/{primitive}"
        hw = paired_difference(w["clean"], w["intervention"], n_boot=n_boot, seed=seed, key=key + "/warm")
        hc = paired_difference(c["clean"], c["intervention"], n_boot=n_boot, seed=seed, key=key + "/cold")
        ws = warm_score.reindex(tasks)
        hs = paired_difference(
            ws["clean"], ws["intervention"], n_boot=n_boot, seed=seed, key=key + "/warm_score"
        )
        ap = mean_with_ci(a["agent_pass_drop"], n_boot=n_boot, seed=seed, key=key + "/agent_pass")
        ascore = mean_with_ci(a["agent_score_drop"], n_boot=n_boot, seed=seed, key=key + "/agent_score")
        rows.append(
            {
                "primitive": primitive,
                "n_tasks": len(tasks),
                "human_cold_drop": hc.estimate,
                "human_cold_ci_low": hc.ci_low,
                "human_cold_ci_high": hc.ci_high,
                "human_warm_drop": hw.estimate,
                "human_warm_ci_low": hw.ci_low,
                "human_warm_ci_high": hw.ci_high,
                "n_tasks_cold": hc.n,
                "human_warm_score_drop": hs.estimate,
                "human_warm_score_ci_low": hs.ci_low,
                "human_warm_score_ci_high": hs.ci_high,
                "agent_pass_drop": ap.estimate,
                "agent_pass_ci_low": ap.ci_low,
                "agent_pass_ci_high": ap.ci_high,
                "agent_score_drop": ascore.estimate,
                "agent_score_ci_low": ascore.ci_low,
                "agent_score_ci_high": ascore.ci_high,
                "gap_vs_warm": ap.estimate - hw.estimate,
            }
        )
    return pd.DataFrame(rows, columns=PRIMITIVE_COLUMNS)


def task_time_vs_agent_drop(primary: pd.DataFrame, runs: pd.DataFrame, meta: pd.DataFrame) -> pd.DataFrame:
    """Figure 11: per task, warm log-time ratio ln(t_int / t_clean) and the mean agent score drop."""
    times = task_level(primary, "wall_clock_s", "median").rename("wall_clock_s")
    warm = pairs(times, level="condition", a="clean", b="intervention", fixed={"phase": "warm"})
    warm = warm[(warm["clean"] > 0) & (warm["intervention"] > 0)]
    agents = agent_task_means(runs[runs["task"].isin(meta.index)])
    out = pd.DataFrame(
        {
            "task_id": warm.index,
            "env_id": meta.loc[warm.index, "env_id"].to_numpy(),
            "difficulty": meta.loc[warm.index, "difficulty"].to_numpy(),
            "primitive": meta.loc[warm.index, "primitive"].to_numpy(),
            "warm_clean_s": warm["clean"].to_numpy(),
            "warm_intervention_s": warm["intervention"].to_numpy(),
            "log_time_ratio": np.log(warm["intervention"].to_numpy() / warm["clean"].to_numpy()),
        }
    )
    out = out.merge(agents, left_on="task_id", right_index=True, how="left")
    out["n_models"] = out["n_models"].fillna(0).astype(int)
    return out.sort_values("task_id", ignore_index=True)


def _group_row(
    dimension: str,
    group: object,
    population: object,
    scope: str,
    clean: pd.Series,
    inter: pd.Series,
    per_task_a: pd.Series,
    per_task_b: pd.Series,
    *,
    n_boot: int,
    seed: int,
) -> dict[str, object]:
    key = f"group/{dimension}/{group}/{population}/{scope}"
    est = paired_difference(per_task_a, per_task_b, n_boot=n_boot, seed=seed, key=key)
    return {
        "dimension": dimension,
        "group": group,
        "population": population,
        "scope": scope,
        "clean_pass_rate": float(clean.mean()) if len(clean) else np.nan,
        "intervention_pass_rate": float(inter.mean()) if len(inter) else np.nan,
        "drop": est.estimate,
        "ci_low": est.ci_low,
        "ci_high": est.ci_high,
        "n_tasks": est.n,
    }


def by_group(
    primary: pd.DataFrame, runs: pd.DataFrame, meta: pd.DataFrame, *, dimension: str, n_boot: int, seed: int
) -> pd.DataFrame:
    """Pass rates and paired drops per environment (`dimension="env"`) or per difficulty."""
    human_key = "env_id" if dimension == "env" else "difficulty"
    rows = []
    passed = task_level(primary, "passed", "mean").rename("passed")
    paired = {
        p: pairs(passed, level="condition", a="clean", b="intervention", fixed={"phase": p}) for p in PHASES
    }
    for group in sorted(primary[human_key].dropna().unique()):
        tasks = set(meta.index[meta[human_key] == group])
        for phase in PHASES:
            cell = primary[(primary[human_key] == group) & (primary["phase"] == phase)]
            p = paired[phase][paired[phase].index.isin(tasks)]
            rows.append(
                _group_row(
                    dimension,
                    group,
                    f"human_{phase}",
                    "panel",
                    cell.loc[cell["condition"] == "clean", "passed"],
                    cell.loc[cell["condition"] == "intervention", "passed"],
                    p["clean"],
                    p["intervention"],
                    n_boot=n_boot,
                    seed=seed,
                )
            )
    for scope in ("panel", "all"):
        scoped = runs[runs["task"].isin(meta.index)] if scope == "panel" else runs
        if scoped.empty:
            continue
        # per (model, task) values once; each group then selects its tasks by the runs' own label
        per_task_all = agent_task_values(scoped)
        label = scoped.groupby(["model", "task"])[dimension].first()
        per_task_all[dimension] = label.reindex(
            pd.MultiIndex.from_frame(per_task_all[["model", "task"]])
        ).to_numpy()
        for (model, group), part in scoped.groupby(["model", dimension], sort=True):
            per_task = per_task_all[(per_task_all["model"] == model) & (per_task_all[dimension] == group)]
            rows.append(
                _group_row(
                    dimension,
                    group,
                    model,
                    scope,
                    part.loc[part["condition"] == "clean", "passed"].astype(float),
                    part.loc[part["condition"] == "intervention", "passed"].astype(float),
                    per_task["pass_clean"],
                    per_task["pass_intervention"],
                    n_boot=n_boot,
                    seed=seed,
                )
            )
    return pd.DataFrame(rows, columns=GROUP_COLUMNS)


def failure_mode_counts(labelled: pd.DataFrame) -> pd.DataFrame:
    """Failed episodes by Appendix I mode, per population x condition x phase, people and agents
    alike (`labelled`: population, condition, phase, passed, failure_mode).

    share = count / failed episodes that carry features and are not abandoned_run (the paper's
    denominator, `n`), with a 95% Wilson interval; abandoned_run and episodes without features are
    counted but get no share.
    """
    rows = []
    modes = (*AGENT_MODES, "unclassified", "no_features")
    if labelled.empty:
        return pd.DataFrame(columns=FAILURE_COLUMNS)
    keyed = labelled.assign(phase=labelled["phase"].fillna(""))
    for (population, condition, phase), part in keyed.groupby(
        ["population", "condition", "phase"], sort=True
    ):
        failed = part[~part["passed"].astype(bool)]
        labels = failed["failure_mode"].astype(object).where(failed["failure_mode"].notna(), "no_features")
        denominator = int((~labels.isin(["abandoned_run", "no_features"])).sum())
        for mode in modes:
            count = int((labels == mode).sum())
            counted = mode not in ("abandoned_run", "no_features")
            est = wilson(count, denominator) if counted else None
            rows.append(
                {
                    "population": population,
                    "condition": condition,
                    "phase": phase,
                    "n_failed": len(failed),
                    "mode": mode,
                    "mode_class": MODE_CLASS.get(mode, "no_features"),
                    "count": count,
                    "n": denominator if counted else 0,
                    "share": est.estimate if est else np.nan,
                    "ci_low": est.ci_low if est else np.nan,
                    "ci_high": est.ci_high if est else np.nan,
                }
            )
    return pd.DataFrame(rows, columns=FAILURE_COLUMNS)


def agent_failure_modes(runs: pd.DataFrame) -> pd.DataFrame:
    """Failed agent runs by Appendix I mode, per model x condition (`failure_mode_counts`)."""
    if runs.empty:
        return pd.DataFrame(columns=FAILURE_COLUMNS)
    return failure_mode_counts(
        runs[["model", "condition", "passed", "failure_mode"]]
        .rename(columns={"model": "population"})
        .assign(phase="")
    )
