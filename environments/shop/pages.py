"""The shop's pages (mounted at /env/shop): HTML shells whose data the page scripts fetch from the API.

Every page is `shop/base.html` with a page name, a title, its script and a few `data-` values
taken from the URL (a product id, an order id). Nothing session-specific is rendered here.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from environments.shop.catalog import CATEGORIES
from environments.sitekit import PageSpec, SitePages

ENV_ID = "shop"
router = APIRouter(include_in_schema=False)
PAGES = SitePages(ENV_ID, categories=CATEGORIES)


HOME = PageSpec("home", "Brightcart: everyday things, delivered", "home.js")
CATEGORY = PageSpec("category", "Shop by department", "catalog.js")
SEARCH = PageSpec("search", "Search results", "catalog.js")
PRODUCT = PageSpec("product", "Product", "product.js")
CART = PageSpec("cart", "Your cart", "cart.js")
CHECKOUT = PageSpec("checkout", "Checkout", "checkout.js")
ORDERS = PageSpec("orders", "Your orders", "orders.js")
ORDER = PageSpec("order", "Order details", "orders.js")
CONFIRMATION = PageSpec("confirmation", "Thank you for your order", "orders.js")
RETURN = PageSpec("return", "Return items", "returns.js")
RETURNS = PageSpec("returns", "Your returns", "returns.js")
WISHLIST = PageSpec("wishlist", "Your wishlist", "wishlist.js")
ACCOUNT = PageSpec("account", "Account settings", "account.js")
ADDRESSES = PageSpec("addresses", "Your addresses", "account.js")
PAYMENTS = PageSpec("payments", "Payment methods", "account.js")
NOTIFICATIONS = PageSpec("notifications", "Notifications", "notifications.js")
LOGIN = PageSpec("login", "Sign in", "login.js")


@router.get("/")
def home(request: Request) -> Response:
    return PAGES.render(request, HOME)


@router.get("/c/{slug}")
def category(request: Request, slug: str) -> Response:
    name = next((c.name for c in CATEGORIES if c.slug == slug), "Department")
    return PAGES.render(request, CATEGORY.titled(name), extra={"current_category": slug}, category=slug)


@router.get("/search")
def search(request: Request) -> Response:
    return PAGES.render(request, SEARCH)


@router.get("/p/{product_id}")
def product(request: Request, product_id: str) -> Response:
    return PAGES.render(request, PRODUCT, product=product_id)


@router.get("/cart")
def cart(request: Request) -> Response:
    return PAGES.render(request, CART)


@router.get("/checkout")
def checkout(request: Request) -> Response:
    return PAGES.render(request, CHECKOUT)


@router.get("/orders")
def orders(request: Request) -> Response:
    return PAGES.render(request, ORDERS)


@router.get("/orders/{order_id}")
def order(request: Request, order_id: str) -> Response:
    return PAGES.render(request, ORDER, order=order_id)


@router.get("/orders/{order_id}/confirmation")
def confirmation(request: Request, order_id: str) -> Response:
    return PAGES.render(request, CONFIRMATION, order=order_id)


@router.get("/orders/{order_id}/return")
def return_items(request: Request, order_id: str) -> Response:
    return PAGES.render(request, RETURN, order=order_id)


@router.get("/returns")
def returns(request: Request) -> Response:
    return PAGES.render(request, RETURNS)


@router.get("/wishlist")
def wishlist(request: Request) -> Response:
    return PAGES.render(request, WISHLIST)


@router.get("/account")
def account(request: Request) -> Response:
    return PAGES.render(request, ACCOUNT)


@router.get("/account/addresses")
def addresses(request: Request) -> Response:
    return PAGES.render(request, ADDRESSES)


@router.get("/account/payments")
def payments(request: Request) -> Response:
    return PAGES.render(request, PAYMENTS)


@router.get("/notifications")
def notifications(request: Request) -> Response:
    return PAGES.render(request, NOTIFICATIONS)


@router.get("/login")
def login(request: Request) -> Response:
    return PAGES.render(request, LOGIN)
