"""Migrations build exactly the models' schema and can be undone, on SQLite and PostgreSQL."""

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from humantrace.core import migrate
from humantrace.core.db import make_engine
from humantrace.dashboard.tables import metadata


def test_upgrade_head_matches_the_models(db_url):
    migrate.upgrade(db_url)
    engine = make_engine(db_url)
    with engine.connect() as conn:
        differences = compare_metadata(
            MigrationContext.configure(conn, opts={"compare_type": True}), metadata()
        )
    engine.dispose()
    assert differences == [], f"models and migrations disagree: {differences}"


def test_downgrade_base_removes_every_table(db_url):
    migrate.upgrade(db_url)
    migrate.downgrade(db_url, "base")
    engine = make_engine(db_url)
    tables = set(inspect(engine).get_table_names()) - {"alembic_version"}
    engine.dispose()
    assert tables == set()
    # and the schema can be rebuilt after a full downgrade
    migrate.upgrade(db_url)


def test_schema_check_names_the_command_to_run(sqlite_url):
    engine = make_engine(sqlite_url)
    try:
        migrate.check_schema(engine, sqlite_url)
    except migrate.SchemaOutdated as exc:
        assert "humantrace db upgrade" in str(exc)
        assert "empty" in str(exc)
    else:
        raise AssertionError("an empty database passed the schema check")
    migrate.upgrade(sqlite_url)
    migrate.check_schema(engine, sqlite_url)  # up to date: no error
    engine.dispose()


def test_app_refuses_to_start_on_an_outdated_schema(make_settings, sqlite_url):
    import pytest
    from fastapi.testclient import TestClient

    from humantrace.dashboard.app import create_app

    app = create_app(make_settings(sqlite_url))
    with pytest.raises(migrate.SchemaOutdated, match="humantrace db upgrade"):
        with TestClient(app):
            pass
