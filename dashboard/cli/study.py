"""`humantrace study`: create, list, show and change studies, and move them through their lifecycle."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from humantrace.dashboard.cli.common import StudyOption, console, current_study, fail, open_db, split_list
from humantrace.dashboard.studies.schemas import settings_help

SETTINGS_HELP = "Keys and allowed values:\n\n" + "\n\n".join(settings_help().splitlines())

app = typer.Typer(
    help="Studies of this deployment: create, list, show, change settings, open, close, archive.",
    no_args_is_help=True,
)


def _service():
    from humantrace.dashboard.studies import service

    return service


@app.command(
    "create", help="Create a study (a draft: add people, plan, then `study open`).\n\n" + SETTINGS_HELP
)
def create(
    name: Annotated[str, typer.Argument(help="Unique name of the study (what --study takes).")],
    env: Annotated[
        list[str] | None,
        typer.Option(
            "--env",
            help="An environment the panel draws from (repeatable or comma-separated; default: all).",
        ),
    ] = None,
    seed: Annotated[
        int,
        typer.Option(
            help="Seed of every env session of the study (same instance for both conditions and every agent)."
        ),
    ] = 42,
    description: Annotated[
        str, typer.Option(help="What annotators read about the study on their dashboard.")
    ] = "",
    setting: Annotated[
        list[str] | None, typer.Option("--setting", help="KEY=VALUE (repeatable); keys below.")
    ] = None,
) -> None:
    service = _service()
    _settings, db = open_db()
    with db:
        try:
            study = service.create_study(
                db,
                name=name,
                description=description,
                envs=split_list(env),
                seed=seed,
                settings=service.parse_assignments(setting or []),
            )
        except service.StudyError as exc:
            fail(str(exc))
        console.print(
            f"Created study {study.name!r} (id {study.id}, {study.status}, seed {study.seed}). "
            f"Next: `humantrace annotators import FILE.csv --study {study.name!r}`, `panel plan`, `study open`.",
            highlight=False,
        )


@app.command("list")
def list_studies(
    all: Annotated[bool, typer.Option("--all", help="Include archived studies.")] = False,
) -> None:
    """List the studies with their status, seed, people and assignments."""
    from sqlalchemy import func
    from sqlmodel import select

    from humantrace.annotators.models import Membership
    from humantrace.dashboard.studies.models import Assignment

    service = _service()
    _settings, db = open_db()
    with db:
        table = Table("id", "name", "status", "seed", "envs", "people", "assignments")
        for study in service.list_studies(db, include_archived=all):
            people = db.exec(
                select(func.count()).select_from(Membership).where(Membership.study_id == study.id)
            ).one()
            work = db.exec(
                select(func.count()).select_from(Assignment).where(Assignment.study_id == study.id)
            ).one()
            table.add_row(
                str(study.id),
                study.name,
                study.status,
                str(study.seed),
                ",".join(study.envs) or "all",
                str(people),
                str(work),
            )
        console.print(table)


@app.command("show")
def show(study: StudyOption = None) -> None:
    """Every field and setting of a study, and its audit trail."""
    service = _service()
    _settings, db = open_db()
    with db:
        found = current_study(db, study)
        table = Table("key", "value")
        for key, value in service.describe(found).items():
            table.add_row(key, value)
        console.print(table)
        trail = service.audit_trail(db, study=found)
        if trail:
            changes = Table("when (UTC)", "who", "key", "old", "new", title="audit trail")
            for c in trail:
                changes.add_row(c.at.strftime("%Y-%m-%d %H:%M:%S"), c.actor, c.key, c.old, c.new)
            console.print(changes)


@app.command(
    "set",
    help="Change settings: study set KEY=VALUE [KEY=VALUE]... (validated together; "
    "recorded in the audit trail once attempts exist).\n\n" + SETTINGS_HELP,
)
def set_settings(
    pairs: Annotated[
        list[str],
        typer.Argument(help="KEY=VALUE pairs, e.g. rollback_grace_seconds=15 show_score_to_annotators=true."),
    ],
    study: StudyOption = None,
    by: Annotated[str, typer.Option(help="Who makes the change (recorded in the audit trail).")] = "cli",
) -> None:
    service = _service()
    _settings, db = open_db()
    with db:
        found = current_study(db, study)
        try:
            recorded = service.update_study(
                db, study=found, changes=service.parse_assignments(pairs), actor=by
            )
        except service.StudyError as exc:
            fail(str(exc))
        console.print(
            f"Updated {found.name!r}: "
            + ", ".join(pairs)
            + (" (recorded in the audit trail)" if recorded else ""),
            highlight=False,
        )


def _lifecycle(to: str, study: str | None, by: str) -> None:
    from humantrace.dashboard.studies.models import StudyStatus

    service = _service()
    _settings, db = open_db()
    with db:
        found = current_study(db, study)
        try:
            service.set_status(db, study=found, to=StudyStatus(to), actor=by)
        except service.StudyError as exc:
            fail(str(exc))
        console.print(f"Study {found.name!r} is {found.status}.", highlight=False)


BY = Annotated[str, typer.Option(help="Who makes the change (recorded in the audit trail).")]


@app.command("open")
def open_study(study: StudyOption = None, by: BY = "cli") -> None:
    """Open a draft or closed study: annotators can start assignments."""
    _lifecycle("open", study, by)


@app.command("close")
def close_study(study: StudyOption = None, by: BY = "cli") -> None:
    """Close an open study: no new starts; work in progress may finish; data stays for review and export."""
    _lifecycle("closed", study, by)


@app.command("archive")
def archive_study(study: StudyOption = None, by: BY = "cli") -> None:
    """Archive a study: it leaves every list and default (its data stays; `--study NAME` still reaches it)."""
    _lifecycle("archived", study, by)
