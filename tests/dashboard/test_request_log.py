"""The request log middleware: one line per request with the status the client really got, and
the same 503 as the app when the database fails in middleware."""

from __future__ import annotations

import logging

from sqlalchemy.exc import OperationalError
from starlette.testclient import TestClient

from humantrace.core.requestlog import RequestLogMiddleware


async def _fails_with_database_down(scope, receive, send):
    raise OperationalError("SELECT 1", {}, Exception("connection refused"))


async def _answers_201(scope, receive, send):
    await send({"type": "http.response.start", "status": 201, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"made"})


def _request(app, path: str, headers: dict | None = None):
    # TestClient runs the app on its own portal thread, so it works whatever event loop an earlier
    # test (Playwright's sync API, say) left running in this xdist worker's main thread.
    # No `with`: these bare apps speak HTTP only, not lifespan.
    return TestClient(RequestLogMiddleware(app)).get(path, headers=headers or {})


def test_database_failure_in_middleware_is_a_503_and_logged_as_503(caplog):
    caplog.set_level(logging.INFO, logger="humantrace.http")
    response = _request(_fails_with_database_down, "/api/env/shop/cart", {"Accept": "application/json"})
    assert response.status_code == 503 and response.headers["retry-after"] == "2"
    lines = [r.getMessage() for r in caplog.records if r.name == "humantrace.http"]
    assert any(line.startswith("GET /api/env/shop/cart 503 ") for line in lines), lines
    assert not any(" 500 " in line for line in lines), lines


def test_each_request_is_logged_with_its_status_and_no_client_address(caplog):
    caplog.set_level(logging.INFO, logger="humantrace.http")
    response = _request(_answers_201, "/assignments")
    assert response.status_code == 201 and response.text == "made"
    lines = [r.getMessage() for r in caplog.records if r.name == "humantrace.http"]
    assert len(lines) == 1 and lines[0].startswith("GET /assignments 201 ") and lines[0].endswith("ms"), lines
    assert "testclient" not in lines[0] and "127.0.0.1" not in lines[0]


def test_secrets_in_paths_are_not_logged(caplog):
    """A login link's token and an env session id are keys: the log line names the route instead."""
    caplog.set_level(logging.INFO, logger="humantrace.http")
    for path in (
        "/login/eyJuIjoic2VjcmV0In0.abc.def",
        "/env/enter/zHyq9UVFyXnzBOO3b58QziPnubX-UaMh",
        "/login",
        "/env/shop/",
    ):
        _request(_answers_201, path)
    lines = [r.getMessage().rsplit(" ", 1)[0] for r in caplog.records if r.name == "humantrace.http"]
    assert lines == [
        "GET /login/{token} 201",
        "GET /env/enter/{session_id} 201",
        "GET /login 201",
        "GET /env/shop/ 201",
    ], lines
