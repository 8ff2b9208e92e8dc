"""The shop's pages (mounted at /env/shop): HTML shells whose data the page scripts fetch from the API.

Every page is `shop/base.html` with a page name, a title, its script and a few `data-` values
taken from the URL (a product id, an order id). Nothing session-specific is rendered here.
"""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response

from humantrace.environments.shop.catalog import CATEGORIES
from humantrace.environments.sitekit import PageSpec, SitePages

ENV_ID = "shop"
PAGES = SitePages(ENV_ID, categories=CATEGORIES)
router = PAGES.router

CATEGORY = PageSpec("category", "Shop by department", "catalog.js")

PAGES.add("/", PageSpec("home", "Brightcart: everyday things, delivered", "home.js"))


@router.get("/c/{slug}")
def category(request: Request, slug: str) -> Response:
    name = next((c.name for c in CATEGORIES if c.slug == slug), "Department")
    return PAGES.render(request, CATEGORY.titled(name), extra={"current_category": slug}, category=slug)


PAGES.add("/search", PageSpec("search", "Search results", "catalog.js"))
PAGES.add("/p/{product_id}", PageSpec("product", "Product", "product.js"))
PAGES.add("/cart", PageSpec("cart", "Your cart", "cart.js"))
PAGES.add("/checkout", PageSpec("checkout", "Checkout", "checkout.js"))
PAGES.add("/orders", PageSpec("orders", "Your orders", "orders.js"))
PAGES.add("/orders/{order_id}", PageSpec("order", "Order details", "orders.js"))
PAGES.add(
    "/orders/{order_id}/confirmation", PageSpec("confirmation", "Thank you for your order", "orders.js")
)
PAGES.add("/orders/{order_id}/return", PageSpec("return", "Return items", "returns.js"))
PAGES.add("/returns", PageSpec("returns", "Your returns", "returns.js"))
PAGES.add("/wishlist", PageSpec("wishlist", "Your wishlist", "wishlist.js"))
PAGES.add("/account", PageSpec("account", "Account settings", "account.js"))
PAGES.add("/account/addresses", PageSpec("addresses", "Your addresses", "account.js"))
PAGES.add("/account/payments", PageSpec("payments", "Payment methods", "account.js"))
PAGES.add("/notifications", PageSpec("notifications", "Notifications", "notifications.js"))
PAGES.add("/login", PageSpec("login", "Sign in", "login.js"))
