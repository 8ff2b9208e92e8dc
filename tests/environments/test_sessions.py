"""Env session service on SQLite and PostgreSQL: create, reset, diff, evaluate, immutability."""

from __future__ import annotations

from sqlmodel import Session, select

from humantrace.environments import sessions
from humantrace.environments.interventions import counters
from humantrace.environments.models import EnvAuditEntry, EnvSemanticEvent, InterventionCounter
from humantrace.environments.state import state_sha256


def _pin(db: Session, session_id: str, note_id: str) -> None:
    row = sessions.get_session(db, session_id=session_id)
    state = {
        **row.state,
        "notes": [dict(n, pinned=True) if n["id"] == note_id else n for n in row.state["notes"]],
    }
    row.state = state
    db.add(row)
    db.commit()


def test_create_stores_identical_initial_and_live_state(db_url, engine_factory, lab):
    engine = engine_factory(db_url)
    with Session(engine) as db:
        first = sessions.create(db, task_id="lab-001", condition="clean", seed=7)
        second = sessions.create(db, task_id="lab-001", condition="clean", seed=7)
        db.commit()
        a = sessions.get_session(db, session_id=first)
        b = sessions.get_session(db, session_id=second)
        assert first != second and len(first) >= 32
        assert state_sha256(a.initial_state) == a.initial_sha256 == b.initial_sha256
        assert state_sha256(a.state) == a.initial_sha256
        assert a.targets == b.targets and a.targets["note_id"].startswith("n-")
        assert a.variant_id is None and a.network_rules == [] and a.client_dispatches == []


def test_diff_shows_the_change_and_evaluation_passes(db_url, engine_factory, lab):
    engine = engine_factory(db_url)
    with Session(engine) as db:
        session_id = sessions.create(db, task_id="lab-001", condition="clean", seed=3)
        db.commit()
        assert sessions.dump_diff(db, session_id=session_id) == []
        assert sessions.evaluate_session(db, session_id=session_id).passed is False
        target = sessions.get_targets(db, session_id=session_id)["note_id"]
        _pin(db, session_id, target)
        diff = sessions.dump_diff(db, session_id=session_id)
        assert len(diff) == 1 and diff[0]["entity_id"] == target
        verdict = sessions.evaluate_session(db, session_id=session_id)
        assert verdict.passed and verdict.score == 1.0


def test_reset_restores_initial_state_and_clears_logs(db_url, engine_factory, lab):
    engine = engine_factory(db_url)
    with Session(engine) as db:
        session_id = sessions.create(db, task_id="lab-001", condition="intervention", seed=11)
        db.commit()
        row = sessions.get_session(db, session_id=session_id)
        initial_sha = row.initial_sha256
        assert row.variant_id == "lab-001-v1" and row.network_rules
        _pin(db, session_id, row.targets["note_id"])
        db.add(EnvSemanticEvent(session_id=session_id, seq=0, t_ms=1, event="note_pin", params={}))
        db.add(EnvAuditEntry(session_id=session_id, t=sessions.utcnow(), method="GET", path="/x", status=200))
        db.commit()
        assert counters.increment(engine, session_id=session_id, pattern_key="k") == 1
        sessions.reset(db, session_id=session_id)
        db.commit()
        row = sessions.get_session(db, session_id=session_id)
        assert state_sha256(row.state) == initial_sha == state_sha256(row.initial_state)
        assert row.reset_count == 1
        for table in (EnvSemanticEvent, EnvAuditEntry, InterventionCounter):
            assert db.exec(select(table).where(table.session_id == session_id)).first() is None
        assert sessions.dump_diff(db, session_id=session_id) == []
        # The counter starts again from 1 after a reset.
        assert counters.increment(engine, session_id=session_id, pattern_key="k") == 1


def test_counters_are_per_session_and_pattern(db_url, engine_factory, lab):
    engine = engine_factory(db_url)
    with Session(engine) as db:
        one = sessions.create(db, task_id="lab-002", condition="clean", seed=1)
        two = sessions.create(db, task_id="lab-002", condition="clean", seed=1)
        db.commit()
    counts = [counters.increment(engine, session_id=one, pattern_key="a") for _ in range(3)]
    assert counts == [1, 2, 3]
    assert counters.increment(engine, session_id=one, pattern_key="b") == 1
    assert counters.increment(engine, session_id=two, pattern_key="a") == 1
