"""Login by personal link, and logout."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse

from annotators import service as accounts
from dashboard.deps import SESSION_COOKIE, CsrfProtect, DbDep, SettingsDep
from dashboard.pages import render

router = APIRouter()


@router.get("/login")
def login_help(request: Request):
    """Where people without a session land: explains that login is by personal link."""
    return render(request, "login.html", me=None)


@router.get("/login/{token}")
def login_with_link(token: str, request: Request, db: DbDep, settings: SettingsDep):
    try:
        person = accounts.consume_login_link(
            db, secret_key=settings.secret_key, token=token, max_age_hours=settings.login_link_ttl_hours
        )
    except accounts.LoginRefused as refused:
        return render(request, "login_refused.html", status_code=400, me=None, reason=refused.reason)
    cookie = accounts.start_login_session(db, annotator=person, ttl_hours=settings.session_ttl_hours)
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
    return response


@router.post("/logout", dependencies=[CsrfProtect])
def logout(request: Request, db: DbDep):
    accounts.end_login_session(db, token=request.cookies.get(SESSION_COOKIE))
    response = RedirectResponse("/login?logged_out=1", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response
