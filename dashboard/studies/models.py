"""Tables owned by the dashboard: the study, assignments, attempts, ratings, presence and audit."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import JSON, Column, UniqueConstraint
from sqlmodel import Field, SQLModel

import humantrace.core.naming  # noqa: F401  (constraint naming convention, before any table)
from humantrace.annotators.models import utcnow
from humantrace.core.columns import EnumText


class StudyStatus(StrEnum):
    """A study's lifecycle: only `open` studies accept new starts; `archived` ones leave every list."""

    draft = "draft"
    open = "open"
    closed = "closed"
    archived = "archived"


class Study(SQLModel, table=True):
    """One human study of a deployment: environments, seed, settings, people, panel and data.

    The settings' allowed values live in `dashboard.studies.schemas.StudySettings`; change them
    through `dashboard.studies.service`, which validates and keeps the audit trail."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=200, unique=True)
    description: str = Field(default="", max_length=4000)
    envs: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    # The env seed of every session of the study (both conditions, cold and warm, duplicates, agents).
    seed: int = 42
    status: StudyStatus = Field(default=StudyStatus.draft, sa_type=EnumText(StudyStatus), index=True)
    show_score_to_annotators: bool = False
    rollback_grace_seconds: int = 10
    hard_time_limit_seconds: int = 30 * 60
    reading_countdown_seconds: int = 20
    mask_all_text: bool = False
    mousemove_sample_ms: int = 100
    require_rating: bool = False
    # CSS selectors masked in every attempt of the study, besides the site's own (`Environment.mask_selectors`).
    mask_selectors: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


class StudyChange(SQLModel, table=True):
    """Audit trail of a study's settings once data exists: who changed which key, when, from what to what."""

    id: int | None = Field(default=None, primary_key=True)
    study_id: int = Field(foreign_key="study.id", index=True)
    at: datetime = Field(default_factory=utcnow)
    actor: str = Field(max_length=32)
    key: str = Field(max_length=64)
    old: str = Field(default="", max_length=4000)
    new: str = Field(default="", max_length=4000)


class AssignmentState(StrEnum):
    """Where an assignment is. Only the transition functions in `dashboard.flow.service` change it."""

    not_started = "not_started"
    cold_active = "cold_active"
    warm_ready = "warm_ready"
    warm_active = "warm_active"
    rating = "rating"
    completed = "completed"


ACTIVE_STATES = (AssignmentState.cold_active, AssignmentState.warm_ready, AssignmentState.warm_active)


class AttemptStatus(StrEnum):
    active = "active"
    ended = "ended"
    rolled_back = "rolled_back"


class Outcome(StrEnum):
    evaluated = "evaluated"
    abandoned = "abandoned"
    timed_out = "timed_out"


class Assignment(SQLModel, table=True):
    """An annotator × task-condition × tier. Owns one cold and one warm attempt (plus rolled-back ones)."""

    __table_args__ = (UniqueConstraint("study_id", "annotator_id", "task_id", "condition", "tier"),)

    id: int | None = Field(default=None, primary_key=True)
    study_id: int = Field(foreign_key="study.id", index=True)
    annotator_id: int = Field(foreign_key="annotator.id", index=True)
    task_id: str = Field(max_length=64)
    env_id: str = Field(max_length=32)
    difficulty: str = Field(max_length=16)
    condition: str = Field(max_length=16)
    tier: str = Field(default="primary", max_length=16)
    # The site's UI profile the task-condition runs on (environments.ui); "default" is today's build.
    ui_profile: str = Field(default="default", max_length=40)
    order_index: int = 0
    seed: int = 0
    state: AssignmentState = Field(
        default=AssignmentState.not_started, sa_type=EnumText(AssignmentState), index=True
    )
    version: int = 0
    # How many website-tab tickets were used: the next ticket names this number (dashboard.flow.website).
    website_entries: int = 0
    created_at: datetime = Field(default_factory=utcnow)
    started_at: datetime | None = None
    completed_at: datetime | None = None


class Attempt(SQLModel, table=True):
    """One recorded try (`cold` or `warm`) with its own env session and recording."""

    id: int | None = Field(default=None, primary_key=True)
    assignment_id: int = Field(foreign_key="assignment.id", index=True)
    phase: str = Field(max_length=8)
    status: AttemptStatus = Field(default=AttemptStatus.active, sa_type=EnumText(AttemptStatus))
    outcome: Outcome | None = Field(default=None, sa_type=EnumText(Outcome))
    env_session_id: str = Field(max_length=64)
    recording_id: int = Field(foreign_key="recording.id", unique=True)
    created_at: datetime = Field(default_factory=utcnow)
    recording_started_at: datetime | None = None
    ended_at: datetime | None = None
    wall_clock_ms: int | None = None
    # Seconds of the wall clock with no website tab present or visible (`dashboard.flow.away`):
    # set when the attempt ends (Evaluate, Abandon, time-out) or is rolled back.
    away_s: float | None = None
    viewport_w: int | None = None
    viewport_h: int | None = None
    user_agent: str | None = None
    score: float | None = None
    passed: bool | None = None
    verdict: dict | None = Field(default=None, sa_column=Column(JSON))
    raw_events: int | None = None
    clean_steps: int | None = None
    clean_trace: list | None = Field(default=None, sa_column=Column(JSON))
    cleaning_config: dict | None = Field(default=None, sa_column=Column(JSON))
    rollback_reason: str | None = None
    # Set by a lead's review ("exclude attempt"); excluded attempts stay stored but leave analyses.
    excluded: bool = False


class Rating(SQLModel, table=True):
    """The optional post-task form after the warm attempt; flags or comments go to review."""

    id: int | None = Field(default=None, primary_key=True)
    assignment_id: int = Field(foreign_key="assignment.id", unique=True)
    skipped: bool = False
    clarity: int | None = None
    realism: int | None = None
    intervention_naturalness: int | None = None
    fun_value: int | None = None
    suspected_bug: bool = False
    ambiguous_instruction: bool = False
    alternate_valid_strategy: bool = False
    comments: str = Field(default="", max_length=4000)
    needs_review: bool = Field(default=False, index=True)
    resolution: str | None = Field(default=None, max_length=32)
    review_note: str = Field(default="", max_length=4000)
    reviewed_by: str | None = Field(default=None, max_length=16)
    reviewed_at: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)


class WebsiteAbsence(SQLModel, table=True):
    """A stretch with no website tab of an assignment connected, as the presence sweep saw it.

    Opened when the website tab's heartbeat has been silent for `presence.WEBSITE_GONE_SECONDS`
    (from its last heartbeat), closed when a website tab is heard of again; an open one
    (`back_at` null) is still going on. Attempts read them for `away_s`.
    """

    __tablename__ = "website_absence"

    id: int | None = Field(default=None, primary_key=True)
    assignment_id: int = Field(foreign_key="assignment.id", index=True)
    gone_at: datetime
    back_at: datetime | None = None


class TabPresence(SQLModel, table=True):
    """Heartbeats of an assignment's control tab and of the environment tab between attempts."""

    __table_args__ = (UniqueConstraint("assignment_id", "tab"),)

    id: int | None = Field(default=None, primary_key=True)
    assignment_id: int = Field(foreign_key="assignment.id", index=True)
    tab: str = Field(max_length=16)
    last_seen_at: datetime = Field(default_factory=utcnow)


class AssignmentEvent(SQLModel, table=True):
    """Audit trail of an assignment: every transition, rollback and reopen, with who and why."""

    id: int | None = Field(default=None, primary_key=True)
    assignment_id: int = Field(foreign_key="assignment.id", index=True)
    at: datetime = Field(default_factory=utcnow)
    from_state: str = Field(max_length=16)
    to_state: str = Field(max_length=16)
    actor: str = Field(max_length=32)
    reason: str = Field(default="", max_length=1000)


class ClusterClock(SQLModel, table=True):
    """One row: the last time any app process ran the presence monitor (to discount downtime)."""

    id: int = Field(default=1, primary_key=True)
    last_tick_at: datetime = Field(default_factory=utcnow)
