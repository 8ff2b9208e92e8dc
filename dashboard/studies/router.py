"""Study pages: the annotator's study picker and the lead's studies list and settings page."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse

from humantrace.annotators import service as accounts
from humantrace.dashboard.studies import service
from humantrace.dashboard.studies.deps import studies_for
from humantrace.dashboard.studies.models import Study, StudyStatus
from humantrace.dashboard.studies.schemas import (
    FIELD_KEYS,
    SETTING_KEYS,
    StudyFields,
    StudySettings,
    show,
)
from humantrace.dashboard.web.deps import (
    SESSION_COOKIE,
    CsrfProtect,
    CurrentAnnotator,
    DbDep,
    RequireLead,
)
from humantrace.dashboard.web.pages import render

router = APIRouter()

STATUS_ACTIONS = {"open": StudyStatus.open, "close": StudyStatus.closed, "archive": StudyStatus.archived}


@router.get("/studies")
def picker(request: Request, person: CurrentAnnotator, db: DbDep):
    """Where a person in several studies picks one (leads get the studies list)."""
    if person.is_lead:
        return RedirectResponse("/lead/studies", status_code=303)
    return render(request, "study_picker.html", studies=studies_for(db, person))


@router.post("/studies/{study_id}/choose", dependencies=[CsrfProtect])
def choose(study_id: int, request: Request, person: CurrentAnnotator, db: DbDep):
    if study_id not in {s.id for s in studies_for(db, person)} and not (
        person.is_lead and db.get(Study, study_id) is not None
    ):
        return render(
            request, "error.html", status_code=404, title="Not found", message="You are not in that study."
        )
    accounts.choose_study(db, token=request.cookies.get(SESSION_COOKIE), study_id=study_id)
    return RedirectResponse("/lead" if person.is_lead else "/assignments", status_code=303)


def _study(db, study_id: int) -> Study | None:
    return db.get(Study, study_id) if 0 < study_id < 2**31 else None


@router.get("/lead/studies")
def studies_list(request: Request, person: RequireLead, db: DbDep):
    return render(request, "lead_studies.html", studies=service.list_studies(db), error=None, form={})


@router.post("/lead/studies", dependencies=[CsrfProtect])
async def create(request: Request, person: RequireLead, db: DbDep):
    form = {k: str(v) for k, v in (await request.form()).items() if k != "csrf_token"}
    try:
        seed = int(form.get("seed") or 42)
    except ValueError:
        seed = -1  # refused by the service's range check with a clear message
    try:
        study = service.create_study(
            db,
            name=form.get("name", ""),
            description=form.get("description", ""),
            envs=form.get("envs", ""),
            seed=seed,
        )
    except service.StudyError as exc:
        return render(
            request,
            "lead_studies.html",
            status_code=422,
            studies=service.list_studies(db),
            error=str(exc),
            form=form,
        )
    accounts.choose_study(db, token=request.cookies.get(SESSION_COOKIE), study_id=service.stored_id(study))
    return RedirectResponse(f"/lead/studies/{study.id}", status_code=303)


def _settings_page(
    request, db, study: Study, *, error: str | None = None, values: dict | None = None, status_code: int = 200
):
    values = values or {key: show(getattr(study, key), key) for key in FIELD_KEYS + SETTING_KEYS}
    if "mask_selectors" in values and values["mask_selectors"] == "(none)":
        values["mask_selectors"] = ""
    fields = {**StudyFields.model_fields, **StudySettings.model_fields}
    bool_keys = {k for k, info in StudySettings.model_fields.items() if info.annotation is bool}
    ranges = {
        k: (
            next((m.ge for m in info.metadata if hasattr(m, "ge")), None),
            next((m.le for m in info.metadata if hasattr(m, "le")), None),
        )
        for k, info in StudySettings.model_fields.items()
    }
    return render(
        request,
        "lead_study.html",
        status_code=status_code,
        study=study,
        values=values,
        fields=fields,
        setting_keys=SETTING_KEYS,
        field_keys=FIELD_KEYS,
        bool_keys=bool_keys,
        ranges=ranges,
        error=error,
        trail=service.audit_trail(db, study=study),
        recorded=service.has_attempts(db, study=study),
        saved=request.query_params.get("saved"),
    )


@router.get("/lead/studies/{study_id}")
def settings_page(study_id: int, request: Request, person: RequireLead, db: DbDep):
    study = _study(db, study_id)
    if study is None:
        return render(request, "error.html", status_code=404, title="Not found", message="No such study.")
    return _settings_page(request, db, study)


@router.post("/lead/studies/{study_id}", dependencies=[CsrfProtect])
async def save_settings(study_id: int, request: Request, person: RequireLead, db: DbDep):
    study = _study(db, study_id)
    if study is None:
        return render(request, "error.html", status_code=404, title="Not found", message="No such study.")
    form = await request.form()
    values = {key: str(form.get(key, "")) for key in FIELD_KEYS + SETTING_KEYS}
    for key, info in StudySettings.model_fields.items():  # an unticked checkbox sends nothing
        if info.annotation is bool:
            values[key] = "true" if form.get(key) in ("on", "true") else "false"
    changes = {k: v for k, v in values.items() if v != show(getattr(study, k), k)}
    try:
        service.update_study(db, study=study, changes=changes, actor=person.code)
    except service.StudyError as exc:
        db.rollback()
        # after the rollback `study` is expired and reloads from the database (the same object db.get returns)
        return _settings_page(request, db, study, error=str(exc), values=values, status_code=422)
    return RedirectResponse(f"/lead/studies/{study_id}?saved=1", status_code=303)


@router.post("/lead/studies/{study_id}/status", dependencies=[CsrfProtect])
async def change_status(study_id: int, request: Request, person: RequireLead, db: DbDep):
    study = _study(db, study_id)
    action = str((await request.form()).get("action", ""))
    if study is None or action not in STATUS_ACTIONS:
        return render(
            request, "error.html", status_code=404, title="Not found", message="No such study or action."
        )
    try:
        service.set_status(db, study=study, to=STATUS_ACTIONS[action], actor=person.code)
    except service.StudyError as exc:
        return _settings_page(request, db, study, error=str(exc), status_code=409)
    return RedirectResponse(f"/lead/studies/{study_id}", status_code=303)


@router.post("/lead/studies/{study_id}/use", dependencies=[CsrfProtect])
def use(study_id: int, request: Request, person: RequireLead, db: DbDep):
    """Make this the study the lead's overview, plan, review and export pages act on."""
    if _study(db, study_id) is None:
        return render(request, "error.html", status_code=404, title="Not found", message="No such study.")
    accounts.choose_study(db, token=request.cookies.get(SESSION_COOKIE), study_id=study_id)
    return RedirectResponse("/lead", status_code=303)
