"""`EnvSessionDep`: the dependency every site API handler takes.

It identifies the session (cookie `htenv` or header `X-Env-Session`), locks its row for the whole
request (SELECT ... FOR UPDATE on PostgreSQL; on SQLite a no-op UPDATE first, which takes the
database write lock, so concurrent requests of one session never lose an update), gives the
handler the typed state, and saves the state and emitted events only if the handler succeeded.
A GET or HEAD runs without the lock, on the state as last committed; only if its handler changed
the state or emitted events is that saved afterwards under the lock, and if another call changed
the state in between, the read is run again under the lock (`_ReadCall`).

Validating a site's state into its typed model is the largest cost of an API call (a shop state is
about 100 KB of JSON; a booking one 200 KB). So each process keeps, for its most recently used
sessions, the typed state as the last request of this process left it, with the row's
`state_version` at that moment (`StateCache`). A request takes the entry out of the cache while it
holds the row lock and uses it only if the row's version still matches; any write of the state
elsewhere (another process, a reset, a test) bumps the version and so makes the entry a miss. The
entry goes back only after a successful commit, so a handler that fails, or a commit that fails,
leaves nothing half-changed behind.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, cast

import orjson
from anyio import CancelScope
from fastapi import Depends, HTTPException, Request
from fastapi.concurrency import contextmanager_in_threadpool, run_in_threadpool
from sqlalchemy import Connection, Engine, Select, inspect, select, update
from sqlalchemy.orm import QueryableAttribute, defer
from sqlmodel import Session, col

from humantrace.environments import registry
from humantrace.environments.models import EnvSemanticEvent, EnvSession
from humantrace.environments.seeding import to_iso
from humantrace.environments.state import EnvState

COOKIE_NAME = "htenv"
HEADER_NAME = "X-Env-Session"
NO_SESSION_DETAIL = "This environment has no active session."
ENDED_DETAIL = "This attempt has ended"  # the answer to a write to an ended session (409)
STALE_SCOPE_KEY = "htenv_stale"
READ_METHODS = frozenset({"GET", "HEAD"})
LOCKED_SCOPE_KEY = "htenv_locked"  # set by the network layer when it runs a read again, under the lock
PRELOADED_SCOPE_KEY = "htenv_row"  # the session row the network layer read for a GET (see `_ReadCall`)
RETRY_HEADER = "X-Htenv-Retry"  # marks the refusal of a read that lost a race (see `_ReadCall`)
CHANGED_MEANWHILE_DETAIL = "The website's data changed while this page was loading. Reload the page."
_API_PATH = re.compile(r"^/api/env/([^/]+)(/|$)")


def session_id_from_request(request: Request) -> str | None:
    """The env session id of a request: the `X-Env-Session` header, else the `htenv` cookie."""
    return request.headers.get(HEADER_NAME) or request.cookies.get(COOKIE_NAME) or None


def env_id_from_path(path: str) -> str | None:
    """`shop` for `/api/env/shop/cart`, else None."""
    found = _API_PATH.match(path)
    return found.group(1) if found else None


def _column(name: str) -> QueryableAttribute[Any]:
    """The mapped attribute `EnvSession.<name>` (SQLModel types it as the column's value type)."""
    return cast("QueryableAttribute[Any]", getattr(EnvSession, name))


# Read only when a handler needs them (fresh ids, stale-data interventions): ~100 KB of JSON each.
_LAZY_STATES = (defer(_column("initial_state")), defer(_column("previous_state")))
# Also the live state, when this process probably holds it already.
_LAZY_STATES_CACHED = (*_LAZY_STATES, defer(_column("state")))

# Sessions whose typed state one process keeps: a shop entry is about 0.6 MB, a booking one 1.3 MB.
STATE_CACHE_SESSIONS = 128


@dataclass
class CachedState:
    """A session's typed state as this process's last successful request left it."""

    version: int  # the row's state_version it belongs to
    stored: bytes  # the state's JSON (pydantic's serializer): the change check and `previous_state`
    state: EnvState


class StateCache:
    """The per-process LRU of `CachedState` by session id (see the module docstring)."""

    def __init__(self, size: int = STATE_CACHE_SESSIONS) -> None:
        self.size = size
        self._entries: OrderedDict[str, CachedState] = OrderedDict()
        self._lock = threading.Lock()  # handlers run in worker threads
        self.hits = 0  # entries used (the tests read it)

    def __contains__(self, session_id: str) -> bool:
        return session_id in self._entries

    def take(self, session_id: str, version: int, model: type[EnvState]) -> CachedState | None:
        """Remove and return the entry if it is still current, else drop it and return None."""
        with self._lock:
            entry = self._entries.pop(session_id, None)
            if entry is not None and entry.version == version and type(entry.state) is model:
                self.hits += 1
                return entry
            return None

    def put(self, session_id: str, entry: CachedState) -> None:
        with self._lock:
            self._entries[session_id] = entry
            self._entries.move_to_end(session_id)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)


STATE_CACHE = StateCache()


def lock_session_row(db: Session, session_id: str, *, lazy_state: bool = False) -> EnvSession | None:
    """Load the session row and hold a write lock on it until the transaction ends.

    With `lazy_state` the live state is left out and loaded only if read."""
    query = read_row_query(session_id, lazy_state=lazy_state)
    if db.get_bind().dialect.name == "sqlite":
        # A write as the first statement makes SQLite take its (database-wide) write lock now.
        db.execute(
            update(EnvSession)
            .where(col(EnvSession.session_id) == session_id)
            .values(event_seq=EnvSession.event_seq)
        )
        return db.execute(query).scalar_one_or_none()
    return db.execute(query.with_for_update()).scalar_one_or_none()


def read_session_row(db: Session, session_id: str, *, lazy_state: bool = False) -> EnvSession | None:
    """Load the session row as last committed, without a lock (`lazy_state` as above)."""
    return db.execute(read_row_query(session_id, lazy_state=lazy_state)).scalar_one_or_none()


def read_row_query(session_id: str, *, lazy_state: bool) -> Select:
    """The select of a session's row, its large states deferred (the live one too if `lazy_state`)."""
    return (
        select(EnvSession)
        .where(col(EnvSession.session_id) == session_id)
        .options(*(_LAZY_STATES_CACHED if lazy_state else _LAZY_STATES))
    )


def virtual_now(row: EnvSession) -> datetime:
    """Session start plus the real time elapsed since the session was created (or last reset)."""
    origin = row.clock_origin if row.clock_origin.tzinfo else row.clock_origin.replace(tzinfo=UTC)
    start = row.session_start if row.session_start.tzinfo else row.session_start.replace(tzinfo=UTC)
    return start + (datetime.now(UTC) - origin)


class UndeclaredEvent(TypeError):
    """A site emitted an event its declaration (`api.EVENTS`) does not list, or with other
    parameters: a bug in the site, caught where it happens so that no task can hold an event
    condition that no run can satisfy."""


# env_id -> (the registered environment it was read from, its events); a test that registers
# another environment under the same id gets that one's declaration.
_declared: dict[str, tuple[object, dict[str, frozenset[str]] | None]] = {}


def declared_events(env_id: str) -> dict[str, frozenset[str]] | None:
    """The site's declared events as name -> parameter names (None: the site declares none)."""
    try:
        env = registry.get(env_id)
    except registry.UnknownEnvironment:
        return None
    cached = _declared.get(env_id)
    if cached is None or cached[0] is not env:
        events = env.declared_events()
        cached = (env, None if events is None else {k: frozenset(v) for k, v in events.items()})
        _declared[env_id] = cached
    return cached[1]


def check_event(env_id: str, event: str, params: dict[str, Any]) -> None:
    """Raise `UndeclaredEvent` unless `event` and exactly its declared parameters are declared."""
    declared = declared_events(env_id)
    if declared is None:
        return
    if event not in declared:
        raise UndeclaredEvent(f"site {env_id!r} emitted {event!r}, which its api.EVENTS does not declare")
    if frozenset(params) != declared[event]:
        raise UndeclaredEvent(
            f"site {env_id!r} emitted {event!r} with parameters {sorted(params)}; "
            f"api.EVENTS declares {sorted(declared[event])}"
        )


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
        """Append a semantic event (saved with the state when the handler succeeds); an event the
        site does not declare, or with other parameters, raises `UndeclaredEvent`."""
        check_event(self.env_id, event, params)
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


async def env_session(request: Request) -> AsyncIterator[EnvHandle]:
    """FastAPI dependency behind `EnvSessionDep` (see the module docstring)."""
    env_id = env_id_from_path(request.url.path)
    session_id = session_id_from_request(request)
    scope_state = request.scope.setdefault("state", {})
    preloaded = scope_state.pop(PRELOADED_SCOPE_KEY, None)  # never used twice (a rerun locks)
    if not session_id:
        raise HTTPException(status_code=401, detail=NO_SESSION_DETAIL)
    engine = request.app.state.engine
    stale = scope_state.get(STALE_SCOPE_KEY)
    if request.method in READ_METHODS and not stale and not scope_state.get(LOCKED_SCOPE_KEY):
        read = _ReadCall(engine, session_id, env_id)
        if not read.start_cached(preloaded):
            await run_in_threadpool(read.open, preloaded)
        try:
            yield read.handle
        except BaseException:
            with CancelScope(shield=True):
                await run_in_threadpool(read.close)  # a failing handler leaves nothing behind
            raise
        with CancelScope(shield=True):  # as FastAPI does for a dependency's exit
            await read.finish()
        return
    write = request.method not in READ_METHODS
    async with contextmanager_in_threadpool(
        _locked_call(engine, session_id, env_id, stale, write=write)
    ) as handle:
        yield handle


@contextmanager
def _locked_call(
    engine: Engine, session_id: str, env_id: str | None, stale: str | None, *, write: bool = False
) -> Iterator[EnvHandle]:
    """A call holding the session's row lock from start to commit (its parts run in a worker thread)."""
    with Session(engine) as db:
        row = _check_row(lock_session_row(db, session_id, lazy_state=session_id in STATE_CACHE), env_id)
        if write and row.ended_at is not None:
            # Checked again under the lock: the network layer's look may predate the end's commit.
            raise HTTPException(status_code=409, detail=ENDED_DETAIL)
        env = registry.get(row.env_id)
        cached = None
        if stale:  # the state this handler sees is never saved
            source = row.initial_state if stale == "initial" else row.previous_state
            state = env.state_model.model_validate(row.state if source is None else source)
        else:
            cached = STATE_CACHE.take(session_id, row.state_version, env.state_model)
            state = cached.state if cached is not None else env.state_model.model_validate(row.state)
        handle = EnvHandle(session_id=session_id, env_id=row.env_id, state=state, _row=row, _db=db)
        try:
            yield handle
        except BaseException:
            db.rollback()
            raise
        change = None if stale else _state_change(handle, cached, row.state if cached is None else None)
        _save(db, row, handle, change)


class _ReadCall:
    """A GET or HEAD: the handler runs on the state as last committed, without the row lock.

    Reads are most calls, and nearly all of them change nothing: they then take one statement (in
    autocommit on PostgreSQL), no transaction, no lock, and on SQLite leave the database-wide
    write lock to the calls that write. The network layer usually hands over the row it read in
    the same statement as the session's rules (`PRELOADED_SCOPE_KEY`); with the state in the cache,
    such a read then needs no worker thread but the handler's own.

    A read that changed the state or emitted events (a product view, say) is then saved like any
    other call, under the row lock. If another call changed the state in between, this read's
    change is not saved: it answers 409 with `RETRY_HEADER`, and the network layer
    (`NetworkInterventionMiddleware`) runs it again, under the lock from the start, on the current
    state, so the person sees one ordinary answer and no change is lost.
    """

    def __init__(self, engine: Engine, session_id: str, env_id: str | None) -> None:
        self.engine, self.session_id, self.env_id = engine, session_id, env_id
        self.cached: CachedState | None = None
        self._connection: Connection | None = None

    def start_cached(self, row: EnvSession | None) -> bool:
        """Start on `row` read by the network layer if its state is in the cache (no I/O, on the
        event loop); False if not, and `open` must run."""
        if row is None or row.session_id != self.session_id:
            return False
        _check_row(row, self.env_id)
        self.cached = STATE_CACHE.take(
            self.session_id, row.state_version, registry.get(row.env_id).state_model
        )
        if self.cached is None:
            return False
        self._attach(row)
        self._start(row, self.cached.state)
        return True

    def open(self, row: EnvSession | None) -> None:
        """Start without the cache (in a worker thread): validate the state of `row` if the network
        layer read it, else read the row first, without a lock."""
        if row is None or row.session_id != self.session_id or "state" in inspect(row).unloaded:
            conn = self._connection = self.engine.connect()
            if conn.dialect.name == "postgresql":
                conn.execution_options(isolation_level="AUTOCOMMIT")
            self.db = Session(bind=conn)
        else:
            self._attach(row)
        try:
            if self._connection is not None:
                row = read_session_row(self.db, self.session_id, lazy_state=self.session_id in STATE_CACHE)
            row = _check_row(row, self.env_id)
            env = registry.get(row.env_id)
            self.cached = STATE_CACHE.take(self.session_id, row.state_version, env.state_model)
            if self.cached is None and "state" in inspect(row).unloaded:
                row.state  # noqa: B018  (the cache entry went meanwhile: load the deferred state)
            self._start(
                row,
                self.cached.state if self.cached is not None else env.state_model.model_validate(row.state),
            )
        except BaseException:
            self.close()
            raise

    def _attach(self, row: EnvSession) -> None:
        # Attached again (the network layer's session is closed), so a handler can still load a
        # deferred column (`EnvHandle.new_id` reads the initial state).
        self.db = Session(self.engine)
        self.db.add(row)

    def _start(self, row: EnvSession, state: EnvState) -> None:
        self.row, self.version = row, row.state_version
        self.handle = EnvHandle(
            session_id=self.session_id, env_id=row.env_id, state=state, _row=row, _db=self.db
        )

    def close(self) -> None:
        self.db.close()
        if self._connection is not None:
            self._connection.close()

    @property
    def idle(self) -> bool:
        """Whether closing needs no database round trip (nothing was read through `db`)."""
        return self._connection is None and not self.db.in_transaction()

    async def finish(self) -> None:
        """After the handler: done if it changed nothing; else save under the lock (or refuse)."""
        if self.cached is None:  # comparing with the stored JSON: ~1 ms, off the event loop
            change = await run_in_threadpool(_state_change, self.handle, None, self.row.state)
        else:
            change = _state_change(self.handle, self.cached, None)
        if not change.changed and not self.handle._events:
            STATE_CACHE.put(
                self.session_id,
                CachedState(version=self.version, stored=change.stored, state=self.handle.state),
            )
            if self.idle:
                self.close()
            else:
                await run_in_threadpool(self.close)
            return
        await run_in_threadpool(self._save, change)

    def _save(self, change: StateChange) -> None:
        self.close()
        with Session(self.engine) as db:
            locked = _check_row(lock_session_row(db, self.session_id, lazy_state=True), self.env_id)
            saved: StateChange | None = change
            if locked.state_version != self.version:
                if change.changed:
                    db.rollback()
                    # The network layer runs the call once more, under the lock from the start; the
                    # person sees this only where there is no network layer.
                    raise HTTPException(
                        status_code=409, detail=CHANGED_MEANWHILE_DETAIL, headers={RETRY_HEADER: "read"}
                    )
                saved = None  # only events to add; the state read is no longer the current one
            _save(db, locked, self.handle, saved)


@dataclass
class StateChange:
    """The state a handler left, as JSON, and what to store if it differs from the one it got."""

    stored: bytes
    changed: bool
    previous: Any = None  # collections of the state before the call (when changed)
    new: Any = None  # collections of the state after the call (when changed)


def _state_change(handle: EnvHandle, cached: CachedState | None, row_state: Any) -> StateChange:
    # Straight to JSON bytes in pydantic's serializer: no intermediate dicts, so a call that
    # changes nothing costs one serialisation and one bytes comparison.
    stored = handle.state.__pydantic_serializer__.to_json(handle.state)
    if cached is not None:
        if stored == cached.stored:
            return StateChange(stored, False)
        return StateChange(stored, True, previous=orjson.loads(cached.stored), new=orjson.loads(stored))
    new_state = orjson.loads(stored)
    return StateChange(stored, new_state != row_state, previous=row_state, new=new_state)


def _save(db: Session, row: EnvSession, handle: EnvHandle, change: StateChange | None) -> None:
    """Write the call's state change and events on the locked `row`, commit, then cache the state."""
    if change is not None and change.changed:
        row.previous_state = change.previous
        row.state = change.new  # bumps row.state_version
    for t_ms, event, params in handle._events:
        db.add(
            EnvSemanticEvent(
                session_id=handle.session_id, seq=row.event_seq, t_ms=t_ms, event=event, params=params
            )
        )
        row.event_seq += 1
    # Read before the commit, which expires the row: read after it, another process's newer
    # version could come back and vouch for this older state.
    version = row.state_version
    db.add(row)
    db.commit()
    if change is not None:
        STATE_CACHE.put(
            handle.session_id, CachedState(version=version, stored=change.stored, state=handle.state)
        )


def _check_row(row: EnvSession | None, env_id: str | None) -> EnvSession:
    """`row` if it is there and belongs to `env_id` (any site if None), else a 401."""
    if row is None:
        raise HTTPException(status_code=401, detail=NO_SESSION_DETAIL)
    if env_id is not None and row.env_id != env_id:
        raise HTTPException(
            status_code=401, detail=f"This session belongs to another website ({row.env_id})."
        )
    return row


# scope="function": the state is committed before the response leaves, so the caller's next
# request (and the middleware's look at the session) always sees this one's changes.
EnvSessionDep = Annotated[EnvHandle, Depends(env_session, scope="function")]
