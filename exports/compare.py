"""Compare a human reference bundle with agent run bundles: CSV tables and an HTML report.

`compare(...)` is a pure function of its inputs (the seed fixes every bootstrap interval); the
CLI wiring lives in the dashboard package.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from humantrace.exports import agent_tables as at
from humantrace.exports import human_tables as ht
from humantrace.exports import paper_tables as pt
from humantrace.exports.agents import AgentImport, ProtocolMixError, check_protocols, import_agent_runs
from humantrace.exports.away import CLOCK_STATEMENT, away_warnings
from humantrace.exports.bundle import BundleError, prepare_output_dir
from humantrace.exports.charts import FIGURES
from humantrace.exports.csv_safety import write_csv
from humantrace.exports.inputs import apply_filters, load_humans, parse_filters
from humantrace.exports.paper_quantities import paper_quantities
from humantrace.exports.replay_tables import replay_reproduce
from humantrace.exports.table_meta import finish
from humantrace.exports.ui_tables import ClassesOf, by_interaction_class

# File name (without .csv) -> what it holds; the order is the report's order.
TABLE_FILES = {
    "panel_summary": "pass rate and medians for clean/intervention x cold/warm (primary tier)",
    "panel_changes": "paired drops and warm gains with 95% bootstrap intervals",
    "agents_by_model": "agent pass rates, mean scores and paired drops per model",
    "primitive_drops": "human vs agent pass drop per primitive",
    "task_time_vs_agent_drop": "per task: warm log-time ratio and mean agent score drop",
    "by_environment": "pass rates and drops per environment",
    "by_difficulty": "pass rates and drops per difficulty",
    "full_benchmark_weights": "w(e,d) = N_full(e,d) / k(e,d)",
    "full_benchmark": "full-benchmark weighted human pass rates and drops",
    "annotators": "per-annotator marginal pass rates",
    "duplicate_audit": "primary vs duplicate recordings of the same task-condition and phase",
    "duplicate_audit_summary": "duplicate-audit agreement, time and event ratios",
    "failure_modes": "Appendix I failure modes of failed human attempts and agent runs (one taxonomy for both)",
    "human_outcomes": "how failed human attempts ended (outcome and verdict; not the Appendix I taxonomy)",
    "model_primitive": "per population x primitive: pass rates, paired pass and score drops (Tables 2/23)",
    "env_primitive": "per population x environment x primitive: mean paired drops (Table 27, Figure 14)",
    "false_positive_completion": "claimed completion that failed the evaluator (Table 4 FPR, Figure 5(b))",
    "verification_gap": "outcome pass vs Event-Match Score vs claimed completion (WebPageBench Section 5.2)",
    "verification_gap_by_task": "the same per task",
    "event_match": "per attempt and episode: pass, Event-Match Score, claimed completion",
    "failure_classes": "belief / action / overreach shares of classified failed intervention episodes (Table 4, Figure 5(a))",
    "failure_modes_by_primitive": "failed intervention episodes by Appendix I mode and primitive (Table 24)",
    "failure_modes_by_environment": "failed intervention episodes by Appendix I mode and environment (Table 28)",
    "failure_features": "Appendix I features of every human attempt, computed from the bundle",
    "time_ratio": "agent / human time on task-conditions both passed (Figure 6(a))",
    "human_time": "median human time per condition x phase",
    "duplicate_audit_statistics": "duplicate audit: agreement, Cohen's kappa, time/step ratios, ICC (Table 31)",
    "by_interaction_class": "pass rate, time and steps by UI interaction class, humans and agents side by side (95% CIs)",
    "paper_quantities": "clean-solved tasks failing under intervention, failed-minus-passed warm raw events, Spearman of primitive orders by pass and score drop, pass drop at a 0.5 threshold",
    "agent_runs": "imported agent runs with their failure mode",
    "replay_reproduce": "share of passed human attempts whose replayed cleaned trace passes, per task and site",
    "import_errors": "rejected agent rows and file-level problems",
}


OUTPUT_FILES = frozenset(
    {
        "report.html",
        *(f"{name}.csv" for name in TABLE_FILES),
        *(f"fig_{name}.{ext}" for name in FIGURES for ext in ("png", "svg")),
    }
)


class CompareError(ValueError):
    """The comparison cannot be made as asked (an agent file missing or wholly rejected)."""


def _refuse_empty_agent_files(paths: list[Path], agent_import: AgentImport) -> None:
    imported = set(agent_import.runs["source_file"]) if len(agent_import.runs) else set()
    for path in paths:
        if path.name in imported:
            continue
        issues = [e for e in agent_import.errors if Path(e.file).name == path.name]
        first = (
            f"; first: {issues[0].unit} {issues[0].line or ''} {issues[0].reason}".replace("  ", " ")
            if issues
            else ""
        )
        raise CompareError(
            f"{path}: no agent run could be imported ({len(issues)} row(s) or file problem(s) rejected{first})"
        )


@dataclass
class CompareResult:
    """Where everything was written, the tables themselves and what needs the reader's attention."""

    out_dir: Path
    report_path: Path
    csv_paths: dict[str, Path]
    tables: dict[str, pd.DataFrame]
    agent_import: AgentImport
    warnings: list[str] = field(default_factory=list)


def _task_counts(task_counts: pd.DataFrame | str | Path | None) -> pd.DataFrame | None:
    if task_counts is None:
        return None
    frame = task_counts if isinstance(task_counts, pd.DataFrame) else pd.read_csv(task_counts)
    frame = frame.rename(columns={"env_id": "env"})
    missing = [c for c in ("env", "difficulty", "n_tasks") if c not in frame.columns]
    if missing:
        raise ValueError(f"task-count table lacks column(s) {missing}; expected env, difficulty, n_tasks")
    frame["n_tasks"] = pd.to_numeric(frame["n_tasks"], errors="raise")
    return frame


def _metadata_warnings(runs: pd.DataFrame, meta: pd.DataFrame) -> list[str]:
    if runs.empty:
        return []
    seen = runs[["task", "env", "difficulty"]].drop_duplicates()
    seen = seen[seen["task"].isin(meta.index)]
    out = []
    for task, env, difficulty in zip(seen["task"], seen["env"], seen["difficulty"], strict=True):
        human = meta.loc[task]
        if (env, difficulty) != (human["env_id"], human["difficulty"]):
            out.append(
                f"task {task}: agent runs say ({env}, {difficulty}), the human bundle says "
                f"({human['env_id']}, {human['difficulty']}); human metadata is used for grouping"
            )
    return out


def _seed_warnings(runs: pd.DataFrame, attempts: pd.DataFrame) -> list[str]:
    """Agent runs built from another env seed than the human attempts of the same task.

    Both conditions of a task are recorded at the study's seed; an agent run at another seed
    starts from another instance, so its score is not comparable (the agent runner must use the
    study's seed). Runs that name no seed, and bundles older than schema 2.0, are not judged.
    """
    if runs.empty or "seed" not in runs.columns or "seed" not in attempts.columns:
        return []
    human: dict[object, list[int]] = {
        task: sorted({int(v) for v in s})
        for task, s in attempts.dropna(subset=["seed"]).groupby("task_id")["seed"]
    }
    agent: dict[object, list[int]] = {
        task: sorted({int(v) for v in s}) for task, s in runs.dropna(subset=["seed"]).groupby("task")["seed"]
    }
    out = []
    for task, seeds in agent.items():
        expected = human.get(task)
        if expected is None:
            continue
        other = [s for s in seeds if s not in expected]
        if other:
            out.append(
                f"task {task}: agent runs used seed(s) {', '.join(map(str, other))}, the human attempts seed "
                f"{', '.join(map(str, expected))}; those runs start from another instance and are not comparable"
            )
    return out


def _apply_review(attempts: pd.DataFrame) -> tuple[pd.DataFrame, list[str], int]:
    """(attempts a lead did not exclude, warnings, how many were excluded).

    A lead's `exclude_attempt` removes the assignment's attempts from every table; `fix_task`
    keeps them (the lead's own wording: kept for now) and is listed so a reader can check them.
    """
    notes: list[str] = []
    excluded = ht.review_excluded(attempts)
    n = int(excluded.sum())
    if n:
        gone = attempts[excluded]
        notes.append(
            f"{n} attempt(s) of {gone['assignment_id'].nunique()} assignment(s) excluded by a lead in review "
            "(review_decision = exclude_attempt)"
        )
    if "review_decision" in attempts.columns:
        fix = attempts[attempts["review_decision"].astype(object) == "fix_task"]
        if len(fix):
            listed = ", ".join(
                f"{t}/{c}" for t, c in sorted(set(zip(fix["task_id"], fix["condition"], strict=True)))
            )
            notes.append(
                f"a lead marked {len(fix)} attempt(s) 'fix task' ({listed}): they are kept, as the lead decided; "
                "check them before citing"
            )
    return attempts[~excluded], notes, n


def compare(
    human_bundle_dirs: str | Path | Iterable[str | Path],
    agent_files: Iterable[str | Path],
    out_dir: str | Path,
    *,
    task_counts: str | Path | pd.DataFrame | None = None,
    filters: str | Iterable[str] | dict[str, set[str]] | None = None,
    bootstrap: int = 2000,
    seed: int = 0,
    verify: bool = True,
    progress: Callable[[str], None] | None = None,
    overwrite: bool = False,
    classes_of: ClassesOf | None = None,
    mix_protocols: bool = False,
) -> CompareResult:
    """Compute every comparison table, write one CSV per table, a PNG and an SVG per figure and
    `report.html` into `out_dir`.

    `human_bundle_dirs`: one bundle directory or several (several studies). A bundle that fails
    `verify_bundle` raises BundleError unless `verify=False`. `filters` ('env=shop,difficulty=easy'
    or a parsed dict) keeps only the matching human attempts and agent runs. `task_counts` (CSV
    path or DataFrame with env, difficulty, n_tasks) enables the full-benchmark estimates.
    `progress` receives a short message before each stage.
    `out_dir` must be absent or empty unless `overwrite` (then the files a comparison writes are
    replaced). An agent file that is missing, or none of whose rows is valid, raises
    `CompareError`: a report without those agents would look complete.
    `classes_of(env_id, ui_profile)` names the interaction classes a site's UI profile changes
    (`environments.ui.classes_of`, which the CLI passes; `exports` does not import `environments`);
    without it, rows on a profile other than the default are `unclassified` in
    `by_interaction_class`.
    Agent runs of both end protocols (final_state, first_pass: `exports.agents.check_protocols`)
    raise `CompareError` saying why, unless `mix_protocols`.
    """
    say = progress or (lambda message: None)
    agent_paths = [Path(p) for p in agent_files]
    # A file, or an agent bundle directory written by `humantrace agents run`.
    missing = [str(p) for p in agent_paths if not (p.is_file() or p.is_dir())]
    if missing:
        raise CompareError(f"agent bundle not found: {', '.join(missing)}")
    out = prepare_output_dir(out_dir, owned=OUTPUT_FILES, overwrite=overwrite, what="a comparison")
    warnings: list[str] = []
    chosen = filters if isinstance(filters, dict) else parse_filters(filters)

    say("verifying the human bundle")
    humans = load_humans(human_bundle_dirs, verify=verify)
    warnings += humans.warnings
    everything = ht.analysed_attempts(humans.attempts)
    rolled_back = len(humans.attempts) - len(everything)
    if rolled_back:
        warnings.append(f"{rolled_back} rolled-back attempt(s) excluded")
    everything, review_notes, n_review_excluded = _apply_review(everything)
    warnings += review_notes
    attempts = apply_filters(everything, chosen, side="human")
    if chosen:
        warnings.append(
            "filter "
            + ", ".join(f"{k}={'|'.join(sorted(v))}" for k, v in chosen.items())
            + f": {len(attempts)} of {len(everything)} human attempts kept"
        )
    if attempts.empty:
        raise BundleError("no human attempt is left to compare" + (" after the filter" if chosen else ""))
    primary = ht.primary_tier(attempts)
    meta = ht.task_meta(primary)

    say("importing agent runs")
    human_pairs = set(zip(primary["task_id"], primary["condition"], strict=True))
    agent_import = import_agent_runs(agent_paths, human_tasks=human_pairs)
    _refuse_empty_agent_files(agent_paths, agent_import)  # before the filter: a filter may rightly keep none
    if chosen and not agent_import.runs.empty:
        kept = apply_filters(agent_import.runs, chosen, side="agent")
        warnings.append(f"filter: {len(kept)} of {len(agent_import.runs)} agent runs kept")
        agent_import.runs = kept.reset_index(drop=True)
    try:
        warnings += check_protocols(agent_import.runs, allow_mix=mix_protocols)
    except ProtocolMixError as exc:
        raise CompareError(str(exc)) from exc
    runs = agent_import.runs
    if agent_import.errors:
        warnings.append(f"{len(agent_import.errors)} agent bundle problem(s); see import_errors.csv")
    if agent_import.unmatched_tasks:
        listed = ", ".join(agent_import.unmatched_tasks[:20]) + (
            ", ..." if len(agent_import.unmatched_tasks) > 20 else ""
        )
        warnings.append(f"{len(agent_import.unmatched_tasks)} agent task(s) not in the human study: {listed}")
    if agent_import.unmatched_task_conditions:
        listed = ", ".join(f"{t}/{c}" for t, c in agent_import.unmatched_task_conditions[:20])
        warnings.append(f"agent task-conditions the human study lacks: {listed}")
    warnings += _metadata_warnings(runs, meta)
    warnings += _seed_warnings(runs, primary)
    warnings += away_warnings(attempts)

    say("human tables")
    boot = {"n_boot": bootstrap, "seed": seed}
    tables: dict[str, pd.DataFrame] = {
        "panel_summary": ht.panel_summary(primary, **boot),
        "panel_changes": ht.panel_changes(primary, **boot),
        "annotators": ht.annotator_pass_rates(primary),
    }
    tables["duplicate_audit"], tables["duplicate_audit_summary"] = ht.duplicate_audit(attempts, **boot)
    counts = _task_counts(task_counts)
    if counts is not None:
        tables["full_benchmark_weights"], tables["full_benchmark"], notes = ht.full_benchmark(
            primary, counts, **boot
        )
        warnings += notes

    say("agent tables")
    panel_tasks = set(meta.index)
    # Every table but the ones with a per-row scope (agents_by_model, by_environment,
    # by_difficulty) and the listings uses the panel's tasks only.
    panel_runs = runs[runs["task"].isin(panel_tasks)].reset_index(drop=True) if not runs.empty else runs
    if len(runs) > len(panel_runs):
        outside = sorted(set(runs["task"]) - panel_tasks)
        warnings.append(
            f"{len(runs) - len(panel_runs)} agent run(s) on {len(outside)} task(s) outside the panel "
            f"({', '.join(map(str, outside[:10]))}{', ...' if len(outside) > 10 else ''}) are left out of "
            "every table except the scope=all rows of agents_by_model, by_environment and by_difficulty, and agent_runs"
        )
    tables["agents_by_model"] = at.agents_by_model(runs, panel_tasks=panel_tasks, **boot)
    tables["primitive_drops"] = at.primitive_drops(primary, runs, meta, **boot)
    tables["task_time_vs_agent_drop"] = at.task_time_vs_agent_drop(primary, runs, meta)
    tables["by_environment"] = at.by_group(primary, runs, meta, dimension="env", **boot)
    tables["by_difficulty"] = at.by_group(primary, runs, meta, dimension="difficulty", **boot)
    human_labelled = primary[["attempt_id", "condition", "phase", "passed"]].merge(
        humans.features[["attempt_id", "failure_mode"]], on="attempt_id", how="left"
    )
    human_modes = at.failure_mode_counts(human_labelled.assign(population="human")).assign(source="human")
    agent_modes = at.agent_failure_modes(panel_runs).assign(source="agent")
    present = [f for f in (human_modes, agent_modes) if not f.empty]
    modes = pd.concat(present, ignore_index=True) if present else human_modes
    tables["failure_modes"] = modes.astype({"n_failed": int, "count": int, "share": float})
    tables["human_outcomes"] = ht.human_outcomes(primary, humans.verdicts)
    tables.update(
        _paper_tables(primary, attempts, panel_runs, meta, humans.features, tables["duplicate_audit"], **boot)
    )
    tables["by_interaction_class"], notes = by_interaction_class(
        primary, panel_runs, classes_of=classes_of, **boot
    )
    warnings += notes
    tables["agent_runs"] = runs
    tables["replay_reproduce"] = replay_reproduce(agent_paths)
    tables["import_errors"] = pd.DataFrame(
        [{"file": e.file, "unit": e.unit, "line": e.line, "reason": e.reason} for e in agent_import.errors],
        columns=["file", "unit", "line", "reason"],
    )

    say("writing tables")
    tables = {name: finish(name, frame) for name, frame in tables.items()}
    csv_paths = {}
    for name in TABLE_FILES:
        if name in tables:
            csv_paths[name] = out / f"{name}.csv"
            write_csv(tables[name], csv_paths[name], float_format="%.10g")

    say("rendering the report")
    from humantrace.exports.report import render_report

    context = {
        "generated_at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "bundle_dir": ", ".join(
            str(d)
            for d in (
                [human_bundle_dirs] if isinstance(human_bundle_dirs, (str, Path)) else human_bundle_dirs
            )
        ),
        "bundle_labels": humans.labels,
        "manifest": humans.manifests[0],
        "filters": {k: sorted(v) for k, v in chosen.items()},
        "agent_files": [str(p) for p in dict.fromkeys(runs["source_file"])] if not runs.empty else [],
        "bootstrap": bootstrap,
        "seed": seed,
        "n_primary": len(primary),
        "n_tasks": len(meta),
        "n_annotators": primary["annotator"].nunique(),
        "n_review_excluded": n_review_excluded,
        "clock_statement": CLOCK_STATEMENT,
    }
    report_path = out / "report.html"
    report_path.write_text(
        render_report(tables, warnings=warnings, context=context, figure_dir=out), encoding="utf-8"
    )
    return CompareResult(out, report_path, csv_paths, tables, agent_import, warnings)


def _paper_tables(
    primary: pd.DataFrame,
    attempts: pd.DataFrame,
    runs: pd.DataFrame,
    meta: pd.DataFrame,
    features: pd.DataFrame,
    duplicate_pairs: pd.DataFrame,
    *,
    n_boot: int,
    seed: int,
) -> dict[str, pd.DataFrame]:
    """The tables of exports.paper_tables, each reproducing one of the papers' tables or figures."""
    boot = {"n_boot": n_boot, "seed": seed}
    runs = pt.with_primitive(runs, meta) if not runs.empty else runs.assign(primitive=pd.Series(dtype=object))
    values = pt.task_values(primary, runs, meta)
    episodes = pt.claimed_completion(primary, runs)
    gap, gap_by_task = pt.verification_gap(episodes, **boot)
    human_labelled = primary[["attempt_id", "phase", "condition", "passed", "task_id", "env_id"]].merge(
        features, on="attempt_id", how="left"
    )
    human_labelled = human_labelled.assign(
        population="humans " + human_labelled["phase"].astype(str),
        primitive=human_labelled["task_id"].map(meta["primitive"]),
        env=human_labelled["env_id"],
    )
    agent_labelled = runs.assign(
        population=runs["model"],
        passed=runs["passed"].astype(float),
        env=runs["task"].map(meta["env_id"]).fillna(runs["env"]) if not runs.empty else runs["env"],
    )
    cols = ["population", "condition", "passed", "failure_mode", "primitive", "env"]
    labelled = pd.concat([human_labelled[cols], agent_labelled[cols]], ignore_index=True)
    feature_cols = [
        "attempt_id",
        "population",
        "task_id",
        "condition",
        "passed",
        *[c for c in features.columns if c != "attempt_id"],
    ]
    return {
        "model_primitive": pt.model_primitive(values, **boot),
        "env_primitive": pt.env_primitive(values),
        "false_positive_completion": pt.false_positive_completion(episodes),
        "verification_gap": gap,
        "verification_gap_by_task": gap_by_task,
        "event_match": episodes,
        "failure_classes": pt.failure_classes(labelled),
        "failure_modes_by_primitive": pt.failure_modes_by(labelled, dimension="primitive"),
        "failure_modes_by_environment": pt.failure_modes_by(labelled, dimension="env"),
        "failure_features": human_labelled[feature_cols],
        "time_ratio": pt.time_ratio(primary, runs, **boot),
        "human_time": pt.human_time(primary, **boot),
        "duplicate_audit_statistics": pt.duplicate_statistics(duplicate_pairs, **boot),
        "paper_quantities": paper_quantities(primary, runs, values, **boot),
    }
