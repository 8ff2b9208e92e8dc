"""Accounts and login: annotators, single-use login links, login sessions and CSRF tokens.

Keyword-only functions over a SQLModel session; no HTTP here. A login link carries a token signed
with the secret key that names a stored nonce; using it marks the nonce used, so a link logs in
once. A login session is a random cookie value whose sha256 is stored, so logout revokes it on
every app process.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from datetime import timedelta

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from sqlalchemy import CursorResult, update
from sqlmodel import Session, col, select

from humantrace.annotators.models import Annotator, LoginLink, LoginSession, utcnow

CODE_PATTERN = re.compile(r"^[A-Z][A-Z0-9]{0,15}$")
NAME_MAX_LENGTH = 120  # Annotator.display_name's column
LOGIN_SALT = "humantrace-login-link"


class AccountError(ValueError):
    """A request about accounts that cannot be carried out; the message says why."""


class LoginRefused(Exception):
    """A login link that does not log anybody in; `reason` is shown to the person."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def add_annotator(
    session: Session,
    *,
    code: str,
    role: str = "annotator",
    tier: str = "primary",
    designed: list[str] | None = None,
    display_name: str = "",
    study_id: int | None = None,
) -> Annotator:
    """Create a person, or add an existing annotator to another study.

    Codes are short upper-case identifiers (A1, D1, L1), unique in the deployment. Leads are
    deployment-wide and join no study; an annotator given `study_id` becomes a member of that study
    with `tier` and `designed` (see `annotators.membership`)."""
    from humantrace.annotators import membership

    person = membership.stage_person(
        session,
        row={"code": code, "role": role, "tier": tier, "designed": designed or [], "name": display_name},
        study_id=study_id,
    )
    session.commit()
    session.refresh(person)
    return person


def get_by_code(session: Session, *, code: str) -> Annotator:
    person = session.exec(select(Annotator).where(Annotator.code == code.strip().upper())).first()
    if person is None:
        raise AccountError(f"no annotator with code {code.strip().upper()}.")
    return person


def list_annotators(session: Session) -> list[Annotator]:
    return list(session.exec(select(Annotator).order_by(Annotator.role, Annotator.code)))


def create_login_link(
    session: Session, *, secret_key: str, code: str, base_url: str, study_id: int | None = None
) -> str:
    """A new single-use login URL for the person with `code`.

    With `study_id` the link also names the study the person works in once signed in (a person in
    several studies then skips the study picker); the caller checks the person may work there."""
    person = get_by_code(session, code=code)
    if not person.active:
        raise AccountError(f"{person.code} is deactivated; reactivate them before creating a link.")
    nonce = secrets.token_urlsafe(24)
    assert person.id is not None  # read from the database
    session.add(LoginLink(nonce=nonce, annotator_id=person.id))
    session.commit()
    payload: dict[str, str | int] = {"n": nonce}
    if study_id is not None:
        payload["s"] = int(study_id)
    token = URLSafeTimedSerializer(secret_key, salt=LOGIN_SALT).dumps(payload)
    return f"{base_url.rstrip('/')}/login/{token}"


def login_link_study(*, secret_key: str, token: str) -> int | None:
    """The study a (valid, signed) login token names, or None. Only call it once the link was accepted."""
    try:
        payload = URLSafeTimedSerializer(secret_key, salt=LOGIN_SALT).loads(token)
    except BadSignature:
        return None
    study = payload.get("s") if isinstance(payload, dict) else None
    return study if isinstance(study, int) else None


LINK_USED = "This login link has already been used. Each link works once; ask your study lead for a new one."


def check_login_link(session: Session, *, secret_key: str, token: str, max_age_hours: int) -> Annotator:
    """The person a login token belongs to, if the link would log them in now; nothing is used up.

    Opening a link only shows its sign-in page (`dashboard.people.routes`): mail and chat programs
    open links to preview or scan them, and that must not spend a single-use link. Raises
    `LoginRefused`."""
    link, person = _login_link(session, secret_key=secret_key, token=token, max_age_hours=max_age_hours)
    if link.used_at is not None:
        raise LoginRefused(LINK_USED)
    return person


def consume_login_link(session: Session, *, secret_key: str, token: str, max_age_hours: int) -> Annotator:
    """The person a login token belongs to; the link is used up. Raises `LoginRefused`."""
    link, person = _login_link(session, secret_key=secret_key, token=token, max_age_hours=max_age_hours)
    # One atomic conditional UPDATE, so two simultaneous uses of a link cannot both succeed.
    claimed = session.execute(
        update(LoginLink)
        .where(col(LoginLink.id) == link.id, col(LoginLink.used_at).is_(None))
        .values(used_at=utcnow())
    )
    # An UPDATE's result is a CursorResult (Session.execute is typed for any statement).
    assert isinstance(claimed, CursorResult)
    session.commit()
    if claimed.rowcount != 1:
        raise LoginRefused(LINK_USED)
    return person


def _login_link(
    session: Session, *, secret_key: str, token: str, max_age_hours: int
) -> tuple[LoginLink, Annotator]:
    serializer = URLSafeTimedSerializer(secret_key, salt=LOGIN_SALT)
    try:
        payload = serializer.loads(token, max_age=max_age_hours * 3600)
    except SignatureExpired:
        raise LoginRefused("This login link has expired. Ask your study lead for a new one.") from None
    except BadSignature:
        raise LoginRefused("This login link is not valid (it may have been copied incompletely).") from None
    nonce = payload.get("n") if isinstance(payload, dict) else None
    link = session.exec(select(LoginLink).where(LoginLink.nonce == nonce)).first() if nonce else None
    if link is None:
        raise LoginRefused("This login link is not valid (it may have been copied incompletely).")
    person = session.get(Annotator, link.annotator_id)
    if person is None or not person.active:
        raise LoginRefused("This account is not active. Ask your study lead.")
    return link, person


def _sha256(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def start_login_session(session: Session, *, annotator: Annotator, ttl_hours: int) -> str:
    """A new login session; returns the cookie value (only its hash is stored)."""
    token = secrets.token_urlsafe(32)
    assert annotator.id is not None, "a stored person"
    session.add(
        LoginSession(
            token_sha256=_sha256(token),
            annotator_id=annotator.id,
            expires_at=utcnow() + timedelta(hours=ttl_hours),
        )
    )
    session.commit()
    return token


def resolve_login_session(session: Session, *, token: str | None) -> Annotator | None:
    """The logged-in person for a cookie value, or None when absent, expired, revoked or inactive."""
    if not token:
        return None
    # One query for the session and its person: this runs on every page and dashboard call.
    found = session.exec(
        select(LoginSession.revoked_at, LoginSession.expires_at, Annotator)
        .join(Annotator, col(Annotator.id) == col(LoginSession.annotator_id))
        .where(LoginSession.token_sha256 == _sha256(token))
    ).first()
    if found is None:
        return None
    revoked_at, expires_at, person = found
    if revoked_at is not None or expires_at < utcnow():
        return None
    return person if person.active else None


def end_login_session(session: Session, *, token: str | None) -> None:
    if not token:
        return
    row = session.exec(select(LoginSession).where(LoginSession.token_sha256 == _sha256(token))).first()
    if row is not None and row.revoked_at is None:
        row.revoked_at = utcnow()
        session.add(row)
        session.commit()


def csrf_token(*, secret_key: str, session_token: str) -> str:
    """The CSRF token bound to one login session (same on every process, useless elsewhere)."""
    return hmac.new(secret_key.encode(), b"csrf:" + session_token.encode(), hashlib.sha256).hexdigest()


def csrf_valid(*, secret_key: str, session_token: str | None, presented: str | None) -> bool:
    if not session_token or not presented:
        return False
    return hmac.compare_digest(csrf_token(secret_key=secret_key, session_token=session_token), presented)


def session_study_id(session: Session, *, token: str | None) -> int | None:
    """The study a login session works in (chosen on the study picker), or None."""
    if not token:
        return None
    return session.exec(
        select(LoginSession.study_id).where(LoginSession.token_sha256 == _sha256(token))
    ).first()


def choose_study(session: Session, *, token: str | None, study_id: int) -> None:
    """Make `study_id` the study this login session works in (the caller checks the person may)."""
    if not token:
        return
    session.execute(
        update(LoginSession).where(col(LoginSession.token_sha256) == _sha256(token)).values(study_id=study_id)
    )
    session.commit()
