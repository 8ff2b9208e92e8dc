"""Access control of every route of `create_app`, for every kind of caller.

Roles: `anon` (no cookie), `a` (the annotator who owns the objects in the path), `b` (another
annotator), `lead`, `envpage` (an environment tab: the `htenv` session cookie and the `htrec`
recorder token of an attempt, no login), `website` (the website tab in the annotator's browser:
exactly what a real one holds, the `htweb` tab cookie besides `htenv` and `htrec`; it gets what
`envpage` gets, so it can read or change nothing on the dashboard), `ctl` (the controller secret)
and `ctl_bad` (a wrong one). The website tab's own routes live on the environments' host name only:
on the dashboard's they are a 404 for everyone (and on the environments' host every dashboard
route is a 404: `test_the_environments_host_serves_no_dashboard_route`).
Routes are enumerated from `app.routes`: a route added without an expectation fails here.
"""

from __future__ import annotations

import base64
import difflib
import json
import re
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session
from starlette.websockets import WebSocketDisconnect

ROLES = ("anon", "a", "b", "lead", "envpage", "website", "ctl", "ctl_bad")
WS = "WS"  # the "method" of a websocket route
OPEN, REFUSED = "open", "refused(1008)"
MISSING = 987654  # an id that names nothing
WEB_COOKIE = "htweb"
# Every websocket is opened as a page of the test client's host would: the channels refuse other origins.
PAGE_ORIGIN = {"origin": "http://testserver"}


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
    # Without the cookie of its own sign-in page, refused before the link is even looked at.
    ("POST", "/login/{token}"): Cell(same(403), shared=True, form={"confirm": "x"}),
    ("POST", "/logout"): Cell({**same(403), "a": 303, "b": 303, "lead": 303}),
    ("GET", "/"): Cell(same(303)),
    ("GET", "/assignments"): Cell({**same(303), "a": 200, "b": 200, "lead": 200}),
    ("POST", "/assignments/{assignment_id}/start"): Cell(annotator_form(303), scene="not_started"),
    ("GET", "/assignments/{assignment_id}/control"): Cell(annotator_page(200)),
    ("POST", "/attempts/{attempt_id}/begin"): Cell(annotator_form(200)),
    ("POST", "/attempts/{attempt_id}/end"): Cell(annotator_form(200), form={"outcome": "evaluated"}),
    ("GET", "/assignments/{assignment_id}/website"): Cell(annotator_page(200)),
    ("POST", "/assignments/{assignment_id}/warm"): Cell(annotator_form(303), scene="warm_ready"),
    ("POST", "/assignments/{assignment_id}/rating"): Cell(
        annotator_form(303), scene="rating", form={"clarity": "4"}
    ),
    ("GET", "/lead"): Cell(lead_page()),
    ("GET", "/lead/assignments"): Cell(lead_page()),
    ("GET", "/lead/assignments/{assignment_id}"): Cell(lead_page()),
    ("POST", "/lead/assignments/{assignment_id}/reopen"): Cell(lead_form(303), form={"reason": "matrix"}),
    ("GET", "/lead/attempts/{attempt_id}"): Cell(lead_page()),
    ("GET", "/lead/review"): Cell(lead_page()),
    ("POST", "/lead/review/{rating_id}"): Cell(
        lead_form(303), scene="completed", form={"resolution": "keep"}
    ),
    ("GET", "/lead/pass-rates"): Cell(lead_page()),
    ("GET", "/lead/plan"): Cell(lead_page()),
    ("POST", "/lead/plan"): Cell(lead_form(200), form={"per_cell": "0", "seed": "1", "action": "preview"}),
    ("GET", "/lead/exports"): Cell(lead_page()),
    # Studies. An annotator picks among their own studies (a and b are both members of the world's study).
    ("GET", "/studies"): Cell({**same(303), "a": 200, "b": 200}),
    ("POST", "/studies/{study_id}/choose"): Cell({**same(403), "a": 303, "b": 303, "lead": 303}),
    ("GET", "/lead/studies"): Cell(lead_page()),
    # Refused by validation (an empty name), so the matrix's world keeps one study.
    ("POST", "/lead/studies"): Cell(lead_form(422), form={"name": ""}),
    ("GET", "/lead/studies/{study_id}"): Cell(lead_page()),
    ("POST", "/lead/studies/{study_id}"): Cell(lead_form(422), form={"rollback_grace_seconds": "0"}),
    ("POST", "/lead/studies/{study_id}/status"): Cell(lead_form(303), form={"action": "open"}),
    ("POST", "/lead/studies/{study_id}/use"): Cell(lead_form(303)),
    ("GET", "/lead/studies/{study_id}/people"): Cell(lead_page()),
    ("POST", "/lead/studies/{study_id}/people"): Cell(lead_form(422), form={"code": ""}),
    ("POST", "/lead/studies/{study_id}/people/import"): Cell(lead_form(422)),
    ("POST", "/lead/studies/{study_id}/people/{code}/deactivate"): Cell(lead_form(303)),
    ("POST", "/lead/studies/{study_id}/people/{code}/link"): Cell(lead_form(200)),
    ("GET", "/lead/studies/{study_id}/monitor"): Cell(lead_page()),
    ("GET", "/lead/studies/{study_id}/monitor/stream"): Cell(lead_page()),
    ("POST", "/lead/exports/bundle.zip"): Cell(lead_form(200), form={"format": "csv"}),
    (WS, "/ws/control/{assignment_id}"): Cell(owner_socket()),
    # The website tab's routes: on the dashboard's host name they do not exist.
    ("GET", "/enter/{ticket}"): Cell(same(404), shared=True),
    ("GET", "/website/cover"): Cell(same(404), shared=True),
    ("GET", "/website/ended"): Cell(same(404), shared=True),
    ("GET", "/website/go"): Cell(same(404), shared=True),
    ("GET", "/website/tab.js"): Cell(same(404), shared=True),
    (WS, "/website/ws"): Cell(same(REFUSED), shared=True),
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
    ("GET", "/env-static/site.js"): Cell(same(200), shared=True),
    ("GET", "/control/tasks"): Cell(controller()),
    ("GET", "/control/ui-profiles"): Cell(controller()),
    ("POST", "/control/sessions"): Cell(
        controller(201), json={"task_id": "lab-001", "condition": "clean", "seed": 1}
    ),
    ("GET", "/control/sessions/{session_id}"): Cell(controller()),
    ("POST", "/control/sessions/{session_id}/reset"): Cell(controller()),
    ("PUT", "/control/sessions/{session_id}/interventions"): Cell(
        controller(), json={"network": [], "client": []}
    ),
    ("GET", "/control/sessions/{session_id}/state"): Cell(controller()),
    ("GET", "/control/sessions/{session_id}/diff"): Cell(controller()),
    ("GET", "/control/sessions/{session_id}/targets"): Cell(controller()),
    ("GET", "/control/sessions/{session_id}/audit"): Cell(controller()),
    ("GET", "/control/sessions/{session_id}/events"): Cell(controller()),
    ("POST", "/control/sessions/{session_id}/evaluate"): Cell(controller()),
    # Agent episodes' recordings (agentruns): the controller only.
    ("POST", "/control/recordings"): Cell(controller(201), json={"label": "matrix"}),
    ("GET", "/control/recordings/{recording_id}/events"): Cell(controller()),
    ("POST", "/control/recordings/{recording_id}/end"): Cell(controller()),
}

# The lab site's routes as its own environment tab sees them (every other caller: 401).
LAB_AS_ENVPAGE = {
    ("GET", "/api/env/lab/notes"): 200,
    ("POST", "/api/env/lab/notes"): 201,
    ("PATCH", "/api/env/lab/notes/{note_id}"): 200,
    ("GET", "/api/env/lab/notes/{note_id}/open"): 200,
    ("GET", "/api/env/lab/notes/{note_id}/touch"): 200,
    ("GET", "/api/env/lab/scratch"): 200,
    ("POST", "/api/env/lab/auth/login"): 200,
    ("GET", "/env/lab/"): 200,
}
LAB_BODIES = {
    ("POST", "/api/env/lab/notes"): {"title": "from the matrix"},
    ("PATCH", "/api/env/lab/notes/{note_id}"): {"pinned": True},
}
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
    from humantrace.dashboard.app import create_app
    from humantrace.dashboard.studies import monitor

    # The monitor's event stream ends after its first snapshot here, so a request reads it whole.
    lifetime, monitor.STREAM_SECONDS = monitor.STREAM_SECONDS, 0.0

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
    monitor.STREAM_SECONDS = lifetime


@dataclass
class Caller:
    cookies: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    recorder_token: str | None = None
    env_session: str | None = None


def caller_for(role: str, world, owner) -> Caller:
    from humantrace.dashboard.flow.routes import REC_COOKIE
    from humantrace.environments.deps import COOKIE_NAME
    from humantrace.recorder import service as recorder

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
    if role in ("envpage", "website"):
        tab = maker.assignment(maker.person("E"), state="cold_active")
        token = recorder.issue_token(secret_key=world.kit.SECRET_KEY, recording_id=tab["recording_id"])
        cookies = {COOKIE_NAME: tab["session_id"], REC_COOKIE: token}
        if role == "website":
            cookies[WEB_COOKIE] = website_cookie(world, tab["assignment_id"])
        return Caller(cookies=cookies, recorder_token=token, env_session=tab["session_id"])
    if role == "ctl":
        return Caller(headers={"X-Controller-Secret": world.kit.CONTROLLER_SECRET})
    if role == "ctl_bad":
        return Caller(headers={"X-Controller-Secret": "not-the-" + world.kit.CONTROLLER_SECRET})
    return Caller()


def website_cookie(world, assignment_id: int) -> str:
    """The `htweb` cookie a website tab of that assignment holds after entering with its ticket."""
    from itsdangerous import URLSafeSerializer

    return URLSafeSerializer(world.kit.SECRET_KEY, salt="website-tab").dumps({"a": assignment_id})


def fill_path(path: str, ids: dict, caller: Caller, engine) -> str:
    from humantrace.environments import sessions

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
        ids: dict[str, Any]
        caller, ids = world.bystanders[role], {}
    else:
        needs_objects = bool(
            re.search(
                r"\{(assignment_id|attempt_id|session_id|rating_id|study_id|code|recording_id)\}",
                app_route.path,
            )
        )
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
            with client.websocket_connect(path, headers=PAGE_ORIGIN) as socket:
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
        meta = {
            "type": "meta",
            "user_agent": "matrix",
            "viewport_w": 800,
            "viewport_h": 600,
            "screen_w": 800,
            "screen_h": 600,
        }
        kwargs = {"content": json.dumps(meta), "headers": {"Content-Type": "text/plain"}}
        if caller.recorder_token:
            kwargs["headers"]["Authorization"] = f"Bearer {caller.recorder_token}"
    return client.request(app_route.method, path, **kwargs).status_code


# --------------------------------------------------------------------------- the tests


def test_access(app_route, role, world):
    cell = (
        cell_for(app_route.method, app_route.path)
        if app_route.probe is None
        else Cell(same(200), shared=True)
    )
    assert cell is not None, f"{app_route.id} has no expected status per role: add it to the access matrix"
    # The website tab holds an environment tab's credentials and its own cookie, nothing more.
    expected = cell.expect.get("envpage") if role == "website" else cell.expect[role]
    assert call(world, app_route, cell, role) == expected


def test_no_existence_leak_across_annotators(world):
    """Another annotator's assignment or attempt answers exactly like one that does not exist."""
    maker = world.maker
    owner, other = maker.person("A"), maker.person("B")
    ids = maker.assignment(owner, state="cold_active")
    routes = [r for r in (key for key in DASHBOARD) if re.search(r"\{(assignment_id|attempt_id)\}", r[1])]
    assert len(routes) >= 10
    client = world.client
    client.cookies.clear()
    client.cookies.set("ht_session", other.session_token)
    client.headers.clear()
    client.headers.update({"Accept": "text/html", "X-CSRF-Token": other.csrf})
    for method, template in routes:
        cell = DASHBOARD[(method, template)]
        answers = []
        for value in (ids, {"assignment_id": MISSING, "attempt_id": MISSING}):
            path = re.sub(r"\{(\w+)\}", lambda m, v=value: str(v[m.group(1)]), template)
            if method == WS:
                try:
                    with client.websocket_connect(path, headers=PAGE_ORIGIN) as socket:
                        answers.append(("open", socket.receive_text()))
                except WebSocketDisconnect as closed:
                    answers.append((closed.code, closed.reason))
                continue
            response = client.request(method, path, data=cell.form)
            body = response.text
            for number in {str(value.get("assignment_id")), str(value.get("attempt_id"))}:
                body = re.sub(rf"\b{number}\b", "ID", body)
            answers.append((response.status_code, response.headers.get("content-type"), body))
        difference = "\n".join(
            difflib.unified_diff(
                str(answers[0][-1]).splitlines(), str(answers[1][-1]).splitlines(), lineterm="", n=0
            )
        )
        assert answers[0] == answers[1], (
            f"{method} {template}: another's object answers unlike a missing one:\n{difference}"
        )
        assert answers[0][0] in (404, 403, 1008), (method, template, answers[0][:2])
    # and the owner's objects are untouched by all that
    with Session(world.app.state.engine) as db:
        from humantrace.dashboard.studies.models import Assignment

        assert db.get(Assignment, ids["assignment_id"]).state == "cold_active"


FORBIDDEN_IN_PAGES = (
    "lab-001-v1",
    "lab-001",
    "canonical_diff",
    "verdict",
    "positive_checks",
    "target_primitive",
    "misleading_success",
    "decoy_notes",
    "shuffle_list",
    "grounding",
    "verification",
)


def test_environment_page_reads_no_target_verdict_or_variant(world):
    """Everything an environment tab of an intervention session can fetch is free of benchmark internals."""
    from humantrace.environments import sessions
    from humantrace.recorder import service as recorder

    maker = world.maker
    tab = maker.assignment(maker.person("E"), state="cold_active", condition="intervention")
    with Session(world.app.state.engine) as db:
        row = sessions.get_session(db, session_id=tab["session_id"])
        assert row.variant_id == "lab-001-v1" and row.targets["marker"].startswith("tgtmark")
        note_id = row.targets["note_id"]
        forbidden = FORBIDDEN_IN_PAGES + (row.targets["marker"], str(row.seed))
    token = recorder.issue_token(secret_key=world.kit.SECRET_KEY, recording_id=tab["recording_id"])
    client = world.client
    client.cookies.clear()
    client.headers.clear()
    seen: dict[str, str] = {}

    def keep(label: str, response) -> None:
        text = response.text + " " + " ".join(f"{k}: {v}" for k, v in response.headers.items())
        # The client layer's config travels base64-encoded: a page can decode it, so we do too.
        for payload in re.findall(r'data-c="([A-Za-z0-9+/=]+)"', response.text):
            text += base64.b64decode(payload).decode()
        seen[label] = text

    entered = client.get(f"/env/enter/{tab['session_id']}")
    keep("enter", entered)
    client.cookies.set("htrec", token)
    pages = [r.path for r in world.app.routes if getattr(r, "path", "").startswith("/env/lab/")]
    for path in [
        "/env/lab/",
        "/env/lab/relogin",
        "/recorder/recorder.js",
        "/env-static/ux.js",
        "/env-static/lab/lab.css",
        *pages,
    ]:
        keep(path, client.get(path))
    keep("list", client.get("/api/env/lab/notes"))
    keep("create", client.post("/api/env/lab/notes", json={"title": "mine"}))
    keep("pin", client.patch(f"/api/env/lab/notes/{note_id}", json={"pinned": True}))
    keep("pin again", client.patch(f"/api/env/lab/notes/{note_id}", json={"pinned": True}))
    keep("login", client.post("/api/env/lab/auth/login", json={}))
    keep("bad", client.post("/api/env/lab/notes", json={"title": ""}))
    keep("missing", client.get("/api/env/lab/nothing-here"))
    batch = {"type": "batch", "events": [{"seq": 0, "t_ms": 1, "type": "click", "x": 1.0, "y": 2.0}]}
    keep(
        "fallback",
        client.post(
            "/recorder/events", content=json.dumps(batch), headers={"Authorization": f"Bearer {token}"}
        ),
    )
    with client.websocket_connect(f"/recorder/ws?token={token}") as socket:
        seen["ws"] = socket.receive_text()
        socket.send_text(json.dumps({**batch, "events": [{**batch["events"][0], "seq": 1}]}))
        seen["ws"] += socket.receive_text()
    assert 'data-token="' in seen["/env/lab/"], "the page carries the recorder"
    assert '"misleading_success"' not in seen["pin"] and '"pinned":true' in seen["pin"].replace(" ", "")
    leaks = {label: [word for word in forbidden if word in text] for label, text in seen.items()}
    assert not {label: words for label, words in leaks.items() if words}, leaks


def test_csrf_refused_on_every_state_changing_form(world):
    """Every dashboard POST needs the token of its own login session; a refusal changes nothing."""
    from humantrace.dashboard.studies.models import Assignment

    maker = world.maker
    # The sign-in form has a token of its own (tests/annotators/test_login.py).
    forms = [
        (m, p)
        for (m, p) in DASHBOARD
        if m == "POST" and not p.startswith(("/recorder/", "/control/", "/env/", "/login/"))
    ]
    assert len(forms) >= 10
    client = world.client
    for method, template in forms:
        cell = DASHBOARD[(method, template)]
        owner, lead, stranger = maker.person("A"), maker.person("L", role="lead"), maker.person("S")
        ids = maker.assignment(owner, state=cell.scene)
        acting = lead if template.startswith("/lead/") else owner
        path = re.sub(r"\{(\w+)\}", lambda m: str(ids[m.group(1)]), template)
        for presented in (None, "", "0" * 64, stranger.csrf):
            client.cookies.clear()
            client.cookies.set("ht_session", acting.session_token)
            client.headers.clear()
            client.headers.update({"Accept": "text/html"})
            form = dict(cell.form or {})
            if presented is not None:
                form["csrf_token"] = presented
            response = client.post(path, data=form)
            assert response.status_code == 403 and "security token" in response.text, (template, presented)
        with Session(world.app.state.engine) as db:
            assert db.get(Assignment, ids["assignment_id"]).state == cell.scene, template
    # the token of the right session in the form field (as the pages send it) is accepted
    owner = maker.person("A")
    ids = maker.assignment(owner)
    client.cookies.clear()
    client.cookies.set("ht_session", owner.session_token)
    assert (
        client.post(f"/assignments/{ids['assignment_id']}/start", data={"csrf_token": owner.csrf}).status_code
        == 303
    )


@pytest.mark.parametrize("secure", [False, True], ids=["http", "https"])
def test_session_cookies_are_httponly_and_samesite(kit, sqlite_template, tmp_path, secure):
    """Login, recorder and environment cookies: HttpOnly, SameSite=Lax, and Secure behind HTTPS."""
    from humantrace.annotators import service as accounts
    from humantrace.dashboard.app import create_app
    from humantrace.dashboard.people.routes import sign_in_form

    kit.register_lab()
    url = kit.copy_template(sqlite_template, tmp_path)
    app = create_app(kit.settings(url, tmp_path / "data", cookie_secure=secure))
    with TestClient(
        app, base_url="https://testserver" if secure else "http://testserver", follow_redirects=False
    ) as client:
        maker = kit.CastMaker(app.state.engine, kit.make_study(app.state.engine))
        person = maker.person("A")
        ids = maker.assignment(person, state="cold_active")
        with Session(app.state.engine) as db:
            link = accounts.create_login_link(db, secret_key=kit.SECRET_KEY, code=person.code, base_url="")
        page = client.get(link)
        sign_in_page = page.headers.get("set-cookie")
        issued = [
            client.post(link, data=sign_in_form(page.text)).headers.get("set-cookie").split(", ht_login=")[0]
        ]
        with Session(app.state.engine) as db:  # the countdown is over: "go"
            from humantrace.dashboard.flow.website import ticket_for
            from humantrace.dashboard.studies.models import Assignment, Attempt

            attempt = db.get(Attempt, ids["attempt_id"])
            attempt.recording_started_at = attempt.created_at
            db.add(attempt)
            db.commit()
            ticket = ticket_for(db.get(Assignment, ids["assignment_id"]), secret_key=kit.SECRET_KEY)
        website = "https://localhost" if secure else "http://localhost"  # the environments' host name
        issued.append(client.get(f"{website}/enter/{ticket}").headers.get("set-cookie"))
        issued += client.get(f"{website}/website/go").headers.get_list("set-cookie")
        issued.append(client.get(f"/env/enter/{ids['session_id']}").headers.get("set-cookie"))
    names = [cookie.split("=", 1)[0] for cookie in issued]
    assert names == ["ht_session", "htweb", "htenv", "htrec", "htenv"]
    # the sign-in page's own cookie goes only back to the sign-in form, never from another website
    attributes = [part.strip().lower() for part in sign_in_page.split(";")]
    assert (
        sign_in_page.startswith("ht_login=") and "samesite=strict" in attributes and "httponly" in attributes
    )
    assert ("secure" in attributes) == secure and "path=/login/" in attributes
    for cookie in issued:
        attributes = [part.strip().lower() for part in cookie.split(";")]
        assert "httponly" in attributes, cookie
        assert "samesite=lax" in attributes, cookie
        assert ("secure" in attributes) == secure, cookie


@pytest.mark.parametrize("number", [0, -1, 2**31, 2**70], ids=["zero", "negative", "int32+1", "huge"])
def test_ids_out_of_range_name_nothing_and_never_fail(world, number):
    """Every route with an id in its path answers an id no column can hold as "not found", never 500."""
    maker = world.maker
    owner, lead = maker.person("A"), maker.person("L", role="lead")
    routes = [key for key in DASHBOARD if re.search(r"\{(assignment_id|attempt_id|rating_id)\}", key[1])]
    assert len(routes) >= 12
    client = TestClient(
        world.app, base_url="http://testserver", follow_redirects=False, raise_server_exceptions=False
    )
    for method, template in routes:
        acting = lead if template.startswith("/lead/") else owner
        client.cookies.clear()
        client.cookies.set("ht_session", acting.session_token)
        client.headers.update({"Accept": "text/html", "X-CSRF-Token": acting.csrf})
        path = re.sub(r"\{\w+\}", str(number), template)
        if method == WS:
            try:
                with client.websocket_connect(path, headers=PAGE_ORIGIN) as socket:
                    socket.receive_text()
                outcome = "open"
            except WebSocketDisconnect as closed:
                outcome = closed.code
            assert outcome == 1008, (template, outcome)
            continue
        response = client.request(method, path, data=DASHBOARD[(method, template)].form)
        assert response.status_code in (303, 400, 404, 422), (method, template, response.status_code)


def test_the_environments_host_serves_no_dashboard_route(world):
    """On the environments' host name, holding everything a website tab holds, every dashboard
    page and form is a 404: a website's script reaches nothing of the dashboard there."""
    from humantrace.dashboard.studies.models import Assignment

    owner = world.maker.person("A")
    ids = world.maker.assignment(owner, state="cold_active")
    caller = caller_for("website", world, owner)
    client = world.client
    client.cookies.clear()
    client.headers.clear()
    answers = {}
    for (method, template), cell in DASHBOARD.items():
        if method == WS or template.startswith(("/env", "/api/env", "/recorder", "/enter", "/website")):
            continue
        path = fill_path(template, ids, caller, world.app.state.engine)
        response = client.request(
            method, "http://localhost" + path, cookies=caller.cookies, data=cell.form, json=cell.json
        )
        answers[f"{method} {template}"] = response.status_code
    assert len(answers) >= 25 and set(answers.values()) == {404}, answers
    with Session(world.app.state.engine) as db:
        assert db.get(Assignment, ids["assignment_id"]).state == "cold_active"
