"""The human reference bundle from the database, streamed in chunks of attempts.

Rows go through `exports.BundleWriter`, which owns the format, the manifest and the privacy guard.
Annotators appear only by coded id; no client address, login token or env session id is ever
selected. Rolled-back attempts are left out unless asked for, and then carry `rolled_back = true`.
Attempts a lead excluded in review are exported with `review_decision = "exclude_attempt"` (schema
2.2), so the analysis leaves them out and says how many; the ratings carry the decision, its note,
the lead's coded id and the time. Memory stays bounded: one chunk of attempts, with its
events, is in memory at a time.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, func, select

from humantrace.annotators.models import Annotator
from humantrace.dashboard.studies.models import Assignment, Attempt, AttemptStatus, Rating, Study
from humantrace.exports.bundle import BundleWriter
from humantrace.exports.schema import TABLES
from humantrace.recorder import service as recorder

CHUNK_ATTEMPTS = 200
CLEAN_COLUMNS = set(TABLES["events_clean"].column_names(include_comments=False))
RATING_FIELDS = (
    "clarity",
    "realism",
    "intervention_naturalness",
    "fun_value",
    "suspected_bug",
    "ambiguous_instruction",
    "alternate_valid_strategy",
)


def _task_meta(task_id: str) -> tuple[str | None, str | None, str | None]:
    """(';'-joined primary primitives, the variant's target primitive, its id) from the catalogue."""
    try:
        from humantrace.environments import catalog

        task = catalog.get_task(task_id)
        variant = catalog.variant_for(task_id)
        if variant is None:
            return ";".join(task.primary_primitives), None, None
        return ";".join(task.primary_primitives), variant.target_primitive, variant.variant_id
    except Exception:  # a task no longer in the catalogue still exports
        return None, None, None


def _attempt_query(study: Study, include_rolled_back: bool):
    query = (
        select(Attempt, Assignment)
        .join(Assignment, col(Assignment.id) == col(Attempt.assignment_id))
        .where(Assignment.study_id == study.id, Attempt.status != AttemptStatus.active)
    )
    if not include_rolled_back:
        query = query.where(Attempt.status == AttemptStatus.ended)
    return query.order_by(col(Attempt.id))


def count_attempts(db: Session, *, study: Study, include_rolled_back: bool = False) -> int:
    return db.exec(
        select(func.count()).select_from(_attempt_query(study, include_rolled_back).subquery())
    ).one()


def _chunks(
    db: Session, study: Study, include_rolled_back: bool
) -> Iterator[list[tuple[Attempt, Assignment]]]:
    last_id = 0
    while True:
        rows = list(
            db.exec(
                _attempt_query(study, include_rolled_back)
                .where(col(Attempt.id) > last_id)
                .limit(CHUNK_ATTEMPTS)
            )
        )
        if not rows:
            return
        yield rows
        last_id = rows[-1][0].id


def export_bundle(
    engine: Engine,
    out_dir: str | Path,
    *,
    formats: tuple[str, ...] = ("parquet",),
    include_comments: bool = False,
    include_rolled_back: bool = False,
    progress: Callable[[int], None] | None = None,
    overwrite: bool = False,
    study_id: int | None = None,
) -> Path:
    """Write one study's bundle into the new directory `out_dir`; returns the manifest path.

    `study_id` defaults to the only study that is not archived (refused when there are several).
    `overwrite`: `out_dir` may already hold a bundle, whose files are replaced."""
    from humantrace.dashboard.studies.service import resolve_study

    with Session(engine) as db:
        study = resolve_study(db, ref=study_id)
        codes = {p.id: p.code for p in db.exec(select(Annotator))}
        ratings = {r.assignment_id: r for r in db.exec(select(Rating))}
        meta_cache: dict[str, tuple[str | None, str | None, str | None]] = {}
        cleaning_config: dict | None = None
        writer = BundleWriter(
            out_dir, formats=formats, include_comments=include_comments, overwrite=overwrite
        )
        with writer:
            for chunk in _chunks(db, study, include_rolled_back):
                config = _write_chunk(
                    writer, db, chunk, _Lookup(codes, ratings, meta_cache), include_comments=include_comments
                )
                cleaning_config = cleaning_config or config
                if progress:
                    progress(len(chunk))
            rating_rows = _rating_rows(db, study, codes, include_comments)
            if rating_rows:
                writer.append("ratings", pd.DataFrame(rating_rows))
            settings = study.model_dump(mode="json", exclude={"id"})
            return writer.close(
                study_settings=settings, cleaning_config=cleaning_config or _default_cleaning_config()
            )


@dataclass
class _Lookup:
    """What every attempt row looks up: annotator codes, ratings by assignment, catalogue facts by task."""

    codes: dict[int | None, str]
    ratings: dict[int, Rating]
    meta: dict[str, tuple[str | None, str | None, str | None]]

    def task_meta(self, task_id: str) -> tuple[str | None, str | None, str | None]:
        if task_id not in self.meta:
            self.meta[task_id] = _task_meta(task_id)
        return self.meta[task_id]


def _write_chunk(
    writer: BundleWriter,
    db: Session,
    chunk: list[tuple[Attempt, Assignment]],
    lookup: _Lookup,
    *,
    include_comments: bool,
) -> dict | None:
    """Append one chunk of attempts to every table; returns the first cleaning config met."""
    attempts_rows, clean_rows, verdict_rows, event_check_rows = [], [], [], []
    cleaning_config: dict | None = None
    for attempt, assignment in chunk:
        attempts_rows.append(_attempt_row(attempt, assignment, lookup, include_comments=include_comments))
        clean_rows.extend(_clean_rows(attempt))
        verdict_rows.extend(_verdict_rows(attempt))
        event_check_rows.extend(_event_check_rows(attempt))
        cleaning_config = cleaning_config or attempt.cleaning_config
    writer.append("attempts", pd.DataFrame(attempts_rows))
    by_recording = {attempt.recording_id: attempt.id for attempt, _ in chunk}
    raw = recorder.events_frame(db, recording_ids=list(by_recording))
    raw["attempt_id"] = raw["attempt_id"].map(by_recording).astype("int64")
    writer.append("events_raw", raw)
    for table, rows in (
        ("events_clean", clean_rows),
        ("verdicts", verdict_rows),
        ("event_checks", event_check_rows),
    ):
        if rows:
            writer.append(table, pd.DataFrame(rows))
    # Every attempt read has an id; the filter only tells the type checker so.
    by_session = {a.env_session_id: a.id for a, _ in chunk if a.id is not None}
    semantic, audit = _session_logs(db, by_session)
    if len(semantic):
        writer.append("semantic_events", semantic)
    if len(audit):
        writer.append("backend_audit", audit)
    return cleaning_config


def _attempt_row(
    attempt: Attempt, assignment: Assignment, lookup: _Lookup, *, include_comments: bool
) -> dict:
    """The attempts table's row: the annotator by coded id, the condition's facts only under intervention."""
    primitives, target_primitive, variant_id = lookup.task_meta(assignment.task_id)
    intervention = assignment.condition == "intervention"
    rating = lookup.ratings.get(assignment.id) if assignment.id is not None else None
    row = {
        "attempt_id": attempt.id,
        "annotator": lookup.codes[assignment.annotator_id],
        "env_id": assignment.env_id,
        "task_id": assignment.task_id,
        "difficulty": assignment.difficulty,
        "primitives": primitives,
        "target_primitive": target_primitive if intervention else None,
        "condition": assignment.condition,
        "seed": assignment.seed,
        "variant_id": variant_id if intervention else None,
        "ui_profile": assignment.ui_profile,
        "phase": attempt.phase,
        "tier": assignment.tier,
        "assignment_id": assignment.id,
        "viewport_w": attempt.viewport_w,
        "viewport_h": attempt.viewport_h,
        "user_agent": attempt.user_agent,
        "started_at": _ms(attempt.recording_started_at or attempt.created_at),
        "ended_at": _ms(attempt.ended_at),
        "wall_clock_s": (attempt.wall_clock_ms or 0) / 1000,
        "away_s": attempt.away_s,
        "raw_events": attempt.raw_events or 0,
        "clean_steps": attempt.clean_steps,
        "score": attempt.score if attempt.score is not None else 0.0,
        "passed": bool(attempt.passed),
        "outcome": attempt.outcome or "abandoned",
        "rolled_back": attempt.status == AttemptStatus.rolled_back,
        "review_decision": _decision(rating, attempt),
        "event_match_score": (attempt.verdict or {}).get("event_match_score"),
    }
    rated = rating is not None and not rating.skipped
    for name in RATING_FIELDS:
        row[name] = getattr(rating, name) if rated else None
    if include_comments:
        row["comments"] = rating.comments if rating is not None else None
    return row


def _decision(rating: Rating | None, attempt: Attempt) -> str | None:
    """The lead's decision on the attempt's assignment; an attempt marked excluded is excluded
    whatever its rating says (the mark is what the lead pages and analyses act on)."""
    if attempt.excluded:
        return "exclude_attempt"
    return rating.resolution if rating is not None else None


def _clean_rows(attempt: Attempt) -> list[dict]:
    rows = []
    for step, event in enumerate(attempt.clean_trace or []):
        row = {k: v for k, v in event.items() if k in CLEAN_COLUMNS}
        row["attempt_id"] = attempt.id
        row.setdefault("step", step)
        seqs = row.get("source_seqs") or []
        row["source_seqs"] = ";".join(str(s) for s in seqs) if isinstance(seqs, list) else seqs
        rows.append(row)
    return rows


def _ms(moment):
    """Bundle timestamps have millisecond resolution."""
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000) if moment is not None else None


def _default_cleaning_config() -> dict:
    from humantrace.cleaning import CleaningConfig

    config = CleaningConfig()
    return config.model_dump() if hasattr(config, "model_dump") else dict(config.__dict__)


def _verdict_rows(attempt: Attempt) -> list[dict]:
    verdict = attempt.verdict or {}
    rows = []
    for check in verdict.get("positive_checks", []):
        rows.append(
            {
                "attempt_id": attempt.id,
                "kind": check["kind"],
                "polarity": "positive",
                "index": check["index"],
                "name": check.get("name"),
                "desc": check.get("desc"),
                "passed": check["passed"],
                "credit": check.get("credit"),
                "weight": check.get("weight"),
                "diagnosis": check.get("diagnosis"),
            }
        )
    for check in verdict.get("negative_checks", []):
        kind = check["kind"] if check["kind"] != "surplus" else "named_invariant"
        rows.append(
            {
                "attempt_id": attempt.id,
                "kind": kind,
                "polarity": "negative",
                "index": check.get("index") if check.get("index") is not None else -1,
                "name": check.get("name"),
                "passed": check["passed"],
                "severity": check.get("severity"),
                "penalty": check.get("penalty"),
                "diagnosis": check.get("diagnosis"),
            }
        )
    return rows


def _session_logs(db: Session, by_session: dict[str, int]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The semantic event log and the backend audit log of a chunk's env sessions, keyed by attempt.

    The env session id itself never leaves the database: rows carry the attempt id only.
    """
    from humantrace.environments.models import EnvAuditEntry, EnvSemanticEvent

    ids = list(by_session)
    events = db.exec(
        select(EnvSemanticEvent)
        .where(col(EnvSemanticEvent.session_id).in_(ids))
        .order_by(col(EnvSemanticEvent.session_id), col(EnvSemanticEvent.seq))
    ).all()
    semantic = pd.DataFrame(
        [
            {
                "attempt_id": by_session[e.session_id],
                "seq": e.seq,
                "t_ms": e.t_ms,
                "event": e.event,
                "params": json.dumps(e.params, sort_keys=True, default=str),
            }
            for e in events
        ]
    )
    entries = db.exec(
        select(EnvAuditEntry)
        .where(col(EnvAuditEntry.session_id).in_(ids))
        .order_by(col(EnvAuditEntry.session_id), col(EnvAuditEntry.t), col(EnvAuditEntry.id))
    ).all()
    rows, seqs = [], dict.fromkeys(ids, 0)
    for e in entries:
        rows.append(
            {
                "attempt_id": by_session[e.session_id],
                "seq": seqs[e.session_id],
                "t": _ms(e.t),
                "method": e.method,
                "path": e.path,
                "status": e.status,
                "intervention": e.intervention,
                "intervention_fired": e.intervention is not None,
                "duration_ms": e.duration_ms,
            }
        )
        seqs[e.session_id] += 1
    return semantic, pd.DataFrame(rows)


def _event_check_rows(attempt: Attempt) -> list[dict]:
    """One row per event condition of the attempt's verdict (none when the task declares none)."""
    rows = []
    for check in (attempt.verdict or {}).get("event_checks") or []:
        members = check.get("members") or []
        params = (
            ";".join(str(m.get("event")) for m in members)
            if members and check.get("event") is None
            else json.dumps(check.get("params") or {}, sort_keys=True, default=str)
        )
        rows.append(
            {
                "attempt_id": attempt.id,
                "index": check["index"],
                "event": check.get("event"),
                "params": params,
                "match": check.get("match"),
                "passed": bool(check["passed"]),
                "matched_event": check.get("matched_event"),
                "diagnosis": check.get("diagnosis"),
            }
        )
    return rows


def _rating_rows(db: Session, study: Study, codes: dict, include_comments: bool) -> list[dict]:
    """One row per submitted or reviewed rating, with the lead's decision, note, coded id and time."""
    rows = []
    query = (
        select(Rating, Assignment)
        .join(Assignment, col(Assignment.id) == col(Rating.assignment_id))
        .where(Assignment.study_id == study.id)
    )
    for rating, assignment in db.exec(query.order_by(col(Rating.id))):
        if rating.skipped and rating.resolution is None:
            continue
        row = {
            "assignment_id": assignment.id,
            "annotator": codes[assignment.annotator_id],
            "task_id": assignment.task_id,
            "condition": assignment.condition,
            **{name: None if rating.skipped else getattr(rating, name) for name in RATING_FIELDS},
            "review_decision": rating.resolution,
            "review_note": (rating.review_note or None) if rating.resolution else None,
            "reviewed_by": rating.reviewed_by,
            "reviewed_at": _ms(rating.reviewed_at),
        }
        if include_comments:
            row["comments"] = rating.comments
        rows.append(row)
    return rows
