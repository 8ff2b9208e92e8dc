"""Home pages: the annotator's assignment list and the lead's overview."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse
from sqlmodel import select

from annotators import service as accounts
from dashboard.deps import CurrentAnnotator, DbDep, RequireLead
from dashboard.models import Study
from dashboard.pages import render

router = APIRouter()


def current_study(db) -> Study | None:
    return db.exec(select(Study).where(Study.active).order_by(Study.id.desc())).first()


@router.get("/")
def home(person: CurrentAnnotator):
    return RedirectResponse("/lead" if person.is_lead else "/assignments", status_code=303)


@router.get("/lead")
def lead_home(request: Request, person: RequireLead, db: DbDep):
    return render(
        request,
        "lead_home.html",
        study=current_study(db),
        people=accounts.list_annotators(db),
    )
