"""The streams migration keeps every stored event (stream 0) and each recording's ack; after it,
two streams of one recording store the same seqs side by side (SQLite and PostgreSQL)."""

from __future__ import annotations

import json

from sqlalchemy import create_engine, text
from sqlmodel import Session

from humantrace.core import migrate
from humantrace.recorder import service
from humantrace.recorder.models import Recording
from humantrace.recorder.schemas import parse_client_message

BEFORE = "b7d4e2a91c05"


def test_existing_events_become_stream_0_and_new_streams_are_separate(db_url):
    migrate.upgrade(db_url, BEFORE)
    engine = create_engine(db_url)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO recording (id, kind, status, created_at, mask_all_text, mousemove_sample_ms, acked_seq) "
                "VALUES (7, 'standalone', 'active', '2026-12-01 10:00:00+00:00', false, 100, 2)"
            )
        )
        for seq in range(3):
            conn.execute(
                text(
                    "INSERT INTO raw_event (recording_id, seq, t_ms, type, xpath) VALUES (7, :s, :t, 'click', '/html')"
                ),
                {"s": seq, "t": 1_700_000_000_000 + seq},
            )
    migrate.upgrade(db_url)
    with Session(engine) as db:
        frame = service.events_frame(db, recording_ids=[7])
        assert frame["stream"].tolist() == [0, 0, 0] and frame["seq"].tolist() == [0, 1, 2]
        assert service.resolve_stream(db, recording_id=7, tab=None) == (0, 2)  # the old ack is stream 0's
        stream, acked = service.resolve_stream(db, recording_id=7, tab="ab12cd34ef56")
        assert (stream, acked) == (1, -1)
        events = [
            {"type": "click", "seq": s, "t_ms": 1_700_000_001_000 + s, "x": 1, "y": 2} for s in range(4)
        ]
        batch = parse_client_message(json.dumps({"type": "batch", "events": events}))
        result = service.ingest_batch(db, recording=db.get(Recording, 7), batch=batch, stream=stream)
        assert result.acked_seq == 3
        assert service.count_acked(db, recording_id=7) == 7  # 3 + 4 across the two streams
        frame = service.events_frame(db, recording_ids=[7])
        assert list(zip(frame["stream"], frame["seq"], strict=True)) == [
            (0, 0),
            (0, 1),
            (0, 2),
            (1, 0),
            (1, 1),
            (1, 2),
            (1, 3),
        ]
    engine.dispose()
    migrate.downgrade(db_url, BEFORE)  # stream 1 cannot keep its seqs under the old key: it goes
    with create_engine(db_url).connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM raw_event")).scalar_one() == 3
        assert conn.execute(text("SELECT acked_seq FROM recording WHERE id = 7")).scalar_one() == 2
