"""Login by personal link, and logout.

Opening a link (GET) only shows a sign-in page naming the account; the person's click on its
button (POST) uses the link up and starts the login session. Mail and chat programs open links to
preview or scan them, so a GET that logged in would spend the single-use link before its owner
saw it. The sign-in form carries a value that must match a cookie set with the page (SameSite
Strict), so another website cannot submit it and log a visitor into someone else's account. The
value is an HMAC of the cookie's nonce and the link's token: a value (and cookie) from one link's
page does not sign in through another link.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse

from humantrace.annotators import service as accounts
from humantrace.dashboard.studies.deps import studies_for
from humantrace.dashboard.web.deps import SESSION_COOKIE, CsrfProtect, DbDep, SettingsDep
from humantrace.dashboard.web.pages import render

router = APIRouter()

CONFIRM_COOKIE = "ht_login"  # pairs a sign-in page with the form posted from it
CONFIRM_FIELD = "confirm"
CONFIRM_TTL_S = 3600


def _confirmation(secret_key: str, nonce: str, token: str) -> str:
    """The sign-in form's value for the page cookie `nonce` on the link `token`."""
    return hmac.new(
        secret_key.encode(), f"login-confirm\x00{token}\x00{nonce}".encode(), hashlib.sha256
    ).hexdigest()


@router.get("/login")
def login_help(request: Request):
    """Where people without a session land: explains that login is by personal link."""
    return render(request, "login.html", me=None)


@router.get("/login/{token}")
def login_page(token: str, request: Request, db: DbDep, settings: SettingsDep):
    """The sign-in page of a link: names the account; uses nothing up."""
    try:
        person = accounts.check_login_link(
            db, secret_key=settings.secret_key, token=token, max_age_hours=settings.login_link_ttl_hours
        )
    except accounts.LoginRefused as refused:
        return _refused(request, refused.reason)
    nonce = secrets.token_urlsafe(24)
    response = render(
        request,
        "login_confirm.html",
        me=None,
        person=person,
        confirm=_confirmation(settings.secret_key, nonce, token),
        field=CONFIRM_FIELD,
        action=f"/login/{token}",
    )
    response.headers["Cache-Control"] = "no-store"
    response.set_cookie(
        CONFIRM_COOKIE,
        nonce,
        max_age=CONFIRM_TTL_S,
        httponly=True,
        samesite="strict",
        secure=settings.cookie_secure,
        path="/login/",
    )
    return response


@router.post("/login/{token}")
def login_with_link(token: str, request: Request, db: DbDep, settings: SettingsDep, confirm: str = Form("")):
    """The sign-in button: uses the link up, starts the login session, goes to the person's home."""
    nonce = request.cookies.get(CONFIRM_COOKIE) or ""
    expected = _confirmation(settings.secret_key, nonce, token) if nonce else ""
    if not expected or not hmac.compare_digest(confirm.encode(), expected.encode()):
        return _refused(
            request,
            "This sign-in did not come from the page of your link, or that page is more than an "
            "hour old. Open your login link again and press Sign in there.",
            status_code=403,
        )
    try:
        person = accounts.consume_login_link(
            db, secret_key=settings.secret_key, token=token, max_age_hours=settings.login_link_ttl_hours
        )
    except accounts.LoginRefused as refused:
        return _refused(request, refused.reason)
    cookie = accounts.start_login_session(db, annotator=person, ttl_hours=settings.session_ttl_hours)
    named = accounts.login_link_study(secret_key=settings.secret_key, token=token)
    if named is not None and named in {s.id for s in studies_for(db, person)}:
        accounts.choose_study(db, token=cookie, study_id=named)  # a link for one study opens that study
    response = RedirectResponse("/", status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        cookie,
        max_age=settings.session_ttl_hours * 3600,
        httponly=True,
        samesite="lax",
        secure=settings.cookie_secure,
        path="/",
    )
    response.delete_cookie(CONFIRM_COOKIE, path="/login/")
    return response


def _refused(request: Request, reason: str, status_code: int = 400):
    return render(request, "login_refused.html", status_code=status_code, me=None, reason=reason)


@router.post("/logout", dependencies=[CsrfProtect])
def logout(request: Request, db: DbDep):
    accounts.end_login_session(db, token=request.cookies.get(SESSION_COOKIE))
    response = RedirectResponse("/login?logged_out=1", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


def sign_in_form(page_html: str) -> dict[str, str]:
    """The form a sign-in page posts (for scripted clients: the load benchmark, tests)."""
    found = re.search(rf'name="{CONFIRM_FIELD}" value="([^"]+)"', page_html)
    if found is None:
        raise ValueError("not a sign-in page: the login link was refused or already used")
    return {CONFIRM_FIELD: found.group(1)}
