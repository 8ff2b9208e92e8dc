"""Seed builders for task situations (registered as `mail.<name>`).

Each builder adds one situation to the default mailbox and returns named outputs that task files
bind to targets (`{output.email_id}`). Senders and recipients are person keys (`marcus`) or
`{name, addr}` mappings (look-alike senders); times are hours or days before the session start.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from humantrace.environments.mail.models import Contact, Email
from humantrace.environments.mail.people import person
from humantrace.environments.mail.seed import (
    MailContext,
    add_contact,
    add_email,
    add_label,
    mail_state,
    moment,
    sender_of,
)
from humantrace.environments.seeding import SeedError, builder


def _when(ctx: MailContext, hours_ago: float | None, days_ago: float | None) -> Any:
    if hours_ago is None and days_ago is None:
        raise SeedError("give hours_ago or days_ago")
    if hours_ago is not None:
        return moment(ctx, hours=hours_ago)
    return moment(ctx, days=days_ago)  # type: ignore[arg-type]  # not None: checked above, which mypy cannot follow across the two ifs


def _find_thread(ctx: MailContext, thread_id: str) -> None:
    if not any(e.thread_id == thread_id for e in mail_state(ctx).emails):
        raise SeedError(f"no conversation {thread_id!r}")


@builder("mail.email")
def email(
    ctx: MailContext,
    *,
    sender: Any,
    subject: str,
    body: str,
    hours_ago: float | None = None,
    days_ago: float | None = None,
    to: list[Any] | None = None,
    cc: list[Any] | None = None,
    folder: str = "inbox",
    read: bool = False,
    starred: bool = False,
    labels: list[str] | None = None,
    attachments: list[Any] | None = None,
    thread: str | None = None,
    reply_to: str | None = None,
    forward_of: str | None = None,
) -> dict[str, Any]:
    """One message; `thread` (a thread id) or `reply_to` (an email id) puts it in a conversation."""
    state = mail_state(ctx)
    if reply_to is not None:
        parent = state.find("emails", reply_to)
        if parent is None:
            raise SeedError(f"reply_to: no email {reply_to!r}")
        thread = parent.thread_id
    if thread is not None:
        _find_thread(ctx, thread)
    made = add_email(
        ctx,
        sender=sender,
        subject=subject,
        body=body,
        at=_when(ctx, hours_ago, days_ago),
        to=to,
        cc=cc,
        folder=folder,
        is_read=read,
        is_starred=starred,
        labels=labels or [],
        attachments=attachments or [],
        thread_id=thread,
        in_reply_to=reply_to,
        forward_of=forward_of,
    )
    if folder in ("trash", "spam"):
        made.previous_folder = "inbox"
    return {
        "email_id": made.id,
        "thread_id": made.thread_id,
        "subject": made.subject,
        "from_addr": made.from_addr,
        "from_name": made.from_name,
    }


@builder("mail.thread")
def thread(
    ctx: MailContext,
    *,
    subject: str,
    messages: list[dict[str, Any]],
    folder: str = "inbox",
    labels: list[str] | None = None,
) -> dict[str, Any]:
    """A conversation: the first message starts it, each next one answers the one before.

    Each message: `sender`, `hours_ago` (or `days_ago`), `body`, optional `to`, `cc`, `attachments`,
    `read`, `subject`. Jamie's own messages (`sender: me`) go to Sent.
    """
    if not messages:
        raise SeedError("a thread needs at least one message")
    made: list[Email] = []
    for spec in messages:
        unknown = set(spec) - {
            "sender",
            "hours_ago",
            "days_ago",
            "body",
            "to",
            "cc",
            "attachments",
            "read",
            "subject",
        }
        if unknown:
            raise SeedError(f"unknown message keys {sorted(unknown)}")
        previous = made[-1] if made else None
        from_me = spec["sender"] == "me"
        if "to" in spec:
            to = spec["to"]
        elif from_me:
            to = [previous.from_addr] if previous else []
        else:
            to = ["me"]
        item = add_email(
            ctx,
            sender=spec["sender"],
            subject=spec.get("subject") or (subject if previous is None else "Re: " + subject),
            body=spec["body"],
            at=_when(ctx, spec.get("hours_ago"), spec.get("days_ago")),
            to=to,
            cc=spec.get("cc"),
            folder="sent" if from_me else folder,
            is_read=bool(spec.get("read", False)),
            labels=[] if from_me else labels or [],
            attachments=spec.get("attachments") or [],
            thread_id=previous.thread_id if previous else None,
            in_reply_to=previous.id if previous else None,
        )
        if folder in ("trash", "spam") and not from_me:
            item.previous_folder = "inbox"
        made.append(item)
    received = [e for e in made if e.folder != "sent"]
    return {
        "thread_id": made[0].thread_id,
        "email_ids": [e.id for e in made],
        "received_ids": [e.id for e in received],
        "first_id": made[0].id,
        "last_id": made[-1].id,
        "last_received_id": received[-1].id if received else None,
    }


@builder("mail.draft")
def draft(
    ctx: MailContext,
    *,
    to: list[Any],
    subject: str,
    body: str,
    cc: list[Any] | None = None,
    hours_ago: float = 20,
    reply_to: str | None = None,
) -> dict[str, Any]:
    """An unfinished message in Drafts."""
    made = add_email(
        ctx,
        sender="me",
        to=to,
        cc=cc,
        subject=subject,
        body=body,
        at=moment(ctx, hours=hours_ago),
        folder="drafts",
        in_reply_to=reply_to,
    )
    return {"draft_id": made.id}


@builder("mail.contact")
def contact(
    ctx: MailContext, *, name: str, email: str, company: str = "", phone: str = "", notes: str = ""
) -> dict[str, Any]:
    """An address-book entry."""
    made: Contact = add_contact(ctx, name=name, email=email, company=company, phone=phone, notes=notes)
    return {"contact_id": made.id}


@builder("mail.contact_of")
def contact_of(ctx: MailContext, *, email: str) -> dict[str, Any]:
    """The id of the contact with this address (from the default address book)."""
    found = next((c for c in mail_state(ctx).contacts if c.email == email.lower()), None)
    if found is None:
        raise SeedError(f"no contact with address {email!r}")
    return {"contact_id": found.id}


@builder("mail.label")
def label(ctx: MailContext, *, name: str, color: str = "#4b5563") -> dict[str, Any]:
    """A label (reused when it exists)."""
    made = add_label(ctx, name=name, color=color)
    return {"label_id": made.id, "label_name": made.name}


@builder("mail.person")
def person_ref(ctx: MailContext, *, key: str) -> dict[str, Any]:
    """Name and address of a correspondent, for instructions and targets."""
    name, addr = sender_of(key)
    return {"name": name, "addr": addr, "first_name": person(key).name.split(" ")[0]}


@builder("mail.emails_from")
def emails_from(ctx: MailContext, *, senders: list[str], folders: list[str] | None = None) -> dict[str, Any]:
    """Ids of the emails whose sender address contains one of `senders`, in `folders` (default:
    Inbox and Archive), oldest first."""
    folders = folders or ["inbox", "archive"]
    found = [
        e
        for e in mail_state(ctx).emails
        if e.folder in folders and any(s.lower() in e.from_addr.lower() for s in senders)
    ]
    found.sort(key=lambda e: (e.sent_at, e.id))
    return {"email_ids": [e.id for e in found]}


@builder("mail.vacation_dates")
def vacation_dates(
    ctx: MailContext, *, starts_in_days: int = 10, length_days: int = 7, drift_days: int = 3
) -> dict[str, Any]:
    """A future vacation: ISO dates, how a person writes them, and a wrong end date (`drift_end`)."""
    start = (ctx.now + timedelta(days=starts_in_days)).date()
    end = start + timedelta(days=length_days)
    drift = start + timedelta(days=drift_days)

    def spoken(day: Any) -> str:
        return f"{day.strftime('%A')}, {day.strftime('%B')} {day.day}"

    return {
        "start": start.isoformat(),
        "end": end.isoformat(),
        "start_text": spoken(start),
        "end_text": spoken(end),
        "drift_end": drift.isoformat(),
    }
