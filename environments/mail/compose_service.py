"""Writing mail: send (new, reply, reply-all, forward with attachments) and drafts.

A sent message is a new email in `sent` (a sent draft is removed from Drafts), in the conversation
of the message it answers or forwards. Forwarded attachments must be files of the forwarded message.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from humantrace.environments.mail.mailbox_service import Emit, find_email, settings
from humantrace.environments.mail.models import Attachment, Email, MailState
from humantrace.environments.sitekit import SiteError

_ADDRESS = re.compile(r"^[^@\s<>,;]+@[^@\s<>,;]+\.[a-z]{2,}$", re.IGNORECASE)
_BRACKETED = re.compile(r"<([^<>]+)>")


def clean_addresses(values: list[str], *, field: str) -> list[str]:
    """Lower-cased addresses from `values` ("Name <a@b.c>" accepted); a bad one is a 422."""
    found: list[str] = []
    for value in values:
        for part in re.split(r"[,;]", value or ""):
            part = part.strip()
            if not part:
                continue
            bracketed = _BRACKETED.search(part)
            address = (bracketed.group(1) if bracketed else part).strip().lower()
            if not _ADDRESS.match(address):
                raise SiteError(422, f"“{part}” in {field} is not a valid email address.")
            if address not in found:
                found.append(address)
    return found


def _outgoing(state: MailState, payload: Any, *, require_recipient: bool) -> dict[str, Any]:
    to = clean_addresses(payload.to, field="To")
    cc = clean_addresses(payload.cc, field="Cc")
    bcc = clean_addresses(payload.bcc, field="Bcc")
    if require_recipient and not (to or cc or bcc):
        raise SiteError(422, "Add at least one recipient.")
    source: Email | None = None
    thread_id: str | None = None
    if payload.in_reply_to:
        source = find_email(state, payload.in_reply_to)
        thread_id = source.thread_id
    if payload.forward_of:
        source = find_email(state, payload.forward_of)
        thread_id = source.thread_id
    attachments: list[Attachment] = []
    if payload.attachments:
        if not payload.forward_of or source is None:
            raise SiteError(422, "Only a forwarded message's attachments can be included.")
        by_name = {a.name: a for a in source.attachments}
        for name in payload.attachments:
            if name not in by_name:
                raise SiteError(422, f"“{name}” is not attached to the forwarded message.")
            if all(a.name != name for a in attachments):
                attachments.append(by_name[name])
    return {
        "to": to,
        "cc": cc,
        "bcc": bcc,
        "subject": payload.subject.strip(),
        "body": payload.body,
        "in_reply_to": payload.in_reply_to or None,
        "forward_of": payload.forward_of or None,
        "attachments": attachments,
        "thread_id": thread_id,
    }


def _draft(state: MailState, draft_id: str) -> Email:
    draft = find_email(state, draft_id)
    if draft.folder != "drafts":
        raise SiteError(409, "This draft has already been sent or discarded.")
    return draft


def send(
    state: MailState, *, payload: Any, now_iso: str, new_id: Callable[[str], str], emit: Emit
) -> dict[str, Any]:
    """Send a message; returns the sent email."""
    fields = _outgoing(state, payload, require_recipient=True)
    if payload.draft_id:
        draft = _draft(state, payload.draft_id)
        state.emails = [e for e in state.emails if e.id != draft.id]
    me = settings(state)
    email_id = new_id("e")
    email = Email(
        id=email_id,
        thread_id=fields.pop("thread_id") or "t" + email_id[1:],
        folder="sent",
        from_addr=me.email,
        from_name=me.display_name,
        sent_at=now_iso,
        is_read=True,
        **fields,
    )
    state.emails.append(email)
    emit(
        "email_sent",
        email_id=email.id,
        thread_id=email.thread_id,
        to=email.to,
        cc=email.cc,
        bcc=email.bcc,
        subject=email.subject,
        in_reply_to=email.in_reply_to,
        forward_of=email.forward_of,
        attachment_count=len(email.attachments),
        from_draft=payload.draft_id,
    )
    return {"email": email.model_dump(), "message": "Message sent."}


def save_draft(
    state: MailState,
    *,
    payload: Any,
    draft_id: str | None,
    now_iso: str,
    new_id: Callable[[str], str],
    emit: Emit,
) -> dict[str, Any]:
    """Create a draft, or update `draft_id`."""
    fields = _outgoing(state, payload, require_recipient=False)
    thread_id = fields.pop("thread_id")
    if draft_id:
        draft = _draft(state, draft_id)
        for key, value in fields.items():
            setattr(draft, key, value)
        draft.sent_at = now_iso
    else:
        me = settings(state)
        email_id = new_id("e")
        draft = Email(
            id=email_id,
            thread_id=thread_id or "t" + email_id[1:],
            folder="drafts",
            from_addr=me.email,
            from_name=me.display_name,
            sent_at=now_iso,
            is_read=True,
            **fields,
        )
        state.emails.append(draft)
    emit("draft_saved", draft_id=draft.id)
    return {"draft": draft.model_dump(), "message": "Draft saved."}


def discard_draft(state: MailState, *, draft_id: str, emit: Emit) -> dict[str, Any]:
    """Delete a draft for good."""
    draft = _draft(state, draft_id)
    state.emails = [e for e in state.emails if e.id != draft.id]
    emit("draft_discarded", draft_id=draft_id)
    return {"ok": True, "message": "Draft discarded."}
