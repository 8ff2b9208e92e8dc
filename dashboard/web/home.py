"""Home pages: the annotator's assignment list and the lead's overview."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import RedirectResponse

from humantrace.dashboard.web.deps import CurrentAnnotator

router = APIRouter()


@router.get("/")
def home(person: CurrentAnnotator):
    return RedirectResponse("/lead" if person.is_lead else "/assignments", status_code=303)
