"""Per (session, pattern) call counters for network injections, kept in the database.

The increment is one atomic statement (INSERT ... ON CONFLICT DO UPDATE SET count = count + 1
RETURNING count), so several app processes serving one session number its calls without gaps or
repeats.
"""

from __future__ import annotations

from sqlalchemy import Engine
from sqlalchemy.dialects import postgresql, sqlite

from core.db import one_statement
from environments.models import InterventionCounter


def increment(engine: Engine, *, session_id: str, pattern_key: str) -> int:
    """Add one to the counter of (`session_id`, `pattern_key`) and return the new count (1 first)."""
    table = InterventionCounter.__table__
    dialect = engine.dialect.name
    if dialect == "postgresql":
        insert = postgresql.insert(table)
    elif dialect == "sqlite":
        insert = sqlite.insert(table)
    else:
        raise NotImplementedError(f"intervention counters need PostgreSQL or SQLite, not {dialect}")
    statement = (
        insert.values(session_id=session_id, pattern_key=pattern_key, count=1)
        .on_conflict_do_update(
            index_elements=["session_id", "pattern_key"], set_={"count": table.c.count + 1}
        )
        .returning(table.c.count)
    )
    with one_statement(engine) as conn:
        return int(conn.execute(statement).scalar_one())
