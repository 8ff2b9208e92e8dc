"""Small holes: an out-of-range recording id in a signed recorder token, the recorder's HTTP
fallback during a database outage, a sign-in confirmation carried over to another link, and a
people CSV with a NUL in a name or a lead row imported on the People page."""

from __future__ import annotations

import json

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session
from starlette.websockets import WebSocketDisconnect

BATCH = {
    "type": "batch",
    "events": [
        {
            "seq": 0,
            "t_ms": 1_700_000_000_000,
            "type": "click",
            "xpath": "/html/body",
            "url": "http://x/",
            "x": 1.0,
            "y": 2.0,
        }
    ],
}


@pytest.fixture(params=["sqlite", "postgres"])
def app_on(request, kit, sqlite_template, tmp_path):
    """create_app on SQLite (a copy of the template) and on PostgreSQL (a migrated private schema)."""
    from humantrace.core import migrate
    from humantrace.dashboard.app import create_app

    kit.register_lab()
    if request.param == "sqlite":
        url = kit.copy_template(sqlite_template, tmp_path / "db")
    else:
        url = request.getfixturevalue("postgres_url")
        migrate.upgrade(url)
    app = create_app(kit.settings(url, tmp_path / "data"))
    with TestClient(
        app, base_url="http://testserver", follow_redirects=False, raise_server_exceptions=False
    ) as client:
        yield app, client


@pytest.mark.parametrize("rid", [2**31, 2**63, 2**64, 0, -1])
def test_a_signed_token_naming_an_impossible_recording_is_refused_not_a_500(app_on, kit, rid):
    from humantrace.recorder import service as recorder

    _app, client = app_on
    token = recorder.issue_token(secret_key=kit.SECRET_KEY, recording_id=rid)
    answer = client.post(
        "/recorder/events", content=json.dumps(BATCH), headers={"Authorization": f"Bearer {token}"}
    )
    assert answer.status_code == 401, (answer.status_code, answer.text[:300])
    assert answer.json()["code"] == "token_invalid"
    assert answer.headers["access-control-allow-origin"] == "*"
    with client.websocket_connect(f"/recorder/ws?token={token}") as socket:
        assert json.loads(socket.receive_text())["code"] == "token_invalid"
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_text()
    assert closed.value.code == 1008


@pytest.mark.postgres
def test_recorder_http_fallback_answers_a_database_outage_with_its_json_error(
    kit, postgres_url, tcp_proxy, tmp_path
):
    """A page on another origin reads the reply only with the CORS header, and the recorder reads
    only its JSON error frame: the documented 503 `internal`, so it resends later."""
    from humantrace.core import migrate
    from humantrace.dashboard.app import create_app
    from humantrace.recorder import service as recorder

    kit.register_lab()
    migrate.upgrade(postgres_url)
    url = httpx.URL(postgres_url.replace("postgresql+psycopg", "http"))
    path_to_db = tcp_proxy((url.host, url.port or 5432))
    through_proxy = postgres_url.replace(f"{url.host}:{url.port or 5432}", f"127.0.0.1:{path_to_db.port}")
    app = create_app(kit.settings(through_proxy, tmp_path / "data"))
    with TestClient(
        app, base_url="http://testserver", follow_redirects=False, raise_server_exceptions=False
    ) as client:
        maker = kit.CastMaker(app.state.engine, kit.make_study(app.state.engine))
        ids = maker.assignment(maker.person("A"), state="cold_active")
        token = recorder.issue_token(secret_key=kit.SECRET_KEY, recording_id=ids["recording_id"])
        headers = {
            "Authorization": f"Bearer {token}",
            "Content-Type": "text/plain;charset=UTF-8",
            "Origin": "http://elsewhere",
        }
        path_to_db.down()
        down = client.post("/recorder/events", content=json.dumps(BATCH), headers=headers)
        assert down.status_code == 503, (down.status_code, down.text[:300])
        assert down.headers["access-control-allow-origin"] == "*"
        assert down.json()["type"] == "error" and down.json()["code"] == "internal", down.text
        path_to_db.up()
        for _ in range(20):
            again = client.post("/recorder/events", content=json.dumps(BATCH), headers=headers)
            if again.status_code == 200:
                break
        assert again.json() == {"type": "ack", "seq": 0}


def test_a_sign_in_value_works_only_for_the_link_whose_page_gave_it(kit, sqlite_template, tmp_path):
    from humantrace.annotators import service as accounts
    from humantrace.dashboard.app import create_app
    from humantrace.dashboard.people.routes import sign_in_form

    kit.register_lab()
    url = kit.copy_template(sqlite_template, tmp_path / "db")
    app = create_app(kit.settings(url, tmp_path / "data"))
    with TestClient(app, base_url="http://testserver", follow_redirects=False) as client:
        maker = kit.CastMaker(app.state.engine, kit.make_study(app.state.engine))
        mine, theirs = maker.person("A"), maker.person("B")
        with Session(app.state.engine) as db:
            my_link = accounts.create_login_link(db, secret_key=kit.SECRET_KEY, code=mine.code, base_url="")
            their_link = accounts.create_login_link(
                db, secret_key=kit.SECRET_KEY, code=theirs.code, base_url=""
            )
        page = client.get(my_link)  # my page: its cookie and its form value
        carried = client.post(their_link, data=sign_in_form(page.text))
        assert carried.status_code == 403, "a value from another link's page must not sign in"
        assert "ht_session" not in client.cookies
        own = client.post(my_link, data=sign_in_form(page.text))
        assert own.status_code == 303 and client.cookies.get("ht_session")


def test_the_people_page_refuses_a_nul_in_a_name_and_a_lead_row_by_line_not_a_500(app_on, kit):
    """A NUL in an imported name was a 500 (PostgreSQL cannot store it); a study's CSV could create
    a lead, who manages every study. Both rows are refused with their line, and nothing is added."""
    app, client = app_on
    engine = app.state.engine
    study = kit.make_study(engine)
    lead = kit.CastMaker(engine, study).person("L", role="lead")
    client.cookies.set("ht_session", lead.session_token)
    csv_bytes = b"code,role,name\nN1,annotator,Ann\x00ie\nN2,lead,Boss\nN3,,Fine\n"
    answer = client.post(
        f"/lead/studies/{study}/people/import",
        files={"file": ("people.csv", csv_bytes, "text/csv")},
        headers={"X-CSRF-Token": lead.csrf, "Accept": "text/html"},
    )
    assert answer.status_code == 422, answer.text[-2000:]
    text = " ".join(answer.text.split())
    assert "line 2: name: the name holds the control character U+0000; remove it" in text
    assert "line 3: N2 is a lead; leads manage every study and are added one by one" in text
    page = client.get(f"/lead/studies/{study}/people", headers={"Accept": "text/html"})
    assert page.status_code == 200 and "N1" not in page.text and "N3" not in page.text
