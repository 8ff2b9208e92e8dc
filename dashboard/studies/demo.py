"""The ready-made demo study behind `humantrace serve --demo`."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from humantrace.annotators import membership
from humantrace.annotators import service as accounts
from humantrace.annotators.models import Annotator
from humantrace.core.settings import Settings
from humantrace.dashboard.studies import service as studies
from humantrace.dashboard.studies.models import Study, StudyStatus

DEMO_PEOPLE = [
    ("A1", "annotator", "primary"),
    ("A2", "annotator", "primary"),
    ("A3", "annotator", "primary"),
    ("A4", "annotator", "primary"),
    ("D1", "annotator", "duplicate"),
    ("L1", "lead", "primary"),
]


@dataclass(frozen=True)
class DemoLogin:
    code: str
    role: str
    url: str


DEMO_NAME = "Demo study"
DEMO_DESCRIPTION = (
    "A short demonstration study. Each task is done twice: once cold, then once more (warm) on the same website. "
    "Read the task, press Start, and work in the website window that opens."
)


def demo_study(db: Session) -> Study:
    """The demo study, created (open, seed 42) through the same service as `humantrace study create`."""
    found = db.exec(select(Study).where(Study.name == DEMO_NAME)).first()
    if found is not None:
        return found
    return studies.create_study(db, name=DEMO_NAME, description=DEMO_DESCRIPTION, status=StudyStatus.open)


def ensure_demo(engine: Engine, settings: Settings) -> list[DemoLogin]:
    """Create the demo study and its people when absent; return a fresh login link per person."""
    with Session(engine) as db:
        study = demo_study(db)
        assert study.id is not None  # demo_study commits it
        for code, role, tier in DEMO_PEOPLE:
            person = db.exec(select(Annotator).where(Annotator.code == code)).first()
            if person is None or (
                role != "lead"
                and person.id is not None
                and membership.membership_of(db, study_id=study.id, annotator_id=person.id) is None
            ):
                accounts.add_annotator(db, code=code, role=role, tier=tier, study_id=study.id)
        return [
            DemoLogin(
                code,
                role,
                accounts.create_login_link(
                    db, secret_key=settings.secret_key, code=code, base_url=settings.public_url
                ),
            )
            for code, role, _tier in DEMO_PEOPLE
        ]


def ensure_demo_plan(engine: Engine) -> int:
    """Plan one base task per (environment, difficulty) cell when the demo study has no assignments.

    Returns how many assignments were written (0 when the study already had some, or when the
    catalogue cannot fill a panel yet, which is reported and not fatal for the demo).
    """
    import logging

    from humantrace.annotators.planning import PlanInfeasible
    from humantrace.dashboard.studies import planning
    from humantrace.dashboard.studies.models import Assignment

    with Session(engine) as db:
        study = demo_study(db)
        if db.exec(select(Assignment).where(Assignment.study_id == study.id)).first() is not None:
            return 0
        envs = planning.complete_environments(per_cell=1)
        if not envs:
            logging.getLogger("humantrace.demo").warning(
                "no demo panel: no environment has a task with a variant at every difficulty"
            )
            return 0
        try:
            plan = planning.make_plan(db, study=study, per_cell=1, envs=envs)
        except PlanInfeasible as exc:
            logging.getLogger("humantrace.demo").warning("no demo panel: %s", exc)
            return 0
        return planning.write_plan(db, study=study, plan=plan)
