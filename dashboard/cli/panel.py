"""`humantrace panel`: plan the panel and the assignments, check a stored plan."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from humantrace.dashboard.cli.common import StudyOption, console, current_study, fail, open_db, split_list

app = typer.Typer(help="Plan the panel of base tasks and assign every task-condition.", no_args_is_help=True)


@app.command("plan")
def plan(
    per_cell: Annotated[
        int, typer.Option("--per-cell", help="Base tasks per (environment, difficulty) cell (k).")
    ] = 1,
    seed: Annotated[
        int | None, typer.Option(help="Seed for choosing the panel (default: the study's seed).")
    ] = None,
    env: Annotated[
        list[str] | None,
        typer.Option(help="Restrict to this environment (repeatable, or comma-separated)."),
    ] = None,
    duplicates_per_cell: Annotated[
        int, typer.Option(help="Task-conditions per cell recorded again by a duplicate-tier annotator.")
    ] = 1,
    difficulty: Annotated[
        list[str] | None,
        typer.Option(
            help="Restrict to this difficulty level (repeatable, or comma-separated; default: all five)."
        ),
    ] = None,
    profiles: Annotated[
        list[str] | None,
        typer.Option(
            "--profiles",
            help="UI profiles to cross the base tasks with, comma-separated: a bare name for every site "
            "(default,icon-buttons), env:name for one site (shop:custom-controls). Default: default only.",
        ),
    ] = None,
    replace: Annotated[
        bool, typer.Option(help="Replace the study's assignments that nobody has started.")
    ] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show the plan without storing it.")] = False,
    study: StudyOption = None,
) -> None:
    """Build a balanced panel and assign it (same seed, same plan)."""
    from humantrace.annotators.planning import PlanInfeasible
    from humantrace.dashboard.studies import planning

    _settings, db = open_db()
    with db:
        target = current_study(db, study)
        try:
            result = planning.make_plan(
                db,
                study=target,
                per_cell=per_cell,
                seed=seed,
                envs=split_list(env) or None,
                duplicates_per_cell=duplicates_per_cell,
                profiles=split_list(profiles) or None,
                difficulties=split_list(difficulty) or None,
            )
        except PlanInfeasible as exc:
            fail(f"the plan cannot be made: {exc}")
        summary = result.summary
        console.print(
            f"Panel: {summary.base_tasks} base tasks in {summary.cells} cells; "
            f"{summary.primary_task_conditions} primary and {summary.duplicate_task_conditions} duplicate task-conditions "
            f"({summary.primary_attempts + summary.duplicate_attempts} attempts).",
            highlight=False,
        )
        profiled = any(names != ("default",) for names in result.profiles.values())
        if profiled:
            console.print(
                "UI profiles: "
                + "; ".join(f"{env} {', '.join(names)}" for env, names in sorted(result.profiles.items())),
                highlight=False,
            )
        columns = ["annotator", "tier", "task-conditions", "by difficulty", "by condition"]
        table = Table(*columns, *(["by profile"] if profiled else []))
        for load in summary.loads:
            cells = [
                load.annotator,
                str(load.tier),
                str(load.total),
                ", ".join(f"{k} {v}" for k, v in load.by_difficulty.items()),
                ", ".join(f"{k} {v}" for k, v in load.by_condition.items()),
            ]
            if profiled:
                cells.append(", ".join(f"{k} {v}" for k, v in load.by_profile.items()))
            table.add_row(*cells)
        console.print(table)
        for note in result.notes:
            console.print(f"note: {note}", highlight=False)
        if dry_run:
            console.print("Dry run: nothing stored.")
            return
        try:
            written = planning.write_plan(db, study=target, plan=result, replace=replace)
        except planning.PlanRefused as exc:
            fail(str(exc))
        console.print(f"Stored {written} assignments in study {target.name!r}.", highlight=False)


@app.command("check")
def check(study: StudyOption = None) -> None:
    """Re-check the study's stored assignments against every planning rule."""
    from sqlmodel import select

    from humantrace.annotators.models import Annotator
    from humantrace.annotators.planning import Plan, PlannedAssignment, check_plan
    from humantrace.dashboard.studies import planning
    from humantrace.dashboard.studies.models import Assignment

    _settings, db = open_db()
    with db:
        target = current_study(db, study)
        codes = {p.id: p.code for p in db.exec(select(Annotator))}
        rows = list(db.exec(select(Assignment).where(Assignment.study_id == target.id)))
        if not rows:
            fail("the study has no assignments yet: run `humantrace panel plan`.")
        stored = [
            PlannedAssignment(
                annotator=codes[a.annotator_id],
                task_id=a.task_id,
                env_id=a.env_id,
                difficulty=a.difficulty,
                condition=a.condition,
                tier=a.tier,
                order=a.order_index,
                ui_profile=a.ui_profile,
            )
            for a in rows
        ]
        tasks = planning.catalogue_tasks()
        per_cell = max(1, _per_cell(stored))
        reference = planning.make_plan(
            db,
            study=target,
            per_cell=per_cell,
            # The levels the stored plan covers (a plan made with --difficulty is checked on those).
            difficulties=sorted({str(r.difficulty) for r in stored}),
            duplicates_per_cell=0,
        )
        plan = Plan(
            **{
                **reference.model_dump(),
                "assignments": tuple(stored),
                "panel": _panel_from(stored, reference),
                "profiles": _profiles_from(stored),
            }
        )
        violations = check_plan(
            plan,
            tasks=tasks,
            annotators=planning.roster(db, study=target),
            per_cell=per_cell,
            duplicates_per_cell=_duplicates_per_cell(stored),
            declared_profiles=planning.declared_profiles(list(plan.envs)),
        )
        if violations:
            for v in violations:
                console.print(f"[red]{v.rule}[/red]: {v.message}", highlight=False)
            raise typer.Exit(1)
        console.print(f"All {len(stored)} assignments follow every planning rule.")


def _per_cell(rows) -> int:
    cells: dict[tuple[str, str], set[str]] = {}
    for r in rows:
        if r.tier == "primary":
            cells.setdefault((r.env_id, str(r.difficulty)), set()).add(r.task_id)
    return max((len(v) for v in cells.values()), default=0)


def _duplicates_per_cell(rows) -> int:
    """The audit size the stored plan was made with: the most duplicated task-conditions of a cell
    (cells with fewer are reported; a plan made with --duplicates-per-cell 0 has none)."""
    cells: dict[tuple[str, str], set[tuple[str, str, str]]] = {}
    for r in rows:
        if r.tier == "duplicate":
            cells.setdefault((r.env_id, str(r.difficulty)), set()).add((r.task_id, r.condition, r.ui_profile))
    return max((len(v) for v in cells.values()), default=0)


def _profiles_from(rows) -> dict[str, tuple[str, ...]]:
    """The UI profiles the stored rows plan each env under (the default first)."""
    found: dict[str, set[str]] = {}
    for r in rows:
        found.setdefault(r.env_id, set()).add(r.ui_profile)
    return {env: tuple(sorted(names, key=lambda n: (n != "default", n))) for env, names in found.items()}


def _panel_from(rows, reference):
    from humantrace.annotators.planning import PanelCell

    cells: dict[tuple[str, str], set[str]] = {}
    for r in rows:
        cells.setdefault((r.env_id, str(r.difficulty)), set()).add(r.task_id)
    return tuple(
        PanelCell(env_id=e, difficulty=d, task_ids=tuple(sorted(ids)))
        for (e, d), ids in sorted(cells.items())
    )
