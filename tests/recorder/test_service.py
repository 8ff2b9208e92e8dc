"""Recording lifecycle, tokens and exactly-once ingestion, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import threading
from typing import Any

import pandas as pd
import pytest
from sqlalchemy import inspect, select
from sqlmodel import Session, col

from humantrace.recorder import service
from humantrace.recorder.models import RawEvent, Recording
from humantrace.recorder.schemas import BatchMessage, MetaMessage, parse_client_message

SECRET = "test-secret-key-for-recorder"


def stored_seqs(engine, recording_id: int) -> list[int]:
    with Session(engine) as s:
        return list(
            s.execute(
                select(col(RawEvent.seq))
                .where(col(RawEvent.recording_id) == recording_id)
                .order_by(col(RawEvent.seq))
            ).scalars()
        )


def fresh_ack(engine, recording_id: int) -> int:
    with Session(engine) as s:
        return s.execute(
            select(col(Recording.acked_seq)).where(col(Recording.id) == recording_id)
        ).scalar_one()


def test_create_recording_defaults(session):
    rec = service.create_recording(
        session, kind="standalone", label="demo", mask_all_text=True, mousemove_sample_ms=50
    )
    assert rec.id is not None
    assert (rec.kind, rec.label, rec.status, rec.acked_seq) == ("standalone", "demo", "active", -1)
    assert rec.mask_all_text is True and rec.mousemove_sample_ms == 50
    with pytest.raises(ValueError, match="kind"):
        service.create_recording(session, kind="bogus")


def test_token_round_trip_and_refusals(session):
    a = service.create_recording(session, kind="attempt")
    b = service.create_recording(session, kind="attempt")
    token_a = service.issue_token(secret_key=SECRET, recording_id=a.id)
    assert service.resolve_token(session, secret_key=SECRET, token=token_a).id == a.id
    assert (
        service.resolve_token(
            session, secret_key=SECRET, token=service.issue_token(secret_key=SECRET, recording_id=b.id)
        ).id
        == b.id
    )

    for bad in [
        "",
        "garbage",
        token_a[:-2] + "xx",
        service.issue_token(secret_key="another-secret", recording_id=a.id),
    ]:
        with pytest.raises(service.TokenInvalid):
            service.resolve_token(session, secret_key=SECRET, token=bad)
    with pytest.raises(service.TokenInvalid, match="does not exist"):
        service.resolve_token(
            session, secret_key=SECRET, token=service.issue_token(secret_key=SECRET, recording_id=999_999)
        )

    service.end_recording(session, recording_id=a.id)
    with pytest.raises(service.RecordingEnded, match="this recording has ended; its token no longer works"):
        service.resolve_token(session, secret_key=SECRET, token=token_a)


def test_ingest_is_exactly_once(engine, session, make_batch):
    rec = service.create_recording(session, kind="attempt")
    first = service.ingest_batch(session, recording=rec, batch=make_batch(0, 10))
    assert first == service.IngestResult(acked_seq=9, stored=10, duplicates=0)
    overlap = service.ingest_batch(session, recording=rec, batch=make_batch(5, 10))
    assert overlap == service.IngestResult(acked_seq=14, stored=5, duplicates=5)
    replay = service.ingest_batch(session, recording=rec, batch=make_batch(0, 15))
    assert replay == service.IngestResult(acked_seq=14, stored=0, duplicates=15)
    assert stored_seqs(engine, rec.id) == list(range(15))
    assert fresh_ack(engine, rec.id) == 14
    assert service.count_acked(session, recording_id=rec.id) == 15


def test_gap_is_refused_and_nothing_stored(engine, session, make_batch):
    rec = service.create_recording(session, kind="attempt")
    service.ingest_batch(session, recording=rec, batch=make_batch(0, 5))
    with pytest.raises(service.SeqGap) as info:
        service.ingest_batch(session, recording=rec, batch=make_batch(7, 3))
    assert info.value.acked_seq == 4
    assert "resend from seq 5" in str(info.value)
    assert stored_seqs(engine, rec.id) == list(range(5))
    # The first batch of a recording must start at seq 0.
    other = service.create_recording(session, kind="attempt")
    with pytest.raises(service.SeqGap):
        service.ingest_batch(session, recording=other, batch=make_batch(1, 3))
    assert stored_seqs(engine, other.id) == []


def test_repeated_and_non_contiguous_seqs_are_refused(engine, session):
    rec = service.create_recording(session, kind="attempt")

    def batch(seqs):
        return parse_client_message(
            json.dumps({"type": "batch", "events": [{"type": "submit", "seq": s, "t_ms": 1} for s in seqs]})
        )

    with pytest.raises(service.RepeatedSeq, match="seq 1 appears more than once"):
        service.ingest_batch(session, recording=rec, batch=batch([0, 1, 1, 2]))
    with pytest.raises(service.NotContiguous, match="seq 3 follows seq 1"):
        service.ingest_batch(session, recording=rec, batch=batch([0, 1, 3]))
    with pytest.raises(service.NotContiguous):
        service.ingest_batch(session, recording=rec, batch=batch([2, 1, 0]))
    assert stored_seqs(engine, rec.id) == []
    assert fresh_ack(engine, rec.id) == -1


def test_ended_recording_takes_no_events(engine, session, make_batch):
    rec = service.create_recording(session, kind="attempt")
    service.ingest_batch(session, recording=rec, batch=make_batch(0, 3))
    ended = service.end_recording(session, recording_id=rec.id)
    assert ended.status == "ended" and ended.ended_at is not None
    with pytest.raises(service.RecordingEnded):
        service.ingest_batch(session, recording=rec, batch=make_batch(3, 3))
    assert stored_seqs(engine, rec.id) == [0, 1, 2]


def test_recordings_are_isolated(engine, session, make_batch):
    a = service.create_recording(session, kind="attempt")
    b = service.create_recording(session, kind="standalone")
    service.ingest_batch(session, recording=a, batch=make_batch(0, 4))
    service.ingest_batch(session, recording=b, batch=make_batch(0, 2))
    assert stored_seqs(engine, a.id) == [0, 1, 2, 3]
    assert stored_seqs(engine, b.id) == [0, 1]


def test_a_group_of_batches_is_stored_as_if_one_at_a_time(engine, session, make_batch):
    """The writer stores every batch of a group together: each item gets its own outcome, in order."""
    a = service.create_recording(session, kind="attempt")
    b = service.create_recording(session, kind="attempt")
    ended = service.create_recording(session, kind="attempt")
    service.end_recording(session, recording_id=ended.id)
    repeated = parse_client_message(
        json.dumps(
            {
                "type": "batch",
                "events": [{"seq": 0, "t_ms": 1, "type": "focus"}, {"seq": 0, "t_ms": 2, "type": "blur"}],
            }
        )
    ).events
    items = [
        (a.id, make_batch(0, 50).events),
        (b.id, make_batch(0, 3).events),
        (a.id, make_batch(40, 20).events),  # overlaps the first item: 10 duplicates, 10 new
        (b.id, make_batch(9, 2).events),  # starts beyond b's ack (2): a gap
        (ended.id, make_batch(0, 2).events),
        (999_999, make_batch(0, 2).events),
        (b.id, repeated),
        (b.id, make_batch(3, 1).events),
    ]
    outcomes = service.ingest_batches(session, items)
    session.commit()
    assert outcomes[0] == service.IngestResult(acked_seq=49, stored=50, duplicates=0)
    assert outcomes[1] == service.IngestResult(acked_seq=2, stored=3, duplicates=0)
    assert outcomes[2] == service.IngestResult(acked_seq=59, stored=10, duplicates=10)
    assert isinstance(outcomes[3], service.SeqGap) and outcomes[3].acked_seq == 2
    assert isinstance(outcomes[4], service.RecordingEnded)
    assert isinstance(outcomes[5], service.RecordingNotFound)
    assert isinstance(outcomes[6], service.RepeatedSeq)
    assert outcomes[7] == service.IngestResult(acked_seq=3, stored=1, duplicates=0)
    assert stored_seqs(engine, a.id) == list(range(60))
    assert stored_seqs(engine, b.id) == [0, 1, 2, 3]
    assert stored_seqs(engine, ended.id) == []
    assert (fresh_ack(engine, a.id), fresh_ack(engine, b.id), fresh_ack(engine, ended.id)) == (59, 3, -1)


def test_a_group_never_moves_an_ack_backwards(engine, session, make_batch):
    """Another process stored further meanwhile: a late group of older batches leaves the ack alone."""
    rec = service.create_recording(session, kind="attempt")
    with Session(engine) as other:
        service.ingest_batch(other, recording=other.get(Recording, rec.id), batch=make_batch(0, 30))
    outcomes = service.ingest_batches(session, [(rec.id, make_batch(0, 10).events)])
    session.commit()
    assert outcomes == [service.IngestResult(acked_seq=29, stored=0, duplicates=10)]
    assert fresh_ack(engine, rec.id) == 29
    assert stored_seqs(engine, rec.id) == list(range(30))


def test_rows_another_writer_stored_are_not_counted_twice(engine, session, make_batch):
    """Another process stored seqs 5-9 but has not advanced the ack yet: a batch 0-9 stores only
    0-4 and each seq is in the table once. On PostgreSQL `stored` counts only the rows really
    written (RETURNING); SQLite has a single writer, so there this case cannot arise in practice."""
    rec = service.create_recording(session, kind="attempt")
    session.commit()
    with Session(engine) as other:
        for event in make_batch(5, 5).events:
            other.add(RawEvent(recording_id=rec.id, **event.__dict__))
        other.commit()
    (outcome,) = service.ingest_batches(session, [(rec.id, make_batch(0, 10).events)])
    session.commit()
    assert outcome.acked_seq == 9
    assert stored_seqs(engine, rec.id) == list(range(10))
    if engine.dialect.name == "postgresql":
        assert (outcome.stored, outcome.duplicates) == (5, 5)


def test_an_unchecked_bad_batch_is_refused_beside_checked_ones(engine, session):
    """`checked` is for batches parse_frame already checked; an unchecked bad batch is still refused."""
    rec = service.create_recording(session, kind="attempt")
    session.commit()
    events = parse_client_message(
        json.dumps(
            {"type": "batch", "events": [{"type": "submit", "seq": seq, "t_ms": 1} for seq in (0, 1, 2)]}
        )
    ).events
    repeated = parse_client_message(
        json.dumps({"type": "batch", "events": [{"type": "submit", "seq": seq, "t_ms": 1} for seq in (3, 3)]})
    ).events
    outcomes = service.ingest_batches(session, [(rec.id, events), (rec.id, repeated)], checked=[True, False])
    session.commit()
    assert outcomes[0] == service.IngestResult(acked_seq=2, stored=3, duplicates=0)
    assert isinstance(outcomes[1], service.RepeatedSeq)
    assert stored_seqs(engine, rec.id) == [0, 1, 2]


def test_concurrent_overlapping_writers_never_lose_or_duplicate(engine, make_batch):
    """Two sessions (as two server processes would) resend overlapping batches at the same time."""
    with Session(engine) as s:
        rec_id = service.create_recording(s, kind="attempt").id
    errors: list[BaseException] = []

    def writer(offset: int) -> None:
        try:
            with Session(engine) as s:
                rec = s.get(Recording, rec_id)
                assert rec is not None
                start = 0
                while start < 200:
                    try:
                        result = service.ingest_batch(s, recording=rec, batch=make_batch(start, 10 + offset))
                        start = result.acked_seq + 1
                    except service.SeqGap as gap:
                        start = gap.acked_seq + 1
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    seqs = stored_seqs(engine, rec_id)
    assert seqs[:200] == list(range(200))
    assert len(seqs) == len(set(seqs))
    assert fresh_ack(engine, rec_id) == len(seqs) - 1


def test_meta_is_stored(engine, session):
    rec = service.create_recording(session, kind="attempt")
    meta = MetaMessage(
        type="meta",
        user_agent="Mozilla/5.0 test",
        viewport_w=1366,
        viewport_h=800,
        screen_w=1920,
        screen_h=1080,
    )
    service.store_meta(session, recording=rec, meta=meta)
    with Session(engine) as s:
        again = s.get(Recording, rec.id)
        assert (again.user_agent, again.viewport_w, again.viewport_h, again.screen_w, again.screen_h) == (
            "Mozilla/5.0 test",
            1366,
            800,
            1920,
            1080,
        )


def test_events_frame_has_the_agreed_columns(session):
    rec = service.create_recording(session, kind="attempt")
    events = [
        {
            "type": "navigation",
            "seq": 0,
            "t_ms": 1_700_000_000_000,
            "url": "http://shop.test/",
            "nav": "load",
        },
        {
            "type": "click",
            "seq": 1,
            "t_ms": 1_700_000_000_100,
            "xpath": "/html/body/button[1]",
            "x": 12.5,
            "y": 40,
        },
        {
            "type": "scroll",
            "seq": 2,
            "t_ms": 1_700_000_000_200,
            "xpath": "/html",
            "scroll_x": 0,
            "scroll_y": 300,
            "dx": 0,
            "dy": 300,
        },
        {
            "type": "dom_change",
            "seq": 3,
            "t_ms": 1_700_000_000_300,
            "added": 2,
            "removed": 1,
            "attributes": 5,
        },
        {"type": "visibility", "seq": 4, "t_ms": 1_700_000_000_400, "state": "hidden"},
        {"type": "resize", "seq": 5, "t_ms": 1_700_000_000_500, "width": 800, "height": 600},
    ]
    batch = parse_client_message(json.dumps({"type": "batch", "events": events}))
    service.ingest_batch(session, recording=rec, batch=batch)
    frame = service.events_frame(session, recording_ids=[rec.id])
    assert list(frame.columns) == [
        "attempt_id",
        "stream",
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
    ]
    assert frame["attempt_id"].tolist() == [rec.id] * 6
    assert frame["type"].tolist() == ["navigation", "click", "scroll", "dom_change", "visibility", "resize"]
    assert frame.loc[1, "x"] == 12.5 and frame.loc[2, "dy"] == 300.0 and frame.loc[3, "added"] == 2
    assert frame.loc[4, "state"] == "hidden" and frame.loc[5, "width"] == 800
    assert frame["t_ms"].dtype == "int64" and frame.loc[0, "nav"] == "load"
    assert frame["key"].isna().all()
    empty = service.events_frame(session, recording_ids=[])
    assert list(empty.columns) == list(frame.columns) and len(empty) == 0


def _every_shape(count: int) -> list[dict]:
    """`count` events cycling through every event model, each with and without its nullable fields."""
    kinds: list[dict[str, Any]] = [
        {"type": "click", "x": 1.5, "y": 2.0},
        {"type": "mousemove", "x": 0, "y": 3.25},
        {"type": "keydown", "key": "a"},
        {"type": "input", "value": "héllo"},
        {"type": "change", "value": None},
        {"type": "scroll", "scroll_x": 0, "scroll_y": 120.5, "dx": 0, "dy": -40},
        {"type": "navigation", "nav": "push"},
        {"type": "visibility", "state": "hidden"},
        {"type": "resize", "width": 1280, "height": 0},
        {"type": "dom_change", "added": 0, "removed": 3, "attributes": 7},
        {"type": "submit"},
        {"type": "blur"},
        {"type": "mousedown", "x": 4, "y": 5},
        {"type": "mouseup", "x": 40, "y": 5},
        {"type": "dragstart", "x": 4, "y": 6},
        {"type": "drop", "x": 90, "y": 6},
        {"type": "frame_gap"},
        {"type": "click", "x": 7, "y": 8, "frame_xpath": "/html/body/iframe[1]"},
    ]
    events = []
    for seq in range(count):
        event: dict[str, Any] = {"seq": seq, "t_ms": 1_700_000_000_000 + seq, **kinds[seq % len(kinds)]}
        if seq % 3:
            event["xpath"] = f"/html/body/div[{seq % 7 + 1}]"
        if seq % 5:
            event["url"] = f"http://shop.test/p/{seq}"
        events.append(event)
    return events


def test_every_event_shape_is_stored_exactly_as_sent(engine, session):
    """Rows are written grouped by the columns they fill (nulls left out, never bound): whatever the
    mix and the group's size (whole 1024-row statements, an exact one and a padded one), every event
    comes back with each field as sent and null where it was absent, once."""
    a = service.create_recording(session, kind="attempt")
    b = service.create_recording(session, kind="attempt")
    sent = {a.id: _every_shape(2_777), b.id: _every_shape(3)}

    def batch(events: list[dict]):
        message = parse_client_message(json.dumps({"type": "batch", "events": events}))
        assert isinstance(message, BatchMessage)
        return message.events

    starts = [400, 900, 1_400, 1_900, 2_400]
    items = [(a.id, batch(sent[a.id][:500])), (b.id, batch(sent[b.id]))]
    items += [(a.id, batch(sent[a.id][start : start + 500])) for start in starts]  # the first overlaps by 100
    outcomes = service.ingest_batches(session, items)
    session.commit()
    assert outcomes[:3] == [
        service.IngestResult(acked_seq=499, stored=500, duplicates=0),
        service.IngestResult(acked_seq=2, stored=3, duplicates=0),
        service.IngestResult(acked_seq=899, stored=400, duplicates=100),
    ]
    assert outcomes[-1] == service.IngestResult(acked_seq=2_776, stored=377, duplicates=0)
    frame = service.events_frame(session, recording_ids=[a.id, b.id])
    assert len(frame) == 2_780
    for (recording_id, seq), row in frame.set_index(["attempt_id", "seq"]).iterrows():
        event = sent[recording_id][seq]
        for column, value in row.items():
            expected = event.get(column)
            if column == "stream":
                assert value == 0
            elif column == "frame_xpath" and expected is None:
                assert value == "", (recording_id, seq, value)  # the top document
            elif expected is None:
                assert pd.isna(value), (recording_id, seq, column, value)
            else:
                assert value == expected, (recording_id, seq, column, value)


def test_no_column_can_hold_a_client_address(engine):
    inspector = inspect(engine)
    for table in ("recording", "raw_event"):
        names = [c["name"].lower() for c in inspector.get_columns(table)]
        assert names, table
        for name in names:
            assert (
                "ip" not in name.split("_")
                and "addr" not in name
                and "client" not in name
                and "host" not in name
            ), name
