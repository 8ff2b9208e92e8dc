"""The address book, labels, filters and settings of the mailbox (keyword-only, no HTTP)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

from humantrace.environments.mail.compose_service import clean_addresses
from humantrace.environments.mail.mailbox_service import Emit, settings
from humantrace.environments.mail.models import Contact, Email, Label, MailFilter, MailState
from humantrace.environments.mail.people import LABEL_COLORS
from humantrace.environments.sitekit import SiteError

NewId = Callable[[str], str]


# ---------------------------------------------------------------- contacts


def list_contacts(state: MailState, *, q: str = "") -> dict[str, Any]:
    """Contacts sorted by name; `q` matches name, address or company."""
    needle = q.strip().lower()
    found = [
        c
        for c in state.contacts
        if not needle or needle in c.name.lower() or needle in c.email or needle in c.company.lower()
    ]
    found.sort(key=lambda c: (c.name.lower(), c.id))
    return {"contacts": [c.model_dump() for c in found]}


def _contact(state: MailState, contact_id: str) -> Contact:
    found = state.find("contacts", contact_id)
    if found is None:
        raise SiteError(404, "That contact no longer exists.")
    return found


def _contact_email(value: str) -> str:
    found = clean_addresses([value], field="Email")
    if len(found) != 1:
        raise SiteError(422, "Enter one email address.")
    return found[0]


def create_contact(state: MailState, *, fields: Any, new_id: NewId, emit: Emit) -> dict[str, Any]:
    """Add a contact (the name and a valid, not yet used address are required)."""
    name = fields.name.strip()
    if not name:
        raise SiteError(422, "A contact needs a name.")
    email = _contact_email(fields.email)
    if any(c.email == email for c in state.contacts):
        raise SiteError(409, f"{email} is already in your contacts.")
    contact = Contact(
        id=new_id("c"),
        name=name,
        email=email,
        company=fields.company.strip(),
        phone=fields.phone.strip(),
        notes=fields.notes.strip(),
    )
    state.contacts.append(contact)
    emit("contact_created", contact_id=contact.id, email=contact.email)
    return {"contact": contact.model_dump(), "message": f"{contact.name} added to contacts."}


def update_contact(state: MailState, *, contact_id: str, changes: Any, emit: Emit) -> dict[str, Any]:
    """Change some fields of a contact."""
    contact = _contact(state, contact_id)
    data = changes.model_dump(exclude_none=True)
    if "name" in data and not data["name"].strip():
        raise SiteError(422, "A contact needs a name.")
    if "email" in data:
        data["email"] = _contact_email(data["email"])
        if any(c.email == data["email"] and c.id != contact.id for c in state.contacts):
            raise SiteError(409, f"{data['email']} already belongs to another contact.")
    changed = []
    for key, value in data.items():
        value = value.strip() if isinstance(value, str) else value
        if getattr(contact, key) != value:
            setattr(contact, key, value)
            changed.append(key)
    emit("contact_updated", contact_id=contact.id, fields=changed)
    return {"contact": contact.model_dump(), "message": "Contact saved."}


def delete_contact(state: MailState, *, contact_id: str, emit: Emit) -> dict[str, Any]:
    """Remove a contact."""
    contact = _contact(state, contact_id)
    state.contacts = [c for c in state.contacts if c.id != contact_id]
    emit("contact_deleted", contact_id=contact_id, email=contact.email)
    return {"ok": True, "message": f"{contact.name} deleted from contacts."}


# ---------------------------------------------------------------- labels


def list_labels(state: MailState) -> dict[str, Any]:
    """Labels sorted by name."""
    return {"labels": [label.model_dump() for label in sorted(state.labels, key=lambda x: x.name.lower())]}


def _label(state: MailState, label_id: str) -> Label:
    found = state.find("labels", label_id)
    if found is None:
        raise SiteError(404, "That label no longer exists.")
    return found


def _label_name(state: MailState, name: str, *, except_id: str | None = None) -> str:
    name = " ".join(name.split())
    if not name:
        raise SiteError(422, "A label needs a name.")
    if len(name) > 40:
        raise SiteError(422, "Label names can be at most 40 characters.")
    if name.lower() in ("inbox", "sent", "drafts", "archive", "trash", "spam", "starred"):
        raise SiteError(422, f"“{name}” is a folder name; choose another label name.")
    if any(label.name.lower() == name.lower() and label.id != except_id for label in state.labels):
        raise SiteError(409, f"A label called “{name}” already exists.")
    return name


def _color(value: str | None, fallback: str) -> str:
    if value and re.fullmatch(r"#[0-9a-fA-F]{6}", value):
        return value.lower()
    return fallback


def create_label(state: MailState, *, fields: Any, new_id: NewId, emit: Emit) -> dict[str, Any]:
    """Add a label."""
    name = _label_name(state, fields.name)
    label = Label(
        id=new_id("l"),
        name=name,
        color=_color(fields.color, LABEL_COLORS[len(state.labels) % len(LABEL_COLORS)]),
    )
    state.labels.append(label)
    emit("label_created", label_id=label.id, name=label.name)
    return {"label": label.model_dump(), "message": f"Label “{name}” created."}


def update_label(state: MailState, *, label_id: str, changes: Any, emit: Emit) -> dict[str, Any]:
    """Rename or recolour a label (a rename follows it onto every email and filter)."""
    label = _label(state, label_id)
    if changes.name is not None:
        new_name = _label_name(state, changes.name, except_id=label.id)
        if new_name != label.name:
            old = label.name
            for email in state.emails:
                if old in email.labels:
                    email.labels = [new_name if n == old else n for n in email.labels]
            for rule in state.filters:
                if rule.add_label == old:
                    rule.add_label = new_name
            label.name = new_name
            emit("label_renamed", label_id=label.id, old_name=old, name=new_name)
    if changes.color is not None:
        label.color = _color(changes.color, label.color)
    return {"label": label.model_dump(), "message": "Label saved."}


def delete_label(state: MailState, *, label_id: str, emit: Emit) -> dict[str, Any]:
    """Delete a label: it comes off every email; filters that added it stop adding a label."""
    label = _label(state, label_id)
    for email in state.emails:
        if label.name in email.labels:
            email.labels = [n for n in email.labels if n != label.name]
    for rule in state.filters:
        if rule.add_label == label.name:
            rule.add_label = None
    state.labels = [x for x in state.labels if x.id != label_id]
    emit("label_deleted", label_id=label_id, name=label.name)
    return {"ok": True, "message": f"Label “{label.name}” deleted."}


# ---------------------------------------------------------------- filters


def list_filters(state: MailState) -> dict[str, Any]:
    """Filters, oldest first."""
    return {"filters": [f.model_dump() for f in sorted(state.filters, key=lambda f: (f.created_at, f.id))]}


def filter_matches(rule: MailFilter, email: Email) -> bool:
    """Whether a filter's conditions (case-insensitive substrings) hold for `email`."""
    sender = f"{email.from_name} {email.from_addr}".lower()
    if rule.from_contains and rule.from_contains.lower() not in sender:
        return False
    return not (rule.subject_contains and rule.subject_contains.lower() not in email.subject.lower())


def create_filter(
    state: MailState, *, fields: Any, now_iso: str, new_id: NewId, emit: Emit
) -> dict[str, Any]:
    """Add a filter; with `apply_to_existing` it also acts on matching mail already received."""
    from_contains = fields.from_contains.strip()
    subject_contains = fields.subject_contains.strip()
    if not from_contains and not subject_contains:
        raise SiteError(422, "Give the filter a condition: part of the sender or of the subject.")
    add_label = fields.add_label or None
    if add_label and not any(label.name == add_label for label in state.labels):
        raise SiteError(422, f"There is no label called “{add_label}”. Create it first.")
    if not (add_label or fields.archive or fields.mark_read or fields.star):
        raise SiteError(422, "Choose at least one thing the filter should do.")
    rule = MailFilter(
        id=new_id("f"),
        from_contains=from_contains,
        subject_contains=subject_contains,
        add_label=add_label,
        archive=fields.archive,
        mark_read=fields.mark_read,
        star=fields.star,
        created_at=now_iso,
    )
    state.filters.append(rule)
    applied = apply_filter(state, rule=rule, emit=emit) if fields.apply_to_existing else 0
    emit(
        "filter_created",
        filter_id=rule.id,
        from_contains=from_contains,
        subject_contains=subject_contains,
        add_label=add_label,
        archive=rule.archive,
        mark_read=rule.mark_read,
        star=rule.star,
        applied_count=applied,
    )
    tail = (
        f" and applied to {applied} existing message{'s' if applied != 1 else ''}"
        if fields.apply_to_existing
        else ""
    )
    return {"filter": rule.model_dump(), "applied": applied, "message": f"Filter created{tail}."}


def apply_filter(state: MailState, *, rule: MailFilter, emit: Emit) -> int:
    """Act on received mail (Inbox and Archive) matching `rule`; returns how many messages changed."""
    changed = 0
    for email in state.emails:
        if email.folder not in ("inbox", "archive") or not filter_matches(rule, email):
            continue
        before = email.model_dump()
        if rule.add_label and rule.add_label not in email.labels:
            email.labels = [*email.labels, rule.add_label]
            emit("email_labelled", email_id=email.id, label=rule.add_label, added=True)
        if rule.archive and email.folder == "inbox":
            email.folder = "archive"
            emit("email_moved", email_id=email.id, from_folder="inbox", to_folder="archive")
        if rule.mark_read and not email.is_read:
            email.is_read = True
        if rule.star and not email.is_starred:
            email.is_starred = True
        changed += email.model_dump() != before
    return changed


def delete_filter(state: MailState, *, filter_id: str, emit: Emit) -> dict[str, Any]:
    """Remove a filter (mail it already acted on stays as it is)."""
    if state.find("filters", filter_id) is None:
        raise SiteError(404, "That filter no longer exists.")
    state.filters = [f for f in state.filters if f.id != filter_id]
    emit("filter_deleted", filter_id=filter_id)
    return {"ok": True, "message": "Filter deleted."}


# ---------------------------------------------------------------- settings


def _day(value: str | None, field: str) -> str | None:
    if value in (None, ""):
        return None
    try:
        return date.fromisoformat(value).isoformat()
    except ValueError:
        raise SiteError(422, f"{field} must be a date like 2026-04-01.") from None


def update_settings(state: MailState, *, changes: Any, emit: Emit) -> dict[str, Any]:
    """Change settings; a vacation reply needs a message and an end date not before its start."""
    current = settings(state)
    data = changes.model_dump(exclude_unset=True)
    if "vacation_start" in data:
        data["vacation_start"] = _day(data["vacation_start"], "The first day")
    if "vacation_end" in data:
        data["vacation_end"] = _day(data["vacation_end"], "The last day")
    if "display_name" in data and not (data["display_name"] or "").strip():
        raise SiteError(422, "Your name cannot be empty.")
    merged = current.model_dump() | {
        k: v for k, v in data.items() if v is not None or k.startswith("vacation_")
    }
    if merged["vacation_enabled"]:
        if not merged["vacation_start"] or not merged["vacation_end"]:
            raise SiteError(422, "Choose the first and last day of the vacation reply.")
        if merged["vacation_end"] < merged["vacation_start"]:
            raise SiteError(422, "The last day must not be before the first day.")
        if not (merged["vacation_message"] or "").strip():
            raise SiteError(422, "Write the message people will get while you're away.")
    changed = []
    for key, value in merged.items():
        if key != "id" and getattr(current, key) != value:
            setattr(current, key, value)
            changed.append(key)
    emit("settings_updated", fields=sorted(changed))
    return {"settings": current.model_dump(), "message": "Settings saved."}
