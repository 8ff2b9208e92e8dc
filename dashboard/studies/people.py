"""The lead's people page of a study: add, import a CSV, deactivate, copy a fresh login link, who signed in."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, RedirectResponse
from starlette.datastructures import UploadFile

from humantrace.annotators import membership
from humantrace.annotators import service as accounts
from humantrace.dashboard.studies import deactivation
from humantrace.dashboard.studies.models import Study
from humantrace.dashboard.studies.service import stored_id
from humantrace.dashboard.web.deps import CsrfProtect, DbDep, RequireLead, SettingsDep
from humantrace.dashboard.web.pages import render

router = APIRouter(prefix="/lead/studies/{study_id}/people")
MAX_CSV_BYTES = 1_000_000


def known_envs() -> set[str]:
    from humantrace.environments import registry

    return {env.env_id for env in registry.all_environments()}


def _page(
    request,
    db,
    study: Study,
    *,
    errors: list[str] | None = None,
    status_code: int = 200,
    notice: str | None = None,
):
    people = membership.members(db, study_id=stored_id(study), include_leads=True)
    ids = [m.person.id for m in people if m.person.id is not None]  # all of them: read from the database
    return render(
        request,
        "lead_people.html",
        status_code=status_code,
        study=study,
        people=people,
        errors=errors or [],
        signed_in=membership.last_sign_in(db, annotator_ids=ids),
        pending=membership.pending_links(db, annotator_ids=ids),
        notice=notice or request.query_params.get("notice"),
    )


def _study(db, study_id: int) -> Study | None:
    return db.get(Study, study_id) if 0 < study_id < 2**31 else None


def _missing(request):
    return render(request, "error.html", status_code=404, title="Not found", message="No such study.")


@router.get("")
def people_page(study_id: int, request: Request, person: RequireLead, db: DbDep):
    study = _study(db, study_id)
    return _page(request, db, study) if study else _missing(request)


@router.post("", dependencies=[CsrfProtect])
async def add_person(study_id: int, request: Request, person: RequireLead, db: DbDep):
    study = _study(db, study_id)
    if study is None:
        return _missing(request)
    form = await request.form()
    row = {key: str(form.get(key, "")) for key in membership.CSV_COLUMNS}
    try:
        unknown = [
            env
            for env in membership.PersonRow.model_validate({**row, "code": row["code"] or "X"}).designed
            if env not in known_envs()
        ]
        if unknown:
            raise accounts.AccountError(f"unknown environment(s) {', '.join(unknown)}.")
        added = membership.stage_person(db, row=row, study_id=study.id)
        db.commit()
    except (accounts.AccountError, ValueError) as exc:
        db.rollback()
        return _page(request, db, study, errors=[str(exc)], status_code=422)
    return RedirectResponse(f"/lead/studies/{study_id}/people?notice=added+{added.code}", status_code=303)


@router.post("/import", dependencies=[CsrfProtect])
async def import_csv(study_id: int, request: Request, person: RequireLead, db: DbDep):
    """All rows or none: a file with a bad row adds nobody and lists every row's problem."""
    study = _study(db, study_id)
    if study is None:
        return _missing(request)
    upload = (await request.form()).get("file")
    data = await upload.read(MAX_CSV_BYTES + 1) if isinstance(upload, UploadFile) else b""
    if not data:
        return _page(request, db, study, errors=["Choose a CSV file to import."], status_code=422)
    if len(data) > MAX_CSV_BYTES:
        return _page(request, db, study, errors=["The file is larger than 1 MB; split it."], status_code=422)
    try:
        added = membership.import_people(
            db, text=data.decode("utf-8"), study_id=stored_id(study), known_envs=known_envs()
        )
    except UnicodeDecodeError:
        return _page(
            request,
            db,
            study,
            errors=["The file is not UTF-8 text; save it as CSV (UTF-8)."],
            status_code=422,
        )
    except membership.ImportRefused as exc:
        return _page(request, db, study, errors=["Nothing was imported."] + exc.errors, status_code=422)
    return RedirectResponse(f"/lead/studies/{study_id}/people?notice=imported+{len(added)}", status_code=303)


@router.post("/{code}/deactivate", dependencies=[CsrfProtect])
def deactivate(study_id: int, code: str, request: Request, person: RequireLead, db: DbDep):
    study = _study(db, study_id)
    if study is None:
        return _missing(request)
    try:
        deactivation.deactivate(db, code=code, study_id=study.id, actor=person.code)
    except accounts.AccountError as exc:
        return _page(request, db, study, errors=[str(exc)], status_code=404)
    return RedirectResponse(
        f"/lead/studies/{study_id}/people?notice=deactivated+{code.upper()}", status_code=303
    )


@router.post("/{code}/link", dependencies=[CsrfProtect])
def fresh_link(study_id: int, code: str, person: RequireLead, db: DbDep, settings: SettingsDep):
    """A new single-use login link for the person, for the page to copy to the clipboard."""
    study = _study(db, study_id)
    found = [
        m
        for m in (membership.members(db, study_id=stored_id(study), include_leads=True) if study else [])
        if m.person.code == code.upper()
    ]
    if study is None or not found or not found[0].active:
        return JSONResponse(
            {"detail": f"{code.upper()} is not an active person of this study."}, status_code=404
        )
    url = accounts.create_login_link(
        db, secret_key=settings.secret_key, code=code, base_url=settings.public_url, study_id=study.id
    )
    return {"code": code.upper(), "url": url}
