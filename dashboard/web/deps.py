"""Request dependencies: database session, the logged-in person, lead-only pages, CSRF."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from humantrace.annotators import service as accounts
from humantrace.annotators.models import Annotator
from humantrace.core.deps import DbDep, SettingsDep, get_db, get_settings  # noqa: F401  (re-exported for the routes)

SESSION_COOKIE = "ht_session"


class LoginRequired(Exception):
    """No valid login session: pages redirect to /login, JSON answers 401."""


class LeadOnly(Exception):
    """An annotator asked for a lead page."""


class CsrfFailed(Exception):
    """A state-changing request without the CSRF token of its login session."""


def current_annotator(request: Request, db: DbDep) -> Annotator:
    person = accounts.resolve_login_session(db, token=request.cookies.get(SESSION_COOKIE))
    if person is None:
        raise LoginRequired()
    request.state.annotator = person
    return person


CurrentAnnotator = Annotated[Annotator, Depends(current_annotator)]


def require_lead(person: CurrentAnnotator) -> Annotator:
    if not person.is_lead:
        raise LeadOnly()
    return person


RequireLead = Annotated[Annotator, Depends(require_lead)]


async def verify_csrf(request: Request, settings: SettingsDep) -> None:
    """Accept the token from the `X-CSRF-Token` header or a `csrf_token` form field."""
    presented = request.headers.get("x-csrf-token")
    if presented is None and request.headers.get("content-type", "").startswith(
        ("application/x-www-form-urlencoded", "multipart/form-data")
    ):
        form = await request.form()
        value = form.get("csrf_token")
        presented = value if isinstance(value, str) else None
    if not accounts.csrf_valid(
        secret_key=settings.secret_key, session_token=request.cookies.get(SESSION_COOKIE), presented=presented
    ):
        raise CsrfFailed()


CsrfProtect = Depends(verify_csrf)


def csrf_for(request: Request) -> str:
    token = request.cookies.get(SESSION_COOKIE) or ""
    return accounts.csrf_token(secret_key=request.app.state.settings.secret_key, session_token=token)
