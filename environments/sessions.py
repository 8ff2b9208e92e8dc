"""The env session service: create, reset, read and evaluate sessions (no HTTP here).

Functions take a SQLModel `Session` and keyword arguments; they add and flush but never commit,
so a caller can create an env session in the same transaction as an attempt. Site API handlers
use `EnvSessionDep` (re-exported from `environments.deps`).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

import orjson
from sqlalchemy import CursorResult, delete, select, update
from sqlmodel import Session, col

from humantrace.environments import catalog, registry, ui
from humantrace.environments.deps import ENDED_DETAIL, EnvHandle, EnvSessionDep, session_id_from_request  # noqa: F401
from humantrace.environments.models import EnvAuditEntry, EnvSemanticEvent, EnvSession, InterventionCounter
from humantrace.environments.seeding import build_session_state
from humantrace.environments.state import state_sha256

if TYPE_CHECKING:
    from humantrace.environments.evaluator import Verdict

__all__ = [
    "EnvHandle",
    "EnvSessionDep",
    "SessionNotFound",
    "SessionSnapshot",
    "audit_log",
    "create",
    "dump_diff",
    "evaluate_session",
    "event_log",
    "get_session",
    "get_state",
    "get_targets",
    "reset",
    "set_interventions",
    "session_id_from_request",
    "snapshot",
]


class SessionNotFound(LookupError):
    """No env session with this id."""


@dataclass
class SessionSnapshot:
    """What the evaluator reads of a session (see `environments.evaluator.evaluate`)."""

    session_id: str
    task_id: str
    initial_state: dict[str, Any]
    state: dict[str, Any]
    targets: dict[str, Any]
    session_start: datetime
    events: list[dict[str, Any]] = field(default_factory=list)
    ignore_fields: dict[str, set[str]] = field(default_factory=dict)
    benign_fields: dict[str, set[str]] = field(default_factory=dict)
    state_model: type | None = None  # the site's EnvState class: its state helpers are callable


def utcnow() -> datetime:
    """The real current time in UTC (only for created_at, audit times and the virtual clock origin)."""
    return datetime.now(UTC)


@lru_cache(maxsize=128)
def _built(generation: int, task_id: str, condition: str, seed: int) -> tuple[bytes, datetime]:
    """The seed builders' output for (task, condition, seed), serialised once per process.

    Builders are deterministic (`humantrace tasks check` proves it), so a study that starts the
    same task-condition for many annotators builds it once; every session still gets fresh objects.
    `generation` is the catalog's: registering a site or editing task files starts afresh.
    """
    task = catalog.get_task(task_id)
    variant = catalog.variant_for(task_id) if condition == "intervention" else None
    built = build_session_state(task, condition, seed, variant)
    initial = built.state.to_collections()
    parts = {
        "env_id": task.env_id,
        "variant_id": variant.variant_id if variant else None,
        "initial": initial,
        "sha256": state_sha256(initial),
        "targets": built.targets,
        "client_dispatches": built.client_dispatches,
        "network_rules": built.network_rules,
    }
    return orjson.dumps(parts, option=orjson.OPT_NON_STR_KEYS), built.session_start


def create(db: Session, *, task_id: str, condition: str, seed: int, ui_profile: str | None = None) -> str:
    """Build a session of `task_id` in `condition` with `seed`; returns its opaque session id.

    `ui_profile` names the build of the site's controls its pages show (`environments.ui`; None is
    the default); it never changes the state, so sessions of every profile start identical.
    An unknown profile raises `ui.UnknownProfile` before anything is written.
    """
    blob, session_start = _built(catalog.generation, task_id, condition, seed)
    parts = orjson.loads(blob)
    profile = ui.get_profile(parts["env_id"], ui_profile)
    now = utcnow()
    row = EnvSession(
        session_id=secrets.token_urlsafe(24),
        env_id=parts["env_id"],
        task_id=task_id,
        condition=condition,
        seed=seed,
        variant_id=parts["variant_id"],
        ui_profile=profile.name,
        session_start=session_start,
        created_at=now,
        clock_origin=now,
        initial_state=parts["initial"],
        # The same dict for both is fine: stored rows are never mutated in place, only replaced.
        state=parts["initial"],
        targets=parts["targets"],
        initial_sha256=parts["sha256"],
        client_dispatches=parts["client_dispatches"],
        network_rules=parts["network_rules"],
    )
    db.add(row)
    db.flush()
    return row.session_id


def get_session(db: Session, *, session_id: str) -> EnvSession:
    """The session row (raises `SessionNotFound`)."""
    row = db.get(EnvSession, session_id)
    if row is None:
        raise SessionNotFound(f"no env session {session_id!r}")
    return row


def reset(db: Session, *, session_id: str) -> None:
    """Put the session back to its initial snapshot; clear events, audit log and counters.

    The state is copied inside the database (no JSON round trip through Python)."""
    result = db.execute(
        update(EnvSession)
        .where(col(EnvSession.session_id) == session_id)
        .values(
            state=EnvSession.initial_state,
            previous_state=None,
            auth_expired=False,
            ended_at=None,
            event_seq=0,
            reset_count=EnvSession.reset_count + 1,
            state_version=EnvSession.state_version + 1,
            clock_origin=utcnow(),
        )
        .execution_options(synchronize_session=False)
    )
    # an UPDATE's result is a CursorResult (Session.execute is typed with the general Result)
    if cast(CursorResult[Any], result).rowcount == 0:
        raise SessionNotFound(f"no env session {session_id!r}")
    for table in (EnvSemanticEvent, EnvAuditEntry, InterventionCounter):
        db.execute(delete(table).where(col(table.session_id) == session_id))
    db.flush()
    db.expire_all()


def end(db: Session, *, session_id: str) -> None:
    """Freeze the session: from the caller's commit on, its API refuses writes with 409
    `ENDED_DETAIL` (not audited) and reads still answer. A reset makes it live again."""
    db.execute(
        update(EnvSession)
        .where(col(EnvSession.session_id) == session_id, col(EnvSession.ended_at).is_(None))
        .values(ended_at=utcnow())
        .execution_options(synchronize_session=False)
    )


def set_interventions(
    db: Session, *, session_id: str, network: list[dict[str, Any]], client: list[dict[str, Any]]
) -> None:
    """Replace the session's network rules and client dispatches (validated like variant params);
    their call counters start again from zero. Seed and server layers are fixed at creation."""
    from humantrace.environments.interventions.specs import ClientParams, NetworkParams

    row = get_session(db, session_id=session_id)
    rules = [NetworkParams.model_validate(item).model_dump(exclude_none=True) for item in network]
    dispatches = [ClientParams.model_validate(item).model_dump(exclude_none=True) for item in client]
    row.network_rules = [{"index": i, **rule} for i, rule in enumerate(rules)]
    row.client_dispatches = [{"index": i, **dispatch} for i, dispatch in enumerate(dispatches)]
    row.auth_expired = False
    db.execute(delete(InterventionCounter).where(col(InterventionCounter.session_id) == session_id))
    db.add(row)
    db.flush()


def get_state(db: Session, *, session_id: str) -> dict[str, Any]:
    """The live state as collections."""
    return get_session(db, session_id=session_id).state


def get_targets(db: Session, *, session_id: str) -> dict[str, Any]:
    """The resolved latent targets (controller only: never shown to a page)."""
    return get_session(db, session_id=session_id).targets


def audit_log(db: Session, *, session_id: str) -> list[EnvAuditEntry]:
    """Every API call of the session since its last reset, oldest first."""
    _require(db, session_id)
    query = (
        select(EnvAuditEntry)
        .where(col(EnvAuditEntry.session_id) == session_id)
        .order_by(col(EnvAuditEntry.t), col(EnvAuditEntry.id))
    )
    return list(db.execute(query).scalars())


def event_log(db: Session, *, session_id: str) -> list[EnvSemanticEvent]:
    """The semantic events since the last reset, by sequence number."""
    _require(db, session_id)
    return _events(db, session_id)


def _require(db: Session, session_id: str) -> None:
    """Raise `SessionNotFound` unless the session exists (reads its id only, not its states)."""
    found = select(col(EnvSession.session_id)).where(col(EnvSession.session_id) == session_id)
    if db.execute(found).first() is None:
        raise SessionNotFound(f"no env session {session_id!r}")


def _events(db: Session, session_id: str) -> list[EnvSemanticEvent]:
    query = (
        select(EnvSemanticEvent)
        .where(col(EnvSemanticEvent.session_id) == session_id)
        .order_by(col(EnvSemanticEvent.seq))
    )
    return list(db.execute(query).scalars())


def snapshot(db: Session, *, session_id: str, after_writes: bool = False) -> SessionSnapshot:
    """Initial and live state, targets, clock and events: everything evaluation reads.

    With `after_writes`, an environment API call of the session still being saved (it holds the row
    lock, `deps.lock_session_row`) is waited for, and the state read is the one it commits: on
    PostgreSQL a `FOR SHARE` read. On SQLite the caller's own write lock already orders it (the
    dashboard's Evaluate has written before it reads); the clause is dropped there."""
    columns = (
        col(EnvSession.session_id),
        col(EnvSession.task_id),
        col(EnvSession.env_id),
        col(EnvSession.initial_state),
        col(EnvSession.state),
        col(EnvSession.targets),
        col(EnvSession.session_start),
    )
    # Only these columns: the previous state and intervention settings are not decoded.
    query = select(*columns).where(col(EnvSession.session_id) == session_id)
    if after_writes:
        query = query.with_for_update(read=True)
    row = db.execute(query).one_or_none()
    if row is None:
        raise SessionNotFound(f"no env session {session_id!r}")
    env = registry.get(row.env_id)
    events = [
        {"seq": e.seq, "t_ms": e.t_ms, "event": e.event, "params": e.params} for e in _events(db, session_id)
    ]
    return SessionSnapshot(
        session_id=row.session_id,
        task_id=row.task_id,
        initial_state=row.initial_state,
        state=row.state,
        targets=row.targets,
        session_start=_aware(row.session_start),
        events=events,
        ignore_fields=dict(env.ignore_fields),
        benign_fields=dict(env.benign_fields),
        state_model=env.state_model,
    )


def dump_diff(db: Session, *, session_id: str) -> list[dict[str, Any]]:
    """The diff of the initial snapshot against the live state, as JSON-able records."""
    from humantrace.environments.evaluator import compute_diff

    snap = snapshot(db, session_id=session_id)
    diff = compute_diff(snap.initial_state, snap.state, ignore_fields=snap.ignore_fields)
    return [entry.model_dump(mode="json") for entry in diff]


def evaluate_session(db: Session, *, session_id: str) -> Verdict:
    """Score the live state against the task (`environments.evaluator.Verdict`).

    A click the website is still saving when Evaluate is pressed counts: the state is read after
    that call commits (`snapshot(after_writes=True)`)."""
    from humantrace.environments.evaluator import evaluate

    snap = snapshot(db, session_id=session_id, after_writes=True)
    task = catalog.get_task(snap.task_id)
    return evaluate(task.evaluator_view(), snap)


def _aware(moment: datetime) -> datetime:
    # SQLite returns naive datetimes; every stored time is UTC.
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
