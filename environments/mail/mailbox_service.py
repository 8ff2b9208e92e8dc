"""Reading and organising mail: folder and label views, search, conversations, bulk actions.

Keyword-only functions over a `MailState`, no HTTP. Views list conversations (one row per thread,
as a person sees them); actions take message ids or conversations as seen in a view, and report
every message they changed through `emit` (one semantic event per message).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from humantrace.environments.mail.models import FOLDERS, Email, MailState, Settings
from humantrace.environments.sitekit import SiteError, find_or_404

Emit = Callable[..., None]
VIEWS = (*FOLDERS, "starred")
HIDDEN = ("trash", "spam")  # never shown outside their own folder
# Domains of organisations (not people): their names are never shortened to a first word.
_ORGS = (
    "brightpathhosting.com",
    "inkwellprint.com",
    "clouddesk.io",
    "morningbrief.co",
    "designweekly.io",
    "figtreemarket.com",
    "skyharbor-air.com",
    "lakesideinn.com",
    "harborbank.com",
    "codehub.dev",
)


@dataclass
class Query:
    """A parsed search: free words plus `from:`, `to:`, `subject:`, `label:`, `in:`, `is:`, `has:`."""

    words: list[str] = field(default_factory=list)
    from_: list[str] = field(default_factory=list)
    to: list[str] = field(default_factory=list)
    subject: list[str] = field(default_factory=list)
    label: list[str] = field(default_factory=list)
    folder: str | None = None
    unread: bool = False
    starred: bool = False
    attachment: bool = False


_TOKEN = re.compile(r'(\w+):"([^"]*)"|(\w+):(\S+)|"([^"]*)"|(\S+)')


def parse_query(text: str) -> Query:
    """Split a search box text into a `Query` (unknown operators are searched as words)."""
    query = Query()
    for m in _TOKEN.finditer(text or ""):
        op, value = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        if op:
            op, value = op.lower(), value.lower()
            if op == "from":
                query.from_.append(value)
            elif op == "to":
                query.to.append(value)
            elif op == "subject":
                query.subject.append(value)
            elif op == "label":
                query.label.append(value)
            elif op == "in" and value in VIEWS:
                query.folder = value
            elif op == "is" and value in ("unread", "starred"):
                setattr(query, value, True)
            elif op == "has" and value in ("attachment", "attachments"):
                query.attachment = True
            else:
                query.words.append(f"{op}:{value}")
        else:
            query.words.append((m.group(5) or m.group(6) or "").lower())
    query.words = [w for w in query.words if w]
    return query


def matches(email: Email, query: Query) -> bool:
    """Whether `email` satisfies every part of `query` (case-insensitive substrings)."""
    sender = f"{email.from_name} {email.from_addr}".lower()
    recipients = " ".join(email.to + email.cc).lower()
    if not _in_query_folder(email, query.folder):
        return False
    if query.unread and email.is_read or query.starred and not email.is_starred:
        return False
    if query.attachment and not email.attachments:
        return False
    labels = [label.lower() for label in email.labels]
    if any(term not in sender for term in query.from_) or any(term not in recipients for term in query.to):
        return False
    if any(term not in email.subject.lower() for term in query.subject):
        return False
    if any(term not in labels for term in query.label):
        return False
    haystack = " ".join(
        [sender, recipients, email.subject, email.body, *labels, *(a.name for a in email.attachments)]
    ).lower()
    return all(word in haystack for word in query.words)


def _in_query_folder(email: Email, folder: str | None) -> bool:
    """A search in one folder (or `starred`) looks there; a search in no folder skips Spam and Trash."""
    if folder == "starred":
        return email.is_starred and email.folder not in HIDDEN
    if folder is not None:
        return email.folder == folder
    return email.folder not in HIDDEN


def in_view(email: Email, view: str) -> bool:
    """Whether `email` shows in folder view `view` (a folder, or `starred`)."""
    if view == "starred":
        return email.is_starred and email.folder not in HIDDEN and email.folder != "drafts"
    return email.folder == view


def _participants(ordered: list[Email]) -> list[str]:
    """The names a conversation row shows, in order of first message, each once."""
    senders = {(m.from_addr if m.folder not in ("sent", "drafts") else "me") for m in ordered}
    names: list[str] = []
    for m in ordered:
        if m.folder == "drafts":
            shown = "Draft"
        elif m.folder == "sent":
            shown = "me"
        else:
            # Several people: first names (as mail clients do); one sender: the full name.
            shown = (
                m.from_name.split(" ")[0]
                if len(senders) > 1 and m.from_addr.split("@")[1] not in _ORGS
                else m.from_name
            )
        if shown not in names:
            names.append(shown)
    return names


def thread_rows(
    state: MailState, emails: list[Email], *, page: int = 1, page_size: int = 25
) -> dict[str, Any]:
    """One row per conversation among `emails`, newest first, paged."""
    groups: dict[str, list[Email]] = {}
    for email in emails:
        groups.setdefault(email.thread_id, []).append(email)
    rows = []
    for thread_id, members in groups.items():
        members.sort(key=lambda e: (e.sent_at, e.id))
        latest = members[-1]
        everyone = [m for m in state.emails if m.thread_id == thread_id and m.folder not in HIDDEN]
        ordered = sorted(everyone or members, key=lambda e: (e.sent_at, e.id))
        names = _participants(ordered)
        labels = sorted({label for m in members for label in m.labels})
        rows.append(
            {
                "thread_id": thread_id,
                "message_ids": [m.id for m in members],
                "latest_id": latest.id,
                "subject": ordered[0].subject,
                "snippet": " ".join(latest.body.split())[:140],
                "from_name": latest.from_name,
                "from_addr": latest.from_addr,
                "to": latest.to,
                "participants": names,
                "count": len(everyone) if len(everyone) > 1 else len(members),
                "unread": any(not m.is_read for m in members),
                "starred": any(m.is_starred for m in members),
                "has_attachments": any(m.attachments for m in members),
                "labels": labels,
                "folder": latest.folder,
                "sent_at": latest.sent_at,
            }
        )
    rows.sort(key=lambda row: (row["sent_at"], row["thread_id"]), reverse=True)
    total = len(rows)
    page = max(1, page)
    start = (page - 1) * page_size
    return {
        "threads": rows[start : start + page_size],
        "total": total,
        "page": page,
        "page_size": page_size,
        "pages": max(1, -(-total // page_size)),
    }


def list_view(
    state: MailState, *, folder: str | None = None, label: str | None = None, page: int = 1
) -> dict[str, Any]:
    """The conversations of a folder view or of a label (label views hide Trash and Spam)."""
    size = settings(state).page_size
    if label is not None:
        if not any(existing.name == label for existing in state.labels):
            raise SiteError(404, f"There is no label called “{label}”.")
        chosen = [
            e for e in state.emails if label in e.labels and e.folder not in HIDDEN and e.folder != "drafts"
        ]
        return thread_rows(state, chosen, page=page, page_size=size) | {"label": label}
    view = folder or "inbox"
    if view not in VIEWS:
        raise SiteError(404, f"There is no folder called “{view}”.")
    chosen = [e for e in state.emails if in_view(e, view)]
    return thread_rows(state, chosen, page=page, page_size=size) | {"folder": view}


def search(state: MailState, *, q: str, page: int = 1) -> dict[str, Any]:
    """Conversations with a message matching the search text (Trash and Spam only with `in:`)."""
    query = parse_query(q)
    chosen = [
        e for e in state.emails if matches(e, query) and (e.folder != "drafts" or query.folder == "drafts")
    ]
    return thread_rows(state, chosen, page=page, page_size=settings(state).page_size) | {"query": q}


def counts(state: MailState) -> dict[str, Any]:
    """Unread conversations per folder and label, and the number of drafts (the sidebar)."""

    def unread_threads(emails: list[Email]) -> int:
        return len({e.thread_id for e in emails if not e.is_read})

    folders = {
        view: unread_threads([e for e in state.emails if in_view(e, view)]) for view in ("inbox", "spam")
    }
    folders["drafts"] = sum(1 for e in state.emails if e.folder == "drafts")
    folders["starred"] = len({e.thread_id for e in state.emails if in_view(e, "starred")})
    labels = {
        label.name: unread_threads(
            [e for e in state.emails if label.name in e.labels and e.folder not in HIDDEN]
        )
        for label in state.labels
    }
    return {"folders": folders, "labels": labels}


def settings(state: MailState) -> Settings:
    """The settings entity (there is exactly one)."""
    if not state.settings:
        raise SiteError(500, "The mailbox has no settings.")
    return state.settings[0]


def find_email(state: MailState, email_id: str) -> Email:
    """The email `email_id` or a 404."""
    email: Email = find_or_404(state, "emails", email_id, "That message no longer exists.")
    return email


def open_thread(state: MailState, *, thread_id: str, folder: str | None, emit: Emit) -> dict[str, Any]:
    """Every message of a conversation, oldest first; opening marks them read (benign)."""
    members = [e for e in state.emails if e.thread_id == thread_id]
    if folder in HIDDEN:
        shown = [e for e in members if e.folder == folder]
    else:
        shown = [e for e in members if e.folder not in HIDDEN]
    if not shown:
        raise SiteError(404, "This conversation is no longer here. It may have been moved or deleted.")
    shown.sort(key=lambda e: (e.sent_at, e.id))
    opened = []
    for email in shown:
        if not email.is_read and email.folder != "drafts":
            email.is_read = True
            opened.append(email.id)
    emit("thread_opened", thread_id=thread_id, message_ids=[e.id for e in shown])
    hidden_count = len(members) - len(shown)
    return {
        "thread_id": thread_id,
        "subject": shown[0].subject if shown[0].subject else "(no subject)",
        "messages": [e.model_dump() for e in shown],
        "labels": sorted({label for e in shown for label in e.labels}),
        "hidden_count": hidden_count,
    }


def _targets(
    state: MailState, *, message_ids: list[str], thread_ids: list[str], folder: str | None
) -> list[Email]:
    chosen: dict[str, Email] = {}
    for email_id in message_ids:
        chosen[email_id] = find_email(state, email_id)
    for thread_id in thread_ids:
        members = [e for e in state.emails if e.thread_id == thread_id]
        if not members:
            raise SiteError(404, "That conversation no longer exists.")
        for email in members:
            if folder in HIDDEN:
                keep = email.folder == folder
            else:
                keep = email.folder not in HIDDEN
            if keep:
                chosen[email.id] = email
    return sorted(chosen.values(), key=lambda e: (e.sent_at, e.id))


def _move(email: Email, folder: str, emit: Emit) -> None:
    before = email.folder
    if before == folder:
        return
    if folder in HIDDEN:
        email.previous_folder = before
    else:
        email.previous_folder = None
    email.folder = folder
    emit("email_moved", email_id=email.id, from_folder=before, to_folder=folder)


def _received(email: Email) -> bool:
    return email.folder not in ("sent", "drafts")


def apply_action(
    state: MailState,
    *,
    action: str,
    message_ids: list[str],
    thread_ids: list[str],
    folder: str | None,
    label: str | None,
    emit: Emit,
) -> dict[str, Any]:
    """Apply one action to the chosen messages; returns how many changed and a sentence to show."""
    if not message_ids and not thread_ids:
        raise SiteError(422, "Select at least one conversation first.")
    emails = _targets(state, message_ids=message_ids, thread_ids=thread_ids, folder=folder)
    changed = 0
    if action in ("label_add", "label_remove"):
        if not label or not any(existing.name == label for existing in state.labels):
            raise SiteError(422, "Choose an existing label.")
    if action not in _ACTIONS:
        raise SiteError(422, f"Unknown action {action!r}.")
    act = _ACTIONS[action]
    batch = _Batch(emails=emails, label=label, emit=emit)
    for email in emails:
        before = email.model_dump()
        act(email, batch)
        if email.model_dump() != before:
            changed += 1
    if batch.removed:
        state.emails = [e for e in state.emails if e.id not in batch.removed]
        changed += len(batch.removed)
    return {
        "ok": True,
        "changed": changed,
        "message": _sentence(action, len({e.thread_id for e in emails}), label),
    }


@dataclass
class _Batch:
    """What one bulk action works on: the chosen messages, the label and where events go."""

    emails: list[Email]
    label: str | None
    emit: Emit
    removed: list[str] = field(default_factory=list)


def _mover(
    sources: tuple[str, ...] | None, target: str | None, *, exclude: tuple[str, ...] = ()
) -> Callable[[Email, _Batch], None]:
    """An action that moves a message from one of `sources` (any folder but `exclude` when None) to
    `target` (its previous folder when None)."""

    def act(email: Email, batch: _Batch) -> None:
        allowed = email.folder in sources if sources is not None else email.folder not in exclude
        if allowed:
            _move(email, target or email.previous_folder or "inbox", batch.emit)

    return act


def _move_to_inbox(email: Email, batch: _Batch) -> None:
    # A sent message or draft that was trashed goes back where it came from, never to the inbox.
    if email.folder in ("archive", "spam", "trash") and email.previous_folder not in ("sent", "drafts"):
        _move(email, "inbox", batch.emit)


def _read_state(value: bool) -> Callable[[Email, _Batch], None]:
    def act(email: Email, batch: _Batch) -> None:
        if email.folder == "drafts" or email.is_read == value:
            return
        # Marking a conversation unread marks only its latest received message.
        if value or email is _latest_received(batch.emails, email.thread_id):
            email.is_read = value
            batch.emit("email_read_state", email_id=email.id, is_read=value)

    return act


def _star(email: Email, batch: _Batch) -> None:
    # Starring a conversation stars its latest message, as webmail does.
    if email is _latest(batch.emails, email.thread_id) and not email.is_starred:
        email.is_starred = True
        batch.emit("email_starred", email_id=email.id, starred=True)


def _unstar(email: Email, batch: _Batch) -> None:
    if email.is_starred:
        email.is_starred = False
        batch.emit("email_starred", email_id=email.id, starred=False)


def _label_add(email: Email, batch: _Batch) -> None:
    label = batch.label
    if label is not None and label not in email.labels and email.folder != "drafts":
        email.labels = [*email.labels, label]
        batch.emit("email_labelled", email_id=email.id, label=label, added=True)


def _label_remove(email: Email, batch: _Batch) -> None:
    label = batch.label
    if label is not None and label in email.labels:
        email.labels = [name for name in email.labels if name != label]
        batch.emit("email_labelled", email_id=email.id, label=label, added=False)


def _delete_forever(email: Email, batch: _Batch) -> None:
    if email.folder in HIDDEN:
        batch.removed.append(email.id)
        batch.emit("email_deleted", email_id=email.id)


_ACTIONS: dict[str, Callable[[Email, _Batch], None]] = {
    "archive": _mover(("inbox",), "archive"),
    "move_to_inbox": _move_to_inbox,
    "trash": _mover(None, "trash", exclude=("trash",)),
    "restore": _mover(("trash",), None),
    "spam": _mover(("inbox", "archive"), "spam"),
    "not_spam": _mover(("spam",), "inbox"),
    "read": _read_state(True),
    "unread": _read_state(False),
    "star": _star,
    "unstar": _unstar,
    "label_add": _label_add,
    "label_remove": _label_remove,
    "delete_forever": _delete_forever,
}
"""Each bulk action, applied to one message of the batch; a message it does not fit is left alone."""


def _latest(emails: list[Email], thread_id: str) -> Email:
    return max((e for e in emails if e.thread_id == thread_id), key=lambda e: (e.sent_at, e.id))


def _latest_received(emails: list[Email], thread_id: str) -> Email:
    members = [e for e in emails if e.thread_id == thread_id and _received(e)]
    return max(members, key=lambda e: (e.sent_at, e.id)) if members else _latest(emails, thread_id)


def _sentence(action: str, threads: int, label: str | None) -> str:
    noun = "Conversation" if threads == 1 else f"{threads} conversations"
    return {
        "archive": f"{noun} archived.",
        "move_to_inbox": f"{noun} moved to Inbox.",
        "trash": f"{noun} moved to Trash.",
        "restore": f"{noun} restored.",
        "spam": f"{noun} reported as spam.",
        "not_spam": f"{noun} moved to Inbox.",
        "read": f"{noun} marked as read.",
        "unread": f"{noun} marked as unread.",
        "star": "Starred.",
        "unstar": "Star removed.",
        "label_add": f"Label “{label}” applied.",
        "label_remove": f"Label “{label}” removed.",
        "delete_forever": f"{noun} deleted forever.",
    }[action]


def set_star(state: MailState, *, email_id: str, starred: bool, emit: Emit) -> dict[str, Any]:
    """Star or unstar one message."""
    email = find_email(state, email_id)
    if email.is_starred != starred:
        email.is_starred = starred
        emit("email_starred", email_id=email.id, starred=starred)
    return {"ok": True, "id": email.id, "is_starred": email.is_starred}
