"""The assignment state machine: one function per transition, each one database transaction.

    not_started --start--> cold_active --end(cold)--> warm_ready --start_warm--> warm_active
    warm_active --end(warm)--> rating --rate/skip--> completed
    cold_active | warm_ready | warm_active --rollback--> not_started   (attempts kept as rolled_back)
    any --reopen (lead)--> not_started

Evaluate and Abandon end an attempt only once its website has started ("go"): before that, during
the reading countdown, `end_attempt` refuses with `WebsiteNotStarted`.

Every transition locks the assignment row (`SELECT ... FOR UPDATE` on PostgreSQL) and then moves the
state with a conditional UPDATE on (state, version), so of two racing requests exactly one wins on
every backend, and the other gets a named error that says why. Ending an attempt is idempotent:
a second Evaluate or Abandon returns the first result and scores nothing again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import pandas as pd
from sqlalchemy import CursorResult, delete, or_, update
from sqlmodel import Session, col, select

from humantrace.annotators import membership
from humantrace.annotators.models import Annotator, utcnow
from humantrace.dashboard.flow import away, envs
from humantrace.dashboard.studies.models import (
    ACTIVE_STATES,
    Assignment,
    AssignmentEvent,
    AssignmentState,
    Attempt,
    AttemptStatus,
    Outcome,
    Rating,
    Study,
    TabPresence,
    WebsiteAbsence,
)
from humantrace.recorder import service as recorder
from humantrace.recorder.models import Recording

S = AssignmentState
REOPENED_PREFIX = "reopened: "
REASON_MAX_LENGTH = 1000  # AssignmentEvent.reason
COMMENTS_MAX_LENGTH = 4000  # Rating.comments
# The attempt phase that is running in each active-attempt state.
LIVE_PHASE: dict[str, str] = {S.cold_active: "cold", S.warm_active: "warm"}


class FlowError(Exception):
    """A request the study flow refuses; `message` is shown to the person."""

    status_code = 409

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class IllegalTransition(FlowError):
    """The assignment is not in a state that allows this step."""


class AlreadyStarted(IllegalTransition):
    """Another tab or window started this assignment first."""


class WebsiteNotStarted(IllegalTransition):
    """Evaluate or Abandon before the attempt's website started: nothing ends during the countdown."""


class StudyNotOpen(FlowError):
    """The assignment's study is not open (draft, closed or archived): no new starts."""


class TooLong(FlowError):
    """A text is longer than its column; nothing was saved."""

    status_code = 422


def check_length(value: str, *, what: str, limit: int) -> str:
    """`value`, or `TooLong` naming the field and its limit (PostgreSQL would refuse it with an error)."""
    if len(value) > limit:
        raise TooLong(
            f"The {what} is {len(value)} characters long; at most {limit} fit. Nothing was saved: shorten it and send it again."
        )
    return value


class Deactivated(FlowError):
    """The person was deactivated in the assignment's study: nothing more can be done in it."""

    status_code = 403


class NotFound(FlowError):
    """No such assignment or attempt for this person (never says whether it exists for someone else)."""

    status_code = 404


@dataclass(frozen=True)
class RatingForm:
    clarity: int | None = None
    realism: int | None = None
    intervention_naturalness: int | None = None
    fun_value: int | None = None
    suspected_bug: bool = False
    ambiguous_instruction: bool = False
    alternate_valid_strategy: bool = False
    comments: str = ""


# --------------------------------------------------------------------------- lookups


# Ids are 32-bit integer columns on PostgreSQL (64-bit on SQLite): a larger id in a URL names nothing,
# and must say so rather than overflow the driver.
MAX_ID = 2**31 - 1


def get_assignment(db: Session, *, assignment_id: int, annotator: Annotator | None) -> Assignment:
    """The assignment, when it exists and belongs to `annotator` (None: any, for leads and the monitor)."""
    assignment = db.get(Assignment, assignment_id) if 0 < assignment_id <= MAX_ID else None
    if assignment is None or (annotator is not None and assignment.annotator_id != annotator.id):
        raise NotFound("No such assignment.")
    if annotator is not None and not annotator.is_lead:
        _check_member(db, assignment=assignment, annotator=annotator)
    return assignment


def _check_member(db: Session, *, assignment: Assignment, annotator: Annotator) -> None:
    """`Deactivated` when the person was taken out of the assignment's study: every step they could
    take in it (start, warm, website ticket, control channel, Evaluate, rating) comes through here."""
    assert annotator.id is not None  # a signed-in person is a stored row
    member = membership.membership_of(db, study_id=assignment.study_id, annotator_id=annotator.id)
    if member is not None and not member.active:
        raise Deactivated(
            "You are no longer taking part in this study, so this step is closed. Work you finished is kept."
        )


def get_attempt(db: Session, *, attempt_id: int, annotator: Annotator | None) -> Attempt:
    attempt = db.get(Attempt, attempt_id) if 0 < attempt_id <= MAX_ID else None
    if attempt is None:
        raise NotFound("No such attempt.")
    try:
        get_assignment(db, assignment_id=attempt.assignment_id, annotator=annotator)
    except NotFound:
        # The same words as for a missing id: another person's attempt must not show that it exists.
        raise NotFound("No such attempt.") from None
    return attempt


def attempts_of(db: Session, *, assignment_id: int, include_rolled_back: bool = False) -> list[Attempt]:
    query = select(Attempt).where(Attempt.assignment_id == assignment_id)
    if not include_rolled_back:
        query = query.where(Attempt.status != AttemptStatus.rolled_back)
    return list(db.exec(query.order_by(col(Attempt.id))))


def current_attempt(db: Session, *, assignment: Assignment) -> Attempt | None:
    """The live attempt of an active assignment (cold or warm), else None."""
    assert assignment.id is not None  # read from the database
    rows = attempts_of(db, assignment_id=assignment.id)
    phase = LIVE_PHASE.get(assignment.state)
    return next((a for a in reversed(rows) if a.phase == phase and a.status == AttemptStatus.active), None)


def study_of(db: Session, assignment: Assignment) -> Study:
    study = db.get(Study, assignment.study_id)
    assert study is not None  # an assignment's study is never deleted
    return study


# --------------------------------------------------------------------------- transitions


def _lock(db: Session, assignment_id: int) -> Assignment:
    if not 0 < assignment_id <= MAX_ID:
        raise NotFound("No such assignment.")
    assignment = db.exec(select(Assignment).where(Assignment.id == assignment_id).with_for_update()).one()
    db.refresh(assignment)
    return assignment


def _move(
    db: Session, assignment: Assignment, *, to: S, actor: str, reason: str = "", expected: tuple[S, ...]
) -> None:
    """Conditional UPDATE: succeeds only if nobody changed the assignment since we read it."""
    # Read before the UPDATE: the ORM synchronises `assignment` with the new values, so reading
    # `assignment.state` afterwards would record the new state as the old one.
    from_state, version = assignment.state, assignment.version
    if from_state not in set(expected):
        raise IllegalTransition(_explain(from_state, to))
    moved = db.execute(
        update(Assignment)
        .where(
            col(Assignment.id) == assignment.id,
            col(Assignment.state) == from_state,
            col(Assignment.version) == version,
        )
        .values(state=to, version=version + 1)
    )
    assert isinstance(moved, CursorResult)  # an UPDATE's result (Session.execute is typed for any statement)
    if moved.rowcount != 1:
        db.rollback()
        raise AlreadyStarted(
            "This assignment was changed in another tab or window a moment ago. Reload this page."
        )
    assert assignment.id is not None  # read from the database
    db.add(
        AssignmentEvent(
            assignment_id=assignment.id, from_state=from_state, to_state=to, actor=actor, reason=reason
        )
    )


def _explain(state: str, to: S) -> str:
    messages: dict[str, str] = {
        S.cold_active: "This assignment is already in progress (its first attempt is running), perhaps in another tab.",
        S.warm_ready: "The first attempt is finished; press “Start warm attempt” in the control tab.",
        S.warm_active: "The warm attempt is already running, perhaps in another tab.",
        S.rating: "Both attempts are finished; the rating form is next.",
        S.completed: "This assignment is already completed.",
        S.not_started: "This assignment has not been started (or was rolled back because a tab was closed).",
    }
    return messages.get(state, f"Cannot go from {state} to {to}.")


def _new_attempt(db: Session, *, assignment: Assignment, phase: str, study: Study) -> Attempt:
    # Every attempt of the assignment (cold, warm, and any after a rollback) runs on its UI profile.
    session_id = envs.create_session(
        db,
        task_id=assignment.task_id,
        condition=assignment.condition,
        seed=assignment.seed,
        ui_profile=assignment.ui_profile,
    )
    recording = recorder.create_recording(
        db,
        kind="attempt",
        label=f"assignment {assignment.id} {phase}",
        mask_all_text=study.mask_all_text,
        mousemove_sample_ms=study.mousemove_sample_ms,
        mask_selectors=[*envs.mask_selectors(assignment.env_id), *(study.mask_selectors or [])],
    )
    assert assignment.id is not None  # read from the database
    return Attempt(
        assignment_id=assignment.id,
        phase=phase,
        env_session_id=session_id,
        recording_id=recorder.saved_id(recording),
    )


def start_assignment(db: Session, *, assignment_id: int, annotator: Annotator) -> Attempt:
    """not_started -> cold_active: creates the cold attempt, its env session and its recording."""
    assignment = get_assignment(db, assignment_id=assignment_id, annotator=annotator)
    busy = db.exec(
        select(Assignment).where(
            Assignment.annotator_id == annotator.id,
            col(Assignment.state).in_(list(ACTIVE_STATES)),
            Assignment.id != assignment_id,
        )
    ).first()
    if busy is not None:
        raise IllegalTransition(
            "Finish (or abandon) the assignment you are working on before starting another."
        )
    if assignment.state != S.not_started:
        raise AlreadyStarted(_explain(assignment.state, S.cold_active))
    study = study_of(db, assignment)
    if study.status != "open":
        raise StudyNotOpen(
            f"The study “{study.name}” is {study.status}: it accepts no new starts. Work you finished is kept."
        )
    # Env session and recording are created first (they commit on their own); the state change and
    # the attempt row then commit together, so the loser of a race only leaves an unused session.
    attempt = _new_attempt(db, assignment=assignment, phase="cold", study=study)
    assignment = _lock(db, assignment_id)
    try:
        _move(db, assignment, to=S.cold_active, actor=annotator.code, expected=(S.not_started,))
    except FlowError:
        _abandon_recording(db, attempt.recording_id)
        raise
    db.execute(update(Assignment).where(col(Assignment.id) == assignment.id).values(started_at=utcnow()))
    assert assignment.id is not None  # read from the database
    _forget_presence(db, assignment.id)
    db.add(attempt)
    db.commit()
    db.refresh(attempt)
    return attempt


def _abandon_recording(db: Session, recording_id: int) -> None:
    recorder.end_recording(db, recording_id=recording_id)


def begin_recording(db: Session, *, attempt_id: int, annotator: Annotator) -> Attempt:
    """The reading countdown is over ("go"): the website tab loads the task now (idempotent).

    `recording_started_at` is the moment of "go"; the attempt's clock itself starts at its first
    acknowledged event (see `end_attempt`)."""
    attempt = get_attempt(db, attempt_id=attempt_id, annotator=annotator)
    if attempt.status == AttemptStatus.active and attempt.recording_started_at is None:
        db.execute(
            update(Attempt)
            .where(col(Attempt.id) == attempt.id, col(Attempt.recording_started_at).is_(None))
            .values(recording_started_at=utcnow())
        )
        db.commit()
        db.refresh(attempt)
    return attempt


def end_attempt(
    db: Session,
    *,
    attempt_id: int,
    annotator: Annotator | None,
    outcome: Outcome,
    actor: str | None = None,
    client_ms: int | None = None,
) -> Attempt:
    """Evaluate, Abandon or time-out: score the final state, clean the trace, move the assignment on.

    Idempotent: an attempt that already ended is returned as it is (a double click scores once).
    Evaluate and Abandon of an attempt whose website has not started (the reading countdown is
    still on) raise `WebsiteNotStarted` and change nothing; the time limit ends it regardless.
    """
    attempt = get_attempt(db, attempt_id=attempt_id, annotator=annotator)
    if attempt.status != AttemptStatus.active:
        return attempt
    assignment = _lock(db, attempt.assignment_id)
    db.refresh(attempt)
    if attempt.status != AttemptStatus.active:  # another request ended it while we waited
        return attempt
    if attempt.recording_started_at is None and outcome != Outcome.timed_out:
        db.rollback()  # releases the lock
        raise WebsiteNotStarted(
            "The website has not started yet, so this attempt cannot end: Evaluate and Abandon work "
            "once the reading countdown is over (or after “Start now”). Nothing was recorded or scored."
        )
    claimed = db.execute(
        update(Attempt)
        .where(col(Attempt.id) == attempt.id, col(Attempt.status) == AttemptStatus.active)
        .values(status=AttemptStatus.ended)
    )
    assert isinstance(
        claimed, CursorResult
    )  # an UPDATE's result (Session.execute is typed for any statement)
    if claimed.rowcount != 1:
        db.rollback()
        db.refresh(attempt)
        return attempt
    now = utcnow()
    recording = db.get(Recording, attempt.recording_id)
    assert recording is not None  # an attempt's recording is never deleted
    recording.status, recording.ended_at = "ended", now
    db.add(recording)
    scored = envs.evaluate(db, session_id=attempt.env_session_id)
    envs.end_session(db, session_id=attempt.env_session_id)
    raw = recorder.events_frame(db, recording_ids=[attempt.recording_id])
    clean_rows, config = _clean_trace(raw)
    clock = _wall_clock(attempt, raw, now=now, client_ms=client_ms)
    values = dict(
        outcome=outcome,
        ended_at=now,
        wall_clock_ms=clock.wall_ms,
        away_s=_away_s(db, attempt, raw, clock=clock, now=now),
        score=scored.score,
        passed=scored.passed,
        verdict=scored.verdict,
        raw_events=len(raw),
        clean_steps=len(clean_rows),
        clean_trace=clean_rows,
        cleaning_config=config,
        viewport_w=recording.viewport_w,
        viewport_h=recording.viewport_h,
        user_agent=recording.user_agent,
    )
    db.execute(update(Attempt).where(col(Attempt.id) == attempt.id).values(**values))
    to = S.warm_ready if attempt.phase == "cold" else S.rating
    expected = (S.cold_active,) if attempt.phase == "cold" else (S.warm_active,)
    _move(
        db,
        assignment,
        to=to,
        actor=actor or (annotator.code if annotator else "system"),
        reason=outcome,
        expected=expected,
    )
    db.commit()
    db.refresh(attempt)
    return attempt


@dataclass(frozen=True)
class WallClock:
    """An attempt's wall clock and the window it spans.

    `window` is on the annotator's clock when the control tab sent its time with the button, else
    on the server's; `skew_ms` is the annotator's clock minus the server's (0 when not known), to
    put the server's own times (presence absences) on the window's clock.
    """

    wall_ms: int
    window: away.Interval
    skew_ms: int


def _wall_clock(attempt: Attempt, raw: pd.DataFrame, *, now: datetime, client_ms: int | None) -> WallClock:
    """Time on the website: from the attempt's first acknowledged event to the button that ended it.

    Both ends are read on the annotator's own clock when the control tab sends its time with the
    button (`client_ms`; the website tab runs on the same machine), so no clock skew between the
    browser and the server enters. Without it (a time-out, a rollback) or without events, the
    server's time since "go" is used. The reading countdown is never counted: the website loads
    only after "go".
    """
    go = _aware(attempt.recording_started_at or attempt.created_at)
    since_go = max(0, int((now - go).total_seconds() * 1000))
    now_ms = int(now.timestamp() * 1000)
    if client_ms is None or raw.empty:
        return WallClock(since_go, away.Interval(now_ms - since_go, now_ms), 0)
    end = int(client_ms)
    wall = min(max(0, end - int(raw["t_ms"].min())), since_go)
    return WallClock(wall, away.Interval(end - wall, end), end - now_ms)


def _away_s(db: Session, attempt: Attempt, raw: pd.DataFrame, *, clock: WallClock, now: datetime) -> float:
    """`away_s` of the attempt over its wall-clock window (the definition: `dashboard.flow.away`)."""
    columns = (raw[name].tolist() for name in ("stream", "seq", "t_ms", "type", "nav", "state"))
    events = [
        away.VisibilityEvent(
            stream=int(stream),
            seq=int(seq),
            t_ms=int(t_ms),
            type=str(kind),
            nav=nav if isinstance(nav, str) else None,
            state=state if isinstance(state, str) else None,
        )
        for stream, seq, t_ms, kind, nav, state in zip(*columns, strict=True)
    ]
    shown = away.shown_intervals(events, until_ms=clock.window.end_ms)
    return away.away_seconds(window=clock.window, shown=shown, absent=_absences(db, attempt, clock, now=now))


def _absences(db: Session, attempt: Attempt, clock: WallClock, *, now: datetime) -> list[away.Interval]:
    """The presence sweep's website absences of the attempt's assignment, on the window's clock."""

    def on_window_clock(moment: datetime) -> int:
        return int(_aware(moment).timestamp() * 1000) + clock.skew_ms

    start = datetime.fromtimestamp((clock.window.start_ms - clock.skew_ms) / 1000, tz=UTC)
    rows = db.exec(
        select(WebsiteAbsence).where(
            WebsiteAbsence.assignment_id == attempt.assignment_id,
            col(WebsiteAbsence.gone_at) < now,
            or_(col(WebsiteAbsence.back_at).is_(None), col(WebsiteAbsence.back_at) > start),
        )
    )
    return [away.Interval(on_window_clock(row.gone_at), on_window_clock(row.back_at or now)) for row in rows]


def _aware(moment: datetime) -> datetime:

    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _clean_trace(raw: pd.DataFrame) -> tuple[list[dict], dict]:
    from humantrace.cleaning import CleaningConfig, clean, to_records

    config = CleaningConfig()
    return to_records(clean(raw, config)), config.to_dict()


def start_warm(db: Session, *, assignment_id: int, annotator: Annotator) -> Attempt:
    """warm_ready -> warm_active: a fresh env session from the same (task, condition, seed)."""
    assignment = get_assignment(db, assignment_id=assignment_id, annotator=annotator)
    if assignment.state != S.warm_ready:
        raise IllegalTransition(_explain(assignment.state, S.warm_active))
    attempt = _new_attempt(db, assignment=assignment, phase="warm", study=study_of(db, assignment))
    assignment = _lock(db, assignment_id)
    try:
        _move(db, assignment, to=S.warm_active, actor=annotator.code, expected=(S.warm_ready,))
    except FlowError:
        _abandon_recording(db, attempt.recording_id)
        raise
    # No second reading countdown: "go" at once, the website tab reloads into the warm attempt.
    attempt.recording_started_at = utcnow()
    db.add(attempt)
    db.commit()
    db.refresh(attempt)
    return attempt


def submit_rating(
    db: Session, *, assignment_id: int, annotator: Annotator, form: RatingForm | None
) -> Rating:
    """rating -> completed. `form=None` is Skip. Any flag or comment queues the rating for review."""
    get_assignment(db, assignment_id=assignment_id, annotator=annotator)  # theirs, else NotFound
    assignment = _lock(db, assignment_id)
    if form is None and study_of(db, assignment).require_rating:
        raise FlowError("This study asks for the rating form: please answer it before finishing.")
    if form is not None:
        check_length((form.comments or "").strip(), what="comment", limit=COMMENTS_MAX_LENGTH)
        for name in ("clarity", "realism", "intervention_naturalness", "fun_value"):
            value = getattr(form, name)
            if value is not None and not 1 <= value <= 5:
                raise FlowError(f"{name.replace('_', ' ')} must be between 1 and 5.")
    _move(
        db,
        assignment,
        to=S.completed,
        actor=annotator.code,
        reason="skipped" if form is None else "rated",
        expected=(S.rating,),
    )
    form = form or RatingForm()
    rating = Rating(
        assignment_id=assignment_id,
        skipped=form == RatingForm(),
        **{k: getattr(form, k) for k in RatingForm.__dataclass_fields__},
    )
    rating.comments = (rating.comments or "").strip()
    rating.needs_review = bool(
        rating.suspected_bug
        or rating.ambiguous_instruction
        or rating.alternate_valid_strategy
        or rating.comments
    )
    db.add(rating)
    db.execute(update(Assignment).where(col(Assignment.id) == assignment.id).values(completed_at=utcnow()))
    db.commit()
    db.refresh(rating)
    return rating


def rollback(db: Session, *, assignment_id: int, reason: str, actor: str = "system") -> Assignment:
    """An active assignment back to not_started; its attempts are kept and marked rolled_back."""
    assignment = _lock(db, assignment_id)
    _move(db, assignment, to=S.not_started, actor=actor, reason=reason, expected=ACTIVE_STATES)
    _retire_attempts(db, assignment_id=assignment_id, reason=reason)
    db.commit()
    db.refresh(assignment)
    return assignment


def reopen(db: Session, *, assignment_id: int, lead: Annotator, reason: str) -> Assignment:
    """A lead sends any assignment back to not_started (with a reason, kept in the audit trail)."""
    if not reason.strip():
        raise FlowError("Give a reason for reopening; it is kept in the assignment's audit trail.")
    check_length(reason.strip(), what="reason", limit=REASON_MAX_LENGTH - len(REOPENED_PREFIX))
    assignment = _lock(db, assignment_id)
    _move(
        db,
        assignment,
        to=S.not_started,
        actor=lead.code,
        reason=f"{REOPENED_PREFIX}{reason.strip()}",
        expected=tuple(S),
    )
    _retire_attempts(db, assignment_id=assignment_id, reason=f"reopened by {lead.code}: {reason.strip()}")
    rating = db.exec(select(Rating).where(Rating.assignment_id == assignment_id)).first()
    if rating is not None:
        db.delete(rating)
    db.execute(
        update(Assignment)
        .where(col(Assignment.id) == assignment_id)
        .values(completed_at=None, started_at=None)
    )
    db.commit()
    db.refresh(assignment)
    return assignment


def _forget_presence(db: Session, assignment_id: int) -> None:
    """Presence belongs to one run of the assignment: heartbeats left by the tabs of an attempt
    that was rolled back or reopened must not judge the next Start (they are long stale), and a
    website absence still open then ends now, not inside the next run's attempts."""
    db.execute(delete(TabPresence).where(col(TabPresence.assignment_id) == assignment_id))
    db.execute(
        update(WebsiteAbsence)
        .where(col(WebsiteAbsence.assignment_id) == assignment_id, col(WebsiteAbsence.back_at).is_(None))
        .values(back_at=utcnow())
    )


def _retire_attempts(db: Session, *, assignment_id: int, reason: str) -> None:
    now = utcnow()
    for attempt in attempts_of(db, assignment_id=assignment_id):
        if attempt.status == AttemptStatus.active:  # cut short now: its away_s up to this moment
            raw = recorder.events_frame(db, recording_ids=[attempt.recording_id])
            clock = _wall_clock(attempt, raw, now=now, client_ms=None)
            attempt.away_s = _away_s(db, attempt, raw, clock=clock, now=now)
    _forget_presence(db, assignment_id)
    for attempt in attempts_of(db, assignment_id=assignment_id):
        envs.end_session(db, session_id=attempt.env_session_id)
        attempt.status = AttemptStatus.rolled_back
        attempt.rollback_reason = reason
        db.add(attempt)
        recording = db.get(Recording, attempt.recording_id)
        assert recording is not None  # an attempt's recording is never deleted
        if recording.status != "ended":
            recording.status, recording.ended_at = "ended", utcnow()
            db.add(recording)
