"""Annotator pages: the assignment list, the control tab, the environment-tab entry, the rating form."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Form, Request
from fastapi.responses import JSONResponse, RedirectResponse
from sqlmodel import col, select
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from humantrace.annotators.models import utcnow
from humantrace.dashboard.flow import envs, website
from humantrace.dashboard.flow import service as flow
from humantrace.dashboard.flow.presence import HEARTBEAT_SECONDS
from humantrace.dashboard.studies.deps import CurrentStudy
from humantrace.dashboard.studies.models import Assignment, AssignmentState, Outcome, Rating, TabPresence
from humantrace.dashboard.web.deps import CsrfProtect, CurrentAnnotator, DbDep, SettingsDep
from humantrace.dashboard.web.pages import render

router = APIRouter()
S = AssignmentState
REC_COOKIE = "htrec"

STATUS_LABELS = {
    S.not_started: "Not started",
    S.cold_active: "In progress (first attempt)",
    S.warm_ready: "Ready for the warm attempt",
    S.warm_active: "In progress (warm attempt)",
    S.rating: "Rating",
    S.completed: "Completed",
}


def _card(task_id: str):
    try:
        return envs.task_card(task_id)
    except Exception:  # a task removed from the catalogue still shows in the list
        return None


# A control tab whose heartbeat is this old is gone: its assignment is about to be rolled back.
CONTROL_GONE_SECONDS = 2 * HEARTBEAT_SECONDS + 1


def _control_gone(db, assignment_ids: list[int]) -> set[int]:
    if not assignment_ids:
        return set()
    rows = db.exec(
        select(TabPresence.assignment_id, TabPresence.last_seen_at).where(
            col(TabPresence.assignment_id).in_(assignment_ids), col(TabPresence.tab) == "control"
        )
    )
    now = utcnow()
    return {i for i, seen in rows if (now - flow._aware(seen)).total_seconds() > CONTROL_GONE_SECONDS}


@router.get("/assignments")
def assignment_list(
    request: Request, person: CurrentAnnotator, db: DbDep, study: CurrentStudy, settings: SettingsDep
):
    """The person's assignments in the study they work in (a person in several studies picked it)."""
    from humantrace.dashboard.studies.deps import studies_for

    rows = list(
        db.exec(
            select(Assignment)
            .where(Assignment.annotator_id == person.id, Assignment.study_id == study.id)
            .order_by(col(Assignment.order_index), col(Assignment.id))
        )
    )
    # (`a.id is not None` for the type checker: every row read has an id)
    gone = _control_gone(
        db, [a.id for a in rows if a.state != S.not_started and a.state != S.completed and a.id is not None]
    )
    items = [
        {
            "a": a,
            "card": _card(a.task_id),
            "label": STATUS_LABELS[a.state],
            "closing": a.id in gone,
            "website": website.website_url(settings, request, a) if a.state == S.not_started else None,
        }
        for a in rows
    ]
    done = sum(1 for a in rows if a.state == S.completed)
    return render(
        request,
        "annotator_home.html",
        study=study,
        items=items,
        done=done,
        total=len(rows),
        notice=request.query_params.get("notice"),
        several=len(studies_for(db, person)) > 1,
    )


@router.post("/assignments/{assignment_id}/start", dependencies=[CsrfProtect])
def start(assignment_id: int, request: Request, person: CurrentAnnotator, db: DbDep):
    flow.start_assignment(db, assignment_id=assignment_id, annotator=person)
    return RedirectResponse(f"/assignments/{assignment_id}/control", status_code=303)


@router.get("/assignments/{assignment_id}/control")
def control_tab(
    assignment_id: int, request: Request, person: CurrentAnnotator, db: DbDep, settings: SettingsDep
):
    assignment = flow.get_assignment(db, assignment_id=assignment_id, annotator=person)
    if assignment.state == S.not_started:
        return RedirectResponse("/assignments?notice=rolled_back", status_code=303)
    study = flow.study_of(db, assignment)
    card = envs.task_card(assignment.task_id)
    assert assignment.id is not None  # read from the database
    attempts = flow.attempts_of(db, assignment_id=assignment.id)
    attempt = flow.current_attempt(db, assignment=assignment)
    instruction = envs.instruction(db, session_id=attempt.env_session_id) if attempt else None
    rating = db.exec(select(Rating).where(Rating.assignment_id == assignment.id)).first()
    elapsed_ms = 0
    if attempt is not None and attempt.recording_started_at is not None:
        elapsed_ms = int((utcnow() - flow._aware(attempt.recording_started_at)).total_seconds() * 1000)
    return render(
        request,
        "control.html",
        assignment=assignment,
        card=card,
        study=study,
        attempt=attempt,
        attempts=attempts,
        instruction=instruction,
        rating=rating,
        elapsed_ms=elapsed_ms,
        website_url=website.website_url(settings, request, assignment),
    )


@router.get("/assignments/{assignment_id}/website")
def website_ticket(
    assignment_id: int, request: Request, person: CurrentAnnotator, db: DbDep, settings: SettingsDep
):
    """A fresh single-use link into the website tab ("Reopen website" fetches it before it is needed)."""
    assignment = flow.get_assignment(db, assignment_id=assignment_id, annotator=person)
    return JSONResponse(
        {"url": website.website_url(settings, request, assignment)}, headers={"Cache-Control": "no-store"}
    )


@router.post("/attempts/{attempt_id}/begin", dependencies=[CsrfProtect])
def begin(attempt_id: int, request: Request, person: CurrentAnnotator, db: DbDep):
    attempt = flow.begin_recording(db, attempt_id=attempt_id, annotator=person)
    assert attempt.recording_started_at is not None  # set by begin_recording
    return {"attempt_id": attempt.id, "recording_started_at": attempt.recording_started_at.isoformat()}


@router.post("/attempts/{attempt_id}/end", dependencies=[CsrfProtect])
def end(
    attempt_id: int,
    request: Request,
    person: CurrentAnnotator,
    db: DbDep,
    outcome: Literal["evaluated", "abandoned"] = Form(...),
    client_ms: int | None = Form(None),
):
    # The Literal makes FastAPI refuse anything else with its documented 422 shape. `client_ms`:
    # the annotator's clock at the press, for the wall clock (see flow.service._wall_clock).
    attempt = flow.end_attempt(
        db, attempt_id=attempt_id, annotator=person, outcome=Outcome(outcome), client_ms=client_ms
    )
    return {"attempt_id": attempt.id, "outcome": attempt.outcome, "phase": attempt.phase}


@router.post("/assignments/{assignment_id}/warm", dependencies=[CsrfProtect])
def start_warm(assignment_id: int, request: Request, person: CurrentAnnotator, db: DbDep):
    attempt = flow.start_warm(db, assignment_id=assignment_id, annotator=person)
    if "application/json" in request.headers.get("accept", ""):
        return {"attempt_id": attempt.id}
    return RedirectResponse(f"/assignments/{assignment_id}/control", status_code=303)


def _likert(value: UploadFile | str | None) -> int | None:
    """A 1-5 answer from its form field (None when unanswered, or not a number)."""
    return int(value) if isinstance(value, str) and value.isdigit() else None


@router.post("/assignments/{assignment_id}/rating", dependencies=[CsrfProtect])
async def rate(assignment_id: int, request: Request, person: CurrentAnnotator, db: DbDep):
    form = await request.form()
    if form.get("action") == "skip":
        data = None
    else:
        data = flow.RatingForm(
            clarity=_likert(form.get("clarity")),
            realism=_likert(form.get("realism")),
            # The form's neutral name for it (the same question in both conditions; "none": nothing unusual).
            intervention_naturalness=_likert(form.get("unusual")),
            fun_value=_likert(form.get("fun_value")),
            suspected_bug=form.get("suspected_bug") == "on",
            ambiguous_instruction=form.get("ambiguous_instruction") == "on",
            alternate_valid_strategy=form.get("alternate_valid_strategy") == "on",
            comments=str(form.get("comments") or ""),
        )
    # The form is read on the event loop; the database work must not block it.
    await run_in_threadpool(flow.submit_rating, db, assignment_id=assignment_id, annotator=person, form=data)
    done = "/assignments?notice=completed"
    if "application/json" in request.headers.get("accept", ""):  # the control tab sends it by script
        return {"next": done}
    return RedirectResponse(done, status_code=303)
