"""The ready-made demo study behind `humantrace serve --demo`."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from annotators import service as accounts
from annotators.models import Annotator
from dashboard.models import Study
from dashboard.settings import Settings

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
            db.add(Study(name="Demo study", seed=2026))
            db.commit()
        for code, role, tier in DEMO_PEOPLE:
            if db.exec(select(Annotator).where(Annotator.code == code)).first() is None:
                accounts.add_annotator(db, code=code, role=role, tier=tier)
        return [
            DemoLogin(code, role, accounts.create_login_link(db, secret_key=settings.secret_key, code=code, base_url=settings.public_url))
            for code, role, _tier in DEMO_PEOPLE
        ]
