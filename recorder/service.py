"""Recording lifecycle, recorder tokens and loss-free, duplicate-free event ingestion (no HTTP).

Every page instance (tab) of a recording is its own stream. Storage guarantee: a stream's
`RecordingStream.acked_seq` is N only when every seq from 0 to N of that stream is stored. A batch
must be internally contiguous and start at or before `acked_seq + 1`; events at or below the ack
are duplicates and are dropped by the (recording_id, stream, seq) unique key, so a resend after a
reconnect, a reload or a server restart never duplicates a row. The ack only grows (a conditional
UPDATE), which keeps the guarantee when several processes ingest concurrently.
`Recording.acked_seq` is the recording's acknowledged events across streams, minus one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache, lru_cache
from operator import itemgetter
from typing import Any, get_args

import pandas as pd
from itsdangerous import BadData, URLSafeSerializer
from pydantic import BaseModel
from sqlalchemy import Connection, bindparam, func, select, update
from sqlalchemy.dialects.sqlite import Insert
from sqlalchemy.dialects.sqlite import dialect as sqlite_dialect
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine.interfaces import DBAPIConnection, DBAPICursor
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session

from humantrace.core.db import table_of
from humantrace.recorder.models import (
    LABEL_MAX_LENGTH,
    RAW_EVENT_FIELDS,
    RECORDING_KINDS,
    RawEvent,
    Recording,
    RecordingStream,
)
from humantrace.recorder.schemas import MAX_STREAMS, BatchMessage, EventIn, MetaMessage

TOKEN_SALT = "recorder"


# ---------------------------------------------------------------------------- errors
class RecorderError(Exception):
    """Base of the recorder's named errors; `code` is what the wire protocol reports."""

    code = "recorder_error"


class TokenInvalid(RecorderError):
    code = "token_invalid"


class RecordingEnded(RecorderError):
    code = "recording_ended"

    def __init__(self, message: str = "this recording has ended; its token no longer works") -> None:
        super().__init__(message)


class TooManyStreams(RecorderError):
    """The recording already has MAX_STREAMS streams; a new tab key opens no more."""

    code = "too_many_streams"

    def __init__(self) -> None:
        super().__init__(
            f"this recording already has {MAX_STREAMS} streams (page instances), the most one may "
            "have; no more are opened"
        )


class RecordingNotFound(RecorderError):
    code = "recording_not_found"


class BatchRefused(RecorderError):
    """A batch that cannot be stored as sent; nothing from it was stored."""

    code = "refused"


class RepeatedSeq(BatchRefused):
    code = "repeated_seq"


class NotContiguous(BatchRefused):
    code = "not_contiguous"


class SeqGap(BatchRefused):
    """The batch starts beyond `acked_seq + 1`; the client must resend from `acked_seq + 1`."""

    code = "gap"

    def __init__(self, *, acked_seq: int, first_seq: int) -> None:
        super().__init__(
            f"batch starts at seq {first_seq} but the server has everything only up to {acked_seq}; "
            f"resend from seq {acked_seq + 1}"
        )
        self.acked_seq = acked_seq


@dataclass(frozen=True)
class IngestResult:
    """Outcome of one stored batch: the new ack, rows written and events dropped as duplicates."""

    acked_seq: int
    stored: int
    duplicates: int


# ---------------------------------------------------------------------------- recordings
def create_recording(
    session: Session,
    *,
    kind: str,
    label: str | None = None,
    mask_all_text: bool = False,
    mousemove_sample_ms: int = 100,
    mask_selectors: Sequence[str] = (),
) -> Recording:
    """Create and commit an active recording (kind "attempt", "standalone" or "agent").

    `mask_selectors` are CSS selectors of fields whose typed text the recorder masks (a site's
    declared sensitive fields plus the study's own).
    """
    if kind not in RECORDING_KINDS:
        raise ValueError(f"kind must be one of {RECORDING_KINDS}, not {kind!r}")
    if label is not None and len(label) > LABEL_MAX_LENGTH:
        raise ValueError(f"the label is {len(label)} characters long; at most {LABEL_MAX_LENGTH} fit.")
    if mousemove_sample_ms < 0:
        raise ValueError("mousemove_sample_ms must be >= 0")
    selectors = check_mask_selectors(mask_selectors)
    recording = Recording(
        kind=kind,
        label=label,
        mask_all_text=mask_all_text,
        mousemove_sample_ms=mousemove_sample_ms,
        mask_selectors=json.dumps(selectors) if selectors else None,
    )
    session.add(recording)
    session.commit()
    session.refresh(recording)
    return recording


MAX_MASK_SELECTORS = 100


def check_mask_selectors(selectors: Sequence[str]) -> list[str]:
    """The selectors as a clean list; `ValueError` for an empty, over-long or non-string one.

    Whether each is valid CSS is checked by the browser (the recorder ignores, and reports in the
    console, a selector it cannot parse); here only what can be told without one.
    """
    if isinstance(selectors, str):
        raise TypeError("mask_selectors must be a list of CSS selectors, not one string")
    out = []
    for selector in selectors:
        if not isinstance(selector, str) or not selector.strip() or len(selector) > 500:
            raise ValueError(
                f"mask selector {selector!r} must be a non-empty CSS selector of at most 500 characters"
            )
        out.append(selector.strip())
    if len(out) > MAX_MASK_SELECTORS:
        raise ValueError(f"at most {MAX_MASK_SELECTORS} mask selectors, not {len(out)}")
    return list(dict.fromkeys(out))


def mask_selectors_of(recording: Recording) -> list[str]:
    """The recording's mask selectors as a list."""
    return json.loads(recording.mask_selectors) if recording.mask_selectors else []


def resolve_stream(session: Session, *, recording_id: int, tab: str | None) -> tuple[int, int]:
    """(stream number, its ack) of the tab with this key in the recording, creating the stream if new.

    The first stream of a recording is 0, the next 1, and so on. `tab=None` (a recorder that sends
    no key) is stream 0. Commits when it creates a stream; raises `TooManyStreams` when a new one
    would be past MAX_STREAMS (a known tab key always finds its stream).
    """
    table = table_of(RecordingStream)
    for _ in range(20):
        if tab is None:
            found = session.execute(
                select(table.c.stream, table.c.acked_seq).where(
                    table.c.recording_id == recording_id, table.c.stream == 0
                )
            ).one_or_none()
        else:
            found = session.execute(
                select(table.c.stream, table.c.acked_seq).where(
                    table.c.recording_id == recording_id, table.c.tab == tab
                )
            ).one_or_none()
        if found is not None:
            return found.stream, found.acked_seq
        if tab is None:
            stream = 0
        else:
            highest = session.execute(
                select(func.max(table.c.stream)).where(table.c.recording_id == recording_id)
            ).scalar()
            stream = 0 if highest is None else highest + 1
            if stream >= MAX_STREAMS:
                # One token could otherwise open a stream per made-up tab key, without end.
                raise TooManyStreams()
        try:
            session.execute(
                table.insert().values(recording_id=recording_id, stream=stream, tab=tab, acked_seq=-1)
            )
            session.commit()
            return stream, -1
        except IntegrityError:
            session.rollback()  # another tab took this number (or this key) meanwhile: look again
    raise RecorderError("could not allocate a stream for this tab")


def get_recording(session: Session, *, recording_id: int) -> Recording:
    """The recording with this id, or `RecordingNotFound`."""
    recording = session.get(Recording, recording_id)
    if recording is None:
        raise RecordingNotFound(f"no recording {recording_id}")
    return recording


def end_recording(session: Session, *, recording_id: int) -> Recording:
    """Mark a recording ended (idempotent); its token stops working for new events."""
    recording = get_recording(session, recording_id=recording_id)
    if recording.status != "ended":
        recording.status = "ended"
        recording.ended_at = datetime.now(UTC)
        session.add(recording)
        session.commit()
        session.refresh(recording)
    return recording


def store_meta(
    session: Session, *, recording: Recording, meta: MetaMessage, commit: bool = True
) -> Recording:
    """Record the browser context (user agent, viewport, screen) of a recording."""
    connection = session.connection()
    acked = _require_active(connection, recording_id=recording.id)
    set_committed_value(recording, "acked_seq", acked)
    values = {
        "user_agent": meta.user_agent,
        "viewport_w": meta.viewport_w,
        "viewport_h": meta.viewport_h,
        "screen_w": meta.screen_w,
        "screen_h": meta.screen_h,
    }
    # A Core UPDATE: the same recording may arrive as different detached objects from several sockets.
    connection.execute(update(_RECORDING).where(_RECORDING.c.id == recording.id).values(**values))
    for name, value in values.items():
        set_committed_value(recording, name, value)
    if commit:
        session.commit()
    return recording


# ---------------------------------------------------------------------------- tokens
MAX_RECORDING_ID = 2**31 - 1
"""Recording ids are INTEGER columns (32-bit on PostgreSQL); a token naming a larger one names none."""


def issue_token(*, secret_key: str, recording_id: int) -> str:
    """A signed token that lets a recorder write into this one recording."""
    return URLSafeSerializer(secret_key, salt=TOKEN_SALT).dumps({"rid": int(recording_id)})


def read_token(*, secret_key: str, token: str) -> int:
    """The recording id a token is scoped to, without touching the database."""
    try:
        payload = URLSafeSerializer(secret_key, salt=TOKEN_SALT).loads(token)
    except (BadData, UnicodeError, ValueError, TypeError) as exc:
        raise TokenInvalid("the recorder token is not valid (bad signature or malformed)") from exc
    rid = payload.get("rid") if isinstance(payload, dict) else None
    if not isinstance(rid, int) or isinstance(rid, bool):
        raise TokenInvalid("the recorder token is not valid (no recording in it)")
    if not 1 <= rid <= MAX_RECORDING_ID:  # the database would fail on it (an overflow), not find nothing
        raise TokenInvalid("the recorder token names a recording that does not exist")
    return rid


def resolve_token(session: Session, *, secret_key: str, token: str) -> Recording:
    """The active recording a token belongs to; `TokenInvalid` or `RecordingEnded` otherwise."""
    recording_id = read_token(secret_key=secret_key, token=token)
    recording = session.get(Recording, recording_id)
    if recording is None:
        raise TokenInvalid("the recorder token names a recording that does not exist")
    if recording.status == "ended":
        raise RecordingEnded()
    return recording


# ---------------------------------------------------------------------------- ingestion
def check_sequence(events: Sequence[EventIn]) -> None:
    """Refuse a batch whose seqs repeat or skip (`RepeatedSeq`, `NotContiguous`)."""
    if not events:
        return
    first = events[0].seq
    if [event.seq for event in events] == list(range(first, first + len(events))):
        return  # the usual case, checked without a Python-level loop per pair
    for prev, cur in zip(events, events[1:], strict=False):
        if cur.seq == prev.seq + 1:
            continue
        seen = {e.seq for e in events}
        if len(seen) != len(events):
            raise RepeatedSeq(f"seq {_first_repeat(events)} appears more than once in the batch")
        raise NotContiguous(
            f"seqs in a batch must be contiguous and increasing; seq {cur.seq} follows seq {prev.seq}"
        )


def _first_repeat(events: Sequence[EventIn]) -> int:
    seen: set[int] = set()
    for event in events:
        if event.seq in seen:
            return event.seq
        seen.add(event.seq)
    raise AssertionError("no repeated seq")


# Statements of the hot path, built once: building SQL expressions costs more than running them.
_RECORDING = table_of(Recording)
_RAW_EVENT = table_of(RawEvent)
_SELECT_ACK = select(_RECORDING.c.acked_seq, _RECORDING.c.status).where(_RECORDING.c.id == bindparam("rid"))
_INSERT_COLUMNS = ("recording_id", "stream", *RAW_EVENT_FIELDS)
Item = tuple[int, int, Sequence[EventIn]]
"""A batch to store: (recording id, stream, events)."""


@lru_cache(maxsize=1)
def _sqlite_insert_ignoring_duplicates() -> Insert:
    """SQLite's INSERT ... ON CONFLICT (recording_id, stream, seq) DO NOTHING for raw events."""
    return sqlite_insert(_RAW_EVENT).on_conflict_do_nothing(index_elements=["recording_id", "stream", "seq"])


@lru_cache(maxsize=512)
def _sqlite_insert_sql(columns: tuple[str, ...], rows: int) -> str:
    """The SQLite statement for `rows` rows of these columns in one multi-row VALUES, positional.

    One statement per shape and size rather than an executemany: sqlite3 releases the GIL around
    every statement step, and on a busy event loop each re-acquisition can wait a whole switch
    interval. One flat list of parameters also skips SQLAlchemy's per-row parameter processing.
    """
    compiled = _sqlite_insert_ignoring_duplicates().compile(
        dialect=sqlite_dialect(), column_keys=list(columns)
    )
    if tuple(compiled.positiontup or ()) != columns:
        raise AssertionError(f"unexpected parameter order {compiled.positiontup}")
    found = re.fullmatch(r"(.* VALUES )(\([?, ]+\))( ON CONFLICT .*)", str(compiled), re.S)
    if found is None:
        raise AssertionError(f"unexpected statement {compiled}")
    head, placeholders, tail = found.groups()
    return head + ", ".join([placeholders] * rows) + tail


# SQLite's default limit is 32766 bound variables per statement; stay well below it.
_SQLITE_ROWS_PER_STATEMENT = 1024


@cache
def _event_columns(model: type[BaseModel]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The raw event columns an event model fills, in table order, and those of them that may be null."""
    fields = model.model_fields
    present = tuple(name for name in RAW_EVENT_FIELDS if name in fields)
    nullable = tuple(name for name in present if type(None) in get_args(fields[name].annotation))
    return present, nullable


def _params_by_shape(rows: Sequence[tuple[int, int, EventIn]]) -> dict[tuple[str, ...], list[Any]]:
    """The rows' parameters grouped by the columns they really fill, flat and in row order:
    {("recording_id", "stream", the event's non-null fields...): [rid, stream, value, ..., rid, ...]}.

    A NULL is written by leaving its column out, never by binding None: Python 3.11's sqlite3 adapts
    every None parameter through its adapter protocol, raising and clearing two AttributeErrors on
    the way (900 ns per None against 90 ns per int, holding the GIL), and a raw event row is
    mostly nulls. Inserting the rows of benchmarks/ingest.py in isolation took 12-13 us a row with
    every column bound, 7-8 this way; the recorder server's CPU per event went from 34 to 24 us.
    Realistic traces make 6-12 shapes; each uses up to 11 statement sizes, so past about a dozen
    shapes sqlite3's statement cache (128 a connection) starts preparing some statements again.
    """
    shapes: dict[tuple[Any, ...], tuple[tuple[str, ...], Callable[[dict[str, Any]], Any], list[Any]]] = {}
    for recording_id, stream, event in rows:
        values = event.__dict__
        model = type(event)
        present, nullable = _event_columns(model)
        key = (model, *[values[name] is None for name in nullable])
        shape = shapes.get(key)
        if shape is None:
            nulls = {name for name, null in zip(nullable, key[1:], strict=True) if null}
            columns = ("recording_id", "stream", *(name for name in present if name not in nulls))
            shape = shapes[key] = (columns, itemgetter(*columns[2:]), [])
        params = shape[2]
        params.append(recording_id)
        params.append(stream)
        params.extend(shape[1](values))
    grouped: dict[tuple[str, ...], list[Any]] = {}
    for columns, _, params in shapes.values():
        grouped.setdefault(columns, []).extend(params)
    return grouped


def _insert_sqlite_rows(cursor: DBAPICursor, rows: Sequence[tuple[int, int, EventIn]]) -> None:
    """Insert (recording id, stream, event) rows, skipping any already stored: a few statements per shape."""
    for columns, params in _params_by_shape(rows).items():
        width = len(columns)
        start = 0
        for take, size in _padded_sizes(len(params) // width):
            chunk = params[start * width : (start + take) * width]
            start += take
            # Padding repeats the last row: the unique key makes each repeat a no-op.
            chunk.extend(chunk[-width:] * (size - take))
            cursor.execute(_sqlite_insert_sql(columns, size), chunk)


def _dbapi(connection: Connection) -> DBAPIConnection:
    """The driver's connection under a SQLAlchemy connection (the hot paths use its cursor)."""
    dbapi = connection.connection.dbapi_connection
    if dbapi is None:
        raise RuntimeError("the database connection is closed")
    return dbapi


def saved_id(recording: Recording) -> int:
    """A stored recording's id (SQLModel types `id` as optional because it is unset before insert)."""
    if recording.id is None:
        raise RecordingNotFound("the recording is not stored yet")
    return recording.id


def _require_active(connection: Connection, *, recording_id: int | None) -> int:
    row = connection.execute(_SELECT_ACK, {"rid": recording_id}).one_or_none()
    if row is None:
        raise RecordingNotFound(f"no recording {recording_id}")
    if row.status == "ended":
        raise RecordingEnded()
    return int(row.acked_seq)


def ingest_batch(
    session: Session, *, recording: Recording, batch: BatchMessage, stream: int = 0, commit: bool = True
) -> IngestResult:
    """Store a batch of one stream exactly once and advance the stream's ack (and the recording's count).

    Raises `RepeatedSeq` / `NotContiguous` for a malformed sequence, `SeqGap` when the batch starts
    beyond the ack, `RecordingEnded` for an ended recording; in each case nothing is written.
    With `commit=False` the caller commits. Only `recording.id` is read; the new ack is set on the
    object without marking it dirty.
    """
    (outcome,) = ingest_batches(session, [(saved_id(recording), stream, batch.events)])
    if isinstance(outcome, RecorderError):
        raise outcome
    total = session.execute(
        select(_RECORDING.c.acked_seq).where(_RECORDING.c.id == recording.id)
    ).scalar_one()
    set_committed_value(recording, "acked_seq", total)
    if commit:
        session.commit()
    return outcome


def ingest_batches(
    session: Session, items: Sequence[Item | tuple[int, Sequence[EventIn]]], *, checked: Sequence[bool] = ()
) -> list[IngestResult | RecorderError]:
    """Store many batches (recording id, stream, events) in the session's transaction; the caller commits.

    One outcome per item, in order: its `IngestResult`, or the `RecorderError` that refused it
    (nothing of a refused item is written; the others are). Items are applied in order, so two
    batches of the same recording in one call behave as two calls. This is what the ingestion
    writer runs for every group of batches it commits together. `checked[i]` true says item i's
    seqs were already checked with `check_sequence` (the websocket path does it before queueing).
    An item of two, (recording id, events), is stream 0.
    """
    full = [_with_stream(item) for item in items]
    outcomes: list[IngestResult | RecorderError | None] = [None] * len(full)
    valid: list[int] = []
    for i, (_, _, events) in enumerate(full):
        if i < len(checked) and checked[i]:
            valid.append(i)
            continue
        try:
            check_sequence(events)
            valid.append(i)
        except BatchRefused as exc:
            outcomes[i] = exc
    connection = session.connection()
    if connection.dialect.name == "sqlite":
        for i, outcome in zip(valid, _ingest_sqlite(connection, [full[i] for i in valid]), strict=True):
            outcomes[i] = outcome
        return _every_outcome(outcomes)
    if connection.dialect.name == "postgresql":
        for i, outcome in zip(valid, _ingest_postgres(connection, [full[i] for i in valid]), strict=True):
            outcomes[i] = outcome
        return _every_outcome(outcomes)
    raise NotImplementedError(
        f"recorder ingestion supports SQLite and PostgreSQL, not {connection.dialect.name}"
    )


def _with_stream(item: Item | tuple[int, Sequence[EventIn]]) -> Item:
    """The item as (recording id, stream, events); an item of two is stream 0."""
    if len(item) == 3:
        return item
    recording_id, events = item
    return (recording_id, 0, events)


def _every_outcome(outcomes: list[IngestResult | RecorderError | None]) -> list[IngestResult | RecorderError]:
    """The outcomes, once every item has one (a None left over would be a bug in the group paths)."""
    every = [outcome for outcome in outcomes if outcome is not None]
    if len(every) != len(outcomes):
        raise AssertionError("an ingested item got no outcome")
    return every


def _fresh(
    recording_id: int, events: Sequence[EventIn], acked: int | None, status: str | None
) -> IngestResult | RecorderError | Sequence[EventIn]:
    """The events of a batch still to store, or the outcome when there are none to store."""
    if status is None or acked is None:  # both are read together: None when there is no recording
        return RecordingNotFound(f"no recording {recording_id}")
    if status == "ended":
        return RecordingEnded()
    fresh = [e for e in events if e.seq > acked] if events and events[0].seq <= acked else events
    if not fresh:
        return IngestResult(acked_seq=acked, stored=0, duplicates=len(events))
    if fresh[0].seq > acked + 1:
        return SeqGap(acked_seq=acked, first_seq=fresh[0].seq)
    return fresh


def _ingest_sqlite(connection: Connection, items: Sequence[Item]) -> list[IngestResult | RecorderError]:
    """SQLite: every batch of the group in a handful of statements, on the driver's cursor.

    This is the ingestion hot path. Per batch, three statements (ack, insert, ack) through
    SQLAlchemy cost more than SQLite's own work, and every statement hands the GIL back and forth
    with the event loop; for a group they become one SELECT of all the acks, multi-row INSERTs of
    a few fixed sizes per row shape (`_insert_sqlite_rows`) and one UPDATE of all the acks
    (benchmarks/ingest.py). The statements run in the session's transaction (same DBAPI
    connection). The ack only grows (`max`), so a concurrent writer that got further is never
    moved backwards. `stored` assumes no other process stored the same rows meanwhile (the unique
    key drops them either way).
    """
    cursor = _dbapi(connection).cursor()
    try:
        keys = list(dict.fromkeys((recording_id, stream) for recording_id, stream, _ in items))
        (found,) = cursor.execute(_SQLITE_SELECT_ACKS, (json.dumps(keys),)).fetchone()
        acks = {(rid, stream): (acked, status) for rid, stream, acked, status in json.loads(found)}
        outcomes, to_store, advanced = _plan_group(items, acks)
        _insert_sqlite_rows(
            cursor,
            [(items[index][0], items[index][1], event) for index, fresh in to_store for event in fresh],
        )
        for index, fresh in to_store:
            stored = len(fresh)
            outcomes[index] = IngestResult(
                acked_seq=fresh[-1].seq, stored=stored, duplicates=len(items[index][2]) - stored
            )
        if advanced:
            cursor.execute(
                _SQLITE_ADVANCE_ACKS,
                (json.dumps([[rid, stream, last] for (rid, stream), last in advanced.items()]),),
            )
            cursor.execute(_SQLITE_COUNT_ACKS, (json.dumps(list(dict.fromkeys(rid for rid, _ in advanced))),))
    finally:
        cursor.close()
    return _every_outcome(outcomes)


def _plan_group(
    items: Sequence[Item], acks: dict[tuple[int, int], tuple[int | None, str | None]]
) -> tuple[
    list[IngestResult | RecorderError | None], list[tuple[int, Sequence[EventIn]]], dict[tuple[int, int], int]
]:
    """What a group stores, given the stream acks read for it (both group paths share this).

    Returns one outcome per item (None for an item whose fresh events are stored, to be filled in),
    the (item index, fresh events) to store, and the new ack of every (recording, stream) that
    advances. Items are taken in order, so a later batch of the same stream sees the earlier one's ack.
    """
    outcomes: list[IngestResult | RecorderError | None] = []
    to_store: list[tuple[int, Sequence[EventIn]]] = []
    advanced: dict[tuple[int, int], int] = {}
    for index, (recording_id, stream, events) in enumerate(items):
        acked, status = acks.get((recording_id, stream), (None, None))
        fresh = _fresh(recording_id, events, acked, status)
        if isinstance(fresh, (IngestResult, RecorderError)):
            outcomes.append(fresh)
            continue
        last = fresh[-1].seq
        acks[(recording_id, stream)] = (last, status)
        advanced[(recording_id, stream)] = last
        to_store.append((index, fresh))
        outcomes.append(None)
    return outcomes, to_store, advanced


def _ingest_postgres(connection: Connection, items: Sequence[Item]) -> list[IngestResult | RecorderError]:
    """PostgreSQL: every batch of the group in three statements, on the driver's cursor.

    One SELECT of all the acks, one INSERT of all the rows from column arrays (`unnest`, so the
    statement text is the same for every group and the server keeps it prepared) with ON CONFLICT
    DO NOTHING RETURNING the rows really written, and one UPDATE of all the acks. Through
    SQLAlchemy the same work took three statements per batch (request_cost.py measures a batch).
    The ack only grows, so another process that stored further is never moved backwards; rows it
    stored meanwhile are skipped by the unique key and not counted as stored here.
    """
    cursor = _dbapi(connection).cursor()
    try:
        keys = list(dict.fromkeys((recording_id, stream) for recording_id, stream, _ in items))
        cursor.execute(_PG_SELECT_ACKS, ([k[0] for k in keys], [k[1] for k in keys]))
        acks = {(rid, stream): (acked, status) for rid, stream, acked, status in cursor.fetchall()}
        outcomes, to_store, advanced = _plan_group(items, acks)
        if to_store:
            columns: list[list[Any]] = [[] for _ in _INSERT_COLUMNS]
            for index, fresh in to_store:
                recording_id, stream = items[index][0], items[index][1]
                columns[0].extend([recording_id] * len(fresh))
                columns[1].extend([stream] * len(fresh))
                for column, field in zip(columns[2:], _INSERT_COLUMNS[2:], strict=True):
                    column.extend([event.__dict__.get(field) for event in fresh])
            cursor.execute(_pg_insert_sql(), columns)
            written = set(cursor.fetchall())
            for index, fresh in to_store:
                recording_id, stream = items[index][0], items[index][1]
                stored = sum((recording_id, stream, event.seq) in written for event in fresh)
                outcomes[index] = IngestResult(
                    acked_seq=fresh[-1].seq, stored=stored, duplicates=len(items[index][2]) - stored
                )
            cursor.execute(
                _PG_ADVANCE_ACKS,
                ([k[0] for k in advanced], [k[1] for k in advanced], list(advanced.values())),
            )
            cursor.execute(_PG_COUNT_ACKS, (list(dict.fromkeys(rid for rid, _ in advanced)),))
    finally:
        cursor.close()
    return _every_outcome(outcomes)


# A stream without a row yet (one created by `resolve_stream` always has one) reads as ack -1.
_PG_SELECT_ACKS = (
    "SELECT r.id, k.stream, coalesce(s.acked_seq, -1), r.status "
    "FROM unnest(%s::integer[], %s::integer[]) AS k(id, stream) JOIN recording r ON r.id = k.id "
    "LEFT JOIN recording_stream s ON s.recording_id = k.id AND s.stream = k.stream"
)
_PG_ADVANCE_ACKS = (
    "INSERT INTO recording_stream (recording_id, stream, acked_seq) "
    "SELECT * FROM unnest(%s::integer[], %s::integer[], %s::integer[]) "
    "ON CONFLICT (recording_id, stream) DO UPDATE SET acked_seq = greatest(recording_stream.acked_seq, excluded.acked_seq)"
)
# The recording's count, recomputed from its streams (right whatever other processes advanced).
_PG_COUNT_ACKS = (
    "UPDATE recording SET acked_seq = (SELECT coalesce(sum(s.acked_seq + 1), 0) - 1 FROM recording_stream s "
    "WHERE s.recording_id = recording.id) WHERE recording.id = ANY(%s)"
)


@lru_cache(maxsize=1)
def _pg_insert_sql() -> str:
    """INSERT INTO raw_event (...) SELECT * FROM unnest(one typed array per column) ..."""
    from sqlalchemy.dialects import postgresql

    # SQLAlchemy's dialect constructors carry no annotations.
    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]
    # Casts without a length: a too-long value must fail as it would in a plain INSERT, not be cut.
    types = [
        re.sub(r"\(\d+\)", "", _RAW_EVENT.c[name].type.compile(dialect=dialect)) for name in _INSERT_COLUMNS
    ]
    arrays = ", ".join(f"%s::{name}[]" for name in types)
    return (
        f"INSERT INTO raw_event ({', '.join(_INSERT_COLUMNS)}) SELECT * FROM unnest({arrays}) "
        "ON CONFLICT (recording_id, stream, seq) DO NOTHING RETURNING recording_id, stream, seq"
    )


# Constant SQL (so sqlite3 prepares each statement once): the ids and acks travel as one JSON array.
# The acks come back as one row (one JSON array): sqlite3 hands the GIL back and forth on every
# row it steps through, and under load each hand-back can wait a whole switch interval (5 ms).
_SQLITE_SELECT_ACKS = (
    "SELECT json_group_array(json_array(r.id, json_extract(k.value, '$[1]'), coalesce(s.acked_seq, -1), r.status)) "
    "FROM json_each(?) AS k JOIN recording r ON r.id = json_extract(k.value, '$[0]') "
    "LEFT JOIN recording_stream s ON s.recording_id = r.id AND s.stream = json_extract(k.value, '$[1]')"
)
_SQLITE_ADVANCE_ACKS = (
    "INSERT INTO recording_stream (recording_id, stream, acked_seq) "
    "SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(?) WHERE true "
    "ON CONFLICT (recording_id, stream) DO UPDATE SET acked_seq = max(recording_stream.acked_seq, excluded.acked_seq)"
)
_SQLITE_COUNT_ACKS = (
    "UPDATE recording SET acked_seq = (SELECT coalesce(sum(s.acked_seq + 1), 0) - 1 FROM recording_stream s "
    "WHERE s.recording_id = recording.id) WHERE recording.id IN (SELECT value FROM json_each(?))"
)


def _padded_sizes(rows: int) -> list[tuple[int, int]]:
    """(rows taken, statement size) pairs covering `rows` rows with few statements of few sizes.

    Each distinct size is a distinct statement for SQLite to prepare (a 1024-row VALUES list costs
    about 2 us a row to parse, more than inserting it), so sizes are powers of two up to
    `_SQLITE_ROWS_PER_STATEMENT` and stay in sqlite3's statement cache. Whole statements of the
    largest size come first; the rest takes at most two: the largest power of two that fits,
    exactly, then what remains padded up to the next power of two (padding is under half a
    statement, and padded rows cost a unique-key lookup each, not a write).
    """
    sizes = [(_SQLITE_ROWS_PER_STATEMENT, _SQLITE_ROWS_PER_STATEMENT)] * (rows // _SQLITE_ROWS_PER_STATEMENT)
    rest = rows % _SQLITE_ROWS_PER_STATEMENT
    if rest:
        exact = 1 << (rest.bit_length() - 1)
        sizes.append((exact, exact))
        rest -= exact
        if rest:
            sizes.append((rest, 1 << (rest - 1).bit_length()))
    return sizes


def stream_ack(session: Session, *, recording_id: int, stream: int) -> int:
    """The highest seq of this stream stored contiguously from 0 (-1 when none is)."""
    table = table_of(RecordingStream)
    acked = session.execute(
        select(table.c.acked_seq).where(table.c.recording_id == recording_id, table.c.stream == stream)
    ).scalar_one_or_none()
    return -1 if acked is None else acked


def count_acked(session: Session, *, recording_id: int) -> int:
    """How many events of the recording are acknowledged (stored contiguously from seq 0)."""
    acked = session.execute(
        select(_RECORDING.c.acked_seq).where(_RECORDING.c.id == recording_id)
    ).scalar_one_or_none()
    if acked is None:
        raise RecordingNotFound(f"no recording {recording_id}")
    return int(acked) + 1


# ---------------------------------------------------------------------------- reading
RAW_COLUMNS: tuple[str, ...] = ("attempt_id", "stream", *RAW_EVENT_FIELDS)
_DTYPES = {
    "attempt_id": "int64",
    "stream": "int64",
    "seq": "int64",
    "t_ms": "int64",
    "type": "str",
    "xpath": "str",
    "url": "str",
    "x": "float64",
    "y": "float64",
    "key": "str",
    "value": "str",
    "scroll_x": "float64",
    "scroll_y": "float64",
    "dx": "float64",
    "dy": "float64",
    "nav": "str",
    "added": "Int64",
    "removed": "Int64",
    "attributes": "Int64",
    "width": "Int64",
    "height": "Int64",
    "state": "str",
    "frame_xpath": "str",
}


def events_frame(session: Session, *, recording_ids: Sequence[int]) -> pd.DataFrame:
    """The raw events of these recordings, ordered by (attempt_id, stream, seq), in the agreed columns.

    `attempt_id` holds the recording id (the export renames the column, not the value's meaning:
    the dashboard maps attempts to recordings). `frame_xpath` is "" for the top document.
    """
    table = _RAW_EVENT
    columns = [
        table.c.recording_id.label("attempt_id"),
        table.c.stream,
        *(
            table.c[name]
            if name != "frame_xpath"
            else func.coalesce(table.c.frame_xpath, "").label("frame_xpath")
            for name in RAW_EVENT_FIELDS
        ),
    ]
    ids = [int(i) for i in recording_ids]
    rows = (
        session.execute(
            select(*columns)
            .where(table.c.recording_id.in_(ids))
            .order_by(table.c.recording_id, table.c.stream, table.c.seq)
        ).all()
        if ids
        else []
    )
    # Column by column, each built with its dtype: about twice as fast as a frame of records
    # converted afterwards, and this runs inside every Evaluate.
    values = list(zip(*rows, strict=True)) if rows else [()] * len(RAW_COLUMNS)
    return pd.DataFrame(
        {
            name: pd.Series(column, dtype=_DTYPES[name])
            for name, column in zip(RAW_COLUMNS, values, strict=True)
        }
    )
