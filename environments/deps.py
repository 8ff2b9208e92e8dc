"""`EnvSessionDep`: the dependency every site API handler takes.

It identifies the session (cookie `htenv` or header `X-Env-Session`), locks its row for the whole
request (SELECT ... FOR UPDATE on PostgreSQL; on SQLite a no-op UPDATE first, which takes the
database write lock, so concurrent requests of one session never lose an update), gives the
handler the typed state, and saves the state and emitted events only if the handler succeeded.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request
from sqlalchemy import select, update
from sqlalchemy.orm import defer
from sqlmodel import Session

from environments import registry
from environments.models import EnvSemanticEvent, EnvSession
from environments.seeding import to_iso
from environments.state import EnvState

COOKIE_NAME = "htenv"
HEADER_NAME = "X-Env-Session"
NO_SESSION_DETAIL = "This environment has no active session."
STALE_SCOPE_KEY = "htenv_stale"
_API_PATH = re.compile(r"^/api/env/([^/]+)(/|$)")


def session_id_from_request(request: Request) -> str | None:
    """The env session id of a request: the `X-Env-Session` header, else the `htenv` cookie."""
    return request.headers.get(HEADER_NAME) or request.cookies.get(COOKIE_NAME) or None


def env_id_from_path(path: str) -> str | None:
    """`shop` for `/api/env/shop/cart`, else None."""
    found = _API_PATH.match(path)
    return found.group(1) if found else None


# Read only when a handler needs them (fresh ids, stale-data interventions): ~100 KB of JSON each.
_LAZY_STATES = (defer(EnvSession.initial_state), defer(EnvSession.previous_state))


def lock_session_row(db: Session, session_id: str) -> EnvSession | None:
    """Load the session row and hold a write lock on it until the transaction ends."""
    query = select(EnvSession).where(EnvSession.session_id == session_id).options(*_LAZY_STATES)
    if db.get_bind().dialect.name == "sqlite":
        # A write as the first statement makes SQLite take its (database-wide) write lock now.
        db.execute(update(EnvSession).where(EnvSession.session_id == session_id).values(event_seq=EnvSession.event_seq))
        return db.execute(query).scalar_one_or_none()
    return db.execute(query.with_for_update()).scalar_one_or_none()


def virtual_now(row: EnvSession) -> datetime:
    """Session start plus the real time elapsed since the session was created (or last reset)."""
    origin = row.clock_origin if row.clock_origin.tzinfo else row.clock_origin.replace(tzinfo=UTC)
    start = row.session_start if row.session_start.tzinfo else row.session_start.replace(tzinfo=UTC)
    return start + (datetime.now(UTC) - origin)


@dataclass
class EnvHandle:
    """What a handler gets: the typed live state, the virtual clock, event emission, fresh ids."""

    session_id: str
    env_id: str
    state: EnvState
    _row: EnvSession = field(repr=False)
    _db: Session = field(repr=False)
    _events: list[tuple[int, str, dict[str, Any]]] = field(default_factory=list, repr=False)
    _counters: dict[str, int] = field(default_factory=dict, repr=False)

    def now(self) -> datetime:
        """The session's virtual clock (deterministic start, real elapsed time)."""
        return virtual_now(self._row)

    def now_iso(self) -> str:
        """`now()` as the ISO-8601 UTC text states store."""
        return to_iso(self.now())

    def ago(self, **delta: float) -> str:
        """ISO text of `now() - timedelta(**delta)`."""
        return to_iso(self.now() - timedelta(**delta))

    def emit(self, event: str, **params: Any) -> None:
        """Append a semantic event (saved with the state when the handler succeeds)."""
        self._events.append((int(time.time() * 1000), event, params))

    def new_id(self, prefix: str) -> str:
        """A fresh `<prefix>-NNNN` above every such id in the live state and the initial snapshot.

        Counting the initial snapshot too means a deleted entity's id is never reused, so the diff
        shows a Delete and a Create rather than an Update.
        """
        if prefix not in self._counters:
            pattern = re.compile(rf"^{re.escape(prefix)}-(\d+)$")
            highest = 0
            for collections in (self.state.to_collections(), self._row.initial_state):
                for items in collections.values():
                    for item in items if isinstance(items, list) else []:
                        found = pattern.match(str(item.get("id", ""))) if isinstance(item, dict) else None
                        if found:
                            highest = max(highest, int(found.group(1)))
            self._counters[prefix] = highest
        self._counters[prefix] += 1
        return f"{prefix}-{self._counters[prefix]:04d}"


def env_session(request: Request) -> Iterator[EnvHandle]:
    """FastAPI dependency behind `EnvSessionDep` (see the module docstring)."""
    env_id = env_id_from_path(request.url.path)
    session_id = session_id_from_request(request)
    if not session_id:
        raise HTTPException(status_code=401, detail=NO_SESSION_DETAIL)
    with Session(request.app.state.engine) as db:
        row = lock_session_row(db, session_id)
        if row is None:
            raise HTTPException(status_code=401, detail=NO_SESSION_DETAIL)
        if env_id is not None and row.env_id != env_id:
            raise HTTPException(status_code=401, detail=f"This session belongs to another website ({row.env_id}).")
        env = registry.get(row.env_id)
        stale = request.scope.get("state", {}).get(STALE_SCOPE_KEY)
        source = row.state
        if stale == "initial":
            source = row.initial_state
        elif stale == "previous" and row.previous_state is not None:
            source = row.previous_state
        handle = EnvHandle(
            session_id=session_id, env_id=row.env_id, state=env.state_model.model_validate(source), _row=row, _db=db
        )
        try:
            yield handle
        except BaseException:
            db.rollback()
            raise
        if not stale:
            new_state = handle.state.to_collections()
            if new_state != row.state:
                row.previous_state = row.state
                row.state = new_state
        for t_ms, event, params in handle._events:
            db.add(EnvSemanticEvent(session_id=session_id, seq=row.event_seq, t_ms=t_ms, event=event, params=params))
            row.event_seq += 1
        db.add(row)
        db.commit()


# scope="function": the state is committed before the response leaves, so the caller's next
# request (and the middleware's look at the session) always sees this one's changes.
EnvSessionDep = Annotated[EnvHandle, Depends(env_session, scope="function")]
