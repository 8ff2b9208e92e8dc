"""The ready-made demo study behind `humantrace serve --demo`."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from annotators import service as accounts
from annotators.models import Annotator
from core.settings import Settings
from dashboard.studies.models import Study

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


def ensure_demo(engine: Engine, settings: Settings) -> list[DemoLogin]:
    """Create the demo study and its people when absent; return a fresh login link per person."""
    with Session(engine) as db:
        if db.exec(select(Study)).first() is None:
            db.add(Study(name="Demo study", seed=42))
            db.commit()
        for code, role, tier in DEMO_PEOPLE:
            if db.exec(select(Annotator).where(Annotator.code == code)).first() is None:
                accounts.add_annotator(db, code=code, role=role, tier=tier)
        return [
            DemoLogin(code, role, accounts.create_login_link(db, secret_key=settings.secret_key, code=code, base_url=settings.public_url))
            for code, role, _tier in DEMO_PEOPLE
        ]


def ensure_demo_plan(engine: Engine) -> int:
    """Plan one base task per (environment, difficulty) cell when the demo study has no assignments.

    Returns how many assignments were written (0 when the study already had some, or when the
    catalogue cannot fill a panel yet, which is reported and not fatal for the demo).
    """
    import logging

    from annotators.planning import PlanInfeasible
    from dashboard.studies import planning
    from dashboard.studies.models import Assignment

    with Session(engine) as db:
        study = db.exec(select(Study).order_by(Study.id.desc())).first()
        if db.exec(select(Assignment).where(Assignment.study_id == study.id)).first() is not None:
            return 0
        envs = planning.complete_environments(per_cell=1)
        if not envs:
            logging.getLogger("humantrace.demo").warning("no demo panel: no environment has a task with a variant at every difficulty")
            return 0
        try:
            plan = planning.make_plan(db, per_cell=1, seed=study.seed, envs=envs)
        except PlanInfeasible as exc:
            logging.getLogger("humantrace.demo").warning("no demo panel: %s", exc)
            return 0
        return planning.write_plan(db, study=study, plan=plan)
