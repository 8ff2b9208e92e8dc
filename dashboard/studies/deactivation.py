"""Deactivating a person ends what they can do in the study at once.

`annotators.membership.deactivate` marks the membership (or a lead's account) inactive; from then on
the study flow refuses the person every step (`flow.get_assignment`: start, warm, website tickets,
the control channel, Evaluate, the rating). An assignment they had in progress is rolled back here
as a closed tab would be (attempts kept, marked `rolled_back`), with an entry in its audit trail
naming who deactivated them. Both the lead's people page and `humantrace annotators deactivate`
come through `deactivate`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlmodel import Session, col, select

from humantrace.annotators import membership
from humantrace.annotators.models import Annotator
from humantrace.dashboard.flow import service as flow
from humantrace.dashboard.studies.models import ACTIVE_STATES, Assignment

ROLLBACK_REASON = "annotator deactivated"


@dataclass(frozen=True)
class Deactivated:
    """The person deactivated and the assignments of theirs that were rolled back."""

    person: Annotator
    rolled_back: list[int] = field(default_factory=list)


def deactivate(db: Session, *, code: str, study_id: int | None, actor: str) -> Deactivated:
    """Deactivate `code` in `study_id` (None: their whole account, as for a lead) and roll back what
    they had in progress there (everywhere, for an account). Raises `AccountError` for an unknown
    person or one not in the study; `actor` is recorded in the rolled-back assignments' trail."""
    person = membership.deactivate(db, code=code, study_id=study_id)
    # Deactivated first: from here on no new start can slip in between this query and the rollbacks.
    query = select(Assignment.id).where(
        Assignment.annotator_id == person.id, col(Assignment.state).in_(list(ACTIVE_STATES))
    )
    if study_id is not None and not person.is_lead:
        query = query.where(Assignment.study_id == study_id)
    rolled_back = []
    for assignment_id in db.exec(query).all():
        if assignment_id is None:  # never: a stored row (for the type checker)
            continue
        try:
            flow.rollback(db, assignment_id=assignment_id, reason=ROLLBACK_REASON, actor=actor)
            rolled_back.append(assignment_id)
        except flow.FlowError:  # it ended or was rolled back a moment ago
            db.rollback()
    db.refresh(person)
    return Deactivated(person=person, rolled_back=rolled_back)
