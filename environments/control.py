"""The controller API (`/control/...`): create and reset sessions, read their state, diff, targets,
audit log and events, and evaluate. Every route needs the header `X-Controller-Secret`.

Only the harness and the dashboard hold the secret; pages and agents never do.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, Field, ValidationError
from sqlmodel import Session

from humantrace.core.deps import SettingsDep
from humantrace.environments import catalog, registry, sessions, ui
from humantrace.environments.evaluator import Verdict
from humantrace.environments.responses import Answer
from humantrace.environments.schemas import SpecError
from humantrace.environments.seeding import SeedError

SECRET_HEADER = "X-Controller-Secret"
_T = TypeVar("_T")


def require_controller(request: Request, settings: SettingsDep) -> None:
    """401 unless the request carries the configured controller secret (constant-time compare)."""
    expected = settings.controller_secret or ""
    given = request.headers.get(SECRET_HEADER, "")
    if not expected or not hmac.compare_digest(given.encode(), expected.encode()):
        raise HTTPException(status_code=401, detail="controller secret required")


def db_session(request: Request) -> Iterator[Session]:
    """A database session for one controller call."""
    with Session(request.app.state.engine) as db:
        yield db


DbDep = Annotated[Session, Depends(db_session)]
router = APIRouter(prefix="/control", tags=["control"], dependencies=[Depends(require_controller)])


def openapi_document() -> dict[str, Any]:
    """The controller API's own OpenAPI document, for harness developers (the app's document leaves
    the controller out, so no page or agent learns of it)."""
    return get_openapi(title="humantrace controller API", version="1", routes=router.routes)


class CreateSession(BaseModel):
    task_id: str
    condition: Literal["clean", "intervention"]
    seed: int = 42
    # A build of the site's controls (environments.ui); the site's default build when left out.
    ui_profile: str = "default"


class SessionInfo(BaseModel):
    session_id: str
    env_id: str
    task_id: str
    condition: str
    seed: int
    variant_id: str | None
    ui_profile: str
    enter_url: str
    start_url: str
    instruction: str
    targets: dict[str, Any]
    session_start: datetime
    initial_sha256: str
    reset_count: int


class TaskInfo(Answer):
    """One task of a site, as `humantrace tasks list` shows it."""

    task_id: str
    env_id: str
    title: str
    difficulty: str
    primary_primitives: list[str]
    expected_steps: int
    time_limit_seconds: int
    variant_id: str | None
    variant_primitive: str | None
    variant_layers: list[str]
    variant_families: list[str] = Field(description="each injection of the variant as `layer:action`")


class UIProfileInfo(Answer):
    """One build of a site's controls (environments.ui)."""

    name: str
    title: str
    description: str
    controls: dict[str, str] = Field(description="control key -> its build, e.g. `select: custom`")
    classes: list[str] = Field(description="the interaction classes the profile exercises")


class InterventionsSet(Answer):
    """The session's network rules and client dispatches as stored (variant params format)."""

    network: list[dict[str, Any]]
    client: list[dict[str, Any]]


class SessionState(Answer):
    state: dict[str, Any] = Field(description="the live state: collection name -> its records")


class SessionDiff(Answer):
    diff: list[dict[str, Any]] = Field(
        description="create/update/delete entries of the initial snapshot against the live state"
    )


class SessionTargets(Answer):
    targets: dict[str, Any] = Field(description="the resolved latent targets (never shown to a page)")


class AuditEntry(Answer):
    """One API call of the session."""

    t: datetime
    method: str
    path: str
    status: int
    intervention: str | None = Field(description="the intervention that fired on the call, if any")
    duration_ms: int


class AuditLog(Answer):
    entries: list[AuditEntry]


class SemanticEvent(Answer):
    """A typed event an API handler emitted (`cart_add {product_id, quantity}`)."""

    seq: int
    t_ms: int = Field(description="epoch milliseconds")
    event: str
    params: dict[str, Any]


class EventLog(Answer):
    events: list[SemanticEvent]


def _info(db: Session, session_id: str) -> SessionInfo:
    row = sessions.get_session(db, session_id=session_id)
    task = catalog.get_task(row.task_id)
    return SessionInfo(
        session_id=row.session_id,
        env_id=row.env_id,
        task_id=row.task_id,
        condition=row.condition,
        seed=row.seed,
        variant_id=row.variant_id,
        ui_profile=row.ui_profile,
        enter_url=f"/env/enter/{row.session_id}",
        start_url=f"/env/{row.env_id}{task.start_path}",
        instruction=catalog.render_instruction(task, row.targets),
        targets=row.targets,
        session_start=row.session_start,
        initial_sha256=row.initial_sha256,
        reset_count=row.reset_count,
    )


def _not_found(exc: Exception) -> HTTPException:
    return HTTPException(status_code=404, detail=str(exc))


@router.get("/tasks", response_model=list[TaskInfo])
def list_tasks() -> list[dict[str, Any]]:
    """Every task of every site."""
    return [summary.__dict__ for summary in catalog.list_tasks()]


@router.get("/ui-profiles", response_model=dict[str, list[UIProfileInfo]])
def list_ui_profiles() -> dict[str, list[dict[str, Any]]]:
    """Every site's UI profiles (the default first): name, title, controls and interaction classes."""
    return {
        env.env_id: [
            {
                "name": p.name,
                "title": p.title,
                "description": p.description,
                "controls": p.controls,
                "classes": list(p.classes),
            }
            for p in ui.profiles(env).values()
        ]
        for env in registry.all_environments()
    }


@router.post("/sessions", status_code=201)
def create_session(body: CreateSession, db: DbDep) -> SessionInfo:
    """Create a session of (task, condition, seed)."""
    try:
        session_id = sessions.create(
            db, task_id=body.task_id, condition=body.condition, seed=body.seed, ui_profile=body.ui_profile
        )
    except catalog.UnknownTask as exc:
        raise _not_found(exc) from None
    except (SeedError, SpecError, ui.UnknownProfile) as exc:
        raise HTTPException(status_code=422, detail=str(exc)) from None
    db.commit()
    return _info(db, session_id)


@router.get("/sessions/{session_id}")
def session_info(session_id: str, db: DbDep) -> SessionInfo:
    """What the session was built from, its instruction and targets."""
    try:
        return _info(db, session_id)
    except sessions.SessionNotFound as exc:
        raise _not_found(exc) from None


@router.post("/sessions/{session_id}/reset")
def reset_session(session_id: str, db: DbDep) -> SessionInfo:
    """Back to the initial snapshot; events, audit log and counters are cleared."""
    try:
        sessions.reset(db, session_id=session_id)
    except sessions.SessionNotFound as exc:
        raise _not_found(exc) from None
    db.commit()
    return _info(db, session_id)


class Interventions(BaseModel):
    network: list[dict[str, Any]] = []
    client: list[dict[str, Any]] = []


@router.put("/sessions/{session_id}/interventions", response_model=InterventionsSet)
def apply_interventions(session_id: str, body: Interventions, db: DbDep) -> dict[str, Any]:
    """Replace the session's network rules and client dispatches (variant params format)."""
    try:
        sessions.set_interventions(db, session_id=session_id, network=body.network, client=body.client)
    except sessions.SessionNotFound as exc:
        raise _not_found(exc) from None
    except ValidationError as exc:
        raise HTTPException(
            status_code=422, detail=exc.errors(include_url=False, include_context=False)
        ) from None
    db.commit()
    row = sessions.get_session(db, session_id=session_id)
    return {"network": row.network_rules, "client": row.client_dispatches}


def _read(db: Session, session_id: str, reader: Callable[..., _T]) -> _T:
    try:
        return reader(db, session_id=session_id)
    except sessions.SessionNotFound as exc:
        raise _not_found(exc) from None


@router.get("/sessions/{session_id}/state", response_model=SessionState)
def session_state(session_id: str, db: DbDep) -> dict[str, Any]:
    """The live state as collections."""
    return {"state": _read(db, session_id, sessions.get_state)}


@router.get("/sessions/{session_id}/diff", response_model=SessionDiff)
def session_diff(session_id: str, db: DbDep) -> dict[str, Any]:
    """The diff of the initial snapshot against the live state."""
    return {"diff": _read(db, session_id, sessions.dump_diff)}


@router.get("/sessions/{session_id}/targets", response_model=SessionTargets)
def session_targets(session_id: str, db: DbDep) -> dict[str, Any]:
    """The resolved latent targets."""
    return {"targets": _read(db, session_id, sessions.get_targets)}


async def _audits_written(session_id: str, request: Request) -> None:
    """Wait for the audit entries of the session's calls still finishing in this process (each is
    written just after its answer leaves), so a caller that has its answers finds every entry."""
    from humantrace.environments.interventions.network import audits_in_flight

    await audits_in_flight(request.app.state).settled(session_id)


@router.get("/sessions/{session_id}/audit", response_model=AuditLog, dependencies=[Depends(_audits_written)])
def session_audit(session_id: str, db: DbDep) -> dict[str, Any]:
    """Every API call since the last reset, with the intervention that fired (if any)."""
    entries = _read(db, session_id, sessions.audit_log)
    return {"entries": [entry.model_dump(mode="json", exclude={"id", "session_id"}) for entry in entries]}


@router.get("/sessions/{session_id}/events", response_model=EventLog)
def session_events(session_id: str, db: DbDep) -> dict[str, Any]:
    """The semantic event log since the last reset."""
    events = _read(db, session_id, sessions.event_log)
    return {"events": [event.model_dump(mode="json", exclude={"id", "session_id"}) for event in events]}


@router.post("/sessions/{session_id}/evaluate", response_model=Verdict)
def evaluate(session_id: str, db: DbDep) -> Verdict:
    """Score the live state (the evaluator's Verdict)."""
    return _read(db, session_id, sessions.evaluate_session)
