"""Threadline's pages (mounted at /env/forum): HTML shells whose data `threadline.js` fetches.

Every page is `forum/base.html` with a page name, a title and a few `data-` values taken from the
URL (a community, a post id, a username). Nothing session-specific is rendered here.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from environments.pages import render_page

ENV_ID = "forum"
router = APIRouter(include_in_schema=False)


def _render(request: Request, page: str, title: str, section: str, **data: str) -> Response:
    return render_page(
        request,
        ENV_ID,
        "forum/base.html",
        page=page,
        title=title,
        section=section,
        base=f"/env/{ENV_ID}",
        api=f"/api/env/{ENV_ID}",
        data=data,
    )


@router.get("/")
def home(request: Request) -> Response:
    return _render(request, "feed", "Home", "home", scope="home")


@router.get("/all")
def everything(request: Request) -> Response:
    return _render(request, "feed", "All communities", "all", scope="all")


@router.get("/communities")
def communities(request: Request) -> Response:
    return _render(request, "communities", "Communities", "communities")


@router.get("/c/{name}")
def community(request: Request, name: str) -> Response:
    return _render(request, "community", f"c/{name}", "communities", community=name)


@router.get("/c/{name}/submit")
def submit(request: Request, name: str) -> Response:
    return _render(request, "submit", "Create a post", "communities", community=name)


@router.get("/posts/{post_id}")
def post(request: Request, post_id: str) -> Response:
    return _render(request, "post", "Post", "communities", post=post_id)


@router.get("/search")
def search(request: Request) -> Response:
    return _render(request, "search", "Search", "search")


@router.get("/u/{username}")
def user(request: Request, username: str) -> Response:
    return _render(request, "user", f"u/{username}", "profile", user=username)


@router.get("/saved")
def saved(request: Request) -> Response:
    return _render(request, "saved", "Saved", "saved")


@router.get("/messages")
def messages(request: Request) -> Response:
    return _render(request, "messages", "Messages", "messages")
