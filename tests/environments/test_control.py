"""Controller auth, entering a session, and that no public surface leaks what only the controller may see."""

from __future__ import annotations

import json

import httpx
import pytest

CONTROLLER_SECRET = "ctl-secret-7f3a9c"


@pytest.mark.parametrize("headers", [{}, {"X-Controller-Secret": "wrong"}, {"X-Controller-Secret": ""}])
def test_controller_refuses_without_the_secret(lab_server, headers):
    info = lab_server.create("lab-001")
    with httpx.Client(base_url=lab_server.base_url, headers=headers) as client:
        for method, path in [
            ("POST", "/control/sessions"),
            ("GET", f"/control/sessions/{info['session_id']}/targets"),
            ("GET", f"/control/sessions/{info['session_id']}/state"),
            ("POST", f"/control/sessions/{info['session_id']}/evaluate"),
            ("POST", f"/control/sessions/{info['session_id']}/reset"),
        ]:
            response = client.request(method, path, json={"task_id": "lab-001", "condition": "clean"})
            assert response.status_code == 401, (method, path)
            assert response.json() == {"detail": "controller secret required"}


def test_controller_refuses_everyone_when_no_secret_is_configured(lab_server):
    lab_server.app.state.settings.controller_secret = ""
    with httpx.Client(base_url=lab_server.base_url, headers={"X-Controller-Secret": ""}) as client:
        assert client.get("/control/tasks").status_code == 401


def test_controller_round_trip(lab_server):
    info = lab_server.create("lab-001", "intervention", 9)
    assert info["variant_id"] == "lab-001-v1"
    assert info["instruction"] == f'Pin the note titled "{info["targets"]["title"]}".'
    sid = info["session_id"]
    with lab_server.control() as control:
        assert control.get("/control/sessions/nope/state").status_code == 404
        assert (
            control.post("/control/sessions", json={"task_id": "lab-999", "condition": "clean"}).status_code
            == 404
        )
        assert (
            control.post("/control/sessions", json={"task_id": "lab-001", "condition": "dirty"}).status_code
            == 422
        )
        assert [t["task_id"] for t in control.get("/control/tasks").json() if t["env_id"] == "lab"] == [
            "lab-001",
            "lab-002",
        ]
        with lab_server.public(sid) as api:
            api.patch(
                f"/api/env/lab/notes/{info['targets']['note_id']}", json={"pinned": True}
            )  # misleading success
            api.patch(f"/api/env/lab/notes/{info['targets']['note_id']}", json={"pinned": True})
        assert len(control.get(f"/control/sessions/{sid}/diff").json()["diff"]) == 1
        events = control.get(f"/control/sessions/{sid}/events").json()["events"]
        assert [(e["seq"], e["event"], e["params"]["pinned"]) for e in events] == [(0, "note_pin", True)]
        audit = control.get(f"/control/sessions/{sid}/audit").json()["entries"]
        assert [e["intervention"] for e in audit] == ["misleading_success", None]
        verdict = control.post(f"/control/sessions/{sid}/evaluate").json()
        assert verdict["passed"] is True and verdict["score"] == 1.0
        reset = control.post(f"/control/sessions/{sid}/reset").json()
        assert reset["reset_count"] == 1 and reset["initial_sha256"] == info["initial_sha256"]
        assert control.get(f"/control/sessions/{sid}/diff").json()["diff"] == []
        assert control.post(f"/control/sessions/{sid}/evaluate").json()["passed"] is False


def test_enter_sets_an_httponly_cookie_and_redirects_to_the_start_page(lab_server):
    info = lab_server.create("lab-001")
    with httpx.Client(base_url=lab_server.base_url) as browser:
        response = browser.get(info["enter_url"], follow_redirects=False)
        assert response.status_code == 303 and response.headers["location"] == "/env/lab/"
        cookie = response.headers["set-cookie"]
        assert cookie.startswith(f"htenv={info['session_id']};")
        assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/" in cookie
        page = browser.get("/env/lab/")
        assert page.status_code == 200 and "Lab Notes" in page.text
        assert browser.get("/env/enter/not-a-session").status_code == 404


def test_no_session_gets_a_friendly_page_and_a_json_401(lab_server):
    with httpx.Client(base_url=lab_server.base_url) as browser:
        page = browser.get("/env/lab/")
        assert page.status_code == 401 and "This environment has no active session" in page.text
        api = browser.get("/api/env/lab/notes")
        assert api.status_code == 401 and api.json() == {"detail": "This environment has no active session."}
        other = browser.get("/api/env/lab/notes", headers={"X-Env-Session": "forged"})
        assert other.status_code == 401


@pytest.mark.parametrize("task_id", ["lab-001", "lab-002"])
def test_no_public_response_page_or_cookie_holds_targets_verdicts_variant_or_secret(lab_server, task_id):
    info = lab_server.create(task_id, "intervention", 42)
    sid = info["session_id"]
    with lab_server.control() as control:
        verdict = control.post(f"/control/sessions/{sid}/evaluate").json()
    forbidden = {
        "target marker": info["targets"]["marker"],
        "targets json": json.dumps(info["targets"]),
        "variant id": info["variant_id"],
        "controller secret": CONTROLLER_SECRET,
        "secret key": "page-secret-key-0b1d",
        "verdict": json.dumps(verdict)[:60],
        "score field": '"score"',
        "primitive": "verification" if task_id == "lab-001" else "patience",
    }
    seen: list[str] = []
    with httpx.Client(base_url=lab_server.base_url) as browser:
        responses = [browser.get(info["enter_url"], follow_redirects=False)]
        responses.append(browser.get("/env/lab/"))
        responses.append(browser.get("/env/lab/relogin"))
        responses.append(browser.get("/api/env/lab/notes"))
        note_id = responses[-1].json()["notes"][0]["id"]
        responses.append(browser.patch(f"/api/env/lab/notes/{note_id}", json={"pinned": True}))
        responses.append(browser.post("/api/env/lab/notes", json={"title": "t"}))
        responses.append(browser.get("/env-static/ux.js"))
        for response in responses:
            seen.append(response.text)
            seen.append(json.dumps(dict(response.headers)))
        seen.append(json.dumps(dict(browser.cookies)))
    everything = "\n".join(seen)
    for name, value in forbidden.items():
        assert value not in everything, f"{name} leaked"


def test_the_controller_openapi_document_describes_every_answer() -> None:
    """Each of the controller's operations names the shape of its success answer (a harness
    developer reads the fields from the document instead of from the code)."""
    from humantrace.environments.control import openapi_document

    document = openapi_document()
    operations = {
        (method.upper(), path): operation
        for path, item in document["paths"].items()
        for method, operation in item.items()
    }
    assert len(operations) == 12, sorted(operations)
    for (method, path), operation in operations.items():
        success = next(
            operation["responses"][code] for code in ("200", "201") if code in operation["responses"]
        )
        schema = success["content"]["application/json"]["schema"]
        assert "$ref" in json.dumps(schema), (method, path, schema)  # a named model, not any object
    components = document["components"]["schemas"]
    assert set(components["AuditEntry"]["properties"]) == {
        "t",
        "method",
        "path",
        "status",
        "intervention",
        "duration_ms",
    }
    assert "passed" in components["Verdict"]["properties"]
    assert "reset_count" in components["SessionInfo"]["properties"]
