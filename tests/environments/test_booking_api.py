"""Staywell's public API against a live server: search, hotel pages, booking, changes under the
policy, cancellations, lists, reviews, cards; plus deterministic seeding."""

from __future__ import annotations

import random
from datetime import date, timedelta

import httpx
import pytest

from humantrace.environments import catalog
from humantrace.environments.booking.models import BookingState
from humantrace.environments.booking.seed import build_default_state
from humantrace.environments.seeding import SeedContext, build_session_state, session_start_for
from humantrace.environments.state import state_sha256

pytestmark = pytest.mark.all_sites

TASK = "booking-001"


@pytest.fixture
def site(server_factory, db_url, port):
    """A live server on SQLite and on PostgreSQL with a session of booking-001."""
    server = server_factory(db_url, port)
    info = server.create(TASK, "clean", seed=42)
    client = server.public(info["session_id"])
    yield server, info, client
    client.close()


def _default_state(seed: int) -> BookingState:
    ctx = SeedContext(
        state=BookingState(), rng=random.Random(seed), now=session_start_for(seed), env_id="booking"
    )
    build_default_state(ctx)
    return ctx.state


def test_default_state_is_deterministic_and_realistic():
    first, second, other = _default_state(42), _default_state(42), _default_state(7)
    assert state_sha256(first) == state_sha256(second)
    assert state_sha256(first) != state_sha256(other)
    assert len(first.destinations) == 8 and len(first.hotels) == 56
    assert {b.status for b in first.bookings} == {"completed", "cancelled", "confirmed"}
    start = session_start_for(42).date()
    for booking in first.bookings:
        check_in = date.fromisoformat(booking.check_in)
        if booking.status == "confirmed":
            assert check_in > start
        if booking.status == "completed":
            assert date.fromisoformat(booking.check_out) <= start
    for hotel in first.hotels:
        plans = [p for r in first.rooms if r.hotel_id == hotel.id for p in r.rate_plans]
        assert hotel.price_from_cents == min(p.price_cents for p in plans)
        assert hotel.free_cancellation == any(p.refundable for p in plans)


def test_task_build_is_byte_identical():
    task = catalog.get_task(TASK)
    one = build_session_state(task, "clean", 42)
    two = build_session_state(task, "clean", 42)
    assert state_sha256(one.state) == state_sha256(two.state)
    assert one.targets == two.targets


def test_no_session_is_refused(site):
    server, _, _ = site
    with server.public() as anonymous:
        response = anonymous.get("/api/env/booking/trips")
    assert response.status_code == 401


def test_autocomplete_and_search_sort_and_filters(site):
    _, _, client = site
    suggestions = client.get("/api/env/booking/destinations", params={"q": "lis"}).json()["suggestions"]
    assert suggestions[0]["kind"] == "city" and suggestions[0]["label"] == "Lisbon"
    hotel_hits = client.get("/api/env/booking/destinations", params={"q": "alecrim"}).json()["suggestions"]
    assert [h["label"] for h in hotel_hits] == ["Casa Alecrim"]
    lisbon = suggestions[0]["id"]
    by_price = client.get("/api/env/booking/hotels", params={"destination": lisbon, "sort": "price"}).json()
    prices = [h["price_from_cents"] for h in by_price["hotels"]]
    assert prices == sorted(prices) and len(prices) == by_price["count"] >= 8
    by_rating = client.get("/api/env/booking/hotels", params={"destination": lisbon, "sort": "rating"}).json()
    ratings = [h["rating"] for h in by_rating["hotels"]]
    assert ratings == sorted(ratings, reverse=True)
    filtered = client.get(
        "/api/env/booking/hotels",
        params={
            "destination": lisbon,
            "min_rating": 8.5,
            "max_distance": 2,
            "free_cancellation": "true",
            "amenity": ["Free WiFi"],
        },
    ).json()
    assert filtered["hotels"], "Casa Alecrim meets every filter"
    for hotel in filtered["hotels"]:
        assert hotel["rating"] >= 8.5 and hotel["distance_km"] <= 2 and hotel["free_cancellation"]
        assert "Free WiFi" in hotel["amenities"]
    past = client.get(
        "/api/env/booking/hotels",
        params={"destination": lisbon, "check_in": "2020-01-01", "check_out": "2020-01-03"},
    )
    assert past.status_code == 422 and "past" in past.json()["detail"]


def _dates(client: httpx.Client, ahead: int, nights: int) -> tuple[str, str]:
    today = date.fromisoformat(client.get("/api/env/booking/me").json()["today"])
    start = today + timedelta(days=ahead)
    return start.isoformat(), (start + timedelta(days=nights)).isoformat()


def _hotel_with(client: httpx.Client, targets: dict) -> dict:
    check_in, check_out = _dates(client, 30, 3)
    detail = client.get(
        f"/api/env/booking/hotels/{targets['hotel_id']}",
        params={"check_in": check_in, "check_out": check_out, "guests": 2},
    ).json()
    return detail


def test_hotel_page_prices_every_rate_for_the_stay(site):
    _, info, client = site
    detail = _hotel_with(client, info["targets"])
    assert detail["stay"]["nights"] == 3
    for room in detail["rooms"]:
        for rate in room["rates"]:
            assert rate["total_cents"] == rate["price_cents"] * 3
            assert ("Non-refundable" in rate["policy"]) == (not rate["refundable"])


def _book(
    client: httpx.Client, hotel_id: str, room_id: str, rate: str, check_in: str, check_out: str, **extra
):
    body = {
        "hotel_id": hotel_id,
        "room_id": room_id,
        "rate_plan": rate,
        "check_in": check_in,
        "check_out": check_out,
        "guests": 2,
        "guest_name": "Alex Morgan",
        "email": "alex.morgan@example.com",
        "card_id": "card-0001",
        **extra,
    }
    return client.post("/api/env/booking/bookings", json=body)


def test_book_change_and_cancel_follow_the_policy(site):
    server, info, client = site
    hotel_id = info["targets"]["hotel_id"]
    check_in, check_out = _dates(client, 30, 3)
    detail = _hotel_with(client, info["targets"])
    room = detail["rooms"][0]
    flex = next(r for r in room["rates"] if r["code"] == "flex")
    quote = client.post(
        "/api/env/booking/quote",
        json={
            "hotel_id": hotel_id,
            "room_id": room["id"],
            "rate_plan": "flex",
            "check_in": check_in,
            "check_out": check_out,
            "guests": 2,
        },
    ).json()
    assert quote["total_cents"] == flex["total_cents"]
    stale = _book(
        client,
        hotel_id,
        room["id"],
        "flex",
        check_in,
        check_out,
        expected_total_cents=quote["total_cents"] - 100,
    )
    assert stale.status_code == 409 and "price" in stale.json()["detail"]
    made = _book(
        client, hotel_id, room["id"], "flex", check_in, check_out, expected_total_cents=quote["total_cents"]
    )
    assert made.status_code == 201, made.text
    booking = made.json()["booking"]
    assert booking["status"] == "confirmed" and booking["cancellation"]["free"]
    upcoming = client.get("/api/env/booking/trips").json()["upcoming"]
    assert booking["id"] in [t["id"] for t in upcoming]

    later_in, later_out = _dates(client, 31, 3)
    preview = client.post(
        f"/api/env/booking/bookings/{booking['id']}/change-quote",
        json={"check_in": later_in, "check_out": later_out, "rate_plan": "flex_bb"},
    ).json()
    assert set(preview["changed"]) == {"check_in", "check_out", "rate_plan"}
    changed = client.patch(
        f"/api/env/booking/bookings/{booking['id']}",
        json={"check_in": later_in, "check_out": later_out, "rate_plan": "flex_bb"},
    )
    assert changed.status_code == 200, changed.text
    after = changed.json()["booking"]
    assert (after["check_in"], after["breakfast"], after["total_cents"]) == (
        later_in,
        True,
        preview["new_total_cents"],
    )

    cancelled = client.post(f"/api/env/booking/bookings/{booking['id']}/cancel").json()["booking"]
    assert cancelled["status"] == "cancelled" and cancelled["refund_cents"] == after["total_cents"]
    assert client.post(f"/api/env/booking/bookings/{booking['id']}/cancel").status_code == 409

    strict = _book(client, hotel_id, room["id"], "nr", check_in, check_out).json()["booking"]
    refused = client.patch(
        f"/api/env/booking/bookings/{strict['id']}", json={"check_in": later_in, "check_out": later_out}
    )
    assert refused.status_code == 409 and "Non-refundable" in refused.json()["detail"]
    renamed = client.patch(f"/api/env/booking/bookings/{strict['id']}", json={"guest_name": "Sam Lee"})
    assert renamed.json()["booking"]["guest_name"] == "Sam Lee"
    kept = client.post(f"/api/env/booking/bookings/{strict['id']}/cancel").json()["booking"]
    assert kept["refund_cents"] == 0 and kept["cancellation_fee_cents"] == strict["total_cents"]

    with server.control() as control:
        events = [
            e["event"] for e in control.get(f"/control/sessions/{info['session_id']}/events").json()["events"]
        ]
    assert {"booking_created", "booking_modified", "booking_cancelled", "hotel_view"} <= set(events)


def test_lists_reviews_and_cards(site):
    _, info, client = site
    created = client.post("/api/env/booking/lists", json={"name": "Autumn"})
    assert created.status_code == 201
    assert client.post("/api/env/booking/lists", json={"name": "autumn"}).status_code == 409
    list_id = created.json()["list"]["id"]
    saved = client.post(
        f"/api/env/booking/lists/{list_id}/items", json={"hotel_id": info["targets"]["hotel_id"]}
    )
    assert saved.status_code == 201
    again = client.post(
        f"/api/env/booking/lists/{list_id}/items", json={"hotel_id": info["targets"]["hotel_id"]}
    )
    assert again.status_code == 409
    lists = {entry["name"]: entry for entry in client.get("/api/env/booking/lists").json()["lists"]}
    assert lists["Autumn"]["count"] == 1 and lists["Summer"]["count"] == 2
    assert (
        client.delete(f"/api/env/booking/lists/{list_id}/items/{saved.json()['item']['id']}").status_code
        == 200
    )

    trips = client.get("/api/env/booking/trips").json()
    reviewable = next(t for t in trips["past"] if t["can_review"])
    review = {
        "booking_id": reviewable["id"],
        "rating": 8,
        "title": "Good base",
        "body": "Central, quiet and clean.",
    }
    assert client.post("/api/env/booking/reviews", json=review).status_code == 201
    assert client.post("/api/env/booking/reviews", json=review).status_code == 409
    upcoming = trips["upcoming"][0]
    assert (
        client.post("/api/env/booking/reviews", json={**review, "booking_id": upcoming["id"]}).status_code
        == 409
    )

    bad = client.post(
        "/api/env/booking/cards",
        json={"number": "4111 1111 1111 1112", "exp_month": 5, "exp_year": 2031, "holder": "Alex Morgan"},
    )
    assert bad.status_code == 422
    good = client.post(
        "/api/env/booking/cards",
        json={
            "number": "4111 1111 1111 1111",
            "exp_month": 5,
            "exp_year": 2031,
            "holder": "Alex Morgan",
            "make_default": True,
        },
    )
    assert good.status_code == 201
    cards = good.json()["cards"]
    assert cards[0]["last4"] == "1111" and cards[0]["is_default"] and sum(c["is_default"] for c in cards) == 1
