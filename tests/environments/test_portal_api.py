"""Larkspur Health's public API against a live server (SQLite and PostgreSQL): the clinic's visit
policy (cut-off, referral requests, taken times), refills, payments, insurance cards, forms,
proxies, messages and results, with the refusals a patient sees; plus deterministic seeding."""

from __future__ import annotations

import json
import random
from datetime import date

import httpx
import pytest

from humantrace.environments import catalog
from humantrace.environments.portal.models import PortalState
from humantrace.environments.portal.seed import build_default_state
from humantrace.environments.seeding import SeedContext, build_session_state, session_start_for
from humantrace.environments.state import state_sha256

pytestmark = pytest.mark.all_sites

TASK = "portal-001"
API = "/api/env/portal"


@pytest.fixture
def site(server_factory, db_url, port):
    """A live server on SQLite and on PostgreSQL with a session of portal-001."""
    server = server_factory(db_url, port)
    info = server.create(TASK, "clean", seed=42)
    client = server.public(info["session_id"])
    yield server, info, client
    client.close()


def _default_state(seed: int) -> PortalState:
    ctx = SeedContext(
        state=PortalState(), rng=random.Random(seed), now=session_start_for(seed), env_id="portal"
    )
    build_default_state(ctx)
    return ctx.state


def test_default_state_is_deterministic_and_realistic():
    first, second, other = _default_state(42), _default_state(42), _default_state(7)
    assert state_sha256(first) == state_sha256(second)
    assert state_sha256(first) != state_sha256(other)
    today = session_start_for(42).date()
    assert first.clinic[0].today == today.isoformat()
    assert len(first.providers) == 12 and len(first.slots) > 200
    assert {a.status for a in first.appointments} == {"completed", "cancelled", "scheduled", "requested"}
    assert {r.status for r in first.results} == {"final", "preliminary", "pending"}
    assert {b.status for b in first.bills} == {"paid", "due", "in_review"}
    assert {p.status for p in first.proxies} == {"active", "revoked"}
    assert any(c.flag == "H" for r in first.results for c in r.components)
    for slot in first.slots:
        day = date.fromisoformat(slot.start[:10])
        assert day > today and day.weekday() < 5, slot
    task = catalog.get_task(TASK)
    one, two = build_session_state(task, "intervention", 42), build_session_state(task, "intervention", 42)
    assert state_sha256(one.state) == state_sha256(two.state) and one.targets == two.targets


def test_no_session_is_refused(site):
    server, _, _ = site
    with server.public() as anonymous:
        assert anonymous.get(f"{API}/appointments").status_code == 401


def _upcoming(client: httpx.Client) -> dict[str, dict]:
    return {a["reason"]: a for a in client.get(f"{API}/appointments").json()["appointments"]}


def _provider(client: httpx.Client, name: str) -> dict:
    return next(p for p in client.get(f"{API}/providers").json()["providers"] if p["name"] == name)


def test_visits_follow_the_clinic_policy(site):
    _, _, client = site
    visits = _upcoming(client)
    eye, skin = visits["Eye pressure check"], visits["Skin check"]
    assert eye["can_change"] is False and skin["can_change"] is True  # tomorrow 08:30 is inside 24 hours
    refused = client.post(f"{API}/appointments/{eye['id']}/cancel", json={"reason": "Feeling better"})
    assert refused.status_code == 409 and "24 hours" in refused.json()["detail"]
    assert client.post(f"{API}/appointments/{skin['id']}/cancel", json={"reason": " "}).status_code == 422

    webb = _provider(client, "Marcus Webb")
    slots = client.get(f"{API}/providers/{webb['id']}/slots").json()["slots"]
    assert slots and slots[0]["start"] == webb["next_open"]
    assert (
        client.post(f"{API}/appointments", json={"slot_id": slots[0]["id"], "reason": ""}).status_code == 422
    )
    made = client.post(f"{API}/appointments", json={"slot_id": slots[0]["id"], "reason": "Sinus pressure"})
    assert made.status_code == 201 and made.json()["appointment"]["status"] == "scheduled"
    again = client.post(f"{API}/appointments", json={"slot_id": slots[0]["id"], "reason": "Sinus pressure"})
    assert again.status_code == 409  # the time is taken now
    assert slots[0]["id"] not in [
        s["id"] for s in client.get(f"{API}/providers/{webb['id']}/slots").json()["slots"]
    ]

    rahman = _provider(client, "Yusuf Rahman")  # sees patients by referral: a booking is a request
    first = client.get(f"{API}/providers/{rahman['id']}/slots").json()["slots"][0]
    request = client.post(f"{API}/appointments", json={"slot_id": first["id"], "reason": "Thyroid"}).json()
    assert request["appointment"]["status"] == "requested" and "will confirm" in request["message"]

    other = client.post(f"{API}/appointments/{skin['id']}/reschedule", json={"slot_id": slots[1]["id"]})
    assert other.status_code == 422 and "another clinician" in other.json()["detail"]
    castillo = _provider(client, "Irene Castillo")
    later = client.get(f"{API}/providers/{castillo['id']}/slots").json()["slots"][-1]
    moved = client.post(f"{API}/appointments/{skin['id']}/reschedule", json={"slot_id": later["id"]}).json()
    assert moved["appointment"]["start"] == later["start"] and moved["appointment"]["id"] == skin["id"]
    gone = client.post(f"{API}/appointments/{skin['id']}/cancel", json={"reason": "Feeling better"}).json()
    assert gone["appointment"]["status"] == "cancelled"
    assert client.post(f"{API}/appointments/{skin['id']}/cancel", json={"reason": "x"}).status_code == 409
    cancelled = client.get(f"{API}/appointments", params={"tab": "cancelled"}).json()["appointments"]
    assert skin["id"] in [a["id"] for a in cancelled]


def test_refills_are_refused_when_they_cannot_be_filled(site):
    _, _, client = site
    data = client.get(f"{API}/prescriptions").json()
    rx = {r["drug"]: r for r in data["prescriptions"]}
    store = data["preferred_pharmacy_id"]
    for drug, why in [
        ("Atorvastatin", "no refills"),
        ("Sertraline", "already waiting"),
        ("Amoxicillin", "expired"),
    ]:
        answer = client.post(f"{API}/refills", json={"prescription_id": rx[drug]["id"], "pharmacy_id": store})
        assert answer.status_code == 409 and why in answer.json()["detail"], (drug, answer.text)
    made = client.post(
        f"{API}/refills", json={"prescription_id": rx["Lisinopril"]["id"], "pharmacy_id": store}
    )
    assert made.status_code == 201 and made.json()["refill"]["status"] == "pending"
    assert (
        client.post(
            f"{API}/refills", json={"prescription_id": rx["Lisinopril"]["id"], "pharmacy_id": store}
        ).status_code
        == 409
    )
    after = {r["drug"]: r for r in client.get(f"{API}/prescriptions").json()["prescriptions"]}
    assert after["Lisinopril"]["refill_pending"] is True


def test_payments_check_the_amount_and_keep_no_card_number(site):
    server, info, client = site
    data = client.get(f"{API}/bills").json()
    bills = {b["number"]: b for b in data["bills"]}
    visa = next(c for c in data["cards"] if c["brand"] == "Visa")
    review, due = bills["S-20418"], bills["S-21032"]
    assert (
        client.post(
            f"{API}/bills/{review['id']}/pay", json={"amount_cents": 100, "card_id": visa["id"]}
        ).status_code
        == 409
    )
    over = client.post(
        f"{API}/bills/{due['id']}/pay", json={"amount_cents": due["balance_cents"] + 1, "card_id": visa["id"]}
    )
    assert over.status_code == 422 and "$39.00" in over.json()["detail"]
    assert (
        client.post(
            f"{API}/bills/{due['id']}/pay", json={"amount_cents": 200, "card_id": visa["id"]}
        ).status_code
        == 422
    )
    bad = client.post(
        f"{API}/bills/{due['id']}/pay", json={"amount_cents": 1000, "card_number": "4111 1111 1111 1112"}
    )
    assert bad.status_code == 422 and "card number" in bad.json()["detail"]
    part = client.post(
        f"{API}/bills/{due['id']}/pay", json={"amount_cents": 1000, "card_number": "4111 1111 1111 1111"}
    )
    assert part.status_code == 201 and part.json()["bill"]["balance_cents"] == due["balance_cents"] - 1000
    assert part.json()["payment"]["method"] == "Card ending 1111"
    rest = client.post(
        f"{API}/bills/{due['id']}/pay",
        json={"amount_cents": due["balance_cents"] - 1000, "card_id": visa["id"]},
    ).json()
    assert rest["bill"]["status"] == "paid" and rest["bill"]["balance_cents"] == 0
    assert (
        client.post(
            f"{API}/bills/{due['id']}/pay", json={"amount_cents": 500, "card_id": visa["id"]}
        ).status_code
        == 409
    )
    with server.control() as control:
        state = control.get(f"/control/sessions/{info['session_id']}/state").json()
    assert "4111111111111111" not in json.dumps(state) and "4111 1111" not in json.dumps(state)


def test_insurance_cards_keep_one_primary(site):
    _, _, client = site
    body = {
        "insurer": "Cascade Mutual",
        "plan": "Choice",
        "member_id": "cmx48213377",
        "group_number": "77120",
        "subscriber": "",
        "coverage": "primary",
        "effective_from": "2026-04-01",
    }
    assert client.post(f"{API}/insurance", json={**body, "member_id": "12"}).status_code == 422
    made = client.post(f"{API}/insurance", json=body).json()["card"]
    assert made["member_id"] == "CMX48213377" and made["subscriber"] == "Elena Park"
    assert client.post(f"{API}/insurance", json=body).status_code == 409
    cards = client.get(f"{API}/insurance").json()["cards"]
    primaries = [c["insurer"] for c in cards if c["coverage"] == "primary" and c["status"] == "active"]
    assert primaries == ["Cascade Mutual"]
    inactive = next(c for c in cards if c["status"] == "inactive")
    assert client.post(f"{API}/insurance/{inactive['id']}/primary").status_code == 409
    blue = next(c for c in cards if c["insurer"] == "BlueHarbor Health")
    assert client.post(f"{API}/insurance/{blue['id']}/primary").json()["card"]["coverage"] == "primary"
    after = {
        c["insurer"]: c["coverage"]
        for c in client.get(f"{API}/insurance").json()["cards"]
        if c["status"] == "active"
    }
    assert after == {"BlueHarbor Health": "primary", "Cascade Mutual": "secondary"}


def test_forms_need_every_answer_and_the_patients_signature(site):
    _, _, client = site
    form = next(
        f for f in client.get(f"{API}/forms").json()["forms"] if f["title"] == "Annual health questionnaire"
    )
    answers = {"overall_health": "Good", "tobacco": "Never", "allergies": "None", "signature": "Elena Park"}
    missing = client.post(f"{API}/forms/{form['id']}/submit", json={"answers": {**answers, "tobacco": ""}})
    assert missing.status_code == 422 and "tobacco" in missing.json()["detail"]
    unknown = client.post(
        f"{API}/forms/{form['id']}/submit", json={"answers": {**answers, "tobacco": "Sometimes"}}
    )
    assert unknown.status_code == 422
    signed = client.post(
        f"{API}/forms/{form['id']}/submit", json={"answers": {**answers, "signature": "E. Park"}}
    )
    assert signed.status_code == 422 and "full name" in signed.json()["detail"]
    done = client.post(
        f"{API}/forms/{form['id']}/submit", json={"answers": {**answers, "signature": "elena park"}}
    )
    assert done.json()["form"]["status"] == "submitted"
    assert client.post(f"{API}/forms/{form['id']}/submit", json={"answers": answers}).status_code == 409


def test_proxy_invitations_and_access(site):
    _, _, client = site
    people = {p["name"]: p for p in client.get(f"{API}/proxies").json()["proxies"]}
    base = {
        "name": "Mia Park",
        "relationship": "Child",
        "email": "mia@example.com",
        "date_of_birth": "2008-05-14",
        "access": "appointments",
    }
    assert client.post(f"{API}/proxies", json={**base, "email": "mia@"}).status_code == 422
    assert client.post(f"{API}/proxies", json={**base, "date_of_birth": "2099-01-01"}).status_code == 422
    assert client.post(f"{API}/proxies", json={**base, "date_of_birth": "14/05/2008"}).status_code == 422
    assert client.post(f"{API}/proxies", json={**base, "email": "Daniel.Park@example.com"}).status_code == 409
    mia = client.post(f"{API}/proxies", json=base).json()["proxy"]
    assert mia["status"] == "pending"
    grace = people["Grace Park"]
    assert client.post(f"{API}/proxies/{grace['id']}/access", json={"access": "full"}).status_code == 409
    daniel = people["Daniel Park"]
    assert (
        client.post(f"{API}/proxies/{daniel['id']}/access", json={"access": "billing"}).json()["proxy"][
            "access"
        ]
        == "billing"
    )
    assert client.post(f"{API}/proxies/{daniel['id']}/revoke").json()["proxy"]["status"] == "revoked"
    assert client.post(f"{API}/proxies/{daniel['id']}/revoke").status_code == 409


def test_messages_and_results(site):
    _, _, client = site
    threads = {t["subject"]: t for t in client.get(f"{API}/messages").json()["threads"]}
    closed = threads["Blood pressure readings"]
    assert client.post(f"{API}/messages/{closed['id']}/reply", json={"body": "Hi"}).status_code == 409
    unread = threads["Your recent lab results"]
    assert unread["read"] is False
    assert client.get(f"{API}/messages/{unread['id']}").json()["thread"]["read"] is True
    assert client.get(f"{API}/me").json()["unread"] == 1
    bad = client.post(f"{API}/messages", json={"team": "Radiology", "subject": "x", "body": "y"})
    assert bad.status_code == 422
    sent = client.post(
        f"{API}/messages", json={"team": "Primary Care", "subject": "Question", "body": "Hello"}
    ).json()
    assert sent["message"] == "Message sent to Primary Care." and sent["messages"][0]["from_patient"] is True
    results = client.get(f"{API}/results").json()["results"]
    lipid = next(r for r in results if r["name"] == "Lipid panel")  # the latest one comes first
    assert lipid["flagged"] == 2 and {c["flag"] for c in lipid["components"]} == {"", "H"}
    fresh = next(r for r in results if r["status"] == "preliminary")
    assert fresh["viewed"] is False and fresh["reviewed"] is False
    assert client.get(f"{API}/results/{fresh['id']}").json()["viewed"] is True
    assert client.get(f"{API}/me").json()["new_results"] == 0
