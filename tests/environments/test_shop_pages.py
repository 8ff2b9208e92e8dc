"""Brightcart's pages in Chromium: every page renders its data without console errors, the pages
carry no task id, variant id, instruction or latent target, and a failed API call is shown with a
way to recover. Screenshots of every page go to `<screenshots>/shop/`."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.all_sites]

# (path, name, a selector that only appears once the page's data has loaded)
PAGES = [
    ("/", "home", ".product-card"),
    ("/c/shoes", "category", "#results .product-card"),
    ("/search?q=yoga+mat&sort=price_asc", "search", "#results .product-card"),
    ("/p/{product_id}", "product", "#add-to-cart"),
    ("/cart", "cart", "#lines .line"),
    ("/checkout", "checkout", "#summary .summary-row.total"),
    ("/orders", "orders", "#orders .order-card"),
    ("/orders/{delivered_order}", "order", ".timeline"),
    ("/orders/{delivered_order}/return", "return", "#submit-return"),
    ("/returns", "returns", "#returns .empty, #returns .line"),
    ("/wishlist", "wishlist", ".product-card, .empty"),
    ("/account", "account", "#account-form"),
    ("/account/addresses", "addresses", ".address-card[data-address]"),
    ("/account/payments", "payments", "[data-card]"),
    ("/notifications", "notifications", ".notification"),
    ("/login", "login", "#continue-as"),
]


@pytest.fixture
def live(server_factory, sqlite_url, port):
    return server_factory(sqlite_url, port)


def _watch(page) -> list[str]:
    problems: list[str] = []
    page.on(
        "console",
        lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None,
    )
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    return problems


def test_every_page_renders_without_errors_or_leaks(live, context, screenshot_dir):
    info = live.create("shop-010", "clean", 42)
    with live.public(info["session_id"]) as api:
        orders = api.get("/api/env/shop/orders", params={"status": "delivered"}).json()["orders"]
    values = {
        "product_id": info["targets"]["lines"][0]["product_id"],
        "delivered_order": orders[0]["id"],
    }
    forbidden = [
        "shop-010",
        "shop-010-v1",
        info["instruction"],
        info["session_id"],
        "SPRING25",
        "canonical",
        "target",
    ]
    page = context.new_page()
    problems = _watch(page)
    page.goto(live.base_url + info["enter_url"])
    out = screenshot_dir / "shop"
    out.mkdir(parents=True, exist_ok=True)
    for path, name, ready in PAGES:
        url = live.base_url + "/env/shop" + path.format(**values)
        shell = page.request.get(url).text()
        for secret in forbidden:
            assert secret not in shell, f"{name} page source contains {secret!r}"
        page.goto(url)
        page.locator(ready).first.wait_for()
        page.wait_for_load_state("networkidle")
        rendered = page.content()
        for secret in forbidden[:4]:
            assert secret not in rendered, f"{name} page shows {secret!r}"
        assert page.title().endswith("Brightcart")
        page.screenshot(path=str(out / f"{name}.png"))
    assert problems == []


def test_checkout_to_confirmation_and_cancel_in_the_browser(live, context, screenshot_dir):
    info = live.create("shop-010", "clean", 42)
    page = context.new_page()
    problems = _watch(page)
    page.goto(live.base_url + info["enter_url"])
    page.get_by_role("link", name="Proceed to checkout").click()
    page.locator("#summary .summary-row.total").wait_for()
    page.get_by_label("Promo code").fill("SPRING25")
    page.locator("#apply-coupon").click()
    page.get_by_text("SPRING25 applied").wait_for()
    page.locator("#place-order").click()
    page.get_by_text("Order placed, thank you!").wait_for()
    page.screenshot(path=str(screenshot_dir / "shop" / "confirmation.png"))
    assert page.locator(".badge#cart-count").is_hidden()
    page.get_by_role("link", name="View order details").click()
    page.locator("#cancel-order").click()
    page.get_by_label("Reason for cancelling").select_option("Ordered by mistake")
    page.locator("#confirm-cancel").click()
    page.get_by_text("This order was cancelled").wait_for()
    assert problems == []


def test_failed_call_shows_a_way_to_recover(live, context):
    info = live.create("shop-002", "clean", 42)
    with live.control() as control:
        response = control.put(
            f"/control/sessions/{info['session_id']}/interventions",
            json={
                "network": [
                    {
                        "action": "error_then_success",
                        "url_pattern": "/wishlist",
                        "methods": ["POST"],
                        "error_status": 503,
                        "fail_count": 1,
                    }
                ]
            },
        )
        assert response.status_code == 200, response.text
    page = context.new_page()
    page.goto(live.base_url + info["enter_url"])
    page.goto(live.base_url + f"/env/shop/p/{info['targets']['product_id']}")
    page.locator("#add-to-wishlist").click()
    error = page.locator(".toast.error")
    error.wait_for()
    assert "temporarily unavailable" in error.inner_text()
    error.get_by_role("button", name="Try again").click()
    page.locator(".toast.success", has_text="Saved to your wishlist").wait_for()
    with live.public(info["session_id"]) as api:
        saved = api.get("/api/env/shop/wishlist").json()["items"]
    assert info["targets"]["product_id"] in [item["product"]["id"] for item in saved]


def test_expired_session_sends_the_shopper_to_sign_in_and_back(live, context):
    info = live.create("shop-012", "intervention", 42)
    page = context.new_page()
    page.goto(live.base_url + info["enter_url"])
    page.goto(live.base_url + f"/env/shop/p/{info['targets']['product_id']}")
    page.locator("#review-panel summary").click()
    page.get_by_label("4 stars", exact=True).check(force=True)
    page.get_by_label("Headline").fill("Great on wet trails")
    page.get_by_label("Your review").fill("Dry feet all weekend.")
    page.locator("#submit-review").click()
    toast = page.locator(".toast.error")
    toast.wait_for()
    assert "expired" in toast.inner_text().lower()
    toast.get_by_role("button", name="Sign in").click()
    page.get_by_role("heading", name="Sign in").wait_for()
    page.get_by_role("button", name="Sign in").click()
    page.locator("#review-panel").wait_for()
    assert f"/env/shop/p/{info['targets']['product_id']}" in page.url
