"""Lead pages: progress, assignments with reopen, the review queue, the attempt inspector, planning."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse
from sqlalchemy import Engine
from sqlmodel import col, select

from humantrace.annotators.models import Annotator
from humantrace.annotators.planning.schemas import DIFFICULTIES
from humantrace.dashboard.flow import service as flow
from humantrace.dashboard.review import service as lead
from humantrace.dashboard.studies import planning
from humantrace.dashboard.studies.deps import LeadStudy
from humantrace.dashboard.studies.models import Assignment, AssignmentEvent, Attempt, Rating
from humantrace.dashboard.studies.service import stored_id
from humantrace.dashboard.web.deps import CsrfProtect, DbDep, RequireLead
from humantrace.dashboard.web.pages import render

router = APIRouter(prefix="/lead")


@router.get("")
def overview(request: Request, person: RequireLead, db: DbDep, study: LeadStudy):
    from humantrace.annotators.membership import members

    return render(
        request,
        "lead_home.html",
        study=study,
        progress=lead.progress(db, study=study),
        people=members(db, study_id=stored_id(study), include_leads=True),
    )


@router.get("/assignments")
def assignments(
    request: Request, person: RequireLead, db: DbDep, study: LeadStudy, annotator: str = "", state: str = ""
):
    codes = {p.id: p.code for p in db.exec(select(Annotator))}
    query = select(Assignment).where(Assignment.study_id == study.id)
    if state:
        query = query.where(Assignment.state == state)
    rows = [
        a
        for a in db.exec(query.order_by(col(Assignment.annotator_id), col(Assignment.order_index)))
        if not annotator or codes[a.annotator_id] == annotator
    ]
    # The filter offers the study's people only (another study's people stay out of sight).
    in_study = set(db.exec(select(Assignment.annotator_id).where(Assignment.study_id == study.id)))
    return render(
        request,
        "lead_assignments.html",
        study=study,
        rows=rows,
        codes=codes,
        annotator=annotator,
        state=state,
        people=sorted(codes[i] for i in in_study),
    )


@router.get("/assignments/{assignment_id}")
def assignment_detail(assignment_id: int, request: Request, person: RequireLead, db: DbDep):
    try:
        assignment = flow.get_assignment(db, assignment_id=assignment_id, annotator=None)
    except flow.NotFound as exc:
        return render(request, "error.html", status_code=404, title="Not found", message=exc.message)
    attempts = flow.attempts_of(db, assignment_id=assignment_id, include_rolled_back=True)
    trail = list(
        db.exec(
            select(AssignmentEvent)
            .where(AssignmentEvent.assignment_id == assignment_id)
            .order_by(col(AssignmentEvent.id))
        )
    )
    rating = db.exec(select(Rating).where(Rating.assignment_id == assignment_id)).first()
    owner = db.get(Annotator, assignment.annotator_id)
    return render(
        request,
        "lead_assignment.html",
        a=assignment,
        attempts=attempts,
        trail=trail,
        rating=rating,
        owner=owner,
        error=request.query_params.get("error"),
    )


@router.post("/assignments/{assignment_id}/reopen", dependencies=[CsrfProtect])
def reopen(assignment_id: int, request: Request, person: RequireLead, db: DbDep, reason: str = Form("")):
    try:
        flow.reopen(db, assignment_id=assignment_id, lead=person, reason=reason)
    except flow.TooLong as exc:
        return render(request, "error.html", status_code=422, title="Not reopened", message=exc.message)
    except flow.FlowError as exc:
        return RedirectResponse(f"/lead/assignments/{assignment_id}?error={exc.message}", status_code=303)
    return RedirectResponse(f"/lead/assignments/{assignment_id}", status_code=303)


@router.get("/attempts/{attempt_id}")
def inspector(attempt_id: int, request: Request, person: RequireLead, db: DbDep):
    attempt = db.get(Attempt, attempt_id) if 0 < attempt_id <= flow.MAX_ID else None
    if attempt is None:
        return render(request, "error.html", status_code=404, title="Not found", message="No such attempt.")
    assignment = db.get(Assignment, attempt.assignment_id)
    assert assignment is not None  # an attempt's assignment is never deleted
    owner = db.get(Annotator, assignment.annotator_id)
    trace = lead.attempt_trace(db, attempt=attempt)
    return render(
        request,
        "lead_attempt.html",
        attempt=attempt,
        a=assignment,
        owner=owner,
        trace=trace,
        verdict=attempt.verdict or {},
    )


@router.get("/review")
def review(request: Request, person: RequireLead, db: DbDep, study: LeadStudy, show: str = "open"):
    codes = {p.id: p.code for p in db.exec(select(Annotator))}
    queue = lead.review_queue(db, study=study, include_resolved=show == "all")
    return render(
        request, "lead_review.html", queue=queue, codes=codes, resolutions=lead.RESOLUTIONS, show=show
    )


@router.post("/review/{rating_id}", dependencies=[CsrfProtect])
def resolve(
    rating_id: int,
    request: Request,
    person: RequireLead,
    db: DbDep,
    resolution: str = Form(...),
    note: str = Form(""),
):
    try:
        lead.resolve_rating(db, rating_id=rating_id, resolution=resolution, note=note, lead=person)
    except lead.ReviewError as exc:
        return render(
            request,
            "error.html",
            status_code=getattr(exc, "status_code", 400),
            title="Review not saved",
            message=str(exc),
        )
    return RedirectResponse("/lead/review", status_code=303)


@router.get("/pass-rates")
def pass_rates(request: Request, person: RequireLead, db: DbDep, study: LeadStudy):
    return render(
        request, "lead_pass_rates.html", study=study, table=lead.marginal_pass_rates(db, study=study)
    )


@router.get("/plan")
def plan_form(request: Request, person: RequireLead, db: DbDep, study: LeadStudy):
    existing = len(list(db.exec(select(Assignment.id).where(Assignment.study_id == study.id))))
    return render(
        request,
        "lead_plan.html",
        study=study,
        existing=existing,
        plan=None,
        error=None,
        per_cell=1,
        seed=study.seed,
        profiles="",
        duplicates_per_cell=1,
        difficulties=DIFFICULTIES,
        all_difficulties=DIFFICULTIES,
        site_profiles=planning.profiles_help(list(study.envs) or None),
    )


@router.post("/plan", dependencies=[CsrfProtect])
def plan_submit(
    request: Request,
    person: RequireLead,
    db: DbDep,
    study: LeadStudy,
    per_cell: int = Form(1),
    seed: int = Form(0),
    action: str = Form("preview"),
    replace: str = Form(""),
    profiles: str = Form(""),
    duplicates_per_cell: int = Form(1),
    difficulties: Annotated[list[str] | None, Form()] = None,
):
    from humantrace.annotators.planning import PlanInfeasible

    existing = len(list(db.exec(select(Assignment.id).where(Assignment.study_id == study.id))))
    context: dict[str, Any] = dict(
        study=study,
        existing=existing,
        per_cell=per_cell,
        seed=seed,
        plan=None,
        error=None,
        profiles=profiles,
        duplicates_per_cell=duplicates_per_cell,
        difficulties=tuple(difficulties or ()),
        all_difficulties=DIFFICULTIES,
        site_profiles=planning.profiles_help(list(study.envs) or None),
    )
    try:
        difficulties = difficulties or []
        unknown = sorted(set(difficulties) - set(DIFFICULTIES))
        if unknown:
            raise ValueError(f"unknown difficulty {', '.join(unknown)} (known: {', '.join(DIFFICULTIES)})")
        if not difficulties:
            raise ValueError("tick at least one difficulty: a plan needs cells to fill")
        plan = planning.make_plan(
            db,
            study=study,
            per_cell=per_cell,
            seed=seed,
            profiles=[p.strip() for p in profiles.split(",") if p.strip()] or None,
            duplicates_per_cell=duplicates_per_cell,
            difficulties=[d for d in DIFFICULTIES if d in difficulties],
        )
        context["plan"] = plan
        if action == "store":
            planning.write_plan(db, study=study, plan=plan, replace=replace == "on")
            return RedirectResponse("/lead/assignments", status_code=303)
    except (PlanInfeasible, planning.PlanRefused, ValueError) as exc:
        context["error"] = str(exc)
    return render(request, "lead_plan.html", **context)


@router.get("/exports")
def exports_page(request: Request, person: RequireLead, db: DbDep, study: LeadStudy):
    from humantrace.dashboard.exports.bundle import count_attempts

    return render(
        request,
        "lead_exports.html",
        study=study,
        attempts=count_attempts(db, study=study),
        everything=count_attempts(db, study=study, include_rolled_back=True),
    )


@router.post("/exports/bundle.zip", dependencies=[CsrfProtect])
def export_zip(
    request: Request,
    person: RequireLead,
    db: DbDep,
    study: LeadStudy,
    format: str = Form("parquet"),
    include_comments: str = Form(""),
    include_rolled_back: str = Form(""),
):
    """The same bundle as `humantrace export bundle`, as one zip download."""
    import shutil
    import tempfile
    from pathlib import Path

    from starlette.background import BackgroundTask
    from starlette.responses import FileResponse

    from humantrace.dashboard.exports.bundle import export_bundle

    formats = {"parquet": ("parquet",), "csv": ("csv",), "both": ("parquet", "csv")}.get(format)
    if formats is None:
        return render(
            request,
            "error.html",
            status_code=400,
            title="Unknown format",
            message="Choose parquet, csv or both.",
        )
    work = Path(tempfile.mkdtemp(prefix="humantrace-export-"))
    engine = db.get_bind()
    assert isinstance(engine, Engine)  # the app's sessions are bound to its engine
    export_bundle(
        engine,
        work / "bundle",
        formats=formats,
        include_comments=include_comments == "on",
        include_rolled_back=include_rolled_back == "on",
        study_id=study.id,
    )
    archive = shutil.make_archive(str(work / "humantrace-bundle"), "zip", root_dir=work / "bundle")
    return FileResponse(
        archive,
        media_type="application/zip",
        filename="humantrace-bundle.zip",
        background=BackgroundTask(shutil.rmtree, work, ignore_errors=True),
    )
