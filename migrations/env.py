"""Alembic environment: the URL comes from the config (set by `core.migrate`) or settings."""

from __future__ import annotations

from alembic import context

from humantrace.core.db import make_engine
from humantrace.dashboard.tables import metadata

config = context.config
target_metadata = metadata()


def _url() -> str:
    url = config.get_main_option("sqlalchemy.url")
    if url:
        return url
    from humantrace.core.settings import Settings

    return Settings().database_url


def run_migrations_offline() -> None:
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connectable = config.attributes.get("connection")
    if connectable is None:
        engine = make_engine(_url())
        with engine.connect() as connection:
            _run(connection)
        engine.dispose()
    else:
        _run(connectable)


def _run(connection) -> None:
    sqlite = connection.dialect.name == "sqlite"
    if sqlite:
        # Batch mode rebuilds a table by copy-drop-rename; with foreign keys enforced, dropping a
        # table that others reference fails. The pragma only takes effect outside a transaction.
        connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,  # SQLite needs batch mode to alter tables
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()
    if sqlite:
        connection.commit()
        connection.exec_driver_sql("PRAGMA foreign_keys=ON")


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
