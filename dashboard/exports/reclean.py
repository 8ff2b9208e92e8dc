"""Re-cleaning stored attempts with another cleaning config (raw events are never modified)."""

from __future__ import annotations

from collections.abc import Callable

from sqlmodel import Session, col, select

from humantrace.dashboard.studies.models import Assignment, Attempt, AttemptStatus, Study


def reclean_study(
    db: Session, *, study: Study, config, progress: Callable[[int], None] | None = None
) -> tuple[int, int]:
    """Re-clean every ended attempt of `study`; returns (attempts whose step count changed, attempts)."""
    from humantrace.cleaning import clean, to_records
    from humantrace.recorder import service as recorder

    attempts = list(
        db.exec(
            select(Attempt)
            .join(Assignment, col(Assignment.id) == col(Attempt.assignment_id))
            .where(Assignment.study_id == study.id, Attempt.status != AttemptStatus.active)
        )
    )
    changed = 0
    for attempt in attempts:
        cleaned = clean(recorder.events_frame(db, recording_ids=[attempt.recording_id]), config)
        rows = to_records(cleaned)
        changed += int(len(rows) != (attempt.clean_steps or 0))
        attempt.clean_trace, attempt.clean_steps, attempt.cleaning_config = rows, len(rows), config.to_dict()
        db.add(attempt)
        if progress:
            progress(1)
    db.commit()
    return changed, len(attempts)
