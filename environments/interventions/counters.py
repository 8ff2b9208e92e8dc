"""Per (session, pattern) call counters for network injections, kept in the database.

The increment is one atomic statement (INSERT ... ON CONFLICT DO UPDATE SET count = count + 1
RETURNING count), so several app processes serving one session number its calls without gaps or
repeats.
"""

from __future__ import annotations

from sqlalchemy import Engine
from sqlalchemy.dialects import postgresql, sqlite

from humantrace.core.db import one_statement, table_of
from humantrace.environments.models import InterventionCounter


def increment(engine: Engine, *, session_id: str, pattern_key: str) -> int:
    """Add one to the counter of (`session_id`, `pattern_key`) and return the new count (1 first)."""
    table = table_of(InterventionCounter)
    dialect = engine.dialect.name
    values = {"session_id": session_id, "pattern_key": pattern_key, "count": 1}
    bump = {"count": table.c.count + 1}
    keys = ["session_id", "pattern_key"]
    statement: postgresql.Insert | sqlite.Insert
    if dialect == "postgresql":
        statement = (
            postgresql.insert(table).values(values).on_conflict_do_update(index_elements=keys, set_=bump)
        )
    elif dialect == "sqlite":
        statement = sqlite.insert(table).values(values).on_conflict_do_update(index_elements=keys, set_=bump)
    else:
        raise NotImplementedError(f"intervention counters need PostgreSQL or SQLite, not {dialect}")
    returning = statement.returning(table.c.count)
    with one_statement(engine) as conn:
        return int(conn.execute(returning).scalar_one())
