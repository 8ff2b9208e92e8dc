"""Alembic driven from code: the URL comes from settings, the scripts ship inside `migrations/`."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine

# The revision scripts are data this runner reads, not code it imports: `core` imports no other
# humantrace package, so the `migrations` package is only located, never imported, here.
_MIGRATIONS_SPEC = importlib.util.find_spec("humantrace.migrations")
if _MIGRATIONS_SPEC is None or _MIGRATIONS_SPEC.origin is None:  # pragma: no cover (broken install)
    raise ImportError("the `migrations` package (Alembic scripts) is not installed beside `core`")
MIGRATIONS_DIR = Path(_MIGRATIONS_SPEC.origin).parent


class SchemaOutdated(RuntimeError):
    """The database is not at the revision this code expects."""


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    # ConfigParser treats % as interpolation; URLs may contain percent-encoded characters.
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(url: str, revision: str = "head") -> None:
    command.upgrade(alembic_config(url), revision)


def downgrade(url: str, revision: str = "-1") -> None:
    command.downgrade(alembic_config(url), revision)


def revision(url: str, message: str) -> None:
    """Autogenerate a new revision from the difference between the models and the database."""
    command.revision(alembic_config(url), message=message, autogenerate=True)


def head_revision(url: str) -> str | None:
    return ScriptDirectory.from_config(alembic_config(url)).get_current_head()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def check_schema(engine: Engine, url: str) -> None:
    """Raise `SchemaOutdated` naming the command to run when the database is behind (or ahead)."""
    current = current_revision(engine)
    head = head_revision(url)
    if current != head:
        where = "empty (no tables yet)" if current is None else f"at revision {current}"
        raise SchemaOutdated(
            f"The database schema is {where}, but this version of humantrace needs revision {head}. "
            "Run `humantrace db upgrade` (with the same HUMANTRACE_DATABASE_URL) and start again."
        )
