"""Request bodies of Parcel Mail's API (responses are plain dicts built by the services)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Action = Literal[
    "archive", "move_to_inbox", "trash", "restore", "spam", "not_spam",
    "read", "unread", "star", "unstar", "label_add", "label_remove", "delete_forever",
]  # fmt: skip


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MessageAction(Body):
    """Act on messages: by id, or on whole conversations as seen in the view `folder` (the action
    itself is in the path, `/messages/actions/<action>`)."""

    message_ids: list[str] = []
    thread_ids: list[str] = []
    folder: str | None = None
    label: str | None = None


class Outgoing(Body):
    """A message being written (sent or saved as a draft). Recipients are addresses."""

    to: list[str] = []
    cc: list[str] = []
    bcc: list[str] = []
    subject: str = ""
    body: str = ""
    in_reply_to: str | None = None
    forward_of: str | None = None
    attachments: list[str] = Field(
        default=[], description="names of the forwarded message's attachments to keep"
    )
    draft_id: str | None = None


class ContactFields(Body):
    name: str
    email: str
    company: str = ""
    phone: str = ""
    notes: str = ""


class ContactChanges(Body):
    name: str | None = None
    email: str | None = None
    company: str | None = None
    phone: str | None = None
    notes: str | None = None


class LabelFields(Body):
    name: str
    color: str | None = None


class LabelChanges(Body):
    name: str | None = None
    color: str | None = None


class FilterFields(Body):
    from_contains: str = ""
    subject_contains: str = ""
    add_label: str | None = None
    archive: bool = False
    mark_read: bool = False
    star: bool = False
    apply_to_existing: bool = False


class SettingsChanges(Body):
    display_name: str | None = None
    signature: str | None = None
    vacation_enabled: bool | None = None
    vacation_subject: str | None = None
    vacation_message: str | None = None
    vacation_start: str | None = None
    vacation_end: str | None = None
    page_size: int | None = Field(default=None, ge=10, le=100)


class SignIn(Body):
    email: str = ""
    password: str = ""
