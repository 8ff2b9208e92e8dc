"""Fixtures for the recorder tests: databases with the recorder tables, batches, live servers."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, SQLModel, create_engine

from recorder.models import RawEvent, Recording
from recorder.schemas import BatchMessage, parse_client_message
from recorder.sqlite_tuning import tune_sqlite

SECRET = "test-secret-key-for-recorder"
RECORDER_TABLES = [Recording.__table__, RawEvent.__table__]


def make_engine(url: str) -> Engine:
    engine = create_engine(url)
    tune_sqlite(engine)
    SQLModel.metadata.create_all(engine, tables=RECORDER_TABLES)
    return engine


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    """Recorder tables on SQLite and on PostgreSQL."""
    eng = make_engine(db_url)
    yield eng
    eng.dispose()


@pytest.fixture
def sqlite_engine(sqlite_url: str) -> Iterator[Engine]:
    eng = make_engine(sqlite_url)
    yield eng
    eng.dispose()


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    with Session(engine) as s:
        yield s


def event_dicts(start: int, count: int, *, type_: str = "keydown") -> list[dict]:
    """`count` valid events of one type with seqs start..start+count-1."""
    out = []
    for seq in range(start, start + count):
        event: dict = {"type": type_, "seq": seq, "t_ms": 1_700_000_000_000 + seq, "xpath": "/html/body/input[1]", "url": "http://shop.test/"}
        if type_ == "keydown":
            event["key"] = "abcdefghijklmnopqrstuvwxyz"[seq % 26]
        elif type_ in ("click", "mousemove"):
            event.update(x=10.5 + seq, y=20.0)
        elif type_ == "input":
            event["value"] = f"v{seq}"
        out.append(event)
    return out


@pytest.fixture
def make_batch() -> Callable[..., BatchMessage]:
    """make_batch(start, count) -> a validated BatchMessage of keydown events."""

    def build(start: int, count: int, *, type_: str = "keydown") -> BatchMessage:
        message = parse_client_message(json.dumps({"type": "batch", "events": event_dicts(start, count, type_=type_)}))
        assert isinstance(message, BatchMessage)
        return message

    return build


@pytest.fixture
def batch_json() -> Callable[..., str]:
    """batch_json(start, count) -> the JSON text of a batch frame."""

    def build(start: int, count: int, *, type_: str = "keydown") -> str:
        return json.dumps({"type": "batch", "events": event_dicts(start, count, type_=type_)})

    return build
