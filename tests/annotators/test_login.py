"""Login by single-use link, logout, lead-only pages and CSRF, on SQLite and PostgreSQL."""

import time

import pytest

from humantrace.annotators import service as accounts

PAGES = ["/", "/assignments", "/lead"]


@pytest.fixture
def people(db):
    from humantrace.dashboard.studies.service import create_study

    study = create_study(db, name="Login study", status="open")
    accounts.add_annotator(db, code="A1", study_id=study.id)
    accounts.add_annotator(db, code="L1", role="lead")


def link_for(client, db, code: str) -> str:
    settings = client.app.state.settings
    url = accounts.create_login_link(
        db, secret_key=settings.secret_key, code=code, base_url="http://testserver"
    )
    return url.removeprefix("http://testserver")


def test_a_link_logs_in_once(client, db, people, sign_in_http):
    path = link_for(client, db, "A1")
    first = sign_in_http(client, path)
    assert first.status_code == 303
    cookie = first.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert "My assignments" in client.get("/").text

    client.cookies.clear()
    again = client.get(path)
    assert again.status_code == 400
    assert "already been used" in again.text
    assert client.get("/assignments", follow_redirects=False).status_code == 303  # not logged in


def test_opening_a_link_uses_nothing_up(client, db, people, sign_in_http):
    """A mail or chat program that opens the link to preview it (a GET, any number of times) leaves
    the link working for its owner; the page names the account and logs nobody in."""
    path = link_for(client, db, "A1")
    for _ in range(3):
        preview = client.get(path, follow_redirects=False)
        assert preview.status_code == 200 and "Sign in as A1" in preview.text
        assert preview.headers["cache-control"] == "no-store"
        assert "ht_session" not in client.cookies
        assert client.get("/assignments", follow_redirects=False).status_code == 303
    client.cookies.clear()  # the owner's own browser
    assert sign_in_http(client, path).status_code == 303
    assert "My assignments" in client.get("/assignments").text


def test_sign_in_from_another_website_is_refused(client, db, people, sign_in_http):
    """The form needs the value of the cookie set with its own page (SameSite=Strict, so another
    website's form never carries it): without it, or with another page's value, nobody is logged
    in and the link still works."""
    from humantrace.dashboard.people.routes import sign_in_form

    path = link_for(client, db, "A1")
    page = client.get(path)
    assert (
        "samesite=strict" in page.headers["set-cookie"].lower()
        and "httponly" in page.headers["set-cookie"].lower()
    )
    form = sign_in_form(page.text)
    own_cookie = client.cookies.get("ht_login")
    assert own_cookie and own_cookie != form["confirm"]  # the form holds an HMAC of it and the link
    # no cookie (another website's form), no field, another page's cookie, this page's cookie with a forged field
    for cookie, data in [(None, form), (None, {}), ("x" * 32, form), (own_cookie, {"confirm": "forged"})]:
        client.cookies.clear()
        if cookie:
            client.cookies.set("ht_login", cookie, path="/login/")
        refused = client.post(path, data=data, follow_redirects=False)
        assert refused.status_code == 403 and "Open your login link again" in refused.text
        assert "ht_session" not in refused.headers.get("set-cookie", "")
    client.cookies.clear()
    assert sign_in_http(client, path).status_code == 303


def test_two_sign_ins_with_one_link_log_in_once(client, db, people):
    """Two tabs on the sign-in page, both pressed: the second is refused as a used link."""
    from humantrace.dashboard.people.routes import sign_in_form

    path = link_for(client, db, "A1")
    form = sign_in_form(client.get(path).text)
    page_cookie = client.cookies.get("ht_login")
    first = client.post(path, data=form, follow_redirects=False)
    client.cookies.delete("ht_session")
    client.cookies.set("ht_login", page_cookie, path="/login/")
    second = client.post(path, data=form, follow_redirects=False)
    assert first.status_code == 303 and second.status_code == 400 and "already been used" in second.text


def test_tampered_link_refused(client, db, people):
    path = link_for(client, db, "A1")
    tampered = path[:-3] + ("AAA" if not path.endswith("AAA") else "BBB")
    response = client.get(tampered)
    assert response.status_code == 400 and "not valid" in response.text


def test_expired_link_refused(make_settings, migrated_url):
    from fastapi.testclient import TestClient
    from sqlmodel import Session

    from humantrace.dashboard.app import create_app

    app = create_app(make_settings(migrated_url, login_link_ttl_hours=0))
    with TestClient(app) as client, Session(app.state.engine) as db:
        accounts.add_annotator(db, code="A1")
        path = link_for(client, db, "A1")
        time.sleep(1.1)
        response = client.get(path)
    assert response.status_code == 400 and "expired" in response.text


def test_logout_ends_the_session_everywhere(client, db, people, sign_in_http):
    sign_in_http(client, link_for(client, db, "A1"))
    stolen_cookie = client.cookies.get("ht_session")
    home = client.get("/assignments")
    csrf = home.text.split('name="csrf_token" value="')[1].split('"')[0]
    response = client.post("/logout", data={"csrf_token": csrf}, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"].startswith("/login")
    # the old cookie value no longer works, even if someone kept a copy
    client.cookies.set("ht_session", stolen_cookie)
    assert client.get("/assignments", follow_redirects=False).status_code == 303


def test_logout_without_csrf_token_is_refused(client, db, people, sign_in_http):
    sign_in_http(client, link_for(client, db, "A1"))
    response = client.post("/logout", data={"csrf_token": "forged"})
    assert response.status_code == 403 and "security token" in response.text
    assert client.get("/assignments").status_code == 200  # still logged in


def test_annotator_gets_a_clear_403_on_lead_pages(client, db, people, sign_in_http):
    sign_in_http(client, link_for(client, db, "A1"))
    response = client.get("/lead")
    assert response.status_code == 403
    assert "for study leads" in response.text and "A1" in response.text


def test_lead_sees_the_overview(client, db, people, sign_in_http):
    sign_in_http(client, link_for(client, db, "L1"))
    assert client.get("/", follow_redirects=False).headers["location"] == "/lead"
    page = client.get("/lead")
    assert page.status_code == 200 and "Study overview" in page.text and "A1" in page.text


@pytest.mark.parametrize("path", PAGES)
def test_every_page_without_a_session_redirects_to_login(client, path):
    response = client.get(path, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"].startswith("/login")
    assert "personal login link" in client.get("/login").text


def test_deactivated_person_cannot_use_an_earlier_link(client, db, people):
    path = link_for(client, db, "A1")
    person = accounts.get_by_code(db, code="A1")
    page = client.get(path)
    person.active = False
    db.add(person)
    db.commit()
    assert client.get(path).status_code == 400
    # a sign-in page opened before the deactivation does not log them in either
    from humantrace.dashboard.people.routes import sign_in_form

    refused = client.post(path, data=sign_in_form(page.text), follow_redirects=False)
    assert refused.status_code == 400 and "not active" in refused.text
