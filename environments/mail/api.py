"""Parcel Mail's public JSON API (mounted at /api/env/mail): the only surface pages and agents touch.

Handlers are thin: they call the service functions with `env.emit` for semantic events (the table
is `EVENTS` below and in environments/mail/README.md) and leave a `SiteError` to the kit's
one handler, whose `detail` a page shows as it is.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from humantrace.environments.mail import account_service as accounts
from humantrace.environments.mail import compose_service as compose
from humantrace.environments.mail import mailbox_service as mailbox
from humantrace.environments.mail import responses as R
from humantrace.environments.mail.models import MailState
from humantrace.environments.mail.schemas import (
    Action,
    ContactChanges,
    ContactFields,
    FilterFields,
    LabelChanges,
    LabelFields,
    MessageAction,
    Outgoing,
    SettingsChanges,
    SignIn,
)
from humantrace.environments.sessions import EnvSessionDep
from humantrace.environments.sitekit import state_of

# Semantic events: name -> params.
EVENTS: dict[str, tuple[str, ...]] = {
    "thread_opened": ("thread_id", "message_ids"),
    "search": ("query", "results"),
    "email_moved": ("email_id", "from_folder", "to_folder"),
    "email_read_state": ("email_id", "is_read"),
    "email_starred": ("email_id", "starred"),
    "email_labelled": ("email_id", "label", "added"),
    "email_deleted": ("email_id",),
    "email_sent": (
        "email_id",
        "thread_id",
        "to",
        "cc",
        "bcc",
        "subject",
        "in_reply_to",
        "forward_of",
        "attachment_count",
        "from_draft",
    ),
    "draft_saved": ("draft_id",),
    "draft_discarded": ("draft_id",),
    "contact_created": ("contact_id", "email"),
    "contact_updated": ("contact_id", "fields"),
    "contact_deleted": ("contact_id", "email"),
    "label_created": ("label_id", "name"),
    "label_renamed": ("label_id", "old_name", "name"),
    "label_deleted": ("label_id", "name"),
    "filter_created": (
        "filter_id",
        "from_contains",
        "subject_contains",
        "add_label",
        "archive",
        "mark_read",
        "star",
        "applied_count",
    ),
    "filter_deleted": ("filter_id",),
    "settings_updated": ("fields",),
    "signed_in": (),
}

router = APIRouter()


# ---------------------------------------------------------------- account and sidebar


@router.get("/me", response_model=R.Me)
def me(env: EnvSessionDep) -> dict[str, Any]:
    """Who is signed in and the sidebar: labels and unread counts."""
    state = state_of(env, MailState)
    current = mailbox.settings(state)
    labels = accounts.list_labels(state)["labels"]
    counts = mailbox.counts(state)
    return {
        "name": current.display_name,
        "email": current.email,
        "labels": labels,
        "now": env.now_iso(),
        "folders": counts["folders"],
        "label_unread": counts["labels"],
    }


@router.get("/folders", response_model=R.Counts)
def folders(env: EnvSessionDep) -> dict[str, Any]:
    """Unread conversations per folder and label, and the number of drafts."""
    return mailbox.counts(state_of(env, MailState))


@router.post("/auth/login", response_model=R.SignedIn)
def login(body: SignIn, env: EnvSessionDep) -> dict[str, Any]:
    """Sign in again after a session expiry (the address and password are not checked here)."""
    env.emit("signed_in")
    return {"ok": True, "name": mailbox.settings(state_of(env, MailState)).display_name}


# ---------------------------------------------------------------- reading


@router.get("/messages", response_model=R.FolderPage | R.LabelPage)
def messages(
    env: EnvSessionDep, folder: str | None = None, label: str | None = None, page: int = 1
) -> dict[str, Any]:
    """Conversations of a folder (`inbox`, `starred`, `sent`, ...) or of a label, newest first."""
    return mailbox.list_view(state_of(env, MailState), folder=folder, label=label, page=page)


@router.get("/search", response_model=R.SearchPage)
def search(env: EnvSessionDep, q: str = "", page: int = 1) -> dict[str, Any]:
    """Conversations matching the search text (operators: from: to: subject: label: in: is: has:)."""
    result = mailbox.search(state_of(env, MailState), q=q, page=page)
    env.emit("search", query=q, results=result["total"])
    return result


@router.get("/threads/{thread_id}", response_model=R.Thread)
def thread(thread_id: str, env: EnvSessionDep, folder: str | None = None) -> dict[str, Any]:
    """A conversation's messages, oldest first; opening it marks them read."""
    return mailbox.open_thread(state_of(env, MailState), thread_id=thread_id, folder=folder, emit=env.emit)


@router.get("/messages/{email_id}", response_model=R.MessageOne)
def message(email_id: str, env: EnvSessionDep) -> dict[str, Any]:
    """One message (the compose page reads the one being answered, forwarded or edited)."""
    return {"message": mailbox.find_email(state_of(env, MailState), email_id).model_dump()}


# ---------------------------------------------------------------- organising


@router.post("/messages/actions/{action}", response_model=R.ActionDone)
def act(action: Action, body: MessageAction, env: EnvSessionDep) -> dict[str, Any]:
    """Archive, move, trash, restore, spam, read/unread, star, label or delete messages."""
    return mailbox.apply_action(
        state_of(env, MailState),
        action=action,
        message_ids=body.message_ids,
        thread_ids=body.thread_ids,
        folder=body.folder,
        label=body.label,
        emit=env.emit,
    )


@router.post("/messages/{email_id}/star", response_model=R.Starred)
def star(email_id: str, env: EnvSessionDep, starred: bool = True) -> dict[str, Any]:
    """Star (or with `starred=false` unstar) one message."""
    return mailbox.set_star(state_of(env, MailState), email_id=email_id, starred=starred, emit=env.emit)


# ---------------------------------------------------------------- writing


@router.post("/messages/send", response_model=R.Sent)
def send(body: Outgoing, env: EnvSessionDep) -> dict[str, Any]:
    """Send a new message, a reply or a forward (optionally from a draft)."""
    return compose.send(
        state_of(env, MailState), payload=body, now_iso=env.now_iso(), new_id=env.new_id, emit=env.emit
    )


@router.post("/drafts", status_code=201, response_model=R.DraftSaved)
def create_draft(body: Outgoing, env: EnvSessionDep) -> dict[str, Any]:
    return compose.save_draft(
        state_of(env, MailState),
        payload=body,
        draft_id=None,
        now_iso=env.now_iso(),
        new_id=env.new_id,
        emit=env.emit,
    )


@router.put("/drafts/{draft_id}", response_model=R.DraftSaved)
def update_draft(draft_id: str, body: Outgoing, env: EnvSessionDep) -> dict[str, Any]:
    return compose.save_draft(
        state_of(env, MailState),
        payload=body,
        draft_id=draft_id,
        now_iso=env.now_iso(),
        new_id=env.new_id,
        emit=env.emit,
    )


@router.delete("/drafts/{draft_id}", response_model=R.Done)
def discard_draft(draft_id: str, env: EnvSessionDep) -> dict[str, Any]:
    return compose.discard_draft(state_of(env, MailState), draft_id=draft_id, emit=env.emit)


# ---------------------------------------------------------------- contacts


@router.get("/contacts", response_model=R.Contacts)
def contacts(env: EnvSessionDep, q: str = "") -> dict[str, Any]:
    return accounts.list_contacts(state_of(env, MailState), q=q)


@router.post("/contacts", status_code=201, response_model=R.ContactSaved)
def create_contact(body: ContactFields, env: EnvSessionDep) -> dict[str, Any]:
    return accounts.create_contact(state_of(env, MailState), fields=body, new_id=env.new_id, emit=env.emit)


@router.patch("/contacts/{contact_id}", response_model=R.ContactSaved)
def update_contact(contact_id: str, body: ContactChanges, env: EnvSessionDep) -> dict[str, Any]:
    return accounts.update_contact(
        state_of(env, MailState), contact_id=contact_id, changes=body, emit=env.emit
    )


@router.delete("/contacts/{contact_id}", response_model=R.Done)
def delete_contact(contact_id: str, env: EnvSessionDep) -> dict[str, Any]:
    return accounts.delete_contact(state_of(env, MailState), contact_id=contact_id, emit=env.emit)


# ---------------------------------------------------------------- labels and filters


@router.get("/labels", response_model=R.Labels)
def labels(env: EnvSessionDep) -> dict[str, Any]:
    return accounts.list_labels(state_of(env, MailState))


@router.post("/labels", status_code=201, response_model=R.LabelSaved)
def create_label(body: LabelFields, env: EnvSessionDep) -> dict[str, Any]:
    return accounts.create_label(state_of(env, MailState), fields=body, new_id=env.new_id, emit=env.emit)


@router.patch("/labels/{label_id}", response_model=R.LabelSaved)
def update_label(label_id: str, body: LabelChanges, env: EnvSessionDep) -> dict[str, Any]:
    return accounts.update_label(state_of(env, MailState), label_id=label_id, changes=body, emit=env.emit)


@router.delete("/labels/{label_id}", response_model=R.Done)
def delete_label(label_id: str, env: EnvSessionDep) -> dict[str, Any]:
    return accounts.delete_label(state_of(env, MailState), label_id=label_id, emit=env.emit)


@router.get("/filters", response_model=R.Filters)
def filters(env: EnvSessionDep) -> dict[str, Any]:
    return accounts.list_filters(state_of(env, MailState))


@router.post("/filters", status_code=201, response_model=R.FilterCreated)
def create_filter(body: FilterFields, env: EnvSessionDep) -> dict[str, Any]:
    return accounts.create_filter(
        state_of(env, MailState), fields=body, now_iso=env.now_iso(), new_id=env.new_id, emit=env.emit
    )


@router.delete("/filters/{filter_id}", response_model=R.Done)
def delete_filter(filter_id: str, env: EnvSessionDep) -> dict[str, Any]:
    return accounts.delete_filter(state_of(env, MailState), filter_id=filter_id, emit=env.emit)


# ---------------------------------------------------------------- settings


@router.get("/settings", response_model=R.SettingsPage)
def get_settings(env: EnvSessionDep) -> dict[str, Any]:
    return {"settings": mailbox.settings(state_of(env, MailState)).model_dump()}


@router.put("/settings", response_model=R.SettingsSaved)
def put_settings(body: SettingsChanges, env: EnvSessionDep) -> dict[str, Any]:
    return accounts.update_settings(state_of(env, MailState), changes=body, emit=env.emit)
