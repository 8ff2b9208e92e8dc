"""The mail API's answers, one pydantic model per response (see `environments/responses.py`).

Messages, contacts, labels, filters and settings are returned whole, as the state's own models.
"""

from __future__ import annotations

from humantrace.environments.mail.models import Contact, Email, Label, MailFilter, Settings
from humantrace.environments.responses import Answer


class Done(Answer):
    """A change with nothing to return but a sentence (`ok` is always true)."""

    ok: bool
    message: str


class Me(Answer):
    """Who is signed in and the sidebar: labels, unread counts, the virtual clock."""

    name: str
    email: str
    labels: list[Label]
    now: str
    folders: dict[str, int]
    label_unread: dict[str, int]


class Counts(Answer):
    """Unread conversations per folder (drafts: how many) and per label name."""

    folders: dict[str, int]
    labels: dict[str, int]


class SignedIn(Answer):
    ok: bool
    name: str


class ThreadRow(Answer):
    """One conversation in a list."""

    thread_id: str
    message_ids: list[str]
    latest_id: str
    subject: str
    snippet: str
    from_name: str
    from_addr: str
    to: list[str]
    participants: list[str]
    count: int
    unread: bool
    starred: bool
    has_attachments: bool
    labels: list[str]
    folder: str
    sent_at: str


class ThreadPage(Answer):
    """A page of conversations."""

    threads: list[ThreadRow]
    total: int
    page: int
    page_size: int
    pages: int


class FolderPage(ThreadPage):
    folder: str


class LabelPage(ThreadPage):
    label: str


class SearchPage(ThreadPage):
    query: str


class Thread(Answer):
    thread_id: str
    subject: str
    messages: list[Email]
    labels: list[str]
    hidden_count: int


class MessageOne(Answer):
    message: Email


class ActionDone(Done):
    changed: int


class Starred(Answer):
    ok: bool
    id: str
    is_starred: bool


class Sent(Answer):
    email: Email
    message: str


class DraftSaved(Answer):
    draft: Email
    message: str


class Contacts(Answer):
    contacts: list[Contact]


class ContactSaved(Answer):
    contact: Contact
    message: str


class Labels(Answer):
    labels: list[Label]


class LabelSaved(Answer):
    label: Label
    message: str


class Filters(Answer):
    filters: list[MailFilter]


class FilterCreated(Answer):
    filter: MailFilter
    applied: int
    message: str


class SettingsPage(Answer):
    settings: Settings


class SettingsSaved(Answer):
    settings: Settings
    message: str
