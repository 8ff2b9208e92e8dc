"""Server-layer mutations of Parcel Mail (registered as `mail.<name>`)."""

from __future__ import annotations

from datetime import timedelta

from humantrace.environments.mail import content
from humantrace.environments.mail.seed import MailContext, add_email, mail_state
from humantrace.environments.seeding import SeedError, mutation


@mutation("mail.remove_label")
def remove_label(ctx: MailContext, *, name: str) -> None:
    """Delete the label `name` and take it off every email (a step the task now needs first)."""
    state = mail_state(ctx)
    if not any(label.name == name for label in state.labels):
        raise SeedError(f"no label {name!r}")
    state.labels = [label for label in state.labels if label.name != name]
    for email in state.emails:
        if name in email.labels:
            email.labels = [n for n in email.labels if n != name]
    for rule in state.filters:
        if rule.add_label == name:
            rule.add_label = None


@mutation("mail.bury")
def bury(ctx: MailContext, *, folder: str = "trash", count: int = 30, newer_than_hours: float = 1) -> None:
    """Fill `folder` with `count` newer promotional messages, pushing older ones to later pages."""
    senders = ["figtree", "morningbrief", "designweekly", "codehub"]
    for index in range(count):
        sender = senders[index % len(senders)]
        headline = (content.MORNING_BRIEF + content.DESIGN_WEEKLY + content.FIGTREE)[index % 12]
        made = add_email(
            ctx,
            sender=sender,
            subject=f"{headline} ({index + 2} of {count + 1})" if sender == "codehub" else headline,
            body=f"{headline}.\n\nYou're receiving this because you subscribed. Unsubscribe",
            at=ctx.now - timedelta(hours=newer_than_hours + index * 0.7 + ctx.rng.random() * 0.5),
            folder=folder,
            is_read=True,
        )
        if folder in ("trash", "spam"):
            made.previous_folder = "inbox"


@mutation("mail.misfile")
def misfile(ctx: MailContext, *, email_id: str, folder: str = "spam") -> None:
    """Move one email into another folder (as a spam filter or a stray click would)."""
    email = mail_state(ctx).find("emails", email_id)
    if email is None:
        raise SeedError(f"no email {email_id!r}")
    if folder in ("trash", "spam"):
        email.previous_folder = email.folder
    email.folder = folder
