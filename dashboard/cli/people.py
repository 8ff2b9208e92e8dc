"""`humantrace annotators`: people in a study, CSV import, deactivation and login links."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from humantrace.dashboard.cli.common import StudyOption, console, current_study, fail, open_db

app = typer.Typer(
    help="People in a study: annotators (members of studies) and leads (every study), and their login links.",
    no_args_is_help=True,
)


def _known_envs() -> set[str]:
    from humantrace.environments import registry

    return {env.env_id for env in registry.all_environments()}


@app.command("add")
def add(
    code: Annotated[
        str, typer.Argument(help="Coded id, e.g. A1 (annotator), D1 (duplicate tier), L1 (lead).")
    ],
    role: Annotated[str, typer.Option(help="annotator or lead (leads manage every study).")] = "annotator",
    tier: Annotated[
        str, typer.Option(help="primary or duplicate (duplicate-tier people record the audit).")
    ] = "primary",
    designed: Annotated[
        list[str] | None,
        typer.Option(help="An environment this person designed (repeatable); they never record it."),
    ] = None,
    name: Annotated[str, typer.Option(help="Display name shown to leads only.")] = "",
    study: StudyOption = None,
) -> None:
    """Add a person to a study (an existing annotator joins it with this tier; a lead joins no study)."""
    from humantrace.annotators import service as accounts

    _settings, db = open_db()
    with db:
        target = None if role == "lead" else current_study(db, study)
        unknown = [env for env in designed or [] if env not in _known_envs()]
        if unknown:
            fail(
                f"unknown environment(s) {', '.join(unknown)}; registered: {', '.join(sorted(_known_envs()))}."
            )
        try:
            person = accounts.add_annotator(
                db,
                code=code,
                role=role,
                tier=tier,
                designed=designed,
                display_name=name,
                study_id=target.id if target else None,
            )
        except accounts.AccountError as exc:
            fail(str(exc))
        where = f" to {target.name!r}" if target else " (lead: every study)"
        console.print(
            f"Added {person.code} ({person.role}{', ' + tier if target else ''}){where}.", highlight=False
        )


@app.command("import")
def import_csv(
    file: Annotated[
        Path,
        typer.Argument(
            help="CSV with the header code,role,tier,designed,name (only code is required; designed: envs separated by ;; role: annotator or blank, since leads are added one by one with `annotators add CODE --role lead`)."
        ),
    ],
    study: StudyOption = None,
) -> None:
    """Add many people at once: every row, or none (a file with a bad row adds nobody and lists each row's problem)."""
    from humantrace.annotators import membership

    if not file.is_file():
        fail(f"no file {file}.")
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        fail(f"{file} is not UTF-8 text; save it as CSV (UTF-8).")
    _settings, db = open_db()
    with db:
        target = current_study(db, study)
        try:
            added = membership.import_people(db, text=text, study_id=target.id, known_envs=_known_envs())
        except membership.ImportRefused as exc:
            fail(f"{file}: nothing was imported:\n  " + "\n  ".join(exc.errors))
        console.print(
            f"Imported {len(added)} people into {target.name!r}: {', '.join(p.code for p in added)}.",
            highlight=False,
        )


@app.command("list")
def list_people(study: StudyOption = None) -> None:
    """List the people of a study (and the leads, who manage every study)."""
    from humantrace.annotators import membership

    _settings, db = open_db()
    with db:
        target = current_study(db, study)
        table = Table("code", "role", "tier", "designed", "active", title=target.name)
        for m in membership.members(db, study_id=target.id, include_leads=True):
            tier = str(m.membership.tier) if m.membership else "-"
            designed = ", ".join(m.membership.designed) if m.membership and m.membership.designed else "-"
            table.add_row(m.person.code, str(m.person.role), tier, designed, "yes" if m.active else "no")
        console.print(table)


@app.command("deactivate")
def deactivate(
    code: Annotated[str, typer.Argument(help="The person's coded id, e.g. A3.")], study: StudyOption = None
) -> None:
    """Take an annotator out of a study at once (their recorded work stays; an assignment in progress is rolled back), or deactivate a lead's account."""
    from sqlmodel import select

    from humantrace.annotators import service as accounts
    from humantrace.annotators.models import Annotator
    from humantrace.dashboard.studies import deactivation

    _settings, db = open_db()
    with db:
        person = db.exec(select(Annotator).where(Annotator.code == code.strip().upper())).first()
        target = None if person is not None and person.is_lead else current_study(db, study)
        try:
            done = deactivation.deactivate(db, code=code, study_id=target.id if target else None, actor="cli")
        except accounts.AccountError as exc:
            fail(str(exc))
        rolled = (
            f" Their assignment in progress ({', '.join(map(str, done.rolled_back))}) was rolled back."
            if done.rolled_back
            else ""
        )
        console.print(
            f"Deactivated {code.strip().upper()}"
            + (f" in {target.name!r}." if target else " (lead account).")
            + rolled,
            highlight=False,
            soft_wrap=True,
        )


@app.command("link")
def link(
    code: Annotated[str, typer.Argument(help="The person's coded id, e.g. A1.")],
    study: Annotated[
        str | None,
        typer.Option(
            "--study",
            help="The study the link signs the person into (name or id). "
            "Default: the person's only study; a person in several must be told which. "
            "A lead's link names no study unless given.",
        ),
    ] = None,
) -> None:
    """Print a new single-use login link for a person, signing them into one study (no study picker)."""
    from humantrace.annotators import membership
    from humantrace.annotators import service as accounts
    from humantrace.dashboard.studies.service import list_studies

    settings, db = open_db()
    with db:
        try:
            person = accounts.get_by_code(db, code=code)
        except accounts.AccountError as exc:
            fail(str(exc))
        assert person.id is not None  # read from the database
        mine = set(membership.study_ids_of(db, annotator_id=person.id))
        target = None
        if study is not None:
            target = current_study(db, study)
            if not person.is_lead and target.id not in mine:
                fail(
                    f"{person.code} is not an active member of {target.name!r}: add them with "
                    f"`humantrace annotators add {person.code} --study {target.name!r}`."
                )
        elif not person.is_lead:
            theirs = [s for s in list_studies(db, include_archived=False) if s.id in mine]
            if not theirs:
                fail(
                    f"{person.code} is in no study that is not archived: add them with `humantrace annotators add {person.code} --study NAME`."
                )
            if len(theirs) > 1:
                fail(
                    f"{person.code} is in {len(theirs)} studies; say which with --study NAME: "
                    + ", ".join(f"{s.name!r} ({s.status})" for s in theirs)
                    + "."
                )
            target = theirs[0]
        try:
            url = accounts.create_login_link(
                db,
                secret_key=settings.secret_key,
                code=code,
                base_url=settings.public_url,
                study_id=target.id if target else None,
            )
        except accounts.AccountError as exc:
            fail(str(exc))
        console.print(url, soft_wrap=True, highlight=False)


@app.command("links")
def links(
    out: Annotated[Path, typer.Option("--out", help="CSV to write (code,name,tier,url), for a mail merge.")],
    study: StudyOption = None,
) -> None:
    """Write one fresh single-use login link per active annotator of a study to a CSV (earlier unused links stay valid)."""
    from humantrace.annotators import membership
    from humantrace.annotators import service as accounts

    settings, db = open_db()
    with db:
        target = current_study(db, study)
        name = target.name
        people = [m for m in membership.members(db, study_id=target.id) if m.active]
        if not people:
            fail(f"{name!r} has no active annotators: add them with `humantrace annotators import FILE.csv`.")
        rows = [
            (
                m.person.code,
                m.person.display_name,
                str(m.membership.tier if m.membership else ""),
                accounts.create_login_link(
                    db,
                    secret_key=settings.secret_key,
                    code=m.person.code,
                    base_url=settings.public_url,
                    study_id=target.id,
                ),
            )
            for m in people
        ]
    from humantrace.exports.csv_safety import escape_text

    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["code", "name", "tier", "url"])
        # A name is whatever the lead's spreadsheet said; like every CSV we write, a cell a
        # spreadsheet would run as a formula gets a leading ' (exports/csv_safety.py).
        writer.writerows([escape_text(cell) for cell in row] for row in rows)
    console.print(
        f"Wrote {len(rows)} login links for {name!r} to {out}. Each link works once; keep the file private.",
        highlight=False,
    )
