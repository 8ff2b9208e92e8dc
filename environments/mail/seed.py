"""Parcel Mail's default mailbox and the entity-making helpers the task builders share.

`build_default_state` lays out three weeks of one person's mail: conversations with colleagues,
clients, family and a landlord (with Jamie's replies in Sent), newsletters, receipts, bank and
code-review notifications, a few spam messages, a draft, an address book, labels, one filter and
the settings. Every random draw goes through `ctx.rng` in a fixed order, so a seed gives one mailbox.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from humantrace.environments.mail import content
from humantrace.environments.mail.models import (
    Attachment,
    Contact,
    Email,
    Label,
    MailFilter,
    MailState,
    Settings,
)
from humantrace.environments.mail.people import DEFAULT_LABELS, ME, PEOPLE, person
from humantrace.environments.seeding import SeedContext, SeedError, to_iso

# What this site's builders see: `ctx.state` is typed as the site's state.
MailContext = SeedContext[MailState]

SIGNATURE = "Jamie Chen\nProduct Designer · Orchardline\n+1 503 555 0142"


def mail_state(ctx: MailContext) -> MailState:
    """The state being built, typed."""
    return ctx.state


def sender_of(spec: Any) -> tuple[str, str]:
    """(name, address) of a sender given as a person key or as `{name, addr}`."""
    if isinstance(spec, str):
        try:
            found = person(spec)
        except KeyError:
            raise SeedError(f"unknown person {spec!r} (known: me, {', '.join(sorted(PEOPLE))})") from None
        return found.name, found.addr
    if isinstance(spec, dict) and "addr" in spec:
        return str(spec.get("name") or spec["addr"]), str(spec["addr"])
    raise SeedError(f"a sender is a person key or {{name, addr}}, not {spec!r}")


def addresses(specs: Iterable[Any] | None) -> list[str]:
    """Addresses of recipients given as person keys, `{name, addr}` or plain addresses."""
    found = []
    for spec in specs or []:
        if isinstance(spec, str) and "@" in spec:
            found.append(spec.lower())
        else:
            found.append(sender_of(spec)[1].lower())
    return found


def moment(ctx: MailContext, *, days: float = 0, hours: float | None = None) -> datetime:
    """A time `days` before now at a random working hour, or exactly `hours` before now."""
    if hours is not None:
        return ctx.now - timedelta(hours=hours)
    day = ctx.now - timedelta(days=days)
    at = day.replace(hour=ctx.rng.randint(7, 19), minute=ctx.rng.randint(0, 59), second=0)
    if at >= ctx.now:
        at = ctx.now - timedelta(minutes=ctx.rng.randint(10, 150))
    return at


def add_email(
    ctx: MailContext,
    *,
    sender: Any,
    subject: str,
    body: str,
    at: datetime,
    to: Iterable[Any] | None = None,
    cc: Iterable[Any] | None = None,
    folder: str = "inbox",
    is_read: bool = False,
    is_starred: bool = False,
    labels: Iterable[str] = (),
    attachments: Iterable[Any] = (),
    thread_id: str | None = None,
    in_reply_to: str | None = None,
    forward_of: str | None = None,
) -> Email:
    """Append one email; a message without `thread_id` starts its own conversation."""
    name, addr = sender_of(sender)
    email_id = ctx.new_id("e")
    from_me = addr == ME.addr
    recipients = addresses(to) if to is not None else ([ME.addr] if not from_me else [])
    files = [a if isinstance(a, Attachment) else _attachment(a) for a in attachments]
    email = Email(
        id=email_id,
        thread_id=thread_id or "t" + email_id[1:],
        folder=folder,
        from_addr=addr,
        from_name=name,
        to=recipients,
        cc=addresses(cc),
        subject=subject,
        body=body,
        sent_at=to_iso(at),
        is_read=True if from_me else is_read,
        is_starred=is_starred,
        labels=list(labels),
        attachments=files,
        in_reply_to=in_reply_to,
        forward_of=forward_of,
    )
    mail_state(ctx).emails.append(email)
    return email


def _attachment(spec: Any) -> Attachment:
    if isinstance(spec, dict):
        return Attachment(name=str(spec["name"]), size_kb=int(spec.get("size_kb", 120)))
    if isinstance(spec, (list, tuple)) and len(spec) == 2:
        return Attachment(name=str(spec[0]), size_kb=int(spec[1]))
    raise SeedError(f"an attachment is {{name, size_kb}}, not {spec!r}")


def add_label(ctx: MailContext, *, name: str, color: str = "#4b5563") -> Label:
    """Create the label `name` (or return the existing one)."""
    state = mail_state(ctx)
    found = next((label for label in state.labels if label.name.lower() == name.lower()), None)
    if found is not None:
        return found
    label = Label(id=ctx.new_id("l"), name=name, color=color)
    state.labels.append(label)
    return label


def add_contact(
    ctx: MailContext, *, name: str, email: str, company: str = "", phone: str = "", notes: str = ""
) -> Contact:
    """Append an address-book entry."""
    contact = Contact(
        id=ctx.new_id("c"), name=name, email=email.lower(), company=company, phone=phone, notes=notes
    )
    mail_state(ctx).contacts.append(contact)
    return contact


def _read_odds(day: float) -> float:
    return 0.92 if day > 2 else 0.35


def _conversation(ctx: MailContext, spec: dict[str, Any]) -> None:
    thread_id: str | None = None
    previous: Email | None = None
    last_at: datetime | None = None
    starter = spec["messages"][0][0]
    for sender, day, body in spec["messages"]:
        at = moment(ctx, days=day)
        if last_at is not None and at <= last_at:
            at = last_at + timedelta(minutes=ctx.rng.randint(15, 90))
        at = min(at, ctx.now - timedelta(minutes=5))
        last_at = at
        from_me = sender == "me"
        if from_me:
            to = [previous.from_addr] if previous else [starter]
            folder = "sent"
        else:
            to = ["me"]
            folder = spec["folder"]
        email = add_email(
            ctx,
            sender=sender,
            subject=spec["subject"] if previous is None else "Re: " + spec["subject"],
            body=body,
            at=at,
            to=to,
            cc=[c for c in spec.get("cc", []) if c != sender],
            folder=folder,
            is_read=ctx.rng.random() < _read_odds(day),
            labels=spec.get("labels", []) if not from_me else [],
            thread_id=thread_id,
            in_reply_to=previous.id if previous else None,
        )
        thread_id = email.thread_id
        previous = email


def build_default_state(ctx: MailContext) -> None:
    """Three weeks of everyday mail, the address book, labels, a filter and the settings."""
    state = mail_state(ctx)
    state.settings.append(Settings(id="settings", display_name=ME.name, email=ME.addr, signature=SIGNATURE))
    for name, color in DEFAULT_LABELS:
        add_label(ctx, name=name, color=color)
    for key in sorted(PEOPLE):
        p = PEOPLE[key]
        if p.in_contacts:
            add_contact(ctx, name=p.name, email=p.addr, company=p.company, phone=p.phone)
    state.filters.append(
        MailFilter(
            id=ctx.new_id("f"),
            from_contains="codehub.dev",
            add_label="Work",
            created_at=to_iso(ctx.now - timedelta(days=60)),
        )
    )

    for spec in content.CONVERSATIONS:
        _conversation(ctx, spec)
    for sender, day, subject, body, folder, labels, files, starred in content.SINGLES:
        if sender == "codehub":
            labels = ["Work"]
        add_email(
            ctx,
            sender=sender,
            subject=subject,
            body=body,
            at=moment(ctx, days=day),
            folder=folder,
            is_read=folder != "inbox" or ctx.rng.random() < _read_odds(day),
            is_starred=starred,
            labels=labels,
            attachments=files,
        )
    for to, day, subject, body, files in content.SENT:
        add_email(
            ctx,
            sender="me",
            to=[to],
            subject=subject,
            body=body,
            at=moment(ctx, days=day),
            folder="sent",
            attachments=files,
        )
    for index, headline in enumerate(content.MORNING_BRIEF):
        day = 19 - 3 * index
        add_email(
            ctx,
            sender="morningbrief",
            subject=headline,
            at=moment(ctx, days=day) if day > 0 else moment(ctx, hours=2),
            body=f"Good morning, Jamie.\n\nToday: {headline.lower()}. Plus the weather, the commute and one good thing.\n\nRead in your browser · Unsubscribe",
            is_read=ctx.rng.random() < 0.5,
        )
    for index, headline in enumerate(content.DESIGN_WEEKLY):
        add_email(
            ctx,
            sender="designweekly",
            subject=f"Design Weekly #{212 + index}: {headline}",
            at=moment(ctx, days=17 - 7 * index),
            body=f"This week: {headline}.\n\nThe best links for product designers, every Tuesday.\n\nUnsubscribe · Preferences",
            is_read=ctx.rng.random() < 0.5,
        )
    for index, headline in enumerate(content.FIGTREE):
        add_email(
            ctx,
            sender="figtree",
            subject=headline,
            at=moment(ctx, days=12 - 8 * index),
            body=f"{headline}.\n\nShop now at Figtree Market. Offer ends Sunday.\n\nYou're receiving this because you signed up for Figtree deals. Unsubscribe",
            is_read=ctx.rng.random() < 0.5,
        )
    for name, addr, day, subject, body in content.SPAM:
        add_email(
            ctx,
            sender={"name": name, "addr": addr},
            subject=subject,
            body=body,
            at=moment(ctx, days=day),
            folder="spam",
        )
    for to, subject, body in content.DRAFTS:
        add_email(
            ctx, sender="me", to=[to], subject=subject, body=body, at=moment(ctx, days=1), folder="drafts"
        )
    _mark_trashed(state)
    state.emails.sort(key=lambda e: e.sent_at)


def _mark_trashed(state: MailState) -> None:
    # Trashed and spam mail remembers where "Restore" sends it.
    for email in state.emails:
        if email.folder in ("trash", "spam") and email.previous_folder is None:
            email.previous_folder = "inbox"


def finish(ctx: MailContext) -> None:
    """Keep emails in time order after a builder appended some (pages sort anyway)."""
    mail_state(ctx).emails.sort(key=lambda e: (e.sent_at, e.id))
