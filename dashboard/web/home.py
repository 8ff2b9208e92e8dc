"""Home pages: the annotator's assignment list and the lead's overview."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import RedirectResponse
from sqlmodel import select

from dashboard.studies.models import Study
from dashboard.web.deps import CurrentAnnotator

router = APIRouter()


def current_study(db) -> Study | None:
    return db.exec(select(Study).where(Study.active).order_by(Study.id.desc())).first()


@router.get("/")
def home(person: CurrentAnnotator):
    return RedirectResponse("/lead" if person.is_lead else "/assignments", status_code=303)
