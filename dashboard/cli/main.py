"""The `humantrace` command line."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from humantrace.dashboard.cli import agents as agents_commands
from humantrace.dashboard.cli import bots as bots_command
from humantrace.dashboard.cli import data as data_commands
from humantrace.dashboard.cli import panel as panel_commands
from humantrace.dashboard.cli import people as people_commands
from humantrace.dashboard.cli import study as study_commands
from humantrace.dashboard.cli.common import console, fail
from humantrace.dashboard.cli.common import settings as load_settings

app = typer.Typer(
    help="humantrace: run human studies on web tasks and compare people with AI web agents.",
    no_args_is_help=True,
)
db_app = typer.Typer(help="Database schema migrations (Alembic).", no_args_is_help=True)
app.add_typer(db_app, name="db")
app.add_typer(study_commands.app, name="study")
app.add_typer(people_commands.app, name="annotators")
app.add_typer(panel_commands.app, name="panel")
app.command("bots")(bots_command.bots)
app.add_typer(data_commands.export_app, name="export")
app.add_typer(data_commands.recordings_app, name="recordings")
app.add_typer(data_commands.tasks_app, name="tasks")
app.command("compare")(data_commands.compare)
app.command("clean")(data_commands.clean_command)
app.add_typer(agents_commands.app, name="agents")


LOG_CONFIG = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    # uvicorn logs websocket handshakes with their query string, which carries recorder tokens.
    "filters": {"redact_tokens": {"()": "humantrace.recorder.privacy.RedactTokensFilter"}},
    "handlers": {
        "stderr": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "stream": "ext://sys.stderr",
            "filters": ["redact_tokens"],
        }
    },
    "loggers": {
        "uvicorn": {"handlers": ["stderr"], "level": "INFO", "propagate": False},
        "uvicorn.error": {"handlers": ["stderr"], "level": "INFO", "propagate": False},
        # The access log prints client addresses; humantrace.http logs requests without them.
        "uvicorn.access": {"handlers": [], "level": "CRITICAL", "propagate": False},
        "humantrace": {"handlers": ["stderr"], "level": "INFO", "propagate": False},
    },
}


@app.command()
def serve(
    demo: Annotated[
        bool,
        typer.Option(help="Upgrade the database, create the demo study and people, print their login links."),
    ] = False,
    host: Annotated[
        str | None, typer.Option(help="Interface to bind (default HUMANTRACE_HOST or 127.0.0.1).")
    ] = None,
    port: Annotated[
        int | None, typer.Option(help="Port to listen on (default HUMANTRACE_PORT or 8000).")
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            help="Worker processes (all state is in the database, so any worker serves any request)."
        ),
    ] = 1,
    bots: Annotated[
        bool,
        typer.Option(
            "--bots", help="With --demo: once serving, let bots A1 and A2 complete three assignments each."
        ),
    ] = False,
) -> None:
    """Run the web application."""
    import uvicorn

    from humantrace.core import migrate
    from humantrace.core.db import make_engine
    from humantrace.recorder.protocol import uvicorn_ws_options

    if host:
        os.environ["HUMANTRACE_HOST"] = host
    if port:
        os.environ["HUMANTRACE_PORT"] = str(port)
    settings = load_settings()
    if demo:
        from humantrace.dashboard.studies.demo import ensure_demo, ensure_demo_plan

        migrate.upgrade(settings.database_url)
        engine = make_engine(settings.database_url)
        logins = ensure_demo(engine, settings)
        planned = ensure_demo_plan(engine)
        engine.dispose()
        if planned:
            console.print(f"Planned a demo panel: {planned} assignments.")
        console.print(
            "[bold]Demo study ready.[/bold] Open a login link and press Sign in (each link works once):"
        )
        for login in logins:
            console.print(f"  {login.code:<3} {login.role:<9} {login.url}", soft_wrap=True, highlight=False)
    else:
        engine = make_engine(settings.database_url)
        try:
            migrate.check_schema(engine, settings.database_url)
        except migrate.SchemaOutdated as exc:
            fail(str(exc))
        finally:
            engine.dispose()
    console.print(f"Serving on {settings.public_url}", highlight=False)
    if bots:
        _start_demo_bots(settings)
    from humantrace.dashboard.cli.running import announced

    with announced(settings.data_dir, settings.public_url):  # `recordings new` points snippets here
        uvicorn.run(
            "humantrace.dashboard.app:create_app_from_env",
            factory=True,
            host=settings.host,
            port=settings.port,
            workers=workers,
            access_log=False,
            log_config=LOG_CONFIG,
            **uvicorn_ws_options(),  # frame size limit enforced by the protocol; no compression
        )


def _start_demo_bots(settings) -> None:
    """Run the demo bots in a background thread once the server answers."""
    import threading
    import time

    import httpx

    def run() -> None:
        from humantrace.core.db import make_engine
        from humantrace.dashboard.bots.service import run_bots

        for _ in range(120):
            try:
                httpx.get(settings.public_url + "/login", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.5)
        engine = make_engine(settings.database_url)
        reports = run_bots(
            engine=engine,
            secret_key=settings.secret_key,
            base_url=settings.public_url,
            codes=["A1", "A2"],
            assignments=3,
            mistakes=0.2,
            seed=1,
        )
        for report in reports:
            console.print(
                f"bot {report.code}: {len(report.completed)} assignments completed {report.failed or ''}",
                highlight=False,
            )

    threading.Thread(target=run, name="demo-bots", daemon=True).start()


@db_app.command("upgrade")
def db_upgrade(revision: Annotated[str, typer.Argument(help="Target revision.")] = "head") -> None:
    """Upgrade the database schema (default: to the latest revision)."""
    from humantrace.core import migrate

    settings = load_settings()
    migrate.upgrade(settings.database_url, revision)
    console.print(f"Database at {revision}.")


@db_app.command("downgrade")
def db_downgrade(
    revision: Annotated[str, typer.Argument(help="Target revision, e.g. -1 or base.")] = "-1",
) -> None:
    """Downgrade the database schema (default: one revision)."""
    from humantrace.core import migrate

    settings = load_settings()
    migrate.downgrade(settings.database_url, revision)
    console.print(f"Database downgraded to {revision}.")


@db_app.command("current")
def db_current() -> None:
    """Show the database's revision and the latest one this code knows."""
    from humantrace.core import migrate
    from humantrace.core.db import make_engine

    settings = load_settings()
    engine = make_engine(settings.database_url)
    current = migrate.current_revision(engine)
    engine.dispose()
    head = migrate.head_revision(settings.database_url)
    console.print(f"current: {current or '(empty database)'}\nlatest:  {head}")
    if current != head:
        console.print("Run `humantrace db upgrade` to bring the database up to date.")


if __name__ == "__main__":
    app()
