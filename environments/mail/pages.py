"""Parcel Mail's pages (mounted at /env/mail): HTML shells whose data the page scripts fetch.

Every page is `mail/base.html` with a page name, a title, its script and a few `data-` values
taken from the URL (a folder, a label, a conversation id). Nothing session-specific is rendered.
"""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import RedirectResponse, Response

from humantrace.environments.mail.mailbox_service import VIEWS
from humantrace.environments.sitekit import PageSpec, SitePages

ENV_ID = "mail"

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
router = PAGES.router
LIST = "list.js"


PAGES.add("/", PageSpec("list", "Inbox", LIST, "inbox"), folder="inbox")


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


PAGES.add("/search", PageSpec("search", "Search results", LIST, ""))
PAGES.add("/thread/{thread_id}", PageSpec("thread", "Conversation", "thread.js"))
PAGES.add("/compose", PageSpec("compose", "New message", "compose.js"))
PAGES.add("/contacts", PageSpec("contacts", "Contacts", "contacts.js", "contacts"))
PAGES.add("/settings", PageSpec("settings", "Settings", "settings.js", "settings"), tab="general")
PAGES.add("/settings/filters", PageSpec("filters", "Filters", "settings.js", "settings"), tab="filters")
PAGES.add("/settings/labels", PageSpec("labels", "Labels", "settings.js", "settings"), tab="labels")
