"""Parcel Mail's public API against a real uvicorn server on SQLite: what a person (or an agent)
sees and changes through `/api/env/mail`, and the semantic events each change leaves behind.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from humantrace.environments.catalog import get_task
from humantrace.environments.seeding import build_session_state
from humantrace.environments.state import state_sha256

pytestmark = pytest.mark.all_sites

API = "/api/env/mail"


@pytest.fixture
def server(server_factory, sqlite_url, port):
    return server_factory(sqlite_url, port)


def session(server, task="mail-001", condition="clean"):
    info = server.create(task, condition, 42)
    return info, server.public(info["session_id"])


def state(server, session_id):
    with server.control() as control:
        return control.get(f"/control/sessions/{session_id}/state").json()["state"]


def events(server, session_id):
    with server.control() as control:
        return [
            (e["event"], e["params"])
            for e in control.get(f"/control/sessions/{session_id}/events").json()["events"]
        ]


def email(server, session_id, email_id):
    return next(e for e in state(server, session_id)["emails"] if e["id"] == email_id)


def test_default_mailbox_is_realistic_and_deterministic():
    task = get_task("mail-001")
    first = build_session_state(task, "clean", 42)
    again = build_session_state(task, "clean", 42)
    other = build_session_state(task, "clean", 43)
    assert state_sha256(first.state) == state_sha256(again.state)
    assert state_sha256(first.state) != state_sha256(other.state)
    emails = first.state.emails
    assert 50 <= len(emails) <= 70
    senders = {e.from_addr for e in emails if e.folder != "sent"}
    assert len(senders) >= 18
    assert {e.folder for e in emails} == {"inbox", "sent", "drafts", "archive", "trash", "spam"}
    start = first.session_start.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert all(e.sent_at <= start for e in emails)
    oldest = datetime.fromisoformat(min(e.sent_at for e in emails).replace("Z", "+00:00"))
    assert 18 <= (first.session_start - oldest).days <= 23  # about three weeks of mail
    assert [s.display_name for s in first.state.settings] == ["Jamie Chen"]


def test_inbox_lists_conversations_newest_first_and_counts_unread(server):
    info, api = session(server)
    inbox = api.get(f"{API}/messages", params={"folder": "inbox"}).json()
    times = [row["sent_at"] for row in inbox["threads"]]
    assert times == sorted(times, reverse=True)
    assert inbox["total"] > inbox["page_size"] >= len(inbox["threads"])
    second = api.get(f"{API}/messages", params={"folder": "inbox", "page": 2}).json()
    assert {r["thread_id"] for r in second["threads"]}.isdisjoint(r["thread_id"] for r in inbox["threads"])
    unread = {row["thread_id"] for row in inbox["threads"] + second["threads"] if row["unread"]}
    assert api.get(f"{API}/folders").json()["folders"]["inbox"] == len(unread)
    assert api.get(f"{API}/messages", params={"folder": "nowhere"}).status_code == 404


def test_opening_a_conversation_marks_it_read_and_logs_the_event(server):
    info, api = session(server)
    target = info["targets"]["email_id"]
    assert email(server, info["session_id"], target)["is_read"] is False
    thread_id = email(server, info["session_id"], target)["thread_id"]
    opened = api.get(f"{API}/threads/{thread_id}").json()
    assert [m["id"] for m in opened["messages"]] == [target]
    assert email(server, info["session_id"], target)["is_read"] is True
    assert ("thread_opened", {"thread_id": thread_id, "message_ids": [target]}) in events(
        server, info["session_id"]
    )
    with server.control() as control:
        verdict = control.post(f"/control/sessions/{info['session_id']}/evaluate").json()
    assert verdict["benign"], "opening is a benign read side effect"
    assert not any(c["kind"] == "invariant" and not c["passed"] for c in verdict["negative_checks"])


def test_archive_trash_restore_and_spam_move_whole_conversations(server):
    info, api = session(server, "mail-005")
    thread_id = info["targets"]["thread_id"]
    answer = api.post(
        f"{API}/messages/actions/archive", json={"thread_ids": [thread_id], "folder": "inbox"}
    ).json()
    assert answer["message"] == "Conversation archived."
    folders = {
        e["id"]: e["folder"]
        for e in state(server, info["session_id"])["emails"]
        if e["thread_id"] == thread_id
    }
    assert sorted(folders.values()) == ["archive", "archive", "sent"]  # Jamie's reply stays in Sent
    api.post(f"{API}/messages/actions/trash", json={"thread_ids": [thread_id]})
    assert api.get(f"{API}/threads/{thread_id}").status_code == 404  # the whole conversation, Sent too
    assert len(api.get(f"{API}/threads/{thread_id}", params={"folder": "trash"}).json()["messages"]) == 3
    trash = api.get(f"{API}/messages", params={"folder": "trash"}).json()
    assert thread_id in {row["thread_id"] for row in trash["threads"]}
    api.post(f"{API}/messages/actions/restore", json={"thread_ids": [thread_id], "folder": "trash"})
    folders = sorted(
        e["folder"] for e in state(server, info["session_id"])["emails"] if e["thread_id"] == thread_id
    )
    assert folders == ["archive", "archive", "sent"]  # back where each message came from
    moved = [p for name, p in events(server, info["session_id"]) if name == "email_moved"]
    assert {"from_folder": "trash", "to_folder": "archive"} in [
        {k: p[k] for k in ("from_folder", "to_folder")} for p in moved
    ]


def test_delete_forever_only_from_trash_or_spam(server):
    info, api = session(server)
    target = info["targets"]["email_id"]
    api.post(f"{API}/messages/actions/delete_forever", json={"message_ids": [target]})
    assert email(server, info["session_id"], target)["folder"] == "inbox"
    spam = api.get(f"{API}/messages", params={"folder": "spam"}).json()["threads"]
    doomed = spam[0]["message_ids"]
    api.post(f"{API}/messages/actions/delete_forever", json={"message_ids": doomed})
    assert not {e["id"] for e in state(server, info["session_id"])["emails"]} & set(doomed)
    assert api.post(f"{API}/messages/actions/explode", json={"message_ids": [target]}).status_code == 422
    assert api.post(f"{API}/messages/actions/archive", json={}).status_code == 422


def test_labels_star_and_read_state(server):
    info, api = session(server)
    target = info["targets"]["email_id"]
    assert (
        api.post(
            f"{API}/messages/actions/label_add", json={"message_ids": [target], "label": "Nope"}
        ).status_code
        == 422
    )
    api.post(f"{API}/messages/actions/label_add", json={"message_ids": [target], "label": "Work"})
    api.post(f"{API}/messages/{target}/star", params={"starred": "true"})
    api.post(f"{API}/messages/actions/read", json={"message_ids": [target]})
    current = email(server, info["session_id"], target)
    assert current["labels"] == ["Work"] and current["is_starred"] and current["is_read"]
    work = api.get(f"{API}/messages", params={"label": "Work"}).json()
    assert current["thread_id"] in {r["thread_id"] for r in work["threads"]}
    starred = api.get(f"{API}/messages", params={"folder": "starred"}).json()
    assert current["thread_id"] in {r["thread_id"] for r in starred["threads"]}
    renamed = [label for label in api.get(f"{API}/labels").json()["labels"] if label["name"] == "Work"][0]
    api.patch(f"{API}/labels/{renamed['id']}", json={"name": "Office"})
    assert email(server, info["session_id"], target)["labels"] == ["Office"]
    api.delete(f"{API}/labels/{renamed['id']}")
    assert email(server, info["session_id"], target)["labels"] == []
    names = [name for name, _ in events(server, info["session_id"])]
    assert {"email_labelled", "email_starred", "email_read_state", "label_renamed", "label_deleted"} <= set(
        names
    )


def test_search_operators(server):
    info, api = session(server, "mail-006")
    hits = api.get(f"{API}/search", params={"q": "from:inkwellprint.com invoice"}).json()
    assert hits["total"] == 3
    assert {row["folder"] for row in hits["threads"]} == {"inbox", "archive"}
    assert api.get(f"{API}/search", params={"q": "from:inkwellprint.com has:attachment"}).json()["total"] == 4
    assert api.get(f"{API}/search", params={"q": "in:trash"}).json()["total"] >= 3
    assert api.get(f"{API}/search", params={"q": "prize"}).json()["total"] == 0  # spam stays out
    assert api.get(f"{API}/search", params={"q": "in:spam prize"}).json()["total"] == 1
    assert ("search", {"query": "prize", "results": 0}) in events(server, info["session_id"])


def test_reply_and_forward_keep_the_conversation_and_attachments(server):
    info, api = session(server, "mail-009")
    invoice = info["targets"]["invoice_ids"][0]
    refused = api.post(
        f"{API}/messages/send",
        json={
            "to": ["accounting@orchardline.com"],
            "subject": "Fwd",
            "forward_of": invoice,
            "attachments": ["other.pdf"],
        },
    )
    assert refused.status_code == 422 and "not attached" in refused.json()["detail"]
    assert (
        api.post(f"{API}/messages/send", json={"to": ["not-an-address"], "subject": "x"}).status_code == 422
    )
    assert (
        api.post(f"{API}/messages/send", json={"subject": "x"}).json()["detail"]
        == "Add at least one recipient."
    )
    sent = api.post(
        f"{API}/messages/send",
        json={
            "to": ["Accounts <Accounting@Orchardline.com>"],
            "subject": "Fwd: invoice",
            "body": "FYI",
            "forward_of": invoice,
            "attachments": ["BH-10482.pdf"],
        },
    ).json()["email"]
    source = email(server, info["session_id"], invoice)
    assert sent["folder"] == "sent" and sent["to"] == ["accounting@orchardline.com"]
    assert sent["thread_id"] == source["thread_id"] and sent["forward_of"] == invoice
    assert sent["attachments"] == [{"name": "BH-10482.pdf", "size_kb": 64}]
    assert sent["sent_at"] >= info["session_start"][:19]
    params = [p for name, p in events(server, info["session_id"]) if name == "email_sent"][0]
    assert params["forward_of"] == invoice and params["attachment_count"] == 1


def test_drafts_are_saved_updated_sent_or_discarded(server):
    info, api = session(server, "mail-011")
    draft_id = info["targets"]["draft_id"]
    drafts = api.get(f"{API}/messages", params={"folder": "drafts"}).json()
    assert draft_id in {row["latest_id"] for row in drafts["threads"]}
    updated = api.put(
        f"{API}/drafts/{draft_id}",
        json={
            "to": ["raj.mehta@greenleaffoods.com"],
            "subject": "Packaging redesign proposal",
            "body": "Price: $18,400",
        },
    )
    assert updated.json()["draft"]["body"] == "Price: $18,400"
    api.post(
        f"{API}/messages/send",
        json={
            "to": ["raj.mehta@greenleaffoods.com"],
            "subject": "Packaging redesign proposal",
            "body": "Price: $18,400",
            "draft_id": draft_id,
        },
    )
    assert draft_id not in {e["id"] for e in state(server, info["session_id"])["emails"]}
    again = api.post(
        f"{API}/messages/send", json={"to": ["raj.mehta@greenleaffoods.com"], "draft_id": draft_id}
    )
    assert again.status_code == 404
    new = api.post(f"{API}/drafts", json={"subject": "Half a thought"}).json()["draft"]
    assert new["folder"] == "drafts"
    assert api.delete(f"{API}/drafts/{new['id']}").json()["message"] == "Draft discarded."


def test_contacts_crud_and_duplicates(server):
    info, api = session(server, "mail-003")
    created = api.post(
        f"{API}/contacts",
        json={"name": "Lina Park", "email": "Lina.Park@harborvine.com", "company": "Harbor & Vine Catering"},
    )
    assert created.status_code == 201 and created.json()["contact"]["email"] == "lina.park@harborvine.com"
    assert (
        api.post(f"{API}/contacts", json={"name": "Lina", "email": "lina.park@harborvine.com"}).status_code
        == 409
    )
    assert api.post(f"{API}/contacts", json={"name": "", "email": "a@b.co"}).status_code == 422
    contact_id = created.json()["contact"]["id"]
    api.patch(f"{API}/contacts/{contact_id}", json={"phone": "+1 503 555 0100"})
    found = api.get(f"{API}/contacts", params={"q": "harbor"}).json()["contacts"]
    assert [c["phone"] for c in found] == ["+1 503 555 0100"]
    api.delete(f"{API}/contacts/{contact_id}")
    assert api.get(f"{API}/contacts", params={"q": "lina"}).json()["contacts"] == []
    assert [n for n, _ in events(server, info["session_id"])] == [
        "contact_created",
        "contact_updated",
        "contact_deleted",
    ]


def test_filter_applies_to_existing_mail_on_request(server):
    info, api = session(server, "mail-013")
    assert (
        api.post(
            f"{API}/filters", json={"from_contains": "wrenanalytics.com", "add_label": "Clients"}
        ).status_code
        == 422
    )
    api.post(f"{API}/labels", json={"name": "Clients"})
    assert (
        api.post(f"{API}/filters", json={"from_contains": "x"})
        .json()["detail"]
        .startswith("Choose at least one")
    )
    made = api.post(
        f"{API}/filters",
        json={"from_contains": "WrenAnalytics.com", "add_label": "Clients", "apply_to_existing": True},
    ).json()
    assert made["applied"] == len(info["targets"]["wren_ids"])
    labelled = {e["id"] for e in state(server, info["session_id"])["emails"] if "Clients" in e["labels"]}
    assert labelled == set(info["targets"]["wren_ids"])


def test_settings_validate_the_vacation_reply(server):
    info, api = session(server, "mail-008")
    bad = api.put(
        f"{API}/settings",
        json={
            "vacation_enabled": True,
            "vacation_start": "2026-04-10",
            "vacation_end": "2026-04-01",
            "vacation_message": "Away",
        },
    )
    assert bad.status_code == 422 and "before the first day" in bad.json()["detail"]
    assert (
        api.put(
            f"{API}/settings",
            json={"vacation_enabled": True, "vacation_start": "2026-04-01", "vacation_end": "2026-04-10"},
        ).status_code
        == 422
    )
    ok = api.put(
        f"{API}/settings",
        json={
            "vacation_enabled": True,
            "vacation_start": "2026-04-01",
            "vacation_end": "2026-04-10",
            "vacation_message": "Away, ask Marcus.",
        },
    )
    assert ok.json()["settings"]["vacation_end"] == "2026-04-10"
    assert (
        "settings_updated",
        {"fields": ["vacation_enabled", "vacation_end", "vacation_message", "vacation_start"]},
    ) in events(server, info["session_id"])


def test_no_session_is_refused(server):
    with server.public() as anonymous:
        response = anonymous.get(f"{API}/messages")
    assert response.status_code == 401


def test_network_variant_fails_the_first_send_then_sends(server):
    info, api = session(server, "mail-005", "intervention")
    body = {
        "to": [info["targets"]["marcus_addr"]],
        "subject": "Re: review",
        "body": "Friday at 3:30 works.",
        "in_reply_to": info["targets"]["reply_to_id"],
    }
    first = api.post(f"{API}/messages/send", json=body)
    second = api.post(f"{API}/messages/send", json=body)
    assert first.status_code == 502 and "try again" in first.json()["detail"].lower()
    assert second.status_code == 200
    sent = [
        e
        for e in state(server, info["session_id"])["emails"]
        if e["in_reply_to"] == info["targets"]["reply_to_id"] and e["folder"] == "sent"
    ]
    assert len(sent) == 1
