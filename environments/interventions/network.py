"""The network layer: ASGI middleware on `/api/env/*` that applies a session's network rules and
writes the audit log of every API call (method, path, status, which intervention fired).

A rule matches a call by `url_pattern` (a glob on the path; relative patterns are taken under
`/api/env/<env_id>`) and `methods`. Its counter is incremented in the database, and the rule's
behaviour decides from the call number whether it fires. Delays sleep, then the first firing
terminal dispatch answers in place of the handler (the state is never touched); `stale_data` lets
the handler run against an older snapshot. All database work runs in worker threads so a held
SQLite lock never blocks the event loop.
"""

from __future__ import annotations

import asyncio
import fnmatch
import json
import time
from dataclasses import dataclass, field
from typing import Any

import anyio.to_thread
from sqlalchemy import Engine, insert, select, update
from sqlmodel import Session, col
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from humantrace.core.db import one_statement
from humantrace.environments.deps import (
    COOKIE_NAME,
    HEADER_NAME,
    LOCKED_SCOPE_KEY,
    PRELOADED_SCOPE_KEY,
    READ_METHODS,
    RETRY_HEADER,
    STALE_SCOPE_KEY,
    STATE_CACHE,
    env_id_from_path,
    read_row_query,
)
from humantrace.environments.interventions import counters, modes
from humantrace.environments.interventions.dispatches import (
    TERMINAL,
    Synthesized,
    expired_response,
    synthesize,
)
from humantrace.environments.models import EnvAuditEntry, EnvSession
from humantrace.environments.sessions import ENDED_DETAIL, utcnow

_RETRY_HEADER = RETRY_HEADER.lower().encode("latin-1")

# How long a read waits at most for this process's writes of its session (then it answers with
# the state as last committed).
READ_WAITS_FOR_WRITES_S = 10.0


class WritesInFlight:
    """This process's env API writes that have not answered yet, by session.

    Reads run without the session's row lock (`environments.deps._ReadCall`), so a page that
    loads while the person's previous click is still being saved would otherwise show the state
    from before that click until the next reload. A read of a session waits first for the writes
    of that session already running in this process (their handler and commit; not their delay
    intervention, which slows only the call it matches). Writes never wait for reads, so this
    cannot deadlock; a write served by another process is not waited for.
    """

    def __init__(self) -> None:
        self._pending: dict[str, set[asyncio.Future[None]]] = {}
        self.waited = 0  # reads that found a write of their session running (tests read it)

    def running(self, session_id: str) -> int:
        return len(self._pending.get(session_id, ()))

    def begin(self, session_id: str) -> asyncio.Future[None]:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.setdefault(session_id, set()).add(done)
        return done

    def end(self, session_id: str, done: asyncio.Future[None]) -> None:
        done.set_result(None)
        pending = self._pending.get(session_id)
        if pending is not None:
            pending.discard(done)
            if not pending:
                del self._pending[session_id]

    async def settled(self, session_id: str, timeout: float = READ_WAITS_FOR_WRITES_S) -> None:
        """Return once the writes of `session_id` running now have answered (or after `timeout`)."""
        pending = self._pending.get(session_id)
        if not pending:
            return
        loop = asyncio.get_running_loop()
        mine = [done for done in pending if done.get_loop() is loop]
        if mine:
            self.waited += 1
            await asyncio.wait(mine, timeout=timeout)


def writes_in_flight(state: Any) -> WritesInFlight:
    """The app's tracker (created on first use), kept on `app.state`."""
    tracker = getattr(state, "env_writes", None)
    if tracker is None:
        tracker = state.env_writes = WritesInFlight()
    return tracker


def audits_in_flight(state: Any) -> WritesInFlight:
    """The calls of each session whose audit entry is not written yet (created on first use).

    The entry is written after the answer has left, so the person's page never waits for it (on
    SQLite it needs the database's write lock, which another call may hold). A caller that reads
    the audit log right after its answer (`GET /control/sessions/{id}/audit`) waits for these first.
    """
    tracker = getattr(state, "env_audits", None)
    if tracker is None:
        tracker = state.env_audits = WritesInFlight()
    return tracker


@dataclass
class SessionRules:
    """The few columns of a session the middleware needs."""

    env_id: str
    seed: int
    rules: list[dict[str, Any]]
    auth_expired: bool
    has_previous: bool
    ended: bool = False
    row: EnvSession | None = None  # the whole row (detached), when read for a GET (`load_rules`)


@dataclass
class Decision:
    """What to do with one call."""

    delay_ms: int = 0
    respond: Synthesized | None = None
    terminal_rule: dict[str, Any] | None = None
    stale: str | None = None
    fired: list[str] = field(default_factory=list)
    expire: bool = False


def pattern_key(rule: dict[str, Any]) -> str:
    """The counter key of a rule: its index in the variant plus what it matches."""
    return f"{rule.get('index', 0)}|{','.join(rule.get('methods', ['*']))}|{rule['url_pattern']}"


def rule_matches(rule: dict[str, Any], *, env_id: str, method: str, path: str) -> bool:
    """Whether `rule` applies to `method path`."""
    methods = rule.get("methods") or ["*"]
    if "*" not in methods and method.upper() not in methods:
        return False
    pattern = rule["url_pattern"]
    if not pattern.startswith("/"):
        pattern = f"/api/env/{env_id}/{pattern}"
    elif not pattern.startswith("/api/"):
        pattern = f"/api/env/{env_id}{pattern}"
    return fnmatch.fnmatchcase(path, pattern) or fnmatch.fnmatchcase(path.rstrip("/"), pattern.rstrip("/"))


def load_rules(engine: Engine, session_id: str, *, with_row: bool = False) -> SessionRules | None:
    """The session's env, seed, network rules and expiry flag (None for an unknown session).

    `with_row` (for a GET): also the whole row, in the same statement, as the env session
    dependency reads it (`environments.deps.read_row_query`), so the dependency need not read it
    again."""
    if with_row:
        query = read_row_query(session_id, lazy_state=session_id in STATE_CACHE).add_columns(
            col(EnvSession.previous_state).is_not(None)
        )
        with one_statement(engine) as conn, Session(bind=conn) as db:
            found = db.execute(query).first()
        if found is None:
            return None
        row, has_previous = found
        return SessionRules(
            row.env_id,
            int(row.seed),
            list(row.network_rules or []),
            bool(row.auth_expired),
            bool(has_previous),
            ended=row.ended_at is not None,
            row=row,
        )
    query = select(
        col(EnvSession.env_id),
        col(EnvSession.seed),
        col(EnvSession.network_rules),
        col(EnvSession.auth_expired),
        col(EnvSession.previous_state).is_not(None),
        col(EnvSession.ended_at).is_not(None),
    ).where(col(EnvSession.session_id) == session_id)
    with one_statement(engine) as conn:
        row = conn.execute(query).first()
    if row is None:
        return None
    return SessionRules(
        row[0], int(row[1]), list(row[2] or []), bool(row[3]), bool(row[4]), ended=bool(row[5])
    )


def decide(engine: Engine, *, session_id: str, info: SessionRules, method: str, path: str) -> Decision:
    """Count the call against every matching rule and decide what happens (runs in a thread)."""
    decision = Decision()
    if info.auth_expired and not is_login(info.env_id, method, path):
        decision.respond = expired_response(info.env_id)
        decision.fired.append("session_expiry")
        return decision
    for rule in info.rules:
        if not rule_matches(rule, env_id=info.env_id, method=method, path=path):
            continue
        action = rule["action"]
        if action == "stale_data":
            # Only reads can be stale, and only once there is an older snapshot to serve.
            if method not in READ_METHODS or (
                rule.get("snapshot", "previous") == "previous" and not info.has_previous
            ):
                continue
        key = pattern_key(rule)
        call = counters.increment(engine, session_id=session_id, pattern_key=key)
        if not modes.fires(rule, call, seed=info.seed, key=key):
            continue
        if action == "delay":
            wait = modes.delay_ms(rule, call, method=method, seed=info.seed, key=key)
            if wait:
                decision.delay_ms += wait
                decision.fired.append("delay")
        elif action == "stale_data":
            if decision.stale is None:
                decision.stale = rule.get("snapshot", "previous")
                decision.fired.append("stale_data")
        elif action in TERMINAL and decision.terminal_rule is None:
            decision.terminal_rule = rule
            decision.fired.append(action)
            decision.expire = action == "session_expiry"
    return decision


def is_login(env_id: str, method: str, path: str) -> bool:
    """The site's sign-in call, which ends a session expiry."""
    return method == "POST" and path.rstrip("/") == f"/api/env/{env_id}/auth/login"


def set_expired(engine: Engine, session_id: str, expired: bool) -> None:
    """Set or clear the session's expiry flag."""
    with one_statement(engine) as conn:
        conn.execute(
            update(EnvSession).where(col(EnvSession.session_id) == session_id).values(auth_expired=expired)
        )


def write_audit(engine: Engine, entry: dict[str, Any]) -> None:
    """Append one audit entry (never the client's address)."""
    with one_statement(engine) as conn:
        conn.execute(insert(EnvAuditEntry).values(**entry))


class NetworkInterventionMiddleware:
    """Applies network rules to `/api/env/*` calls of sessions and audits every such call."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        env_id = env_id_from_path(path) if scope["type"] == "http" else None
        if env_id is None:
            await self.app(scope, receive, send)
            return
        connection = HTTPConnection(scope)
        session_id = connection.headers.get(HEADER_NAME) or connection.cookies.get(COOKIE_NAME)
        engine: Engine = scope["app"].state.engine
        read = scope["method"].upper() in READ_METHODS
        writes = writes_in_flight(scope["app"].state)
        if read and session_id:
            await writes.settled(session_id)  # read what the person's earlier clicks saved
        info = (
            await anyio.to_thread.run_sync(lambda: load_rules(engine, session_id, with_row=read))
            if session_id
            else None
        )
        if session_id is None or info is None or info.env_id != env_id:
            await self.app(scope, receive, send)  # the handler answers 401 (no session)
            return

        if info.ended and not read:
            # The attempt is over: the write changes nothing and is not part of its audit log.
            await _send_json(send, Synthesized(409, {"detail": ENDED_DETAIL}))
            return
        auditing = audits_in_flight(scope["app"].state).begin(session_id)
        try:
            await self._audited(scope, receive, send, engine, session_id, env_id, info, read, writes)
        finally:
            audits_in_flight(scope["app"].state).end(session_id, auditing)

    async def _audited(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        engine: Engine,
        session_id: str,
        env_id: str,
        info: SessionRules,
        read: bool,
        writes: WritesInFlight,
    ) -> None:
        """Apply the session's rules to one call, answer it, then write its audit entry."""
        path = scope.get("path", "")
        started = time.monotonic()
        audit = {
            "session_id": session_id,
            "t": utcnow(),
            "method": scope["method"].upper(),
            "path": path[:512],
        }
        if info.rules or info.auth_expired:
            decision = await anyio.to_thread.run_sync(
                lambda: decide(engine, session_id=session_id, info=info, method=audit["method"], path=path)
            )
        else:
            decision = Decision()  # a clean session: nothing to count, no trip to a worker thread
        status = 500
        try:
            if decision.delay_ms:
                await asyncio.sleep(decision.delay_ms / 1000)
            if decision.respond is not None or decision.terminal_rule is not None:
                status = await self._answer(engine, session_id, env_id, decision, receive, send)
            elif read:
                status = await self._forward(engine, session_id, info, decision, scope, receive, send)
            else:
                done = writes.begin(session_id)  # after the delay: a delayed write holds up no read
                try:
                    status = await self._forward(engine, session_id, info, decision, scope, receive, send)
                finally:
                    writes.end(session_id, done)
        finally:
            # Crashed handlers are audited too (as 500).
            audit.update(
                status=status,
                intervention="+".join(decision.fired)[:128] or None,
                duration_ms=int((time.monotonic() - started) * 1000),
            )
            await anyio.to_thread.run_sync(write_audit, engine, audit)

    async def _answer(
        self, engine: Engine, session_id: str, env_id: str, decision: Decision, receive: Receive, send: Send
    ) -> int:
        """Answer in place of the handler; the state is not touched."""
        response = decision.respond
        if response is None:
            assert decision.terminal_rule is not None  # `_answer` runs for a response or a rule
            response = synthesize(
                decision.terminal_rule, env_id=env_id, request_json=await _read_json(receive)
            )
        if decision.expire:
            await anyio.to_thread.run_sync(set_expired, engine, session_id, True)
        await _send_json(send, response)
        return response.status

    async def _forward(
        self,
        engine: Engine,
        session_id: str,
        info: SessionRules,
        decision: Decision,
        scope: Scope,
        receive: Receive,
        send: Send,
    ) -> int:
        """Let the handler answer (against a stale snapshot if asked); returns its status."""
        if decision.stale:
            scope.setdefault("state", {})[STALE_SCOPE_KEY] = decision.stale
        elif info.row is not None and not decision.delay_ms:
            # A GET: the dependency starts from the row read with the rules (not after a delay,
            # when it may be seconds old).
            scope.setdefault("state", {})[PRELOADED_SCOPE_KEY] = info.row
        relogin = info.auth_expired and is_login(info.env_id, scope["method"].upper(), scope["path"])
        status = 500
        retry = False

        async def capture(message: Message) -> None:
            nonlocal status, retry
            if message["type"] == "http.response.start":
                if not retry and message["status"] == 409 and _asks_retry(message):
                    retry = True  # a read that lost a race (environments.deps._ReadCall): not sent
                    return
                retry = False
                status = message["status"]
                if relogin and status < 400:
                    # Cleared before the answer leaves, so the caller's next call already works.
                    await anyio.to_thread.run_sync(set_expired, engine, session_id, False)
            if retry:
                return
            await send(message)

        await self.app(scope, receive, capture)
        if retry:  # once more, holding the session's lock from the start: it cannot lose again
            scope.setdefault("state", {})[LOCKED_SCOPE_KEY] = True
            await self.app(scope, _no_body, capture)
        return status


def _asks_retry(message: Message) -> bool:
    return any(name.lower() == _RETRY_HEADER for name, _ in message.get("headers", []))


async def _no_body() -> Message:
    """The request of a GET run a second time (its empty body was read by the first run)."""
    return {"type": "http.request", "body": b"", "more_body": False}


async def _read_json(receive: Receive) -> Any:
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    try:
        return json.loads(b"".join(chunks) or b"null")
    except ValueError:
        return None


async def _send_json(send: Send, response: Synthesized) -> None:
    body = response.encoded()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(key.encode(), value.encode()) for key, value in response.headers.items()]
    await send({"type": "http.response.start", "status": response.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
