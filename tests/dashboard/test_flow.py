"""The assignment state machine, on SQLite and PostgreSQL: transitions, idempotence, races, rollback."""

from __future__ import annotations

import threading

import pytest
from sqlmodel import Session, select

from humantrace.dashboard.flow import service as flow
from humantrace.dashboard.studies.models import Assignment, AssignmentEvent, Attempt, Outcome
from humantrace.recorder.models import Recording


@pytest.fixture
def db(client):
    with Session(client.app.state.engine) as session:
        yield session


def test_full_assignment_cold_warm_rating(db, make_assignment, person):
    a1 = person("A1")
    assignment_id = make_assignment("A1")
    cold = flow.start_assignment(db, assignment_id=assignment_id, annotator=a1)
    flow.begin_recording(db, attempt_id=cold.id, annotator=a1)  # the website starts ("go")
    assert db.get(Assignment, assignment_id).state == "cold_active"
    assert cold.phase == "cold" and cold.status == "active" and cold.env_session_id

    ended = flow.end_attempt(db, attempt_id=cold.id, annotator=a1, outcome=Outcome.evaluated)
    assert ended.status == "ended" and ended.outcome == "evaluated"
    assert ended.passed is False and ended.score is not None  # nothing was done on the website
    assert ended.verdict["positive_checks"], "the verdict lists its checks"
    assert db.get(Recording, cold.recording_id).status == "ended"  # the recorder token stops working
    assert db.get(Assignment, assignment_id).state == "warm_ready"

    warm = flow.start_warm(db, assignment_id=assignment_id, annotator=a1)
    assert warm.phase == "warm" and warm.env_session_id != cold.env_session_id
    from humantrace.environments import sessions

    # the warm attempt starts from a byte-identical initial state (same task, condition, seed)
    assert (
        sessions.get_session(db, session_id=warm.env_session_id).initial_sha256
        == sessions.get_session(db, session_id=cold.env_session_id).initial_sha256
    )

    flow.end_attempt(db, attempt_id=warm.id, annotator=a1, outcome=Outcome.abandoned)
    assert db.get(Assignment, assignment_id).state == "rating"
    rating = flow.submit_rating(
        db,
        assignment_id=assignment_id,
        annotator=a1,
        form=flow.RatingForm(clarity=4, realism=5, ambiguous_instruction=True),
    )
    assert rating.needs_review and db.get(Assignment, assignment_id).state == "completed"


def test_double_evaluate_scores_once(db, make_assignment, person):
    a1 = person("A1")
    assignment_id = make_assignment("A1")
    cold = flow.start_assignment(db, assignment_id=assignment_id, annotator=a1)
    flow.begin_recording(db, attempt_id=cold.id, annotator=a1)  # the website starts ("go")
    first = flow.end_attempt(db, attempt_id=cold.id, annotator=a1, outcome=Outcome.evaluated)
    second = flow.end_attempt(db, attempt_id=cold.id, annotator=a1, outcome=Outcome.abandoned)
    assert (second.outcome, second.ended_at, second.score) == (first.outcome, first.ended_at, first.score)
    moves = db.exec(
        select(AssignmentEvent).where(
            AssignmentEvent.assignment_id == assignment_id, AssignmentEvent.to_state == "warm_ready"
        )
    ).all()
    assert len(moves) == 1


def test_concurrent_evaluate_from_two_requests_scores_once(client, make_assignment, person):
    a1 = person("A1")
    assignment_id = make_assignment("A1")
    engine = client.app.state.engine
    with Session(engine) as db:
        cold = flow.start_assignment(db, assignment_id=assignment_id, annotator=a1)
        flow.begin_recording(db, attempt_id=cold.id, annotator=a1)  # the website starts ("go")
    results, errors = [], []

    def press(outcome):
        try:
            with Session(engine) as db:
                results.append(
                    flow.end_attempt(db, attempt_id=cold.id, annotator=a1, outcome=outcome).outcome
                )
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [
        threading.Thread(target=press, args=(o,))
        for o in (Outcome.evaluated, Outcome.evaluated, Outcome.abandoned)
    ]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert not errors, errors
    assert len(set(results)) == 1, f"every request must see the one result: {results}"
    with Session(engine) as db:
        moves = db.exec(select(AssignmentEvent).where(AssignmentEvent.to_state == "warm_ready")).all()
        assert len(moves) == 1


def test_evaluate_counts_a_click_the_website_is_still_saving(client, make_assignment, person):
    """Evaluate pressed while an environment API call is still saving the person's click (it holds
    the session row, as every write does) waits for that save and scores the state with the click,
    on SQLite and PostgreSQL. Without the wait the score would miss what the page already shows."""
    from humantrace.environments.deps import lock_session_row

    a1 = person("A1")
    engine = client.app.state.engine
    with Session(engine) as db:
        cold = flow.start_assignment(db, assignment_id=make_assignment("A1", task_id="lab-001"), annotator=a1)
        flow.begin_recording(db, attempt_id=cold.id, annotator=a1)  # the website starts ("go")
    pressed: dict = {}

    def press() -> None:
        try:
            with Session(engine) as db:
                pressed["attempt"] = flow.end_attempt(
                    db, attempt_id=cold.id, annotator=a1, outcome=Outcome.evaluated
                )
        except Exception as exc:  # pragma: no cover - reported below
            pressed["error"] = exc

    with Session(engine) as saving:  # the website's call that pins the target note, not yet committed
        row = lock_session_row(saving, cold.env_session_id)
        target = row.targets["note_id"]
        row.state = {
            **row.state,
            "notes": [dict(n, pinned=True) if n["id"] == target else n for n in row.state["notes"]],
        }
        saving.add(row)
        saving.flush()
        evaluate = threading.Thread(target=press)
        evaluate.start()
        evaluate.join(1.0)
        assert evaluate.is_alive() and not pressed, (
            f"Evaluate scored while the click was being saved: {pressed}"
        )
        saving.commit()
    evaluate.join(30)
    assert "error" not in pressed, pressed.get("error")
    assert pressed["attempt"].passed is True and pressed["attempt"].score == 1.0, pressed["attempt"].verdict


def test_start_from_two_tabs_at_once_leaves_one_active(client, make_assignment, person):
    a1 = person("A1")
    assignment_id = make_assignment("A1")
    engine = client.app.state.engine
    outcomes: list[str] = []

    def start():
        with Session(engine) as db:
            try:
                flow.start_assignment(db, assignment_id=assignment_id, annotator=a1)
                outcomes.append("won")
            except flow.IllegalTransition as exc:
                outcomes.append("refused: " + exc.message)

    threads = [threading.Thread(target=start) for _ in range(3)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert outcomes.count("won") == 1, outcomes
    assert all("another tab" in o or "in progress" in o for o in outcomes if o != "won")
    with Session(engine) as db:
        live = db.exec(
            select(Attempt).where(Attempt.assignment_id == assignment_id, Attempt.status == "active")
        ).all()
        assert len(live) == 1


def test_illegal_transitions_are_named_and_explained(db, make_assignment, person):
    a1 = person("A1")
    assignment_id = make_assignment("A1")
    with pytest.raises(flow.IllegalTransition, match="has not been started"):
        flow.start_warm(db, assignment_id=assignment_id, annotator=a1)
    flow.start_assignment(db, assignment_id=assignment_id, annotator=a1)
    with pytest.raises(flow.IllegalTransition, match="already in progress"):
        flow.start_warm(db, assignment_id=assignment_id, annotator=a1)
    with pytest.raises(flow.IllegalTransition, match="Both attempts|not been started|in progress"):
        flow.submit_rating(db, assignment_id=assignment_id, annotator=a1, form=None)


def test_one_active_assignment_per_annotator(db, make_assignment, person):
    a1 = person("A1")
    first, second = make_assignment("A1"), make_assignment("A1", task_id="lab-002")
    flow.start_assignment(db, assignment_id=first, annotator=a1)
    with pytest.raises(flow.IllegalTransition, match="Finish"):
        flow.start_assignment(db, assignment_id=second, annotator=a1)


def test_another_annotators_assignment_is_not_found(db, make_assignment, person):
    assignment_id = make_assignment("A1")
    with pytest.raises(flow.NotFound, match="No such assignment"):
        flow.start_assignment(db, assignment_id=assignment_id, annotator=person("A2"))
    with pytest.raises(flow.NotFound):
        flow.get_assignment(db, assignment_id=assignment_id + 999, annotator=person("A1"))


def test_rollback_keeps_attempts_marked(db, make_assignment, person):
    a1 = person("A1")
    assignment_id = make_assignment("A1")
    cold = flow.start_assignment(db, assignment_id=assignment_id, annotator=a1)
    flow.begin_recording(db, attempt_id=cold.id, annotator=a1)  # the website starts ("go")
    flow.end_attempt(db, attempt_id=cold.id, annotator=a1, outcome=Outcome.evaluated)
    flow.rollback(db, assignment_id=assignment_id, reason="environment tab closed")
    assert db.get(Assignment, assignment_id).state == "not_started"
    kept = db.exec(select(Attempt).where(Attempt.assignment_id == assignment_id)).all()
    assert [(a.status, a.rollback_reason) for a in kept] == [("rolled_back", "environment tab closed")]
    # and it can be started afresh
    again = flow.start_assignment(db, assignment_id=assignment_id, annotator=a1)
    flow.begin_recording(db, attempt_id=again.id, annotator=a1)  # the website starts ("go")
    assert again.id != cold.id


def test_reopen_needs_a_reason_and_is_audited(db, make_assignment, person):
    a1, l1 = person("A1"), person("L1")
    assignment_id = make_assignment("A1")
    cold = flow.start_assignment(db, assignment_id=assignment_id, annotator=a1)
    flow.begin_recording(db, attempt_id=cold.id, annotator=a1)  # the website starts ("go")
    flow.end_attempt(db, attempt_id=cold.id, annotator=a1, outcome=Outcome.evaluated)
    with pytest.raises(flow.FlowError, match="reason"):
        flow.reopen(db, assignment_id=assignment_id, lead=l1, reason="  ")
    flow.reopen(db, assignment_id=assignment_id, lead=l1, reason="website bug fixed")
    trail = db.exec(select(AssignmentEvent).where(AssignmentEvent.assignment_id == assignment_id)).all()
    assert trail[-1].actor == "L1" and "website bug fixed" in trail[-1].reason


def test_rating_values_outside_the_scale_are_refused(db, make_assignment, person):
    a1 = person("A1")
    assignment_id = make_assignment("A1")
    for _ in ("cold", "warm"):
        attempt = (
            flow.start_assignment(db, assignment_id=assignment_id, annotator=a1)
            if _ == "cold"
            else flow.start_warm(db, assignment_id=assignment_id, annotator=a1)
        )
        flow.begin_recording(db, attempt_id=attempt.id, annotator=a1)  # the website starts ("go")
        flow.end_attempt(db, attempt_id=attempt.id, annotator=a1, outcome=Outcome.evaluated)
    with pytest.raises(flow.FlowError, match="between 1 and 5"):
        flow.submit_rating(db, assignment_id=assignment_id, annotator=a1, form=flow.RatingForm(clarity=9))
    assert db.get(Assignment, assignment_id).state == "rating"


def _trail(db, assignment_id):
    db.expire_all()
    rows = db.exec(
        select(AssignmentEvent)
        .where(AssignmentEvent.assignment_id == assignment_id)
        .order_by(AssignmentEvent.id)
    ).all()
    return [(e.from_state, e.to_state) for e in rows]


def test_the_audit_trail_records_the_state_before_every_transition(db, make_assignment, person):
    a1, lead = person("A1"), person("L1")
    assignment_id = make_assignment("A1")
    cold = flow.start_assignment(db, assignment_id=assignment_id, annotator=a1)
    flow.begin_recording(db, attempt_id=cold.id, annotator=a1)  # the website starts ("go")
    flow.rollback(db, assignment_id=assignment_id, reason="environment tab closed")
    cold = flow.start_assignment(db, assignment_id=assignment_id, annotator=a1)
    flow.begin_recording(db, attempt_id=cold.id, annotator=a1)  # the website starts ("go")
    flow.end_attempt(db, attempt_id=cold.id, annotator=a1, outcome=Outcome.evaluated)
    warm = flow.start_warm(db, assignment_id=assignment_id, annotator=a1)
    flow.end_attempt(db, attempt_id=warm.id, annotator=a1, outcome=Outcome.abandoned)
    flow.submit_rating(db, assignment_id=assignment_id, annotator=a1, form=None)
    flow.reopen(db, assignment_id=assignment_id, lead=lead, reason="redo")
    assert _trail(db, assignment_id) == [
        ("not_started", "cold_active"),
        ("cold_active", "not_started"),
        ("not_started", "cold_active"),
        ("cold_active", "warm_ready"),
        ("warm_ready", "warm_active"),
        ("warm_active", "rating"),
        ("rating", "completed"),
        ("completed", "not_started"),
    ]


@pytest.mark.parametrize("outcome", [Outcome.evaluated, Outcome.abandoned])
def test_nothing_ends_the_attempt_before_its_website_starts(db, make_assignment, person, outcome):
    a1 = person("A1")
    assignment_id = make_assignment("A1")
    cold = flow.start_assignment(db, assignment_id=assignment_id, annotator=a1)  # the countdown is on
    with pytest.raises(flow.WebsiteNotStarted, match="has not started yet"):
        flow.end_attempt(db, attempt_id=cold.id, annotator=a1, outcome=outcome)
    db.expire_all()
    attempt = db.get(Attempt, cold.id)
    assert (attempt.status, attempt.outcome, attempt.score, attempt.ended_at) == ("active", None, None, None)
    assert db.get(Assignment, assignment_id).state == "cold_active"
    assert db.get(Recording, cold.recording_id).status != "ended"  # the recorder still takes events
    flow.begin_recording(db, attempt_id=cold.id, annotator=a1)  # "go": now it can end
    assert flow.end_attempt(db, attempt_id=cold.id, annotator=a1, outcome=outcome).outcome == outcome
    assert db.get(Assignment, assignment_id).state == "warm_ready"
