"""Tables owned by the dashboard: the study and its settings."""

from __future__ import annotations

import environments.db  # noqa: F401  (constraint naming convention first)

from datetime import datetime

from sqlmodel import Field, SQLModel

from annotators.models import utcnow


class Study(SQLModel, table=True):
    """One human study. A deployment normally runs one; the newest active one is current."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=200)
    seed: int = 0
    show_score_to_annotators: bool = False
    rollback_grace_seconds: int = 10
    hard_time_limit_seconds: int = 30 * 60
    reading_countdown_seconds: int = 20
    mask_all_text: bool = False
    mousemove_sample_ms: int = 100
    active: bool = True
    created_at: datetime = Field(default_factory=utcnow)
