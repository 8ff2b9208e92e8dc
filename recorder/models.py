"""Recorder tables: one `Recording` per recorded try, one `RawEvent` row per DOM event.

A recording is either the trace of an attempt (the dashboard's `Attempt` row points at it) or a
standalone recording made on any page. Raw events follow the agreed raw event table
(`attempt_id` is called `recording_id` here; exports rename it). No column holds a client address.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import BigInteger, Column, DateTime, Integer, UniqueConstraint
from sqlmodel import Field, SQLModel

import humantrace.core.naming  # noqa: F401  (constraint naming convention, before any table)
from humantrace.core.db import table_of

# "agent": an agent episode run by `humantrace agents run` (agentruns/), recorded like a person.
RECORDING_KINDS = ("attempt", "standalone", "agent")
LABEL_MAX_LENGTH = 200  # Recording.label's column
RECORDING_STATUSES = ("active", "ended")


def _utcnow() -> datetime:
    return datetime.now(UTC)


class Recording(SQLModel, table=True):
    """One recorded try: its settings, browser context and acknowledgement watermark."""

    __tablename__ = "recording"

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(default="attempt", max_length=16)
    label: str | None = Field(default=None, max_length=LABEL_MAX_LENGTH)
    status: str = Field(default="active", max_length=16)
    created_at: datetime = Field(default_factory=_utcnow, sa_type=DateTime(timezone=True))
    ended_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    # Set from the recorder's once-per-recording `meta` message.
    user_agent: str | None = Field(default=None)
    viewport_w: int | None = None
    viewport_h: int | None = None
    screen_w: int | None = None
    screen_h: int | None = None
    mask_all_text: bool = False
    mousemove_sample_ms: int = 100
    # Acknowledged events across the recording's streams, minus one (-1 while nothing is): for a
    # recording of one page instance, the highest seq such that every seq from 0 to it is stored.
    # Each stream's own watermark is `RecordingStream.acked_seq`.
    acked_seq: int = -1
    # CSS selectors of fields the recorder masks (the site's declarations and the study's), JSON list.
    mask_selectors: str | None = Field(default=None)


class RecordingStream(SQLModel, table=True):
    """One page instance (a browser tab) of a recording: its events' seqs run 0, 1, 2, ... on their own.

    `tab` is the random key the recorder keeps in the tab's sessionStorage, so a reload or a
    navigation in the tab continues its stream and a second tab starts a new one. Stream 0 is
    also the stream of frames sent without a key (recorders older than streams).
    """

    __tablename__ = "recording_stream"
    __table_args__ = (UniqueConstraint("recording_id", "tab", name="uq_recording_stream_tab"),)

    recording_id: int = Field(foreign_key="recording.id", primary_key=True)
    stream: int = Field(primary_key=True)
    tab: str | None = Field(default=None, max_length=64)
    # Highest seq of this stream such that every seq from 0 to it is stored; -1 while nothing is.
    acked_seq: int = -1


class RawEvent(SQLModel, table=True):
    """One DOM event, exactly as the recorder reported it (masked by policy in the browser)."""

    __tablename__ = "raw_event"
    __table_args__ = (
        UniqueConstraint("recording_id", "stream", "seq", name="uq_raw_event_recording_stream_seq"),
    )

    # BIGINT on PostgreSQL; SQLite needs INTEGER for its rowid alias to autoincrement.
    id: int | None = Field(
        default=None,
        sa_column=Column(
            BigInteger().with_variant(Integer(), "sqlite"), primary_key=True, autoincrement=True
        ),
    )
    recording_id: int = Field(foreign_key="recording.id")
    # The page instance (tab) of the recording the event comes from; seq is contiguous per stream.
    stream: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    seq: int
    t_ms: int = Field(sa_column=Column(BigInteger(), nullable=False))
    type: str = Field(max_length=16)
    xpath: str | None = None
    url: str | None = None
    x: float | None = None
    y: float | None = None
    key: str | None = None
    value: str | None = None
    scroll_x: float | None = None
    scroll_y: float | None = None
    dx: float | None = None
    dy: float | None = None
    nav: str | None = Field(default=None, max_length=16)
    added: int | None = None
    removed: int | None = None
    attributes: int | None = None
    width: int | None = None
    height: int | None = None
    state: str | None = Field(default=None, max_length=16)
    # Chain of iframe XPaths from the top document (" >> "-joined); null for the top document.
    frame_xpath: str | None = None


# The raw event columns after `recording_id`, in the agreed order.
RAW_EVENT_FIELDS: tuple[str, ...] = (
    "seq",
    "t_ms",
    "type",
    "xpath",
    "url",
    "x",
    "y",
    "key",
    "value",
    "scroll_x",
    "scroll_y",
    "dx",
    "dy",
    "nav",
    "added",
    "removed",
    "attributes",
    "width",
    "height",
    "state",
    "frame_xpath",
)


RECORDER_TABLES = (table_of(Recording), table_of(RecordingStream), table_of(RawEvent))
"""The recorder's tables, for `SQLModel.metadata.create_all(engine, tables=...)` outside migrations."""
