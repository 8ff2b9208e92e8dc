"""What lead pages show: progress, marginal pass rates, the review queue, attempt inspection.

Keyword-only functions over a database session, no HTTP.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session, col, select

from humantrace.annotators.models import Annotator, utcnow
from humantrace.dashboard.studies.models import (
    ACTIVE_STATES,
    Assignment,
    AssignmentState,
    Attempt,
    AttemptStatus,
    Rating,
    Study,
)
from humantrace.dashboard.studies.service import stored_id

RESOLUTIONS = {
    "keep": "Keep: the attempts count as recorded",
    "exclude_attempt": "Exclude: the assignment's attempts leave the analyses",
    "fix_task": "Fix task: the task needs work; attempts are kept for now",
}


class ReviewError(ValueError):
    pass


class NoteTooLong(ReviewError):
    """The review note is longer than its column (answered 422; nothing saved)."""

    status_code = 422


NOTE_MAX_LENGTH = 4000  # Rating.review_note


@dataclass
class PersonProgress:
    code: str
    tier: str
    counts: Counter
    total: int
    active_task: str | None = None
    active_state: str | None = None


@dataclass
class CellProgress:
    env_id: str
    difficulty: str
    completed: int = 0
    total: int = 0


@dataclass
class Progress:
    people: list[PersonProgress] = field(default_factory=list)
    cells: list[CellProgress] = field(default_factory=list)
    completed: int = 0
    total: int = 0
    active_now: int = 0
    to_review: int = 0


DIFFICULTY_ORDER = ["easy", "medium", "hard", "expert", "frontier"]


def progress(db: Session, *, study: Study) -> Progress:
    from humantrace.annotators.membership import members

    people = {p.id: p for p in db.exec(select(Annotator))}
    tiers = {
        m.person.id: str(m.membership.tier)
        for m in members(db, study_id=stored_id(study))
        if m.membership is not None  # always set: leads (who have none) are not asked for
    }
    rows = list(db.exec(select(Assignment).where(Assignment.study_id == study.id)))
    result = Progress(total=len(rows))
    by_person: dict[int, PersonProgress] = {}
    cells: dict[tuple[str, str], CellProgress] = {}
    for a in rows:
        person = people[a.annotator_id]
        entry = by_person.setdefault(
            a.annotator_id,
            PersonProgress(code=person.code, tier=tiers.get(person.id, a.tier), counts=Counter(), total=0),
        )
        entry.counts[a.state] += 1
        entry.total += 1
        if a.state in set(ACTIVE_STATES) or a.state == AssignmentState.rating:
            entry.active_task, entry.active_state = a.task_id, a.state
        cell = cells.setdefault((a.env_id, a.difficulty), CellProgress(a.env_id, a.difficulty))
        cell.total += 1
        if a.state == AssignmentState.completed:
            cell.completed += 1
            result.completed += 1
    result.people = sorted(by_person.values(), key=lambda p: (p.tier != "primary", p.code))
    result.cells = sorted(
        cells.values(),
        key=lambda c: (
            c.env_id,
            DIFFICULTY_ORDER.index(c.difficulty) if c.difficulty in DIFFICULTY_ORDER else 9,
        ),
    )
    result.active_now = sum(1 for p in result.people if p.active_task)
    result.to_review = len(review_queue(db, study=study))
    return result


def analysable_attempts(db: Session, *, study: Study) -> list[tuple[Assignment, Attempt]]:
    """Ended, not rolled back, not excluded attempts of the study with their assignment."""
    rows = db.exec(
        select(Assignment, Attempt)
        .join(Attempt, col(Attempt.assignment_id) == col(Assignment.id))
        .where(
            Assignment.study_id == study.id,
            Attempt.status == AttemptStatus.ended,
            Attempt.excluded == False,  # noqa: E712 (a SQL comparison, not a truth test)
        )
    )
    return list(rows)


def marginal_pass_rates(db: Session, *, study: Study) -> list[dict[str, Any]]:
    """Per annotator: passed / attempts for clean/intervention × cold/warm (primary and duplicate tiers)."""
    people = {p.id: p.code for p in db.exec(select(Annotator))}
    tally: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for assignment, attempt in analysable_attempts(db, study=study):
        cell = tally[people[assignment.annotator_id]][f"{assignment.condition}_{attempt.phase}"]
        cell[0] += 1 if attempt.passed else 0
        cell[1] += 1
    table = []
    for code in sorted(tally):
        row: dict[str, Any] = {"annotator": code}
        for key in ("clean_cold", "clean_warm", "intervention_cold", "intervention_warm"):
            passed, n = tally[code][key]
            row[key] = {"passed": passed, "n": n, "rate": passed / n if n else None}
        table.append(row)
    return table


def review_queue(
    db: Session, *, study: Study, include_resolved: bool = False
) -> list[tuple[Rating, Assignment]]:
    query = (
        select(Rating, Assignment)
        .join(Assignment, col(Assignment.id) == col(Rating.assignment_id))
        .where(Assignment.study_id == study.id, Rating.needs_review == True)  # noqa: E712
    )
    if not include_resolved:
        query = query.where(col(Rating.resolution).is_(None))
    return list(db.exec(query.order_by(col(Rating.created_at))))


def resolve_rating(db: Session, *, rating_id: int, resolution: str, note: str, lead: Annotator) -> Rating:
    """Close a flagged rating; `exclude_attempt` marks the assignment's attempts excluded."""
    if resolution not in RESOLUTIONS:
        raise ReviewError(f"unknown resolution {resolution!r}: expected one of {', '.join(RESOLUTIONS)}.")
    rating = db.get(Rating, rating_id) if 0 < rating_id <= 2**31 - 1 else None  # beyond the id column: none
    if rating is None:
        raise ReviewError("No such rating.")
    if len(note.strip()) > NOTE_MAX_LENGTH:
        raise NoteTooLong(
            f"The note is {len(note.strip())} characters long; at most {NOTE_MAX_LENGTH} fit. Nothing was saved."
        )
    rating.resolution, rating.review_note = resolution, note.strip()
    rating.reviewed_by, rating.reviewed_at = lead.code, utcnow()
    db.add(rating)
    for attempt in db.exec(select(Attempt).where(Attempt.assignment_id == rating.assignment_id)):
        attempt.excluded = resolution == "exclude_attempt"
        db.add(attempt)
    db.commit()
    db.refresh(rating)
    return rating


def attempt_trace(db: Session, *, attempt: Attempt) -> dict[str, Any]:
    """Raw and cleaned trace, the backend audit log and the semantic events of one attempt."""
    from humantrace.environments import sessions
    from humantrace.recorder import service as recorder

    raw = recorder.events_frame(db, recording_ids=[attempt.recording_id])
    raw_rows = raw.astype(object).where(raw.notna(), None).to_dict(orient="records")
    try:
        audit = [
            {
                "t": e.t.isoformat(),
                "method": e.method,
                "path": e.path,
                "status": e.status,
                "intervention": e.intervention,
                "duration_ms": e.duration_ms,
            }
            for e in sessions.audit_log(db, session_id=attempt.env_session_id)
        ]
        events = [
            {"seq": e.seq, "t_ms": e.t_ms, "event": e.event, "params": e.params}
            for e in sessions.event_log(db, session_id=attempt.env_session_id)
        ]
    except LookupError:
        audit, events = [], []
    return {"raw": raw_rows, "clean": attempt.clean_trace or [], "audit": audit, "events": events}
