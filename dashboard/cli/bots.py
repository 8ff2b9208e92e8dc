"""`humantrace bots`: scripted annotators playing assignments in real Chromium."""

from __future__ import annotations

from typing import Annotated

import typer

from humantrace.dashboard.cli.common import StudyOption, console, current_study, fail, open_db


def bots(
    annotators: Annotated[
        str, typer.Option(help="Comma-separated codes of the annotators the bots play, e.g. A1,A2.")
    ] = "A1,A2",
    assignments: Annotated[
        int, typer.Option(help="Assignments each bot completes (fewer if it has fewer left).")
    ] = 1,
    mistakes: Annotated[
        float,
        typer.Option(help="Probability that a bot uses the task's plausible wrong solution in an attempt."),
    ] = 0.0,
    base_url: Annotated[
        str | None, typer.Option(help="URL of the running server (default HUMANTRACE_PUBLIC_URL).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed for the bots' choices.")] = 0,
    headed: Annotated[bool, typer.Option(help="Show the browser windows.")] = False,
    study: StudyOption = None,
) -> None:
    """Drive real Chromium through the real pages to complete assignments (demo data and tests)."""
    from humantrace.dashboard.bots.service import run_bots

    settings, db = open_db()
    with db:
        study_id = current_study(db, study).id
    db.close()
    if not 0.0 <= mistakes <= 1.0:
        fail("--mistakes is a probability between 0 and 1.")
    codes = [c.strip().upper() for c in annotators.split(",") if c.strip()]
    reports = run_bots(
        engine=db.get_bind(),
        secret_key=settings.secret_key,
        base_url=(base_url or settings.public_url).rstrip("/"),
        codes=codes,
        assignments=assignments,
        mistakes=mistakes,
        seed=seed,
        headless=not headed,
        progress=lambda line: console.print(line, highlight=False),
        study_id=study_id,
    )
    failed = False
    for report in reports:
        console.print(f"{report.code}: {len(report.completed)} completed", highlight=False)
        for problem in report.failed:
            failed = True
            console.print(f"  [red]failed[/red] {problem}", highlight=False)
    if failed:
        raise typer.Exit(1)
