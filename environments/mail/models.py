"""Parcel Mail's state: one typed collection per kind of entity.

Every entity has a string `id`; datetimes are ISO-8601 strings in UTC written from the session's
virtual clock. Messages of every folder (drafts included) live in `emails`; a conversation is the
set of emails sharing a `thread_id`. Labels on an email are label *names* (what a person sees and
what a task names); renaming a label renames it on every email.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from humantrace.environments.state import Entity, EnvState, state_helper

FOLDERS = ("inbox", "sent", "drafts", "archive", "trash", "spam")
# Folders a person can move mail into by hand (sent and drafts are written by sending and saving).
MOVABLE_FOLDERS = ("inbox", "archive", "trash", "spam")


class Attachment(BaseModel):
    """A file attached to an email (only its name and size are kept)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    size_kb: int


class Email(Entity):
    """One message in one folder. `previous_folder` remembers where Trash and Spam restore to."""

    thread_id: str
    folder: str
    from_addr: str
    from_name: str
    to: list[str] = []
    cc: list[str] = []
    bcc: list[str] = []
    subject: str
    body: str
    sent_at: str
    is_read: bool = False
    is_starred: bool = False
    labels: list[str] = []
    attachments: list[Attachment] = []
    in_reply_to: str | None = None
    forward_of: str | None = None
    previous_folder: str | None = None


class Label(Entity):
    """A user label ("Receipts") with its colour in the sidebar."""

    name: str
    color: str


class Contact(Entity):
    """An address-book entry."""

    name: str
    email: str
    company: str = ""
    phone: str = ""
    notes: str = ""


class MailFilter(Entity):
    """A rule applied to incoming mail (and, on request, to mail already in the inbox)."""

    from_contains: str = ""
    subject_contains: str = ""
    add_label: str | None = None
    archive: bool = False
    mark_read: bool = False
    star: bool = False
    created_at: str


class Settings(Entity):
    """The account's settings (a single-entity collection, id `settings`)."""

    display_name: str
    email: str
    signature: str = ""
    vacation_enabled: bool = False
    vacation_subject: str = ""
    vacation_message: str = ""
    vacation_start: str | None = None  # YYYY-MM-DD
    vacation_end: str | None = None
    page_size: int = 25


class MailState(EnvState):
    """One person's mailbox."""

    emails: list[Email] = []
    labels: list[Label] = []
    contacts: list[Contact] = []
    filters: list[MailFilter] = []
    settings: list[Settings] = []

    # State helpers (pure; callable from task expressions as state.name(...) or initial.name(...)).

    @state_helper
    def account_settings(self) -> Settings | None:
        """The account's settings entity (the one row of `settings`), or None."""
        return self.settings[0] if self.settings else None

    @state_helper
    def in_folder(self, folder: str) -> list[Email]:
        """The emails in `folder` (inbox, sent, drafts, archive, trash, spam), in list order."""
        return [e for e in self.emails if e.folder == folder]

    @state_helper
    def unread_count(self, folder: str = "inbox") -> int:
        """How many emails in `folder` (default inbox) are unread."""
        return sum(1 for e in self.emails if e.folder == folder and not e.is_read)

    @state_helper
    def thread(self, thread_id: str) -> list[Email]:
        """The emails of conversation `thread_id`, oldest first."""
        return sorted((e for e in self.emails if e.thread_id == thread_id), key=lambda e: (e.sent_at, e.id))

    @state_helper
    def contact_by_email(self, address: str) -> Contact | None:
        """The address-book entry for `address` (compared without case), or None."""
        wanted = address.strip().lower()
        return next((c for c in self.contacts if c.email.lower() == wanted), None)
