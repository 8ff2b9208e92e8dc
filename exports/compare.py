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

from exports import agent_tables as at
from exports import human_tables as ht
from exports.agents import AgentImport, import_agent_runs
from exports.bundle import BundleError, read_bundle, verify_bundle
from exports.replay_tables import replay_reproduce

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
    "failure_modes": "human and agent failure modes among failed attempts/runs",
    "agent_runs": "imported agent runs with their failure mode",
    "replay_reproduce": "share of passed human attempts whose replayed cleaned trace passes, per task and site",
    "import_errors": "rejected agent rows and file-level problems",
}


@dataclass
class CompareResult:
    """Where everything was written, the tables themselves and what needs the reader's attention."""

    out_dir: Path
    report_path: Path
    csv_paths: dict[str, Path]
    tables: dict[str, pd.DataFrame]
    agent_import: AgentImport
    warnings: list[str] = field(default_factory=list)


def _task_counts(task_counts) -> pd.DataFrame | None:
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
    for row in seen.itertuples():
        human = meta.loc[row.task]
        if (row.env, row.difficulty) != (human["env_id"], human["difficulty"]):
            out.append(
                f"task {row.task}: agent runs say ({row.env}, {row.difficulty}), the human bundle says "
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
    human = attempts.dropna(subset=["seed"]).groupby("task_id")["seed"].agg(lambda s: sorted({int(v) for v in s}))
    agent = runs.dropna(subset=["seed"]).groupby("task")["seed"].agg(lambda s: sorted({int(v) for v in s}))
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


def compare(
    human_bundle_dir: str | Path,
    agent_files: Iterable[str | Path],
    out_dir: str | Path,
    *,
    task_counts: str | Path | pd.DataFrame | None = None,
    bootstrap: int = 2000,
    seed: int = 0,
    verify: bool = True,
    progress: Callable[[str], None] | None = None,
) -> CompareResult:
    """Compute every comparison table, write one CSV per table and `report.html` into `out_dir`.

    A bundle that fails `verify_bundle` raises BundleError unless `verify=False`.
    `task_counts` (CSV path or DataFrame with env, difficulty, n_tasks) enables the
    full-benchmark estimates. `progress` receives a short message before each stage.
    """
    say = progress or (lambda message: None)
    bundle_dir = Path(human_bundle_dir)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    warnings: list[str] = []

    say("verifying the human bundle")
    problems = verify_bundle(bundle_dir)
    if problems and verify:
        raise BundleError(f"{bundle_dir} does not verify: " + "; ".join(problems))
    warnings += [f"bundle: {p}" for p in problems]
    bundle = read_bundle(bundle_dir, tables=["attempts", "verdicts"])
    attempts = ht.analysed_attempts(bundle.attempts)
    rolled_back = len(bundle.attempts) - len(attempts)
    if rolled_back:
        warnings.append(f"{rolled_back} rolled-back attempt(s) excluded")
    primary = ht.primary_tier(attempts)
    meta = ht.task_meta(primary)

    say("importing agent runs")
    human_pairs = set(zip(primary["task_id"], primary["condition"], strict=True))
    agent_files = list(agent_files)
    agent_import = import_agent_runs(agent_files, human_tasks=human_pairs)
    runs = agent_import.runs
    if agent_import.errors:
        warnings.append(f"{len(agent_import.errors)} agent bundle problem(s); see import_errors.csv")
    if agent_import.unmatched_tasks:
        listed = ", ".join(agent_import.unmatched_tasks[:20]) + (", ..." if len(agent_import.unmatched_tasks) > 20 else "")
        warnings.append(f"{len(agent_import.unmatched_tasks)} agent task(s) not in the human study: {listed}")
    if agent_import.unmatched_task_conditions:
        listed = ", ".join(f"{t}/{c}" for t, c in agent_import.unmatched_task_conditions[:20])
        warnings.append(f"agent task-conditions the human study lacks: {listed}")
    warnings += _metadata_warnings(runs, meta)
    warnings += _seed_warnings(runs, primary)

    say("human tables")
    boot = {"n_boot": bootstrap, "seed": seed}
    tables: dict[str, pd.DataFrame] = {
        "panel_summary": ht.panel_summary(primary),
        "panel_changes": ht.panel_changes(primary, **boot),
        "annotators": ht.annotator_pass_rates(primary),
    }
    tables["duplicate_audit"], tables["duplicate_audit_summary"] = ht.duplicate_audit(attempts)
    counts = _task_counts(task_counts)
    if counts is not None:
        tables["full_benchmark_weights"], tables["full_benchmark"], notes = ht.full_benchmark(primary, counts, **boot)
        warnings += notes

    say("agent tables")
    panel_tasks = set(meta.index)
    tables["agents_by_model"] = at.agents_by_model(runs, panel_tasks=panel_tasks, **boot)
    tables["primitive_drops"] = at.primitive_drops(primary, runs, meta, **boot)
    tables["task_time_vs_agent_drop"] = at.task_time_vs_agent_drop(primary, runs, meta)
    tables["by_environment"] = at.by_group(primary, runs, meta, dimension="env", **boot)
    tables["by_difficulty"] = at.by_group(primary, runs, meta, dimension="difficulty", **boot)
    human_modes = ht.human_failure_modes(primary, bundle.verdicts).assign(source="human")
    agent_modes = at.agent_failure_modes(runs).assign(source="agent")
    modes = pd.concat([human_modes, agent_modes], ignore_index=True)
    tables["failure_modes"] = modes.astype({"n_failed": int, "count": int, "share": float})
    tables["agent_runs"] = runs
    tables["replay_reproduce"] = replay_reproduce(agent_files)
    tables["import_errors"] = pd.DataFrame(
        [{"file": e.file, "unit": e.unit, "line": e.line, "reason": e.reason} for e in agent_import.errors],
        columns=["file", "unit", "line", "reason"],
    )

    say("writing tables")
    csv_paths = {}
    for name in TABLE_FILES:
        if name in tables:
            csv_paths[name] = out / f"{name}.csv"
            tables[name].to_csv(csv_paths[name], index=False, float_format="%.10g")

    say("rendering the report")
    from exports.report import render_report

    context = {
        "generated_at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "bundle_dir": str(bundle_dir),
        "manifest": bundle.manifest,
        "agent_files": [str(p) for p in dict.fromkeys(runs["source_file"])] if not runs.empty else [],
        "bootstrap": bootstrap,
        "seed": seed,
        "n_primary": len(primary),
        "n_tasks": len(meta),
        "n_annotators": primary["annotator"].nunique(),
    }
    report_path = out / "report.html"
    report_path.write_text(render_report(tables, warnings=warnings, context=context), encoding="utf-8")
    return CompareResult(out, report_path, csv_paths, tables, agent_import, warnings)
