"""Tables for people: annotators and leads, their study memberships, login links and login sessions."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum

from sqlalchemy import JSON, Column, UniqueConstraint
from sqlmodel import Field, SQLModel

import humantrace.core.naming  # noqa: F401  (constraint naming convention, before any table)
from humantrace.core.columns import EnumText


def utcnow() -> datetime:
    return datetime.now(UTC)


class Role(StrEnum):
    annotator = "annotator"
    lead = "lead"


class Tier(StrEnum):
    primary = "primary"
    duplicate = "duplicate"


class Annotator(SQLModel, table=True):
    """A person in the deployment, known everywhere outside this table only by `code` (A1, D1, L1).

    Leads are deployment-wide (they manage every study); annotators belong to studies through a
    `Membership`, which holds their tier and designed environments in that study."""

    id: int | None = Field(default=None, primary_key=True)
    code: str = Field(index=True, unique=True, max_length=16)
    display_name: str = Field(default="", max_length=120)
    role: Role = Field(default=Role.annotator, sa_type=EnumText(Role))
    active: bool = True
    created_at: datetime = Field(default_factory=utcnow)

    @property
    def is_lead(self) -> bool:
        return self.role == Role.lead


class Membership(SQLModel, table=True):
    """An annotator in one study: their tier and the environments they designed (never recorded)."""

    __table_args__ = (UniqueConstraint("study_id", "annotator_id"),)

    id: int | None = Field(default=None, primary_key=True)
    study_id: int = Field(foreign_key="study.id", index=True)
    annotator_id: int = Field(foreign_key="annotator.id", index=True)
    tier: Tier = Field(default=Tier.primary, sa_type=EnumText(Tier))
    designed: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    # A deactivated member keeps their recorded work but gets no new assignments in the study.
    active: bool = True
    created_at: datetime = Field(default_factory=utcnow)


class LoginLink(SQLModel, table=True):
    """A single-use login link; the URL carries a signed token naming `nonce`."""

    id: int | None = Field(default=None, primary_key=True)
    nonce: str = Field(index=True, unique=True, max_length=64)
    annotator_id: int = Field(foreign_key="annotator.id", index=True)
    created_at: datetime = Field(default_factory=utcnow)
    used_at: datetime | None = None


class LoginSession(SQLModel, table=True):
    """A logged-in browser. The cookie holds a random token; only its sha256 is stored."""

    id: int | None = Field(default=None, primary_key=True)
    token_sha256: str = Field(index=True, unique=True, max_length=64)
    annotator_id: int = Field(foreign_key="annotator.id", index=True)
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime
    revoked_at: datetime | None = None
    # The study this browser works in (a person in several studies picks one; leads switch).
    study_id: int | None = Field(default=None, foreign_key="study.id")
