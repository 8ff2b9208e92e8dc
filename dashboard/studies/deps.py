"""The study a request works in: the one chosen on the study picker, or the only one there is.

A login session remembers its study (`LoginSession.study_id`). An annotator works in a study they
are an active member of; a lead in any study. When nothing was chosen and more than one study
could be meant, pages send the person to the picker (`StudyChoiceNeeded`).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from sqlmodel import Session, col, select

from humantrace.annotators import membership
from humantrace.annotators import service as accounts
from humantrace.annotators.models import Annotator
from humantrace.dashboard.studies.models import Study, StudyStatus
from humantrace.dashboard.web.deps import SESSION_COOKIE, CurrentAnnotator, DbDep, RequireLead


class StudyChoiceNeeded(Exception):
    """The person is in several studies (or none) and has not picked one: show the picker."""


def studies_for(db: Session, person: Annotator) -> list[Study]:
    """The studies a person may work in: every study for a lead; an annotator's active memberships.
    Archived studies are left out of both."""
    query = select(Study).where(Study.status != StudyStatus.archived).order_by(col(Study.id))
    if not person.is_lead:
        assert person.id is not None  # a signed-in person is a stored row
        ids = membership.study_ids_of(db, annotator_id=person.id)
        if not ids:
            return []
        query = query.where(col(Study.id).in_(ids))
    return list(db.exec(query))


def study_for(request: Request, db: Session, person: Annotator) -> Study | None:
    """The study this login session works in, or None when the person must pick one."""
    allowed = studies_for(db, person)
    chosen = accounts.session_study_id(db, token=request.cookies.get(SESSION_COOKIE))
    if chosen is not None:
        if person.is_lead:
            study = db.get(Study, chosen)  # a lead may look at an archived study they chose
            if study is not None:
                return study
        for study in allowed:
            if study.id == chosen:
                return study
    return allowed[0] if len(allowed) == 1 else None


def current_study(request: Request, db: DbDep, person: CurrentAnnotator) -> Study:
    study = study_for(request, db, person)
    if study is None:
        raise StudyChoiceNeeded()
    request.state.study = study
    return study


def lead_study(request: Request, db: DbDep, person: RequireLead) -> Study:
    return current_study(request, db, person)


CurrentStudy = Annotated[Study, Depends(current_study)]
LeadStudy = Annotated[Study, Depends(lead_study)]
