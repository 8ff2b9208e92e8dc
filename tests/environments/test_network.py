"""Network-layer dispatches and behaviour modes against a real uvicorn server (lab site, SQLite).

Each test sets a session's network rules through the controller, makes the calls a page would
make, and checks what the caller receives, what the state holds, and what the audit log records.
"""

from __future__ import annotations

import time

import pytest

from humantrace.environments.interventions import modes


def setup(server, rules, task="lab-001", seed=42):
    info = server.create(task, "clean", seed)
    with server.control() as control:
        response = control.put(
            f"/control/sessions/{info['session_id']}/interventions", json={"network": rules}
        )
    assert response.status_code == 200, response.text
    return info


def audit(server, session_id):
    with server.control() as control:
        return control.get(f"/control/sessions/{session_id}/audit").json()["entries"]


def state(server, session_id):
    with server.control() as control:
        return control.get(f"/control/sessions/{session_id}/state").json()["state"]


def note(api, title="Shopping list"):
    return api.post("/api/env/lab/notes", json={"title": title})


def test_error_then_success_fails_first_calls_then_goes_through(lab_server):
    info = setup(
        lab_server,
        [
            {
                "action": "error_then_success",
                "url_pattern": "/notes",
                "methods": ["POST"],
                "fail_count": 2,
                "error_status": 503,
            }
        ],
    )
    before = len(state(lab_server, info["session_id"])["notes"])
    with lab_server.public(info["session_id"]) as api:
        first, second, third = note(api), note(api), note(api)
        listing = api.get("/api/env/lab/notes")
    assert [first.status_code, second.status_code, third.status_code] == [503, 503, 201]
    assert "try again" in first.json()["detail"].lower()
    assert listing.status_code == 200  # GET is not a matching method
    assert len(state(lab_server, info["session_id"])["notes"]) == before + 1
    fired = [entry["intervention"] for entry in audit(lab_server, info["session_id"])]
    assert fired == ["error_then_success", "error_then_success", None, None]


@pytest.mark.parametrize("action", ["silent_fail", "misleading_success"])
def test_fabricated_success_leaves_state_untouched(lab_server, action):
    rule = {
        "action": action,
        "url_pattern": "/notes/*",
        "methods": ["PATCH"],
        "fail_count": 1,
        "response_body": {"ok": True},
    }
    info = setup(lab_server, [rule])
    target = info["targets"]["note_id"]
    with lab_server.public(info["session_id"]) as api:
        fake = api.patch(f"/api/env/lab/notes/{target}", json={"pinned": True})
        assert fake.status_code == 200
        body = fake.json()
        if action == "misleading_success":
            assert body == {"ok": True, "toast": "Saved."}
        else:
            assert body == {"ok": True}
        with lab_server.control() as control:
            assert control.get(f"/control/sessions/{info['session_id']}/diff").json()["diff"] == []
            assert control.get(f"/control/sessions/{info['session_id']}/events").json()["events"] == []
        pinned = {n["id"]: n["pinned"] for n in api.get("/api/env/lab/notes").json()["notes"]}
        assert pinned[target] is False
        real = api.patch(f"/api/env/lab/notes/{target}", json={"pinned": True})
    assert real.status_code == 200 and real.json()["pinned"] is True
    with lab_server.control() as control:
        verdict = control.post(f"/control/sessions/{info['session_id']}/evaluate").json()
    assert verdict["passed"] is True


def test_stale_data_serves_the_previous_snapshot_for_n_reads(lab_server):
    info = setup(
        lab_server, [{"action": "stale_data", "url_pattern": "/notes", "methods": ["GET"], "fail_count": 2}]
    )
    target = info["targets"]["note_id"]
    with lab_server.public(info["session_id"]) as api:
        # Before any write there is nothing older to serve, and no read is used up.
        assert api.get("/api/env/lab/notes").status_code == 200
        assert api.patch(f"/api/env/lab/notes/{target}", json={"pinned": True}).json()["pinned"] is True
        reads = [
            {n["id"]: n["pinned"] for n in api.get("/api/env/lab/notes").json()["notes"]}[target]
            for _ in range(3)
        ]
    assert reads == [False, False, True]
    fired = [entry["intervention"] for entry in audit(lab_server, info["session_id"])]
    assert fired == [None, None, "stale_data", "stale_data", None]
    assert {n["id"]: n["pinned"] for n in state(lab_server, info["session_id"])["notes"]}[target] is True


def test_stale_data_from_the_initial_snapshot(lab_server):
    info = setup(
        lab_server,
        [
            {
                "action": "stale_data",
                "url_pattern": "/notes",
                "methods": ["GET"],
                "fail_count": 1,
                "snapshot": "initial",
            }
        ],
    )
    with lab_server.public(info["session_id"]) as api:
        note(api, "Fresh note")
        titles = [[n["title"] for n in api.get("/api/env/lab/notes").json()["notes"]] for _ in range(2)]
    # The POST was call 0 of the rule (not a GET); the first GET is stale, the second is not.
    assert "Fresh note" not in titles[0] and "Fresh note" in titles[1]


def test_concurrent_modification_and_rate_limit(lab_server):
    info = setup(
        lab_server,
        [
            {
                "action": "concurrent_modification",
                "url_pattern": "/notes/*",
                "methods": ["PATCH"],
                "fail_count": 1,
            },
            {
                "action": "rate_limit",
                "url_pattern": "/notes",
                "methods": ["POST"],
                "fail_count": 1,
                "retry_after": 3,
            },
        ],
    )
    target = info["targets"]["note_id"]
    with lab_server.public(info["session_id"]) as api:
        conflict = api.patch(f"/api/env/lab/notes/{target}", json={"pinned": True})
        limited = note(api)
        retried = [api.patch(f"/api/env/lab/notes/{target}", json={"pinned": True}), note(api)]
    assert conflict.status_code == 409 and "changed by someone else" in conflict.json()["detail"]
    assert limited.status_code == 429 and limited.headers["retry-after"] == "3"
    assert [r.status_code for r in retried] == [200, 201]


def test_session_expiry_until_relogin_through_the_api(lab_server):
    info = setup(lab_server, [{"action": "session_expiry", "url_pattern": "/notes*", "after_calls": 2}])
    with lab_server.public(info["session_id"]) as api:
        ok = api.get("/api/env/lab/notes")
        expired = note(api)
        still = api.get("/api/env/lab/notes")
        login = api.post("/api/env/lab/auth/login", json={})
        after = [api.get("/api/env/lab/notes"), note(api), api.get("/api/env/lab/notes")]
    assert ok.status_code == 200
    assert expired.status_code == 401 and expired.json()["login_url"] == "/env/lab/relogin"
    assert still.status_code == 401
    assert login.status_code == 200
    assert [r.status_code for r in after] == [200, 201, 200]
    assert (
        len([n for n in state(lab_server, info["session_id"])["notes"] if n["title"] == "Shopping list"]) == 1
    )


def test_session_expiry_until_relogin_through_the_page(lab_server):
    info = setup(lab_server, [{"action": "session_expiry", "url_pattern": "/notes", "after_calls": 1}])
    with lab_server.public() as browser:
        browser.get(info["enter_url"])  # sets the cookie, like a browser
        assert browser.get("/api/env/lab/notes").status_code == 401
        form = browser.get("/env/lab/relogin", params={"next": "/env/lab/"})
        assert form.status_code == 200 and "Sign in" in form.text
        back = browser.post("/env/lab/relogin", data={"next": "/env/lab/"}, follow_redirects=False)
        assert back.status_code == 303 and back.headers["location"] == "/env/lab/"
        assert browser.get("/api/env/lab/notes").status_code == 200


@pytest.mark.parametrize(
    ("behavior", "expected"),
    [
        ({"mode": "once", "count": 2}, [1, 2]),
        ({"mode": "every", "k": 3}, [3, 6]),
        ({"mode": "window", "start": 2, "end": 4}, [2, 3, 4]),
        ({"mode": "always"}, [1, 2, 3, 4, 5, 6, 7]),
    ],
)
def test_behaviour_modes_pick_the_calls(lab_server, behavior, expected):
    info = setup(
        lab_server,
        [{"action": "error_then_success", "url_pattern": "/notes", "methods": ["GET"], "behavior": behavior}],
    )
    with lab_server.public(info["session_id"]) as api:
        statuses = [api.get("/api/env/lab/notes").status_code for _ in range(7)]
    assert [i + 1 for i, status in enumerate(statuses) if status == 500] == expected


def test_seeded_probability_is_deterministic_per_seed(lab_server):
    rule = {
        "action": "error_then_success",
        "url_pattern": "/notes",
        "methods": ["GET"],
        "behavior": {"mode": "probability", "p": 0.5},
    }
    patterns = []
    for seed in (5, 5, 6):
        info = setup(lab_server, [rule], seed=seed)
        with lab_server.public(info["session_id"]) as api:
            patterns.append([api.get("/api/env/lab/notes").status_code == 500 for _ in range(16)])
    assert patterns[0] == patterns[1]
    assert 0 < sum(patterns[0]) < 16
    key = "0|GET|/notes"
    assert patterns[0] == [modes.seeded_uniform(5, key, call) < 0.5 for call in range(1, 17)]


@pytest.mark.parametrize(
    ("params", "methods", "expected"),
    [
        ({"mode": "once"}, ["GET"] * 4, [1]),
        ({"mode": "progressive", "delay_ms": 5, "step_ms": 5}, ["GET"] * 4, [1, 2, 3, 4]),
        ({"mode": "intermittent", "every": 2, "delay_ms": 5}, ["GET"] * 4, [2, 4]),
        ({"mode": "correlated_window", "window_start": 2, "window_end": 3}, ["GET"] * 4, [2, 3]),
        ({"mode": "write_only_slow"}, ["GET", "POST", "GET", "POST"], [2, 4]),
        (
            {"mode": "tail_latency", "delay_ms": 0, "tail_probability": 1.0, "tail_ms": 5},
            ["GET"] * 3,
            [1, 2, 3],
        ),
    ],
)
def test_delay_modes_pick_the_calls_they_slow(lab_server, params, methods, expected):
    rule = {"action": "delay", "url_pattern": "/notes", "delay_ms": 10, **params}
    info = setup(lab_server, [rule])
    with lab_server.public(info["session_id"]) as api:
        statuses = [(api.get("/api/env/lab/notes") if m == "GET" else note(api)).status_code for m in methods]
    assert all(status in (200, 201) for status in statuses)  # a delay never changes the answer
    fired = [entry["intervention"] for entry in audit(lab_server, info["session_id"])]
    assert [i + 1 for i, name in enumerate(fired) if name == "delay"] == expected


def test_calls_without_rules_are_audited_and_untouched(lab_server):
    info = lab_server.create("lab-002", "clean", 1)
    with lab_server.public(info["session_id"]) as api:
        assert note(api, "x").status_code == 201
        assert api.get("/api/env/lab/notes").status_code == 200
        assert api.patch("/api/env/lab/notes/n-9999", json={"pinned": True}).status_code == 404
    entries = audit(lab_server, info["session_id"])
    assert [(e["method"], e["path"], e["status"], e["intervention"]) for e in entries] == [
        ("POST", "/api/env/lab/notes", 201, None),
        ("GET", "/api/env/lab/notes", 200, None),
        ("PATCH", "/api/env/lab/notes/n-9999", 404, None),
    ]


def _auditing(server, session_id: str) -> int:
    tracker = getattr(server.app.state, "env_audits", None)  # made by the first audited call
    return 0 if tracker is None else tracker.running(session_id)


def test_the_audit_log_read_during_a_call_waits_for_its_entry(lab_server):
    """The middleware writes a call's audit entry just after the answer leaves (the person's page
    never waits for it); a controller reading the log meanwhile still gets every entry, because the
    read waits for the entries of calls still finishing."""
    import threading

    rule = {"action": "delay", "url_pattern": "/notes", "methods": ["GET"], "delay_ms": 1500}
    info = setup(lab_server, [rule])
    answers: list[int] = []
    with lab_server.public(info["session_id"]) as api:
        slow = threading.Thread(target=lambda: answers.append(api.get("/api/env/lab/notes").status_code))
        slow.start()
        deadline = time.monotonic() + 10
        while not _auditing(lab_server, info["session_id"]):  # the delayed call is in flight
            assert time.monotonic() < deadline, "the delayed call never reached the middleware"
            time.sleep(0.01)
        entries = audit(lab_server, info["session_id"])
        slow.join(timeout=30)
    assert answers == [200]
    assert [(e["method"], e["status"], e["intervention"]) for e in entries] == [("GET", 200, "delay")]
