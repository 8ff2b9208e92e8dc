"""Framework pages: entering a session, re-login after a session expiry, the no-session page, the
client script, and `render_page` for the sites' own page handlers.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

import jinja2
from fastapi import APIRouter, Form, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from sqlalchemy import select, update
from sqlmodel import Session, col

from humantrace.core.deps import SettingsDep
from humantrace.environments import catalog, registry, ui
from humantrace.environments.deps import COOKIE_NAME, session_id_from_request
from humantrace.environments.interventions.client import (
    client_config,
    dispatches_for_page,
    inject,
    script_tag,
)
from humantrace.environments.models import EnvSession

FRAMEWORK_TEMPLATES = Path(__file__).parent / "templates"
CLIENT_SCRIPT = Path(__file__).parent / "static" / "interventions.js"
SITE_SCRIPT = Path(__file__).parent / "static" / "site.js"

router = APIRouter(include_in_schema=False)

_jinja_lock = threading.Lock()
_jinja: dict[str, jinja2.Environment] = {}


def templates_for(env_id: str | None) -> jinja2.Environment:
    """The Jinja2 environment of a site (its templates first, then the framework's)."""
    key = env_id or ""
    with _jinja_lock:
        if key not in _jinja:
            loaders: list[jinja2.BaseLoader] = []
            if env_id:
                loaders.append(jinja2.FileSystemLoader(registry.get(env_id).directory / "templates"))
            loaders.append(jinja2.FileSystemLoader(FRAMEWORK_TEMPLATES))
            _jinja[key] = jinja2.Environment(
                loader=jinja2.ChoiceLoader(loaders), autoescape=jinja2.select_autoescape(default=True)
            )
        return _jinja[key]


def _title(env_id: str | None) -> str:
    try:
        return registry.get(env_id).title if env_id else "humantrace"
    except registry.UnknownEnvironment:
        return "humantrace"


def no_session_page(env_id: str | None = None, *, status_code: int = 401) -> HTMLResponse:
    """The friendly page shown when a browser has no (valid) session for this website."""
    html = templates_for(None).get_template("no_session.html").render(env_title=_title(env_id))
    return HTMLResponse(html, status_code=status_code)


@dataclass(frozen=True)
class PageSession:
    """What a page of a session needs: its id, client dispatches, reset count and UI profile."""

    session_id: str
    dispatches: list[dict[str, Any]]
    reset_count: int
    profile: ui.UIProfile


def _page_session(request: Request, env_id: str) -> PageSession | None:
    session_id = session_id_from_request(request)
    if not session_id:
        return None
    query = select(
        col(EnvSession.env_id),
        col(EnvSession.client_dispatches),
        col(EnvSession.reset_count),
        col(EnvSession.ui_profile),
    ).where(col(EnvSession.session_id) == session_id)
    with Session(request.app.state.engine) as db:
        row = db.execute(query).first()
    if row is None or row[0] != env_id:
        return None
    try:
        profile = ui.get_profile(env_id, row[3])
    except ui.UnknownProfile:
        # A profile the site no longer declares: its pages fall back to the default build.
        profile = ui.DEFAULT
    return PageSession(session_id, list(row[1] or []), int(row[2]), profile)


_HTML_TAG = re.compile(r"<html\b", re.IGNORECASE)


def with_ui_profile(html: str, profile: ui.UIProfile) -> str:
    """`html` with the profile's `data-ui-*` attributes on its `<html>` element."""
    attributes = "".join(f' {name}="{escape(value)}"' for name, value in profile.attributes.items())
    return _HTML_TAG.sub(lambda match: match.group(0) + attributes, html, count=1)


def render_page(
    request: Request, env_id: str, template: str, *, status_code: int = 200, **context: Any
) -> Response:
    """Render a site page for the request's session (or the no-session page).

    Templates get `env_id`, `env_title`, `api_base` (`/api/env/<env_id>`), `static_base`
    (`/env-static/<env_id>`), `page_path` and `ui` (the session's `UIProfile`: `ui.controls`)
    besides `context`; `<html>` gets the profile's `data-ui-*` attributes. Every page gets the client script,
    with the session's client dispatches for this page (none for most sessions), so a clean and an
    intervention page load the same scripts; nothing else about the session reaches the page.
    """
    found = _page_session(request, env_id)
    if found is None:
        return no_session_page(env_id)
    html = (
        templates_for(env_id)
        .get_template(template)
        .render(
            request=request,
            env_id=env_id,
            env_title=_title(env_id),
            api_base=f"/api/env/{env_id}",
            static_base=f"/env-static/{env_id}",
            page_path=request.url.path,
            ui=found.profile,
            **context,
        )
    )
    chosen = dispatches_for_page(found.dispatches, request.url.path)
    config = client_config(chosen, session_id=found.session_id, reset_count=found.reset_count)
    html = with_ui_profile(inject(html, script_tag(config)), found.profile)
    return HTMLResponse(html, status_code=status_code, headers={"Cache-Control": "no-store"})


@router.get("/env/enter/{session_id}")
def enter(request: Request, session_id: str, settings: SettingsDep) -> Response:
    """Set the session cookie and go to the task's start page."""
    with Session(request.app.state.engine) as db:
        row = db.get(EnvSession, session_id)
        if row is None:
            return no_session_page(status_code=404)
        env_id, task_id = row.env_id, row.task_id
    start_path = catalog.get_task(task_id).start_path
    response = RedirectResponse(f"/env/{env_id}{start_path}", status_code=303)
    # Secure behind HTTPS like the dashboard's cookies.
    response.set_cookie(
        COOKIE_NAME, session_id, httponly=True, samesite="lax", secure=settings.cookie_secure, path="/"
    )
    return response


@router.get("/env/{env_id}/relogin")
def relogin_form(request: Request, env_id: str, next: str = "") -> Response:
    """The sign-in form shown after a session expiry."""
    found = _page_session(request, env_id)
    if found is None:
        return no_session_page(env_id)
    templates = templates_for(env_id)
    kit = f"{env_id}/kit.html"
    if kit not in templates.list_templates():
        kit = "site_kit_default.html"
    html = templates.get_template("relogin.html").render(
        env_id=env_id,
        env_title=_title(env_id),
        next=_safe_next(env_id, next),
        email="",
        kit=kit,
        base=f"/env/{env_id}",
        api=f"/api/env/{env_id}",
        static_base=f"/env-static/{env_id}",
        ui=found.profile,
    )
    return HTMLResponse(with_ui_profile(html, found.profile), headers={"Cache-Control": "no-store"})


@router.post("/env/{env_id}/relogin")
def relogin(request: Request, env_id: str, next: str = Form(default="")) -> Response:
    """Sign in again: the session's API calls work again; back to where the person was."""
    found = _page_session(request, env_id)
    if found is None:
        return no_session_page(env_id)
    with Session(request.app.state.engine) as db:
        db.execute(
            update(EnvSession)
            .where(col(EnvSession.session_id) == found.session_id)
            .values(auth_expired=False)
        )
        db.commit()
    return RedirectResponse(_safe_next(env_id, next), status_code=303)


def _safe_next(env_id: str, target: str) -> str:
    # Only paths inside this website: never an open redirect.
    prefix = f"/env/{env_id}"
    if target.startswith(prefix) and not target.startswith("//") and "relogin" not in target:
        return target
    return prefix + "/"


@router.get("/env-static/ux.js")
def client_script() -> FileResponse:
    """The client-layer script (served under a neutral name)."""
    return FileResponse(CLIENT_SCRIPT, media_type="text/javascript", headers={"Cache-Control": "no-cache"})


@router.get("/env-static/site.js")
def site_script() -> FileResponse:
    """The site kit's browser helper (API calls, toasts, signing in again), one file for every site."""
    return FileResponse(SITE_SCRIPT, media_type="text/javascript", headers={"Cache-Control": "no-cache"})
