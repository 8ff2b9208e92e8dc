"""Security headers on every kind of page, and the OpenAPI document only on a developer's machine.

Every route of `create_app` (enumerated from `app.routes`, as the access matrix does) is requested
by a lead and by nobody; each answer, whatever its status, carries `X-Content-Type-Options:
nosniff`. Dashboard and lead answers also carry a Content-Security-Policy without inline script or
style, no framing, and `Referrer-Policy: no-referrer`; the website side (environment pages and API,
the website tab's pages, the recorder) carries no CSP (the sites have inline scripts of their own
and get the recorder injected). Every dashboard page that renders (200, HTML) holds no inline
script, no `on*=` handler and no `style=` attribute, which that policy would block.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from fastapi.testclient import TestClient

SITE_SIDE = re.compile(r"^/(env|api/env|env-static|website|enter|recorder)(/|$)")
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I)
INLINE_HANDLER = re.compile(r"<[^>]+\son[a-z]+\s*=", re.I)
INLINE_STYLE = re.compile(r"<[^>]+\sstyle\s*=|<style\b", re.I)


def directives(header: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            out[words[0].lower()] = words[1:]
    return out


@pytest.fixture(scope="module")
def world(kit, sqlite_template, tmp_path_factory):
    directory = tmp_path_factory.mktemp("headers")
    url = kit.copy_template(sqlite_template, directory)
    kit.register_lab()
    from humantrace.dashboard.app import create_app
    from humantrace.dashboard.studies import monitor

    # The monitor's event stream ends after its first snapshot here, so a request reads it whole.
    lifetime, monitor.STREAM_SECONDS = monitor.STREAM_SECONDS, 0.0
    app = create_app(kit.settings(url, directory / "data"))
    with TestClient(app, base_url="http://testserver", follow_redirects=False) as client:
        maker = kit.CastMaker(app.state.engine, kit.make_study(app.state.engine))
        lead, owner = maker.person("L", role="lead"), maker.person("A")
        ids = maker.assignment(owner, state="rating")
        ids.update(maker.assignment(owner, state="warm_ready", task_id="lab-002"))
        client.cookies.update(lead.cookies)  # the lead works in this study (the template has another)
        chosen = client.post(f"/lead/studies/{maker.study_id}/use", headers={"X-CSRF-Token": lead.csrf})
        assert chosen.status_code == 303, chosen.text
        yield SimpleNamespace(app=app, client=client, lead=lead, owner=owner, ids=ids)
    monitor.STREAM_SECONDS = lifetime


def fill(path: str, ids: dict) -> str:
    return re.sub(
        r"\{(\w+)\}", lambda m: str(ids.get(m.group(1), "lab" if m.group(1) == "env_id" else "x1")), path
    )


def assert_dashboard_headers(response, where: str) -> None:
    headers = response.headers
    assert headers.get("x-content-type-options") == "nosniff", where
    assert headers.get("x-frame-options") == "DENY", where
    assert headers.get("referrer-policy") == "no-referrer", where
    csp = directives(headers.get("content-security-policy", ""))
    assert csp.get("frame-ancestors") == ["'none'"], (where, csp)
    for name in ("script-src", "style-src"):
        assert csp.get(name) == ["'self'"], (where, name, csp)  # no 'unsafe-inline', no other origin
    assert csp.get("object-src") == ["'none'"] and csp.get("base-uri") == ["'none'"], (where, csp)


def test_every_route_answers_with_its_security_headers(app_route, world):
    if app_route.method == "WS":
        pytest.skip("a websocket handshake has no response headers to set")
    path = app_route.probe or fill(app_route.path, world.ids)
    for who in (None, world.lead):
        client = world.client
        client.cookies.clear()
        headers = {"Accept": "text/html"}
        if who is not None:
            client.cookies.update(who.cookies)  # no CSRF token: a form is refused (403), nothing changes
        response = client.request(app_route.method, path, headers=headers)
        where = f"{app_route.method} {path} as {'lead' if who else 'nobody'} -> {response.status_code}"
        if SITE_SIDE.match(app_route.path):
            assert response.headers.get("x-content-type-options") == "nosniff", where
            assert "content-security-policy" not in response.headers, (
                where
            )  # the sites' own inline scripts stay working
        else:
            assert_dashboard_headers(response, where)


def test_every_dashboard_page_that_renders_has_no_inline_script_or_style(world, kit):
    """Every GET page route without a body, as the lead and as the annotator who owns the objects."""
    from fastapi.routing import iter_route_contexts

    pages = [
        r.path
        for r in iter_route_contexts(world.app.routes)
        if "GET" in (getattr(r, "methods", None) or ()) and not SITE_SIDE.match(r.path)
    ]
    rendered = []
    for who in (world.lead, world.owner):
        client = world.client
        client.cookies.clear()
        client.cookies.update(who.cookies)
        for template in pages:
            path = fill(template, world.ids)
            response = client.get(path, headers={"Accept": "text/html"})
            if response.status_code != 200 or not response.headers.get("content-type", "").startswith(
                "text/html"
            ):
                continue
            rendered.append(path)
            assert_dashboard_headers(response, path)
            body = response.text
            for pattern in (INLINE_SCRIPT, INLINE_HANDLER, INLINE_STYLE):
                found = pattern.search(body)
                assert found is None, f"{path}: {found.group(0)[:120] if found else ''}"
    # the lead's pages and the annotator's (home, control tab, rating form) were all looked at
    assert {"/lead", "/lead/assignments", "/lead/review", "/assignments"} <= set(rendered), rendered
    assert any(p.endswith("/control") for p in rendered) and any(p.endswith("/monitor") for p in rendered), (
        rendered
    )
    assert len(rendered) >= 15, rendered


def test_login_pages_send_no_referrer(world):
    for path in ("/login", "/login/not-a-real-link"):
        world.client.cookies.clear()
        response = world.client.get(path)
        assert response.headers.get("referrer-policy") == "no-referrer", (path, response.status_code)


@pytest.mark.parametrize("environment", ["staging", "production"])
def test_openapi_and_docs_are_off_outside_local(kit, sqlite_template, tmp_path, environment):
    from humantrace.dashboard.app import create_app

    url = kit.copy_template(sqlite_template, tmp_path)
    app = create_app(kit.settings(url, tmp_path / "data", environment=environment))
    with TestClient(app) as client:
        for path in ("/openapi.json", "/docs", "/redoc", "/docs/oauth2-redirect"):
            response = client.get(path)
            assert response.status_code == 404, (path, response.status_code)
            assert "openapi" not in response.text.lower()


def test_openapi_on_a_developer_machine_lists_no_controller_route(kit, sqlite_template, tmp_path):
    from humantrace.dashboard.app import create_app

    url = kit.copy_template(sqlite_template, tmp_path)
    app = create_app(kit.settings(url, tmp_path / "data", environment="local"))
    with TestClient(app) as client:
        document = client.get("/openapi.json").json()
        assert client.get("/docs").status_code == 404 and client.get("/redoc").status_code == 404
    paths = set(document["paths"])
    assert any(p.startswith("/api/env/") for p in paths), sorted(
        paths
    )  # the sites' API stays described (schemathesis)
    assert not [p for p in paths if p.startswith("/control")], sorted(paths)
    assert "control" not in {tag.get("name") for tag in document.get("tags", [])}
