"""Study output: `export bundle|verify`, `compare`, `clean`, `recordings new`, `tasks list|check`."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import Progress
from rich.table import Table

from humantrace.dashboard.cli.common import StudyOption, console, current_study, fail, open_db

export_app = typer.Typer(
    help="Human reference bundles: write one from the study, verify one.", no_args_is_help=True
)
recordings_app = typer.Typer(
    help="Standalone recordings on any web page (pilots on other sites).", no_args_is_help=True
)
tasks_app = typer.Typer(help="The tasks and variants of every registered environment.", no_args_is_help=True)


class BundleFormat(StrEnum):
    parquet = "parquet"
    csv = "csv"
    both = "both"


@export_app.command("bundle")
def export_bundle(
    out: Annotated[Path, typer.Argument(help="New directory for the bundle (must not exist or be empty).")],
    format: Annotated[BundleFormat, typer.Option(help="File format of the tables.")] = BundleFormat.parquet,
    include_comments: Annotated[
        bool, typer.Option(help="Include the annotators' free-text comments.")
    ] = False,
    include_rolled_back: Annotated[
        bool,
        typer.Option(
            help="Include rolled-back attempts (marked rolled_back). Attempts a lead excluded in review are always exported, marked review_decision=exclude_attempt."
        ),
    ] = False,
    study: StudyOption = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Write into a non-empty directory, replacing the bundle files in it (other files are kept).",
        ),
    ] = False,
) -> None:
    """Write the study's human reference bundle (attempts, events, verdicts, ratings, manifest)."""
    from humantrace.dashboard.exports.bundle import count_attempts
    from humantrace.dashboard.exports.bundle import export_bundle as write
    from humantrace.exports.bundle import BundleError, bundle_file_names, prepare_output_dir

    try:  # before the progress bar: a wrong target is one line, not a bar and a traceback
        prepare_output_dir(out, owned=bundle_file_names(), overwrite=force)
    except BundleError as exc:
        fail(str(exc))
    _settings, db = open_db()
    with db:
        target = current_study(db, study)
        total = count_attempts(db, study=target, include_rolled_back=include_rolled_back)
    formats = ("parquet", "csv") if format == BundleFormat.both else (format.value,)
    with Progress(console=console) as bar:
        task = bar.add_task("exporting attempts", total=total or 1)
        try:
            manifest = write(
                db.get_bind(),
                out,
                formats=formats,
                include_comments=include_comments,
                include_rolled_back=include_rolled_back,
                progress=lambda n: bar.advance(task, n),
                overwrite=force,
                study_id=target.id,
            )
        except BundleError as exc:
            fail(str(exc))
        except OSError as exc:  # the disk filled up, or the directory went away while writing
            fail(f"cannot write the bundle to {out}: {exc.strerror or exc}")
    counts = (
        json.loads(Path(manifest).read_text())["row_counts"]
        if "row_counts" in Path(manifest).read_text()
        else {}
    )
    console.print(
        f"Bundle of {target.name!r} written to {out} ({total} attempts). {counts or ''}", highlight=False
    )


@export_app.command("verify")
def export_verify(bundle: Annotated[Path, typer.Argument(help="A bundle directory.")]) -> None:
    """Check every file of a bundle against its manifest (sha256, row counts, schema version)."""
    from humantrace.exports.bundle import verify_bundle

    problems = verify_bundle(bundle)
    if problems:
        for problem in problems:
            console.print(f"[red]✘[/red] {problem}", highlight=False)
        raise typer.Exit(1)
    console.print(f"✔ {bundle} matches its manifest.", highlight=False)


def compare(
    human: Annotated[
        list[Path], typer.Option(help="A human reference bundle directory; repeatable (several studies).")
    ],
    agents: Annotated[list[Path], typer.Option(help="Agent run bundle (CSV, Parquet or JSONL); repeatable.")],
    out: Annotated[
        Path, typer.Option(help="Directory for report.html, the CSV tables and the figures (PNG, SVG).")
    ],
    filter: Annotated[
        list[str] | None,
        typer.Option(
            "--filter",
            help="Keep matching attempts and runs: env=shop,difficulty=easy (keys env, difficulty, task, condition, profile; a key twice = either value); repeatable.",
        ),
    ] = None,
    task_counts: Annotated[
        Path | None, typer.Option(help="CSV of env, difficulty, n_tasks for full-benchmark estimates.")
    ] = None,
    bootstrap: Annotated[int, typer.Option(help="Bootstrap resamples for the 95% intervals.")] = 2000,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap.")] = 0,
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="Write into a non-empty --out directory, replacing the report and tables in it."
        ),
    ] = False,
    mix_protocols: Annotated[
        bool,
        typer.Option(
            "--mix-protocols",
            help="Compare agent bundles of both end protocols side by side (final_state and "
            "first_pass, which stops at the first pass); refused without it.",
        ),
    ] = False,
) -> None:
    """Compare the human bundle with agent runs: report.html plus one CSV per table."""
    from humantrace.environments.ui import classes_of
    from humantrace.exports.bundle import BundleError
    from humantrace.exports.compare import compare as run

    try:
        result = run(
            human,
            agents,
            out,
            classes_of=classes_of,
            task_counts=task_counts,
            filters=filter,
            bootstrap=bootstrap,
            seed=seed,
            overwrite=force,
            mix_protocols=mix_protocols,
            progress=lambda message: console.print(f"… {message}", highlight=False),
        )
    except (BundleError, FileNotFoundError, ValueError) as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot write the comparison to {out}: {exc.strerror or exc}")
    for issue in result.agent_import.errors[:20]:
        console.print(f"[yellow]agent row skipped:[/yellow] {issue}", highlight=False)
    for warning in result.warnings:
        console.print(f"[yellow]note:[/yellow] {warning}", highlight=False)
    console.print(f"Report: {result.report_path}", highlight=False)


def clean_command(
    bundle: Annotated[
        Path | None, typer.Option(help="Re-clean a bundle's events_raw (writes events_clean.csv into --out).")
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="With --bundle: where to write the cleaned events.")
    ] = None,
    scroll_window_ms: Annotated[
        int, typer.Option(help="Scroll collapse window, from the first scroll of a run.")
    ] = 400,
    hover_window_ms: Annotated[
        int, typer.Option(help="How soon after a mouse move a DOM change counts as its hover effect.")
    ] = 500,
    study: StudyOption = None,
) -> None:
    """Re-clean traces with a given config (stored attempts, or a bundle); raw events are never touched."""
    from humantrace.cleaning import CleaningConfig, clean

    config = CleaningConfig(scroll_window_ms=scroll_window_ms, hover_window_ms=hover_window_ms)
    if bundle is not None:
        from humantrace.exports.bundle import read_bundle
        from humantrace.exports.csv_safety import write_csv

        if out is None:
            fail("--bundle needs --out (a directory for the re-cleaned events).")
        raw = read_bundle(bundle, tables=["events_raw"]).table("events_raw")
        cleaned = clean(raw, config)
        out.mkdir(parents=True, exist_ok=True)
        write_csv(
            cleaned.assign(source_seqs=cleaned["source_seqs"].map(lambda s: ";".join(map(str, s)))),
            out / "events_clean.csv",
        )
        console.print(
            f"{len(raw)} raw events → {len(cleaned)} cleaned steps in {out / 'events_clean.csv'}",
            highlight=False,
        )
        return
    from humantrace.dashboard.exports.reclean import reclean_study

    _settings, db = open_db()
    with db, Progress(console=console) as bar:
        task = bar.add_task("re-cleaning attempts", total=None)
        changed, total = reclean_study(
            db, study=current_study(db, study), config=config, progress=lambda n: bar.advance(task, n)
        )
    console.print(
        f"Re-cleaned {total} attempts with {config.to_dict()}; {changed} changed their cleaned step count.",
        highlight=False,
    )


@recordings_app.command("new")
def recordings_new(
    label: Annotated[str, typer.Option(help="What this recording is, e.g. 'pilot on example.org'.")],
    mask_all_text: Annotated[bool, typer.Option(help="Mask every typed value, not only passwords.")] = False,
    server: Annotated[
        str | None,
        typer.Option(
            help="Base URL of the humantrace server the page will reach (default: the running server's public URL, else HUMANTRACE_PUBLIC_URL)."
        ),
    ] = None,
    mask_selector: Annotated[
        list[str] | None,
        typer.Option(
            help="CSS selector of a field to mask like a password (repeatable), e.g. 'input[name=dob]'."
        ),
    ] = None,
) -> None:
    """Create a standalone recording and print its token and the snippet to paste into any page."""
    from humantrace.dashboard.cli.running import running_server
    from humantrace.recorder import inject, service

    settings, db = open_db()
    if server is not None:
        server = server.strip().rstrip("/")
        if not server.startswith(("http://", "https://")) or len(server) < 10:
            fail(f"--server must be an http(s) URL such as https://rec.example.org, not {server!r}")
        source = f"--server {server}"
    elif (found := running_server(settings.data_dir)) is not None:
        server = found.public_url
        source = f"the running server's public URL {server} (process {found.pid})"
    else:
        server = settings.public_url
        source = (
            f"the configured public URL {server} (no running server found for {settings.data_dir}; "
            "pass --server URL if it runs elsewhere)"
        )
    with db:
        try:
            recording = service.create_recording(
                db,
                kind="standalone",
                label=label,
                mask_all_text=mask_all_text,
                mask_selectors=mask_selector or (),
            )
        except (ValueError, TypeError) as exc:
            fail(str(exc))
        token = service.issue_token(secret_key=settings.secret_key, recording_id=service.saved_id(recording))
    console.print(
        f"Recording {recording.id} ({label})\ntoken: {token}\n\nSnippet for {source}.",
        highlight=False,
        soft_wrap=True,
    )
    console.print("Paste into the page's <head>:", highlight=False)
    snippet = inject.snippet(
        server_url=server, token=token, mask_all_text=mask_all_text, mask_selectors=mask_selector or ()
    )
    console.print(snippet, highlight=False, soft_wrap=True)


@recordings_app.command("list")
def recordings_list() -> None:
    """List standalone recordings with their event counts."""
    from sqlmodel import col, select

    from humantrace.recorder.models import Recording

    _settings, db = open_db()
    with db:
        table = Table("id", "label", "status", "created", "events")
        for rec in db.exec(
            select(Recording).where(col(Recording.kind) == "standalone").order_by(col(Recording.id))
        ):
            table.add_row(
                str(rec.id),
                rec.label or "",
                rec.status,
                rec.created_at.strftime("%Y-%m-%d %H:%M"),
                str(rec.acked_seq + 1),
            )
        console.print(table)


@recordings_app.command("export")
def recordings_export(
    recording_id: Annotated[
        int, typer.Argument(help="The standalone recording's id (see `humantrace recordings list`).")
    ],
    out: Annotated[Path, typer.Argument(help="Directory for events_raw.csv and events_clean.csv.")],
    end: Annotated[bool, typer.Option(help="End the recording first (its token stops working).")] = False,
) -> None:
    """Export a standalone recording's raw and cleaned events, in the bundle's column layout."""
    from humantrace.cleaning import CleaningConfig, clean
    from humantrace.exports.csv_safety import write_csv
    from humantrace.recorder import service

    _settings, db = open_db()
    with db:
        try:
            recording = service.get_recording(db, recording_id=recording_id)
        except service.RecorderError as exc:
            fail(str(exc))
        if recording.kind != "standalone":
            fail(
                f"recording {recording_id} belongs to an attempt; attempts are exported with `humantrace export bundle`."
            )
        if end:
            service.end_recording(db, recording_id=recording_id)
        raw = service.events_frame(db, recording_ids=[recording_id])
    cleaned = clean(raw, CleaningConfig())
    out.mkdir(parents=True, exist_ok=True)
    write_csv(raw, out / "events_raw.csv")
    write_csv(
        cleaned.assign(source_seqs=cleaned["source_seqs"].map(lambda s: ";".join(map(str, s)))),
        out / "events_clean.csv",
    )
    console.print(f"{len(raw)} raw events and {len(cleaned)} cleaned steps written to {out}", highlight=False)


@tasks_app.command("list")
def tasks_list(
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON document: a list with one object per task.")
    ] = False,
) -> None:
    """List every task with its difficulty, primitives and variant."""
    from dataclasses import asdict

    from humantrace.environments import catalog

    rows = catalog.list_tasks()
    if as_json:
        # Plain stdout, no rich markup or wrapping: the output must parse as one JSON document.
        typer.echo(json.dumps([asdict(row) for row in rows], indent=2))
        return
    table = Table("task", "env", "difficulty", "title", "primitives", "variant")
    for row in rows:
        table.add_row(
            row.task_id,
            row.env_id,
            row.difficulty,
            row.title,
            ", ".join(row.primary_primitives),
            f"{row.variant_id} ({row.variant_primitive}; {', '.join(row.variant_layers)})"
            if row.variant_id
            else "—",
        )
    console.print(table)
    console.print(f"{len(rows)} tasks")


_SHORT = {
    "grounding": "ground",
    "planning": "plan",
    "state_tracking": "state",
    "backtracking": "back",
    "patience": "patient",
    "exploration": "explore",
    "verification": "verify",
}


@tasks_app.command("summary")
def tasks_summary(
    as_json: Annotated[bool, typer.Option("--json", help="Print the counts as one JSON document.")] = False,
) -> None:
    """The catalogue as the papers' tables: environment x difficulty, environment x primitive
    (primary primitives of tasks, and the primitives variants target), the intervention families
    used (layer:action, by how many variants), and every empty cell by name."""
    from dataclasses import asdict

    from humantrace.environments import catalog

    summary = catalog.summarise_catalogue()
    if as_json:
        typer.echo(json.dumps(asdict(summary), indent=2))
        return

    def matrix(
        title: str, counts: dict[str, dict[str, int]], columns: tuple[str, ...], total: str = "total"
    ) -> Table:
        # Short headings keep a primitive matrix inside 80 columns when the output is not a terminal.
        table = Table("env", *(_SHORT.get(c, c) for c in columns), total, title=title)
        for env in summary.envs:
            row = counts[env]
            table.add_row(
                env, *(str(row[c]) if row[c] else "[red]0[/red]" for c in columns), str(sum(row.values()))
            )
        table.add_row(
            "all", *(str(sum(counts[e][c] for e in summary.envs)) for c in columns), "", style="bold"
        )
        return table

    console.print(matrix("Tasks by environment and difficulty", summary.by_difficulty, catalog.DIFFICULTIES))
    # A task may list several primary primitives: that matrix's row total counts tags, not tasks.
    console.print(
        matrix(
            "Tasks by environment and primary primitive",
            summary.by_primitive,
            catalog.PRIMITIVES,
            total="tags",
        )
    )
    console.print(
        matrix(
            "Variants by environment and target primitive",
            summary.variant_primitives,
            catalog.PRIMITIVES,
            total="n",
        )
    )
    console.print(
        "Primitives: " + ", ".join(f"{_SHORT[p]} = {p}" for p in catalog.PRIMITIVES), highlight=False
    )
    families = Table("family (layer:action)", "variants", title="Intervention families used")
    for family, count in summary.families.items():
        families.add_row(family, str(count))
    console.print(families)
    if summary.unused_families:
        console.print(
            f"Shared families no variant uses: {', '.join(summary.unused_families)}", highlight=False
        )
    if summary.empty:
        console.print(f"Empty cells ({len(summary.empty)}):", highlight=False)
        for cell in summary.empty:
            console.print(f"  {cell}", highlight=False)
    else:
        console.print("No empty cells.")


@tasks_app.command("check")
def tasks_check() -> None:
    """Validate every task and variant, resolve builders and templates, check determinism, and
    evaluate every canonical-diff expression on the seeded initial state under the evaluator's budget."""
    from humantrace.environments.checks import check_all

    problems = check_all()
    if problems:
        for problem in problems:
            console.print(f"[red]✘[/red] {problem}", highlight=False)
        raise typer.Exit(1)
    from humantrace.environments import catalog

    console.print(
        f"✔ {len(catalog.list_tasks())} tasks and their variants are valid and deterministic, and "
        "every expression stays within the evaluator's budget on the seeded state."
    )
