"""SQLite settings that let one file absorb many recorders at once.

WAL lets readers (the dashboard polling acks, exports) run while the ingestion writer commits;
synchronous=NORMAL in WAL mode survives a killed process (only an OS crash can lose the last
commits); busy_timeout makes a second writer wait instead of failing.
"""

from __future__ import annotations

from sqlalchemy import Engine, event
from sqlalchemy.engine.interfaces import DBAPIConnection


def tune_sqlite(engine: Engine, *, busy_timeout_ms: int = 10_000) -> None:
    """Apply WAL, synchronous=NORMAL, busy_timeout and foreign keys to every new SQLite connection.

    Does nothing for other databases, so callers can apply it unconditionally.
    """
    if engine.dialect.name != "sqlite":
        return

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: DBAPIConnection, _record: object) -> None:
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
            cursor.execute("PRAGMA foreign_keys=ON")
        finally:
            cursor.close()
