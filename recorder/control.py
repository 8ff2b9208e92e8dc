"""Controller routes for recordings (`/control/recordings/...`): what an agent runner needs.

An agent episode is recorded by the same injected recorder as a person's attempt. The runner
(`agentruns/`) may talk to a humantrace server in another process, so it creates the episode's
recording, reads its events back and ends it over HTTP. Every route needs the controller secret
(`X-Controller-Secret`), which no page ever holds.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request
from pydantic import BaseModel, Field
from sqlmodel import Session

from humantrace.recorder import service
from humantrace.recorder.models import LABEL_MAX_LENGTH, RAW_EVENT_FIELDS, Recording

SECRET_HEADER = "X-Controller-Secret"


def require_controller(request: Request) -> None:
    """401 unless the request carries the configured controller secret (constant-time compare)."""
    expected = getattr(request.app.state.settings, "controller_secret", "") or ""
    given = request.headers.get(SECRET_HEADER, "")
    if not expected or not hmac.compare_digest(given.encode(), expected.encode()):
        raise HTTPException(status_code=401, detail="controller secret required")


def _db(request: Request) -> Iterator[Session]:
    with Session(request.app.state.engine) as db:
        yield db


DbDep = Annotated[Session, Depends(_db)]
router = APIRouter(prefix="/control/recordings", tags=["control"], dependencies=[Depends(require_controller)])


class NewRecording(BaseModel):
    label: str = Field(default="agent episode", max_length=LABEL_MAX_LENGTH)
    mask_all_text: bool = False
    mousemove_sample_ms: int = Field(default=100, ge=0)


class RecordingInfo(BaseModel):
    recording_id: int
    token: str
    status: str


@router.post("", status_code=201)
def create(body: NewRecording, request: Request, db: DbDep) -> RecordingInfo:
    """A new `agent` recording and its recorder token (set it as the `htrec` cookie)."""
    recording = service.create_recording(
        db,
        kind="agent",
        label=body.label,
        mask_all_text=body.mask_all_text,
        mousemove_sample_ms=body.mousemove_sample_ms,
    )
    assert recording.id is not None  # committed and refreshed
    token = service.issue_token(secret_key=request.app.state.settings.secret_key, recording_id=recording.id)
    return RecordingInfo(recording_id=recording.id, token=token, status=recording.status)


def _get(db: Session, recording_id: int) -> Recording:
    try:
        return service.get_recording(db, recording_id=recording_id)
    except service.RecordingNotFound as exc:
        raise HTTPException(status_code=404, detail=str(exc)) from None


@router.get("/{recording_id}/events")
def events(recording_id: int, db: DbDep) -> dict[str, Any]:
    """The recording's acknowledged raw events (the agreed raw columns) and its browser context."""
    recording = _get(db, recording_id)
    frame = service.events_frame(db, recording_ids=[recording_id])
    rows = frame[list(RAW_EVENT_FIELDS)].astype(object).where(frame[list(RAW_EVENT_FIELDS)].notna(), None)
    return {
        "recording_id": recording.id,
        "status": recording.status,
        "acked_seq": recording.acked_seq,
        "user_agent": recording.user_agent,
        "viewport_w": recording.viewport_w,
        "viewport_h": recording.viewport_h,
        "events": rows.to_dict(orient="records"),
    }


@router.post("/{recording_id}/end")
def end(recording_id: int, db: DbDep) -> RecordingInfo:
    """End the recording: its token stops working (idempotent)."""
    _get(db, recording_id)
    recording = service.end_recording(db, recording_id=recording_id)
    return RecordingInfo(recording_id=recording.id, token="", status=recording.status)
