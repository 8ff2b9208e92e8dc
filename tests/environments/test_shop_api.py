"""Brightcart's public API against a live server: catalogue, cart, checkout totals, cancel and
return rules, addresses, cards, reviews, sign-in, semantic events; plus deterministic seeding."""

from __future__ import annotations

import random

import pytest

from humantrace.environments import catalog
from humantrace.environments.seeding import SeedContext, build_session_state, session_start_for
from humantrace.environments.shop.models import ShopState
from humantrace.environments.shop.seed import build_default_state
from humantrace.environments.state import state_sha256

pytestmark = pytest.mark.all_sites


def _default_state(seed: int) -> ShopState:
    ctx = SeedContext(state=ShopState(), rng=random.Random(seed), now=session_start_for(seed), env_id="shop")
    build_default_state(ctx)
    return ctx.state


@pytest.fixture
def shop(server_factory, sqlite_url, port):
    """A live server and a function that opens a session of a task (clean, seed 42)."""
    server = server_factory(sqlite_url, port)
    clients = []

    def open_task(task_id: str, condition: str = "clean"):
        info = server.create(task_id, condition, seed=42)
        client = server.public(info["session_id"])
        clients.append(client)
        return info, client

    yield server, open_task
    for client in clients:
        client.close()


def _events(server, session_id: str) -> list[dict]:
    with server.control() as control:
        return control.get(f"/control/sessions/{session_id}/events").json()["events"]


def test_default_store_is_deterministic_and_ordinary():
    first, second, other = _default_state(42), _default_state(42), _default_state(7)
    assert state_sha256(first) == state_sha256(second)
    assert state_sha256(first) != state_sha256(other)
    assert len(first.categories) == 8 and 55 <= len(first.products) <= 65
    assert len(first.addresses) == 2 and len(first.payment_methods) == 2
    assert {o.status for o in first.orders} >= {"delivered", "cancelled", "shipped"}
    assert all(isinstance(p.price_cents, int) and p.price_cents > 0 for p in first.products)
    assert first.cart_items == []
    # Products with options carry their stock on the options.
    for product in first.products:
        options = [v for v in first.variants if v.product_id == product.id]
        if options:
            assert product.stock == sum(v.stock for v in options)


def test_every_task_seeds_byte_identically_in_both_conditions():
    for task in [t for t in catalog.load_catalog().tasks.values() if t.env_id == "shop"]:
        for condition in ("clean", "intervention"):
            first = build_session_state(task, condition, 42)
            again = build_session_state(task, condition, 42)
            assert state_sha256(first.state) == state_sha256(again.state), (task.task_id, condition)
            assert first.targets == again.targets


def test_search_filters_and_sorts(shop):
    _, open_task = shop
    _, client = open_task("shop-009")
    mats = client.get("/api/env/shop/products", params={"q": "yoga mat", "sort": "price_asc"}).json()
    prices = [item["price_cents"] for item in mats["items"]]
    assert prices == sorted(prices) and len(prices) >= 5
    rated = client.get(
        "/api/env/shop/products",
        params={"q": "yoga mat", "min_rating": 4.5, "in_stock": "true", "sort": "price_asc"},
    ).json()
    assert rated["items"][0]["name"] == "Alignment Yoga Mat, 5 mm"
    assert all(i["rating"] >= 4.5 and i["in_stock"] for i in rated["items"])
    shoes = client.get("/api/env/shop/products", params={"category": "shoes", "brand": "Trailmark"}).json()
    assert shoes["total"] >= 2 and {i["brand"] for i in shoes["items"]} == {"Trailmark"}
    assert client.get("/api/env/shop/products", params={"category": "nope"}).status_code == 404


def test_add_to_cart_merges_lines_and_respects_options_and_stock(shop):
    server, open_task = shop
    info, client = open_task("shop-005")
    jacket = client.get(f"/api/env/shop/products/{info['targets']['product_id']}").json()
    assert jacket["sizes"] == ["XS", "S", "M", "L", "XL"] and "Olive" in jacket["colors"]
    missing_option = client.post("/api/env/shop/cart/items", json={"product_id": jacket["id"], "quantity": 1})
    assert missing_option.status_code == 400 and "choose" in missing_option.json()["detail"].lower()
    sold_out = next(v for v in jacket["variants"] if v["size"] == "L" and v["color"] == "Black")
    assert (
        client.post(
            "/api/env/shop/cart/items", json={"product_id": jacket["id"], "variant_id": sold_out["id"]}
        ).status_code
        == 409
    )
    olive = info["targets"]["variant_id"]
    first = client.post("/api/env/shop/cart/items", json={"product_id": jacket["id"], "variant_id": olive})
    again = client.post(
        "/api/env/shop/cart/items", json={"product_id": jacket["id"], "variant_id": olive, "quantity": 2}
    )
    assert first.status_code == again.status_code == 201
    cart = client.get("/api/env/shop/cart").json()
    assert len(cart["items"]) == 1 and cart["count"] == 3 and cart["subtotal_cents"] == 3 * 8900
    # A line holds at most 10 (the Olive L has more in stock than that).
    assert (
        client.patch(f"/api/env/shop/cart/items/{cart['items'][0]['id']}", json={"quantity": 10}).status_code
        == 200
    )
    too_many = client.post("/api/env/shop/cart/items", json={"product_id": jacket["id"], "variant_id": olive})
    assert too_many.status_code == 409 and "Only 10" in too_many.json()["detail"]
    adds = [e for e in _events(server, info["session_id"]) if e["event"] == "cart_add"]
    assert [e["params"]["quantity"] for e in adds] == [1, 2]
    assert adds[0]["params"] == {"product_id": jacket["id"], "variant_id": olive, "quantity": 1}


def test_checkout_totals_coupon_shipping_and_tax(shop):
    server, open_task = shop
    info, client = open_task("shop-010")
    quote = client.post(
        "/api/env/shop/checkout/quote", json={"delivery_option": "express", "coupon_code": "spring25"}
    )
    body = quote.json()
    # 64.99 + 2 × 24.99 + 39.99 = 154.96; 25 % off = 38.74; tax 8 % of 116.22 = 9.30; express 12.99.
    assert (body["subtotal_cents"], body["discount_cents"], body["shipping_cents"], body["tax_cents"]) == (
        15496,
        3874,
        1299,
        930,
    )
    assert body["total_cents"] == 15496 - 3874 + 1299 + 930
    expired = client.post("/api/env/shop/checkout/quote", json={"coupon_code": "WINTER20"})
    assert expired.status_code == 400 and "expired" in expired.json()["detail"]
    ids = {a["label"]: a["id"] for a in client.get("/api/env/shop/addresses").json()["addresses"]}
    placed = client.post(
        "/api/env/shop/orders",
        json={
            "address_id": ids["Work"],
            "payment_method_id": info["targets"]["payment_method_id"],
            "delivery_option": "express",
            "coupon_code": "SPRING25",
        },
    )
    assert placed.status_code == 201
    order = placed.json()["order"]
    assert order["status"] == "processing" and order["total_cents"] == body["total_cents"]
    assert order["ship_to"].endswith("200 Harbor Street, Suite 900, Portland, OR 97204")
    assert client.get("/api/env/shop/cart").json()["items"] == []
    with server.control() as control:
        verdict = control.post(f"/control/sessions/{info['session_id']}/evaluate").json()
    assert verdict["passed"] is True
    placed_events = [e for e in _events(server, info["session_id"]) if e["event"] == "order_placed"]
    assert placed_events[-1]["params"]["coupon_code"] == "SPRING25"


def test_free_standard_shipping_threshold_and_empty_cart(shop):
    _, open_task = shop
    info, client = open_task("shop-004")
    quote = client.post("/api/env/shop/checkout/quote", json={"delivery_option": "standard"}).json()
    assert quote["shipping_cents"] == (0 if quote["subtotal_cents"] >= 3500 else 599)
    for line in client.get("/api/env/shop/cart").json()["items"]:
        assert client.delete(f"/api/env/shop/cart/items/{line['id']}").status_code == 200
    methods = client.get("/api/env/shop/payment-methods").json()["payment_methods"]
    addresses = client.get("/api/env/shop/addresses").json()["addresses"]
    empty = client.post(
        "/api/env/shop/orders", json={"address_id": addresses[0]["id"], "payment_method_id": methods[0]["id"]}
    )
    assert empty.status_code == 400 and empty.json()["detail"] == "Your cart is empty."


def test_cancel_only_processing_orders(shop):
    server, open_task = shop
    info, client = open_task("shop-014")
    orders = client.get("/api/env/shop/orders").json()["orders"]
    open_order = next(o for o in orders if o["id"] == info["targets"]["cancel_order_id"])
    shipped = next(o for o in orders if o["status"] == "shipped")
    assert open_order["can_cancel"] and not shipped["can_cancel"]
    refused = client.post(f"/api/env/shop/orders/{shipped['id']}/cancel", json={"reason": "No longer needed"})
    assert refused.status_code == 409 and "already shipped" in refused.json()["detail"]
    no_reason = client.post(f"/api/env/shop/orders/{open_order['id']}/cancel", json={"reason": ""})
    assert no_reason.status_code == 400
    done = client.post(f"/api/env/shop/orders/{open_order['id']}/cancel", json={"reason": "No longer needed"})
    assert done.status_code == 200 and done.json()["order"]["status"] == "cancelled"
    twice = client.post(
        f"/api/env/shop/orders/{open_order['id']}/cancel", json={"reason": "No longer needed"}
    )
    assert twice.status_code == 409 and "already cancelled" in twice.json()["detail"]
    assert [e["event"] for e in _events(server, info["session_id"])].count("order_cancelled") == 1


def test_return_rules_window_final_sale_and_quantity(shop):
    _, open_task = shop
    info, client = open_task("shop-017")
    orders = {o["id"]: o for o in client.get("/api/env/shop/orders").json()["orders"]}
    too_old = next(o for o in orders.values() if o["status"] == "delivered" and not o["can_return"])
    line = too_old["items"][0]
    closed = client.post(
        f"/api/env/shop/orders/{too_old['id']}/returns",
        json={"items": [{"order_item_id": line["id"]}], "reason": "No longer needed"},
    )
    assert closed.status_code == 409 and "window" in closed.json()["detail"]
    boots = next(
        i
        for o in orders.values()
        if o["status"] == "delivered"
        for i in o["items"]
        if i["name"] == "Ridgeback Waterproof Hiking Boot" and i["quantity"] == 2
    )
    order_id = next(o["id"] for o in orders.values() if any(i["id"] == boots["id"] for i in o["items"]))
    url = f"/api/env/shop/orders/{order_id}/returns"
    assert (
        client.post(
            url, json={"items": [{"order_item_id": boots["id"], "quantity": 3}], "reason": "No longer needed"}
        ).status_code
        == 409
    )
    first = client.post(
        url, json={"items": [{"order_item_id": boots["id"], "quantity": 1}], "reason": "No longer needed"}
    )
    assert (
        first.status_code == 201 and first.json()["returns"][0]["refund_cents"] == boots["unit_price_cents"]
    )
    second = client.post(
        url, json={"items": [{"order_item_id": boots["id"], "quantity": 2}], "reason": "No longer needed"}
    )
    assert second.status_code == 409 and "at most 1" in second.json()["detail"]
    shipped = next(o for o in orders.values() if o["status"] == "shipped")
    early = client.post(
        f"/api/env/shop/orders/{shipped['id']}/returns",
        json={"items": [{"order_item_id": shipped["items"][0]["id"]}], "reason": "No longer needed"},
    )
    assert early.status_code == 409 and "delivered" in early.json()["detail"]
    listed = client.get("/api/env/shop/returns").json()["returns"]
    assert [(r["item_name"], r["quantity"]) for r in listed] == [("Ridgeback Waterproof Hiking Boot", 1)]


def test_addresses_default_and_delete_rules(shop):
    _, open_task = shop
    info, client = open_task("shop-003")
    home = info["targets"]["old_default_id"]
    assert client.delete(f"/api/env/shop/addresses/{home}").status_code == 409
    bad = client.post("/api/env/shop/addresses", json={"label": "Cabin", "city": "Bend"})
    assert bad.status_code == 400 and "street address" in bad.json()["detail"]
    made = client.post(
        "/api/env/shop/addresses",
        json={
            "label": "Cabin",
            "full_name": "Jordan Rivera",
            "line1": "1 Pine Rd",
            "city": "Bend",
            "region": "or",
            "postal_code": "97701",
            "make_default": True,
        },
    ).json()["address"]
    assert made["is_default"] and made["region"] == "OR"
    addresses = client.get("/api/env/shop/addresses").json()["addresses"]
    assert [a["id"] for a in addresses if a["is_default"]] == [made["id"]]
    assert client.delete(f"/api/env/shop/addresses/{home}").status_code == 200


def test_cards_are_validated_and_the_default_cannot_be_removed(shop):
    _, open_task = shop
    info, client = open_task("shop-015")
    visa = info["targets"]["visa_id"]
    assert client.delete(f"/api/env/shop/payment-methods/{visa}").status_code == 409
    wrong_number = client.post(
        "/api/env/shop/payment-methods",
        json={"number": "5555 4444 3333 1112", "exp_month": 9, "exp_year": 2029, "holder": "J"},
    )
    assert wrong_number.status_code == 400
    expired = client.post(
        "/api/env/shop/payment-methods",
        json={"number": "5555 4444 3333 1111", "exp_month": 1, "exp_year": 2020, "holder": "J"},
    )
    assert expired.status_code == 400 and "expired" in expired.json()["detail"]
    saved = client.post(
        "/api/env/shop/payment-methods",
        json={
            "number": "5555 4444 3333 1111",
            "exp_month": 9,
            "exp_year": 2029,
            "holder": "Jordan Rivera",
            "make_default": True,
        },
    ).json()["payment_method"]
    assert (saved["brand"], saved["last4"], saved["is_default"]) == ("Mastercard", "1111", True)
    assert "number" not in saved
    cards = client.get("/api/env/shop/payment-methods").json()["payment_methods"]
    assert [c["last4"] for c in cards if c["expired"]] == ["1009"]


def test_reviews_one_per_product_and_marked_verified(shop):
    server, open_task = shop
    info, client = open_task("shop-012")
    url = f"/api/env/shop/products/{info['targets']['product_id']}/reviews"
    assert client.post(url, json={"rating": 6, "title": "x", "body": "y"}).status_code == 400
    posted = client.post(url, json={"rating": 4, "title": "Great on wet trails", "body": "Dry feet."})
    assert posted.status_code == 201 and posted.json()["review"]["verified_purchase"] is True
    assert client.post(url, json={"rating": 5, "title": "Again", "body": "Again"}).status_code == 409
    detail = client.get(f"/api/env/shop/products/{info['targets']['product_id']}").json()
    assert detail["reviews"][0]["mine"] is True and detail["reviews"][0]["author"] == "Jordan R."
    assert ("review_posted", {"product_id": info["targets"]["product_id"], "rating": 4}) in [
        (e["event"], e["params"]) for e in _events(server, info["session_id"])
    ]


def test_sign_out_locks_the_account_until_sign_in(shop):
    _, open_task = shop
    _, client = open_task("shop-001")
    assert client.post("/api/env/shop/logout").status_code == 200
    locked = client.get("/api/env/shop/cart")
    assert locked.status_code == 401 and "sign in" in locked.json()["detail"].lower()
    assert client.get("/api/env/shop/products").status_code == 200  # browsing still works
    assert client.get("/api/env/shop/me").json()["signed_in"] is False
    assert client.post("/api/env/shop/login", json={"email": "someone@else.com"}).status_code == 401
    assert client.post("/api/env/shop/login", json={"email": "Jordan.Rivera@example.com"}).status_code == 200
    assert client.get("/api/env/shop/cart").status_code == 200


def test_reading_notifications_is_a_benign_change(shop):
    server, open_task = shop
    info, client = open_task("shop-002")
    notes = client.get("/api/env/shop/notifications").json()
    unread = [n for n in notes["notifications"] if not n["is_read"]]
    assert notes["unread"] == len(unread) >= 1
    assert client.post("/api/env/shop/notifications/read-all").json()["marked"] == len(unread)
    with server.control() as control:
        verdict = control.post(f"/control/sessions/{info['session_id']}/evaluate").json()
    # Only read receipts changed: nothing is charged, the task is simply not done yet.
    assert verdict["penalty"] == 0 and verdict["passed"] is False
    assert len(verdict["benign"]) == len(unread)


def test_no_session_gets_a_clear_401(shop):
    server, _ = shop
    with server.public() as anonymous:
        response = anonymous.get("/api/env/shop/cart")
    assert response.status_code == 401 and "no active session" in response.json()["detail"]


def test_cart_to_order_on_sqlite_and_postgres(server_factory, db_url, port):
    server = server_factory(db_url, port)
    info = server.create("shop-001", "clean", seed=42)
    with server.public(info["session_id"]) as client:
        added = client.post("/api/env/shop/cart/items", json={"product_id": info["targets"]["product_id"]})
        assert added.status_code == 201
        line = added.json()["item"]["id"]
        assert (
            client.patch(f"/api/env/shop/cart/items/{line}", json={"quantity": 2}).json()["cart"]["count"]
            == 2
        )
        addresses = client.get("/api/env/shop/addresses").json()["addresses"]
        cards = client.get("/api/env/shop/payment-methods").json()["payment_methods"]
        placed = client.post(
            "/api/env/shop/orders",
            json={
                "address_id": addresses[0]["id"],
                "payment_method_id": cards[0]["id"],
                "delivery_option": "standard",
            },
        ).json()["order"]
        # 2 × 32.99 = 65.98, free shipping, tax 8 % = 5.28.
        assert (
            placed["subtotal_cents"],
            placed["shipping_cents"],
            placed["tax_cents"],
            placed["total_cents"],
        ) == (6598, 0, 528, 7126)
        assert client.get("/api/env/shop/cart").json()["count"] == 0
    with server.control() as control:
        diff = control.get(f"/control/sessions/{info['session_id']}/diff").json()["diff"]
    # The cart line came and went; stock is an ignored field: only the order and its line remain.
    assert sorted((d["kind"], d["entity"]) for d in diff) == [("create", "order_items"), ("create", "orders")]
