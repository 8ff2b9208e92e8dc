"""The studies migration moves existing people and data into their study, and back, on SQLite and PostgreSQL."""

from __future__ import annotations

import json

import sqlalchemy as sa

from humantrace.core import migrate
from humantrace.core.db import make_engine

BEFORE = "5c1e2f7a9b31"


def _insert(conn, table: str, **values) -> int:
    columns = ", ".join(values)
    params = ", ".join(f":{k}" for k in values)
    return conn.execute(
        sa.text(f"INSERT INTO {table} ({columns}) VALUES ({params}) RETURNING id"), values
    ).scalar_one()


def test_existing_people_join_their_study_and_keep_tier_and_designed(db_url):
    migrate.upgrade(db_url, BEFORE)
    engine = make_engine(db_url)
    now = "2026-12-01 10:00:00"
    study_cols = {
        "seed": 7,
        "show_score_to_annotators": False,
        "rollback_grace_seconds": 10,
        "hard_time_limit_seconds": 1800,
        "reading_countdown_seconds": 20,
        "mask_all_text": False,
        "mousemove_sample_ms": 100,
        "created_at": now,
    }
    with engine.begin() as conn:
        old = _insert(conn, "study", name="Pilot", active=False, **study_cols)
        current = _insert(conn, "study", name="Main", active=True, **study_cols)
        dup = _insert(conn, "study", name="Main", active=True, **study_cols)
        people = {}
        for code, role, tier, designed in [
            ("A1", "annotator", "primary", ["shop"]),
            ("D1", "annotator", "duplicate", []),
            ("A9", "annotator", "primary", []),
            ("L1", "lead", "primary", []),
        ]:
            people[code] = _insert(
                conn,
                "annotator",
                code=code,
                display_name=code,
                role=role,
                tier=tier,
                designed=json.dumps(designed),
                active=True,
                created_at=now,
            )
        # A1 worked in the old pilot only; D1 in the current study; A9 has no assignment yet.
        for study_id, code in [(old, "A1"), (current, "D1")]:
            _insert(
                conn,
                "assignment",
                study_id=study_id,
                annotator_id=people[code],
                task_id="shop-001",
                env_id="shop",
                difficulty="easy",
                condition="clean",
                tier="primary",
                order_index=0,
                seed=1,
                state="not_started",
                version=0,
                created_at=now,
            )
    engine.dispose()

    migrate.upgrade(db_url)
    engine = make_engine(db_url)
    with engine.connect() as conn:
        studies = {
            row.id: (row.name, row.status)
            for row in conn.execute(sa.text("SELECT id, name, status FROM study"))
        }
        members = {
            (row.study_id, row.annotator_id): (
                row.tier,
                row.designed if isinstance(row.designed, list) else json.loads(row.designed),
            )
            for row in conn.execute(sa.text("SELECT study_id, annotator_id, tier, designed FROM membership"))
        }
    engine.dispose()
    assert studies[old] == ("Pilot", "archived")
    assert studies[current] == ("Main", "open")
    assert studies[dup] == (f"Main ({dup})", "open")  # names became unique
    assert members == {
        (old, people["A1"]): ("primary", ["shop"]),
        (current, people["D1"]): ("duplicate", []),
        (dup, people["A9"]): ("primary", []),  # no work yet: the newest open study
    }

    migrate.downgrade(db_url, BEFORE)
    engine = make_engine(db_url)
    with engine.connect() as conn:
        back = {
            row.code: (row.tier, row.designed if isinstance(row.designed, list) else json.loads(row.designed))
            for row in conn.execute(sa.text("SELECT code, tier, designed FROM annotator"))
        }
        active = {row.id: bool(row.active) for row in conn.execute(sa.text("SELECT id, active FROM study"))}
    engine.dispose()
    assert back["A1"] == ("primary", ["shop"]) and back["D1"] == ("duplicate", [])
    assert active == {old: False, current: True, dup: True}
