"""The naming convention for every constraint and index on the shared SQLModel metadata, and
`one_statement`, the connection for a single statement on the environment API's hot path.

Alembic needs deterministic constraint names to alter or drop them later (SQLite batch mode in
particular). The convention must be set before any table class is defined, so every module that
defines tables imports this module first.
"""

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, Engine
from sqlmodel import SQLModel

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

SQLModel.metadata.naming_convention = NAMING_CONVENTION


@contextmanager
def one_statement(engine: Engine) -> Iterator[Connection]:
    """A connection for one statement that is its own transaction.

    On PostgreSQL it runs in autocommit: no BEGIN before it and no COMMIT or ROLLBACK after it, one
    round trip instead of two. Every environment API call reads its session's rules and writes an
    audit entry this way. Elsewhere (SQLite) it commits as usual. Never use it for two statements
    that must succeed or fail together.
    """
    with engine.connect() as conn:
        if conn.dialect.name == "postgresql":
            conn = conn.execution_options(isolation_level="AUTOCOMMIT")
        yield conn
        conn.commit()
