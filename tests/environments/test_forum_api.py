"""Threadline's public API against a live server: feeds and sorting, search, posts and threads,
votes, saving, subscriptions, reports, messages and clear refusals; plus deterministic seeding."""

from __future__ import annotations

import random

import pytest

from humantrace.environments.forum.models import ForumState
from humantrace.environments.forum.seed import build_default_state
from humantrace.environments.seeding import SeedContext, session_start_for
from humantrace.environments.state import state_sha256

pytestmark = pytest.mark.all_sites

TASK = "forum-003"


@pytest.fixture
def site(server_factory, db_url, port):
    """A live server on SQLite and on PostgreSQL with a session of forum-003."""
    server = server_factory(db_url, port)
    info = server.create(TASK, "clean", seed=42)
    client = server.public(info["session_id"])
    yield server, info, client
    client.close()


def _default_state(seed: int) -> ForumState:
    ctx = SeedContext(
        state=ForumState(), rng=random.Random(seed), now=session_start_for(seed), env_id="forum"
    )
    build_default_state(ctx)
    return ctx.state


def test_default_state_is_deterministic_and_realistic():
    first, second, other = _default_state(42), _default_state(42), _default_state(7)
    assert state_sha256(first) == state_sha256(second)
    assert state_sha256(first) != state_sha256(other)
    assert len(first.communities) == 14 and len(first.posts) == 300
    assert len(first.comments) > 2000
    assert {p.kind for p in first.posts} == {"text", "link", "image"}
    assert any(c.parent_id for c in first.comments), "threads have replies"


def test_feeds_sort_and_paginate(site):
    _, _, client = site
    top = client.get("/api/env/forum/feed", params={"scope": "all", "sort": "top"}).json()
    assert top["total"] >= 300 and top["pages"] == -(-top["total"] // 20) and len(top["items"]) == 20
    scores = [p["score"] for p in top["items"]]
    assert scores == sorted(scores, reverse=True)
    new = client.get("/api/env/forum/feed", params={"scope": "all", "sort": "new", "page": 2}).json()
    times = [p["created_at"] for p in new["items"]]
    assert new["page"] == 2 and times == sorted(times, reverse=True)
    home = client.get("/api/env/forum/feed").json()
    assert {p["community"] for p in home["items"]} <= {"gardening", "cycling", "books", "cooking"}
    bad = client.get("/api/env/forum/feed", params={"sort": "best"})
    assert bad.status_code == 422 and "hot, new, top" in bad.json()["detail"]


def test_search_and_thread(site):
    _, info, client = site
    found = client.get("/api/env/forum/search", params={"q": "tomato leaves curling"}).json()
    assert [p["id"] for p in found["items"]] == [info["targets"]["post_id"]]
    assert client.get("/api/env/forum/search", params={"q": "  "}).status_code == 422
    detail = client.get(f"/api/env/forum/posts/{info['targets']['post_id']}").json()
    authors = [c["author"] for c in detail["comments"]]
    assert authors == ["copperwren", "stonefinch"], "top comments first"
    assert client.get("/api/env/forum/posts/p-9999").status_code == 404


def test_votes_saves_replies_reports_and_messages_change_what_the_reader_sees(site):
    _, info, client = site
    post_id, comment_id = info["targets"]["post_id"], info["targets"]["comment_id"]
    before = client.get(f"/api/env/forum/posts/{post_id}").json()["post"]["score"]
    voted = client.post(
        "/api/env/forum/votes", json={"target_kind": "post", "target_id": post_id, "value": 1}
    ).json()
    assert voted == {"target_id": post_id, "score": before + 1, "my_vote": 1}
    flipped = client.post(
        "/api/env/forum/votes", json={"target_kind": "post", "target_id": post_id, "value": -1}
    )
    assert flipped.json()["score"] == before - 1
    assert (
        client.post(
            "/api/env/forum/saved", json={"target_kind": "comment", "target_id": comment_id}
        ).status_code
        == 200
    )
    assert [c["id"] for c in client.get("/api/env/forum/saved").json()["comments"]] == [comment_id]
    reply = client.post(
        f"/api/env/forum/posts/{post_id}/comments", json={"body": "Thanks!", "parent_id": comment_id}
    )
    assert reply.status_code == 201 and reply.json()["parent_id"] == comment_id
    empty = client.post(f"/api/env/forum/posts/{post_id}/comments", json={"body": "   "})
    assert empty.status_code == 422
    report = {"target_kind": "comment", "target_id": comment_id, "reason": "spam"}
    assert client.post("/api/env/forum/reports", json=report).status_code == 201
    again = client.post("/api/env/forum/reports", json=report)
    assert again.status_code == 409 and "already reported" in again.json()["detail"]
    sub = client.put("/api/env/forum/communities/birding/subscription").json()
    assert sub["subscribed"] is True
    assert "birding" in client.get("/api/env/forum/me").json()["subscribed"]
    nobody = client.post(
        "/api/env/forum/messages", json={"recipient": "nobody", "subject": "Hi", "body": "x"}
    )
    assert nobody.status_code == 404 and "u/nobody" in nobody.json()["detail"]
    sent = client.post(
        "/api/env/forum/messages", json={"recipient": "u/copperwren", "subject": "Hi", "body": "Thanks"}
    )
    assert sent.status_code == 201
    assert client.get("/api/env/forum/messages").json()["sent"][0]["recipient"] == "copperwren"


def test_no_session_is_refused(site):
    server, _, _ = site
    with server.public() as anonymous:
        assert anonymous.get("/api/env/forum/me").status_code == 401
