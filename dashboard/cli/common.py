"""What every sub-command needs: settings, a database session on an up-to-date schema, errors."""

from __future__ import annotations

from typing import Annotated, NoReturn

import typer
from rich.console import Console
from sqlmodel import Session

console = Console()
err = Console(stderr=True)


def split_list(values: list[str] | None) -> list[str]:
    """A repeatable option's values, each of which may also be comma-separated
    (`--env shop --env mail` and `--env shop,mail` mean the same)."""
    return [item.strip() for value in values or [] for item in value.split(",") if item.strip()]


def fail(message: str, code: int = 1) -> NoReturn:
    err.print(f"[red]Error:[/red] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def settings(**overrides):
    from humantrace.core.settings import InsecureSettings, get_settings

    try:
        return get_settings(**{k: v for k, v in overrides.items() if v is not None})
    except InsecureSettings as exc:
        err.print(f"[red]Refusing to start:[/red] {exc}")
        raise typer.Exit(2) from None


def open_db():
    """(settings, session) on a database whose schema is current; a clear error otherwise."""
    from humantrace.core import migrate
    from humantrace.core.db import make_engine

    config = settings()
    engine = make_engine(config.database_url)
    try:
        migrate.check_schema(engine, config.database_url)
    except migrate.SchemaOutdated as exc:
        fail(str(exc))
    return config, Session(engine)


STUDY_HELP = "The study (name or id). Default: the only study that is not archived; with several, the command lists them and stops."
StudyOption = Annotated[str | None, typer.Option("--study", help=STUDY_HELP)]


def current_study(db, ref: str | None = None):
    """The study a command acts on (`--study`, or the only one not archived); a clear error otherwise."""
    from humantrace.dashboard.studies.service import StudyError, resolve_study

    try:
        return resolve_study(db, ref=ref)
    except StudyError as exc:
        fail(str(exc))
