"""Tables of env sessions: the session row, its audit log, semantic events and network counters.

All live state sits in the database so several app processes can serve one session.
"""

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    DateTime,
    ForeignKey,
    Integer,
    String,
    UniqueConstraint,
    event,
)
from sqlmodel import Field, SQLModel

import humantrace.core.naming  # noqa: F401  (constraint naming convention, before any table)


class EnvSession(SQLModel, table=True):
    """One live instance of an environment built from (task, condition, seed).

    `initial_state` is written once at creation and never modified; `reset` copies it back into
    `state`. `previous_state` is the state before the latest change (served by `stale_data`).
    `state_version` grows whenever `state` is written: every ORM assignment bumps it (the listener
    below) and `sessions.reset` bumps it in its UPDATE. A process keeps a session's typed state
    between API calls only while the row's version is the one it cached (`environments.deps`).
    """

    __tablename__ = "env_session"

    session_id: str = Field(sa_column=Column(String(64), primary_key=True))
    env_id: str = Field(max_length=64, index=True)
    task_id: str = Field(max_length=128, index=True)
    condition: str = Field(max_length=16)
    seed: int
    variant_id: str | None = Field(default=None, max_length=128)
    # Which build of the site's controls its pages show (environments.ui); never changes the state.
    ui_profile: str = Field(default="default", max_length=40)
    session_start: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    created_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    # Real time the virtual clock counts from; moved to the reset time on every reset.
    clock_origin: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    initial_state: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    state: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    previous_state: dict[str, Any] | None = Field(
        default=None, sa_column=Column(JSON(none_as_null=True), nullable=True)
    )
    targets: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    initial_sha256: str = Field(max_length=64)
    client_dispatches: list[dict[str, Any]] = Field(sa_column=Column(JSON, nullable=False))
    network_rules: list[dict[str, Any]] = Field(sa_column=Column(JSON, nullable=False))
    reset_count: int = 0
    state_version: int = 0
    event_seq: int = 0
    auth_expired: bool = False
    # Set when the attempt (or run) using the session ended: its API then refuses every write.
    ended_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))


@event.listens_for(EnvSession.state, "set")
def _bump_state_version(target: EnvSession, value: Any, old: Any, initiator: Any) -> None:
    """Any write of `state` through the ORM makes cached copies of the old state stale."""
    target.state_version = (target.state_version or 0) + 1


class EnvAuditEntry(SQLModel, table=True):
    """One API call of a session: what was asked, what was answered, which intervention fired."""

    __tablename__ = "env_audit_entry"

    id: int | None = Field(default=None, primary_key=True)
    session_id: str = Field(
        sa_column=Column(
            String(64), ForeignKey("env_session.session_id", ondelete="CASCADE"), index=True, nullable=False
        )
    )
    t: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    method: str = Field(max_length=10)
    path: str = Field(max_length=512)
    status: int
    intervention: str | None = Field(default=None, max_length=128)
    duration_ms: int = 0


class EnvSemanticEvent(SQLModel, table=True):
    """A typed event an API handler emitted (`cart_add {product_id, quantity}`), numbered per session."""

    __tablename__ = "env_semantic_event"
    __table_args__ = (UniqueConstraint("session_id", "seq"),)

    id: int | None = Field(default=None, primary_key=True)
    session_id: str = Field(
        sa_column=Column(
            String(64), ForeignKey("env_session.session_id", ondelete="CASCADE"), index=True, nullable=False
        )
    )
    seq: int
    t_ms: int = Field(sa_column=Column(BigInteger, nullable=False))  # epoch milliseconds
    event: str = Field(max_length=64)
    params: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))


class InterventionCounter(SQLModel, table=True):
    """How many matching calls one network injection has seen in one session."""

    __tablename__ = "env_intervention_counter"
    __table_args__ = (UniqueConstraint("session_id", "pattern_key"),)

    id: int | None = Field(default=None, primary_key=True)
    session_id: str = Field(
        sa_column=Column(
            String(64), ForeignKey("env_session.session_id", ondelete="CASCADE"), index=True, nullable=False
        )
    )
    pattern_key: str = Field(max_length=512)
    count: int = Field(sa_column=Column(Integer, nullable=False, default=0))
