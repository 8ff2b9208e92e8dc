"""Brightcart, the shop environment: catalogue, cart, checkout, orders, returns, wishlist, account.

Importing this package registers its seed builders and server mutations (`builders`, `mutations`)
and defines `ENVIRONMENT` for the registry.
"""

from __future__ import annotations

from humantrace.environments.registry import Environment
from humantrace.environments.shop import builders, mutations  # noqa: F401  (registers builders and mutations)
from humantrace.environments.shop.api import router as api_router
from humantrace.environments.shop.models import ShopState
from humantrace.environments.shop.pages import router as page_router
from humantrace.environments.shop.seed import build_default_state
from humantrace.environments.ui import UIProfile

ENVIRONMENT = Environment(
    env_id="shop",
    title="Brightcart",
    state_model=ShopState,
    package="humantrace.environments.shop",
    api_router=api_router,
    page_router=page_router,
    build_default_state=build_default_state,
    # Stock moves with every order and cancellation; the order and its lines carry the meaning.
    # `signed_in` flips when someone signs out and back in, which is not a task outcome.
    ignore_fields={"products": {"stock"}, "variants": {"stock"}, "account": {"signed_in"}},
    # A saved card's number is the customer's secret: the recorder masks it like a password.
    mask_selectors=("#card-number",),
    ui_profiles=(
        UIProfile(
            name="custom-controls",
            title="Custom controls",
            description=(
                "Every select (sort, rating, search department, reasons, expiry) is a custom listbox;"
                " the product page's quantity is a stepper (− and + around a number field)."
            ),
            controls={"select": "custom", "counter": "stepper"},
            classes=("select", "counter"),
        ),
        UIProfile(
            name="infinite-list",
            title="Endless list, icon buttons",
            description=(
                "Department and search results load more as you scroll (with a Load more button)"
                " instead of pages; add to cart, wishlist, delete and remove buttons show only an icon."
            ),
            controls={"list": "infinite", "button": "icon"},
            classes=("list", "button"),
        ),
    ),
)
