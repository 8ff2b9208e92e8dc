"""Template rendering shared by every dashboard page."""

from __future__ import annotations

from pathlib import Path

from fastapi import Request
from fastapi.templating import Jinja2Templates

from humantrace.dashboard.web.deps import csrf_for

TEMPLATES = Jinja2Templates(directory=str(Path(__file__).parent.parent / "templates"))


def render(request: Request, template: str, status_code: int = 200, **context):
    """Render a dashboard page with the logged-in person and their CSRF token in the context."""
    context.setdefault("me", getattr(request.state, "annotator", None))
    context.setdefault("csrf_token", csrf_for(request))
    return TEMPLATES.TemplateResponse(request, template, context, status_code=status_code)
