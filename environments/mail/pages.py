"""Parcel Mail's pages (mounted at /env/mail): HTML shells whose data the page scripts fetch.

Every page is `mail/base.html` with a page name, a title, its script and a few `data-` values
taken from the URL (a folder, a label, a conversation id). Nothing session-specific is rendered.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from environments.mail.mailbox_service import VIEWS
from environments.sitekit import PageSpec, SitePages

ENV_ID = "mail"
router = APIRouter(include_in_schema=False)

FOLDER_TITLES = {
    "inbox": "Inbox",
    "starred": "Starred",
    "sent": "Sent",
    "drafts": "Drafts",
    "archive": "Archive",
    "trash": "Trash",
    "spam": "Spam",
}
PAGES = SitePages(ENV_ID, folders=FOLDER_TITLES)
LIST = "list.js"


@router.get("/")
def inbox(request: Request) -> Response:
    return PAGES.render(request, PageSpec("list", "Inbox", LIST, "inbox"), folder="inbox")


@router.get("/folder/{folder}")
def folder(request: Request, folder: str) -> Response:
    if folder == "inbox":
        return RedirectResponse(f"/env/{ENV_ID}/", status_code=303)
    if folder not in VIEWS:
        return PAGES.render(request, PageSpec("missing", "Not found", LIST, ""))
    return PAGES.render(request, PageSpec("list", FOLDER_TITLES[folder], LIST, folder), folder=folder)


@router.get("/label/{name}")
def label(request: Request, name: str) -> Response:
    return PAGES.render(request, PageSpec("list", name, LIST, "label:" + name), label=name)


@router.get("/search")
def search(request: Request) -> Response:
    return PAGES.render(request, PageSpec("search", "Search results", LIST, ""))


@router.get("/thread/{thread_id}")
def thread(request: Request, thread_id: str) -> Response:
    return PAGES.render(request, PageSpec("thread", "Conversation", "thread.js"), thread=thread_id)


@router.get("/compose")
def compose(request: Request) -> Response:
    return PAGES.render(request, PageSpec("compose", "New message", "compose.js"))


@router.get("/contacts")
def contacts(request: Request) -> Response:
    return PAGES.render(request, PageSpec("contacts", "Contacts", "contacts.js", "contacts"))


@router.get("/settings")
def settings(request: Request) -> Response:
    return PAGES.render(request, PageSpec("settings", "Settings", "settings.js", "settings"), tab="general")


@router.get("/settings/filters")
def filters(request: Request) -> Response:
    return PAGES.render(request, PageSpec("filters", "Filters", "settings.js", "settings"), tab="filters")


@router.get("/settings/labels")
def labels(request: Request) -> Response:
    return PAGES.render(request, PageSpec("labels", "Labels", "settings.js", "settings"), tab="labels")
