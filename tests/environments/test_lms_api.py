"""Canopy's public API against a live server (SQLite and PostgreSQL): submissions and their
attempts, timed quizzes (the answer key never leaves the server; the deadline is the session's
virtual clock), discussions, the calendar, the inbox, pagination and refusals; plus deterministic
seeding."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from humantrace.environments import catalog
from humantrace.environments.lms import service
from humantrace.environments.lms.models import LmsState
from humantrace.environments.lms.seed import build_default_state
from humantrace.environments.seeding import SeedContext, build_session_state, session_start_for
from humantrace.environments.sitekit import SiteError
from humantrace.environments.state import state_sha256

pytestmark = pytest.mark.all_sites

API = "/api/env/lms"


@pytest.fixture
def site(server_factory, db_url, port):
    """A live server on SQLite and on PostgreSQL with a session of lms-003 (an open file-only lab)."""
    server = server_factory(db_url, port)
    info = server.create("lms-003", "clean", seed=42)
    client = server.public(info["session_id"])
    yield server, info, client
    client.close()


def _default_state(seed: int) -> LmsState:
    ctx = SeedContext(state=LmsState(), rng=random.Random(seed), now=session_start_for(seed), env_id="lms")
    build_default_state(ctx)
    return ctx.state


def test_default_state_is_deterministic_and_realistic():
    first, second, other = _default_state(42), _default_state(42), _default_state(7)
    assert state_sha256(first) == state_sha256(second)
    assert state_sha256(first) != state_sha256(other)
    assert len([c for c in first.courses if c.current]) == 5 and len(first.modules) == 50
    assert len(first.assignments) == 45 and len(first.quizzes) == 15 and len(first.events) > 100
    graded = [s for s in first.submissions if s.score is not None]
    assert graded and all(s.score == sum(r.points for r in s.rubric_scores) for s in graded)
    assert {m.unlock_at is None for m in first.modules} == {True, False}, "past weeks open, later ones locked"


def test_task_build_is_byte_identical():
    task = catalog.get_task("lms-016")
    one, two = build_session_state(task, "clean", 42), build_session_state(task, "clean", 42)
    assert state_sha256(one.state) == state_sha256(two.state) and one.targets == two.targets


def test_no_session_is_refused(site):
    server, _, _ = site
    with server.public() as anonymous:
        assert anonymous.get(f"{API}/dashboard").status_code == 401


def test_submission_rules_and_attempts(site):
    _, info, client = site
    lab = info["targets"]["assignment_id"]
    detail = client.get(f"{API}/assignments/{lab}").json()
    assert detail["status"] == "open" and detail["attempts_left"] == 1
    refusals = [
        ({}, 422, "Write your answer or attach a file"),
        ({"body": "my answer"}, 422, "only accepts a file"),
        ({"file_name": "lab.exe"}, 422, "Attach a .pdf"),
    ]
    for payload, status, words in refusals:
        answer = client.post(f"{API}/assignments/{lab}/submissions", json=payload)
        assert answer.status_code == status and words in answer.json()["detail"], answer.text
    made = client.post(f"{API}/assignments/{lab}/submissions", json={"file_name": "lab.pdf", "comment": "hi"})
    assert made.status_code == 201 and made.json()["toast"] == "Submitted (attempt 1)."
    again = client.post(f"{API}/assignments/{lab}/submissions", json={"file_name": "lab2.pdf"})
    assert again.status_code == 409 and "used all 1 attempt" in again.json()["detail"]
    after = client.get(f"{API}/assignments/{lab}").json()
    assert [s["file_name"] for s in after["submissions"]] == ["lab.pdf"] and after["status"] == "submitted"


def test_quiz_attempt_hides_the_key_and_grades_saved_answers(site):
    _, _, client = site
    course = client.get(f"{API}/courses").json()["courses"][0]["id"]
    quizzes = client.get(f"{API}/courses/{course}/quizzes").json()["quizzes"]
    open_quiz = next(q for q in quizzes if not q["closed"] and q["attempts_used"] == 0)
    started = client.post(f"{API}/quizzes/{open_quiz['id']}/attempts")
    assert started.status_code == 201
    attempt = started.json()["attempt"]["id"]
    resumed = client.post(f"{API}/quizzes/{open_quiz['id']}/attempts").json()
    assert resumed["attempt"]["id"] == attempt and resumed["toast"].startswith("Resuming"), (
        "one clock, not two"
    )
    view = client.get(f"{API}/attempts/{attempt}").json()
    assert all("answer" not in q for q in view["questions"]) and all(
        q["correct"] is None for q in view["questions"]
    )
    limit = open_quiz["time_limit_minutes"] * 60
    assert limit - 60 <= view["remaining_seconds"] <= limit
    bad = client.put(f"{API}/attempts/{attempt}/answers", json={"question_id": "q1", "choice": 9})
    assert bad.status_code == 422 and "Choose one of the answers" in bad.json()["detail"]
    assert (
        client.put(f"{API}/attempts/{attempt}/answers", json={"question_id": "q1", "choice": 0}).status_code
        == 200
    )
    done = client.post(f"{API}/attempts/{attempt}/submit").json()
    assert done["attempt"]["status"] == "submitted" and done["toast"].startswith("Quiz submitted. Score:")
    closed = client.get(f"{API}/attempts/{attempt}").json()
    assert [q["correct"] is not None for q in closed["questions"]] == [True] * len(closed["questions"])
    assert client.post(f"{API}/attempts/{attempt}/submit").status_code == 409


def test_an_answer_after_the_time_limit_closes_the_attempt():
    """The deadline is the start on the session's clock plus the limit: an answer after it is
    refused and the attempt is graded on what was saved in time."""
    state = _default_state(42)
    now = session_start_for(42)
    quiz = next(q for q in state.quizzes if service.parse(q.due_at) > now)
    counter = iter(range(1, 100))
    attempt = service.start_attempt(state, lambda p: f"{p}-9{next(counter):03d}", quiz.id, now)
    right = quiz.questions[0]
    service.answer(state, attempt.id, right.id, right.answer, now + timedelta(minutes=1))
    late = now + timedelta(minutes=quiz.time_limit_minutes, seconds=service.GRACE_SECONDS + 1)
    with pytest.raises(SiteError) as refused:
        service.answer(state, attempt.id, quiz.questions[1].id, quiz.questions[1].answer, late)
    assert refused.value.status_code == 409 and "Time is up" in refused.value.detail
    assert (
        attempt.status == "timed_out"
        and attempt.score == right.points
        and attempt.submitted_at == attempt.deadline_at
    )


def test_discussion_calendar_and_inbox(site):
    _, _, client = site
    courses = client.get(f"{API}/courses").json()["courses"]
    first = courses[0]["id"]
    topic = client.get(f"{API}/courses/{first}/discussions").json()["discussions"][0]
    assert topic["pinned"] and topic["title"] == "Introduce yourself"
    empty = client.post(f"{API}/discussions/{topic['id']}/replies", json={"body": "   "})
    assert empty.status_code == 422
    posted = client.post(f"{API}/discussions/{topic['id']}/replies", json={"body": "Hello!"}).json()
    assert posted["reply"]["author_name"] == "Riley Chen"
    thread = client.get(f"{API}/discussions/{topic['id']}").json()["replies"]
    assert thread[-1]["body"] == "Hello!" and len(thread) == topic["reply_count"] + 1

    month = client.get(f"{API}/calendar").json()
    lecture = next(e for e in month["entries"] if e["kind"] == "class")
    refused = client.delete(f"{API}/calendar/events/{lecture['id']}")
    assert refused.status_code == 409 and "only delete your own" in refused.json()["detail"]
    backwards = {"title": "Gym", "date": "2026-03-20", "start": "09:00", "end": "08:00"}
    assert client.post(f"{API}/calendar/events", json=backwards).status_code == 422
    made = client.post(f"{API}/calendar/events", json={**backwards, "end": "10:00"}).json()["event"]
    on_day = client.get(f"{API}/calendar", params={"month": "2026-03"}).json()["entries"]
    assert any(e["id"] == made["id"] and e["kind"] == "personal" for e in on_day)
    assert client.delete(f"{API}/calendar/events/{made['id']}").status_code == 200

    page1 = client.get(f"{API}/inbox").json()
    page2 = client.get(f"{API}/inbox", params={"page": 2}).json()
    assert page1["pages"] == page2["pages"] >= 2 and len(page1["conversations"]) == 12
    assert not {c["id"] for c in page1["conversations"]} & {c["id"] for c in page2["conversations"]}
    assert client.get(f"{API}/inbox", params={"folder": "spam"}).status_code == 404
    no_one = {"recipient_ids": [], "subject": "Hi", "body": "Hi"}
    assert (
        "Choose at least one recipient" in client.post(f"{API}/conversations", json=no_one).json()["detail"]
    )
    people = client.get(f"{API}/people", params={"course_id": first}).json()["people"]
    assert [p["role"] for p in people[:2]] == ["Instructor", "Teaching assistant"]
    sent = client.post(
        f"{API}/conversations",
        json={"recipient_ids": [people[1]["id"]], "course_id": first, "subject": "Q", "body": "?"},
    ).json()["conversation"]
    sent_folder = client.get(f"{API}/inbox", params={"folder": "sent"}).json()["conversations"]
    assert sent_folder[0]["id"] == sent["id"] and sent_folder[0]["with_names"] == [people[1]["name"]]


def test_announcements_paginate_and_locked_modules_refuse(site):
    _, _, client = site
    course = client.get(f"{API}/courses").json()["courses"][0]["id"]
    first = client.get(f"{API}/courses/{course}/announcements").json()
    assert len(first["items"]) == 5 and first["pages"] == 2 and first["total"] > 5
    home = client.get(f"{API}/courses/{course}").json()
    locked = next(m for m in home["modules"] if m["locked"])
    item = locked["items"][0]["id"]
    answer = client.post(f"{API}/items/{item}/complete", json={"done": True})
    assert answer.status_code == 409 and "locked until" in answer.json()["detail"]
    assert client.get(f"{API}/items/{item}").status_code == 409
