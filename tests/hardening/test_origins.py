"""The control channel opens only from the dashboard's origin, the website channel only from the
websites': a handshake from any other origin (or none) is refused before any database read.

The layout is docs/deploy.md's: the dashboard on `study.localhost:8000` and the websites on
`sites.study.localhost:8000`, two names a browser treats as one site (so it sends the dashboard's
Lax login cookie along with a website page's handshake). The browser test of the same layout is
tests/dashboard/test_origins_browser.py.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event
from sqlmodel import Session
from starlette.websockets import WebSocketDisconnect

DASHBOARD = "http://study.localhost:8000"
WEBSITES = "http://sites.study.localhost:8000"
WEBSITE_CHANNEL = "ws://sites.study.localhost:8000/website/ws"


@pytest.fixture
def world(kit, sqlite_template, tmp_path):
    from humantrace.dashboard.app import create_app

    kit.register_lab()
    url = kit.copy_template(sqlite_template, tmp_path)
    app = create_app(kit.settings(url, tmp_path / "data", public_url=DASHBOARD, env_public_url=WEBSITES))
    with TestClient(app, base_url=DASHBOARD, follow_redirects=False) as client:
        maker = kit.CastMaker(app.state.engine, kit.make_study(app.state.engine))
        yield app, client, maker


class Statements:
    """Counts the SQL statements the app's engine runs."""

    def __init__(self, engine):
        self.count = 0
        self.engine = engine
        event.listen(engine, "before_cursor_execute", self._seen)

    def _seen(self, *_args) -> None:
        self.count += 1

    def close(self) -> None:
        event.remove(self.engine, "before_cursor_execute", self._seen)


def _answer(client, url: str, origin: str | None, cookies: dict[str, str]):
    """("open", first message) or (close code, reason) for a handshake from `origin`."""
    client.cookies.clear()
    for name, value in cookies.items():
        client.cookies.set(name, value)
    headers = {} if origin is None else {"origin": origin}
    try:
        with client.websocket_connect(url, headers=headers) as socket:
            return "open", socket.receive_json()
    except WebSocketDisconnect as closed:
        return closed.code, closed.reason


FOREIGN_TO_THE_DASHBOARD = [
    None,  # no Origin at all: a browser always sends one
    "null",  # a sandboxed frame or a file:// page
    "https://evil.example",
    WEBSITES,  # the website tab's own script: same site, another origin
    "http://study.localhost:8001",  # another port
    "https://study.localhost:8000",  # another scheme
    "http://localhost:8000",
]


def test_the_control_channel_refuses_every_other_origin_before_reading_the_database(world):
    app, client, maker = world
    person = maker.person("A")
    ids = maker.assignment(person, state="cold_active")
    url = f"/ws/control/{ids['assignment_id']}"
    statements = Statements(app.state.engine)
    try:
        refused = {
            origin: _answer(client, url, origin, person.cookies) for origin in FOREIGN_TO_THE_DASHBOARD
        }
        assert statements.count == 0, "a refused handshake read nothing from the database"
    finally:
        statements.close()
    for origin, answer in refused.items():
        assert answer[0] == 1008 and "cross-origin" in answer[1], (origin, answer)
    state, snapshot = _answer(client, url, DASHBOARD, person.cookies)
    assert state == "open" and snapshot["state"] == "cold_active", snapshot


def test_the_website_channel_refuses_every_origin_but_the_websites(world):
    from humantrace.dashboard.flow import service as flow
    from humantrace.dashboard.flow import website

    app, client, maker = world
    person = maker.person("W")
    ids = maker.assignment(person, state="cold_active")
    with Session(app.state.engine) as db:  # "go": the channel then tells the tab to load the website
        flow.begin_recording(db, attempt_id=ids["attempt_id"], annotator=None)
    tab = {website.WEB_COOKIE: website._serializer(app.state.settings).dumps({"a": ids["assignment_id"]})}
    url = WEBSITE_CHANNEL
    statements = Statements(app.state.engine)
    try:
        refused = {
            origin: _answer(client, url, origin, tab)
            for origin in (None, "https://evil.example", DASHBOARD, "http://sites.study.localhost:9000")
        }
        assert statements.count == 0
    finally:
        statements.close()
    for origin, answer in refused.items():
        assert answer[0] == 1008 and "cross-origin" in answer[1], (origin, answer)
    assert _answer(client, url, WEBSITES, tab) == ("open", {"do": "go", "url": "/website/go"})


def test_a_database_error_at_the_website_channels_handshake_asks_the_tab_to_reconnect(
    world, tmp_path, caplog
):
    """The website tab's channel meets an unreachable database as the control channel does: a
    warning and a close that tab.js answers by reconnecting (1013), not a traceback."""
    import logging

    from humantrace.dashboard.flow import website
    from humantrace.recorder import service as recorder

    app, client, maker = world
    person = maker.person("D")
    ids = maker.assignment(person, state="cold_active")
    secret = app.state.settings.secret_key
    cookies = {
        website.WEB_COOKIE: website._serializer(app.state.settings).dumps({"a": ids["assignment_id"]}),
        website.REC_COOKIE: recorder.issue_token(secret_key=secret, recording_id=ids["recording_id"]),
    }
    app.state.engine.dispose()
    (tmp_path / "humantrace.db").rename(tmp_path / "away.db")  # every query now fails (no such table)
    with caplog.at_level(logging.WARNING):
        code, reason = _answer(client, WEBSITE_CHANNEL, WEBSITES, cookies)
    assert code == 1013 and "database" in reason, (code, reason)
    assert "website channel: database unreachable" in caplog.text
    assert not [r for r in caplog.records if r.exc_info], "no traceback"
