"""Access control of every route of `create_app`, for every kind of caller.

Roles: `anon` (no cookie), `a` (the annotator who owns the objects in the path), `b` (another
annotator), `lead`, `envpage` (an environment tab: the `htenv` session cookie and the `htrec`
recorder token of an attempt, no login), `ctl` (the controller secret) and `ctl_bad` (a wrong one).
Routes are enumerated from `app.routes`: a route added without an expectation fails here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session
from starlette.websockets import WebSocketDisconnect

ROLES = ("anon", "a", "b", "lead", "envpage", "ctl", "ctl_bad")
WS = "WS"  # the "method" of a websocket route
OPEN, REFUSED = "open", "refused(1008)"
MISSING = 987654  # an id that names nothing


# --------------------------------------------------------------------------- expectations


def same(status) -> dict[str, object]:
    return {role: status for role in ROLES}


def annotator_page(owner: int = 200) -> dict[str, object]:
    # Not logged in: redirect to /login. Not the owner (lead included): 404, as for no such id.
    return {**same(303), "a": owner, "b": 404, "lead": 404}


def annotator_form(owner: int = 303) -> dict[str, object]:
    # Without a login session there is no CSRF token either: refused before anything else.
    return {**same(403), "a": owner, "b": 404, "lead": 404}


def lead_page(status: int = 200) -> dict[str, object]:
    return {**same(303), "a": 403, "b": 403, "lead": status}


def lead_form(status: int = 303) -> dict[str, object]:
    return {**same(403), "lead": status}


def controller(status: int = 200) -> dict[str, object]:
    return {**same(401), "ctl": status}


def owner_socket() -> dict[str, object]:
    return {**same(REFUSED), "a": OPEN}


@dataclass(frozen=True)
class Cell:
    """How to call a route, what it needs to exist, and the status each role gets."""

    expect: dict[str, object]
    scene: str = "cold_active"  # the state of a's assignment
    form: dict[str, str] | None = None
    json: object | None = None
    shared: bool = False  # refused or read-only for everyone: may use the module's shared cast


DASHBOARD: dict[tuple[str, str], Cell] = {
    ("GET", "/openapi.json"): Cell(same(200), shared=True),
    ("GET", "/login"): Cell(same(200), shared=True),
    ("GET", "/login/{token}"): Cell(same(400), shared=True),
    ("POST", "/logout"): Cell({**same(403), "a": 303, "b": 303, "lead": 303}),
    ("GET", "/"): Cell(same(303)),
    ("GET", "/assignments"): Cell({**same(303), "a": 200, "b": 200, "lead": 200}),
    ("POST", "/assignments/{assignment_id}/start"): Cell(annotator_form(303), scene="not_started"),
    ("GET", "/assignments/{assignment_id}/control"): Cell(annotator_page(200)),
    ("POST", "/attempts/{attempt_id}/begin"): Cell(annotator_form(200)),
    ("POST", "/attempts/{attempt_id}/end"): Cell(annotator_form(200), form={"outcome": "evaluated"}),
    ("GET", "/attempts/{attempt_id}/environment"): Cell(annotator_page(303)),
    ("GET", "/assignments/{assignment_id}/between"): Cell(annotator_page(200), scene="warm_ready"),
    ("POST", "/assignments/{assignment_id}/warm"): Cell(annotator_form(303), scene="warm_ready"),
    ("POST", "/assignments/{assignment_id}/rating"): Cell(annotator_form(303), scene="rating", form={"clarity": "4"}),
    ("GET", "/lead"): Cell(lead_page()),
    ("GET", "/lead/assignments"): Cell(lead_page()),
    ("GET", "/lead/assignments/{assignment_id}"): Cell(lead_page()),
    ("POST", "/lead/assignments/{assignment_id}/reopen"): Cell(lead_form(303), form={"reason": "matrix"}),
    ("GET", "/lead/attempts/{attempt_id}"): Cell(lead_page()),
    ("GET", "/lead/review"): Cell(lead_page()),
    ("POST", "/lead/review/{rating_id}"): Cell(lead_form(303), scene="completed", form={"resolution": "keep"}),
    ("GET", "/lead/pass-rates"): Cell(lead_page()),
    ("GET", "/lead/plan"): Cell(lead_page()),
    ("POST", "/lead/plan"): Cell(lead_form(200), form={"per_cell": "0", "seed": "1", "action": "preview"}),
    ("GET", "/lead/exports"): Cell(lead_page()),
    ("POST", "/lead/exports/bundle.zip"): Cell(lead_form(200), form={"format": "csv"}),
    (WS, "/ws/control/{assignment_id}"): Cell(owner_socket()),
    (WS, "/ws/between/{assignment_id}"): Cell(owner_socket(), scene="warm_ready"),
    ("GET", "/recorder/recorder.js"): Cell(same(200), shared=True),
    # The recorder authenticates by its token (query or body), never by a cookie.
    (WS, "/recorder/ws"): Cell({**same(REFUSED), "envpage": OPEN}),
    ("POST", "/recorder/events"): Cell({**same(401), "envpage": 200}),
    ("OPTIONS", "/recorder/events"): Cell(same(204), shared=True),
    # The session id is the capability (the dashboard hands it to the owner's environment tab).
    ("GET", "/env/enter/{session_id}"): Cell(same(303)),
    ("GET", "/env/{env_id}/relogin"): Cell({**same(401), "envpage": 200}),
    ("POST", "/env/{env_id}/relogin"): Cell({**same(401), "envpage": 303}, form={"next": "/env/lab/"}),
    ("GET", "/env-static/ux.js"): Cell(same(200), shared=True),
    ("GET", "/control/tasks"): Cell(controller()),
    ("POST", "/control/sessions"): Cell(controller(201), json={"task_id": "lab-001", "condition": "clean", "seed": 1}),
    ("GET", "/control/sessions/{session_id}"): Cell(controller()),
    ("POST", "/control/sessions/{session_id}/reset"): Cell(controller()),
    ("PUT", "/control/sessions/{session_id}/interventions"): Cell(controller(), json={"network": [], "client": []}),
    ("GET", "/control/sessions/{session_id}/state"): Cell(controller()),
    ("GET", "/control/sessions/{session_id}/diff"): Cell(controller()),
    ("GET", "/control/sessions/{session_id}/targets"): Cell(controller()),
    ("GET", "/control/sessions/{session_id}/audit"): Cell(controller()),
    ("GET", "/control/sessions/{session_id}/events"): Cell(controller()),
    ("POST", "/control/sessions/{session_id}/evaluate"): Cell(controller()),
}

# The lab site's routes as its own environment tab sees them (every other caller: 401).
LAB_AS_ENVPAGE = {
    ("GET", "/api/env/lab/notes"): 200,
    ("POST", "/api/env/lab/notes"): 201,
    ("PATCH", "/api/env/lab/notes/{note_id}"): 200,
    ("POST", "/api/env/lab/auth/login"): 200,
    ("GET", "/env/lab/"): 200,
}
LAB_BODIES = {("POST", "/api/env/lab/notes"): {"title": "from the matrix"}, ("PATCH", "/api/env/lab/notes/{note_id}"): {"pinned": True}}
SITE_PATH = re.compile(r"^/(api/env|env|env-static)/(?P<env>[a-z0-9_-]+)(/|$)")


def cell_for(method: str, path: str) -> Cell | None:
    """The expectation of a route, or None when nobody wrote one down."""
    if (method, path) in DASHBOARD:
        return DASHBOARD[(method, path)]
    found = SITE_PATH.match(path)
    if found is None or path.startswith("/env/enter/") or "{env_id}" in path:
        return None
    env = found.group("env")
    if path.startswith("/env-static/"):
        return None  # mounts get a probe below
    if env == "lab":
        status = LAB_AS_ENVPAGE.get((method, path))
        if status is None:
            return None
        return Cell({**same(401), "envpage": status}, json=LAB_BODIES.get((method, path)))
    # Another site: no caller here holds a session of it; the lab tab's session is refused there.
    return Cell(same(401), json={} if method in ("POST", "PUT", "PATCH") else None, shared=True)


# --------------------------------------------------------------------------- the world of one cell


@pytest.fixture(scope="module")
def world(kit, sqlite_template, tmp_path_factory):
    """One app on a copy of the migrated template; every cell makes its own people and objects."""
    from dashboard.app import create_app

    directory = tmp_path_factory.mktemp("matrix")
    url = kit.copy_template(sqlite_template, directory)
    kit.register_lab()
    app = create_app(kit.settings(url, directory / "data"))
    with TestClient(app, base_url="http://testserver", follow_redirects=False) as client:
        maker = kit.CastMaker(app.state.engine, kit.make_study(app.state.engine))
        here = SimpleNamespace(app=app, kit=kit, maker=maker, client=client)
        owner = maker.person("A")
        here.bystanders = {role: caller_for(role, here, owner) for role in ROLES}
        yield here


@dataclass
class Caller:
    cookies: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    recorder_token: str | None = None
    env_session: str | None = None


def caller_for(role: str, world, owner) -> Caller:
    from recorder import service as recorder

    from dashboard.routes.study import REC_COOKIE
    from environments.deps import COOKIE_NAME

    maker = world.maker
    if role == "a":
        person = owner
    elif role == "b":
        person = maker.person("B")
    elif role == "lead":
        person = maker.person("L", role="lead")
    else:
        person = None
    if person is not None:
        return Caller(cookies=person.cookies, headers={"X-CSRF-Token": person.csrf})
    if role == "envpage":
        tab = maker.assignment(maker.person("E"), state="cold_active")
        token = recorder.issue_token(secret_key=world.kit.SECRET_KEY, recording_id=tab["recording_id"])
        return Caller(cookies={COOKIE_NAME: tab["session_id"], REC_COOKIE: token}, recorder_token=token, env_session=tab["session_id"])
    if role == "ctl":
        return Caller(headers={"X-Controller-Secret": world.kit.CONTROLLER_SECRET})
    if role == "ctl_bad":
        return Caller(headers={"X-Controller-Secret": "not-the-" + world.kit.CONTROLLER_SECRET})
    return Caller()


def fill_path(path: str, ids: dict, caller: Caller, engine) -> str:
    from environments import sessions

    def value(match: re.Match) -> str:
        name = match.group(1)
        if name in ids:
            return str(ids[name])
        if name == "token":
            return "not-a-real-link"
        if name == "env_id":
            return "lab"
        if name == "note_id" and caller.env_session:
            with Session(engine) as db:
                return sessions.get_state(db, session_id=caller.env_session)["notes"][0]["id"]
        return "x1"

    return re.sub(r"\{(\w+)\}", value, path)


def call(world, app_route, cell: Cell, role: str) -> object:
    """What `role` gets from the route: an HTTP status, or OPEN/REFUSED for a websocket."""
    maker = world.maker
    if cell.shared:
        # Every caller is refused or only reads: nothing can change, so these cells share a cast.
        caller, ids = world.bystanders[role], {}
    else:
        needs_objects = bool(re.search(r"\{(assignment_id|attempt_id|session_id|rating_id)\}", app_route.path))
        owner = maker.person("A")
        ids = maker.assignment(owner, state=cell.scene) if needs_objects else {}
        caller = caller_for(role, world, owner)
    path = app_route.probe or fill_path(app_route.path, ids, caller, world.app.state.engine)
    client = world.client
    client.cookies.clear()
    for name, value in caller.cookies.items():
        client.cookies.set(name, value)
    client.headers.clear()
    client.headers.update({"Accept": "text/html", **caller.headers})
    if app_route.method == WS:
        if path == "/recorder/ws":
            path += f"?token={caller.recorder_token or ''}"
        try:
            with client.websocket_connect(path) as socket:
                first = json.loads(socket.receive_text())
        except WebSocketDisconnect as closed:
            return REFUSED if closed.code == 1008 else f"closed({closed.code})"
        if first.get("type") == "error":
            return REFUSED
        return OPEN
    kwargs: dict = {}
    if cell.form is not None:
        kwargs["data"] = cell.form
    elif cell.json is not None:
        kwargs["json"] = cell.json
    if path == "/recorder/events" and app_route.method == "POST":
        meta = {"type": "meta", "user_agent": "matrix", "viewport_w": 800, "viewport_h": 600, "screen_w": 800, "screen_h": 600}
        kwargs = {"content": json.dumps(meta), "headers": {"Content-Type": "text/plain"}}
        if caller.recorder_token:
            kwargs["headers"]["Authorization"] = f"Bearer {caller.recorder_token}"
    return client.request(app_route.method, path, **kwargs).status_code


# --------------------------------------------------------------------------- the tests


def test_access(app_route, role, world):
    cell = cell_for(app_route.method, app_route.path) if app_route.probe is None else Cell(same(200), shared=True)
    assert cell is not None, f"{app_route.id} has no expected status per role: add it to the access matrix"
    assert call(world, app_route, cell, role) == cell.expect[role]
