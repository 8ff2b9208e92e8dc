"""Cart, wishlist and checkout: the shopper's writes before an order exists.

Keyword-only functions over `ShopState`; they raise `SiteError` with a message for the shopper and
return the entity they created or changed. `now` is the session's virtual clock.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from humantrace.environments.shop.catalog_service import product_card
from humantrace.environments.shop.models import (
    CartItem,
    Coupon,
    Order,
    OrderItem,
    Product,
    ShopState,
    Variant,
    WishlistItem,
)
from humantrace.environments.shop.pricing import DELIVERY_OPTIONS, Quote, quote
from humantrace.environments.shop.seed import address_line, card_label, iso, parse_iso
from humantrace.environments.sitekit import SiteError

MAX_LINE_QUANTITY = 10


@dataclass(frozen=True)
class PricedCart:
    """The cart's totals and the coupon that was applied (if any)."""

    totals: Quote
    coupon: Coupon | None


@dataclass(frozen=True)
class PlacedOrder:
    """A new order and its lines."""

    order: Order
    items: list[OrderItem]


NewId = Callable[[str], str]
"""Makes a fresh `<prefix>-NNNN` id (the session's `new_id`, which never reuses a deleted id)."""


def _product(state: ShopState, product_id: str) -> Product:
    product = state.find("products", product_id)
    if product is None:
        raise SiteError(404, "This product is no longer available.")
    return product


def _variant_for(state: ShopState, product: Product, variant_id: str | None) -> Variant | None:
    options = [v for v in state.variants if v.product_id == product.id]
    if not options:
        return None
    if variant_id is None:
        raise SiteError(400, "Please choose your options (size or colour) first.")
    variant = next((v for v in options if v.id == variant_id), None)
    if variant is None:
        raise SiteError(400, "That option is not available for this product.")
    return variant


def _describe(variant: Variant | None) -> str:
    if variant is None:
        return ""
    parts = [p for p in (variant.color, f"size {variant.size}" if variant.size else None) if p]
    return " (" + ", ".join(parts) + ")" if parts else ""


def cart_view(state: ShopState) -> dict[str, Any]:
    """The cart with product details, line totals and the item count for the header badge."""
    lines = []
    for item in state.cart_items:
        product = state.find("products", item.product_id)
        if product is None:
            continue
        variant = state.find("variants", item.variant_id) if item.variant_id else None
        available = variant.stock if variant else product.stock
        lines.append(
            {
                "id": item.id,
                "product": product_card(state, product),
                "variant": {"id": variant.id, "size": variant.size, "color": variant.color}
                if variant
                else None,
                "quantity": item.quantity,
                "available": available,
                "unit_price_cents": product.price_cents,
                "line_total_cents": product.price_cents * item.quantity,
            }
        )
    return {
        "items": lines,
        "count": sum(line["quantity"] for line in lines),
        "subtotal_cents": sum(line["line_total_cents"] for line in lines),
    }


def add_to_cart(
    state: ShopState, *, product_id: str, variant_id: str | None, quantity: int, now: datetime, new_id: NewId
) -> CartItem:
    """Add `quantity` of a product (option) to the cart, merging with an existing line."""
    if quantity < 1:
        raise SiteError(400, "Quantity must be at least 1.")
    product = _product(state, product_id)
    variant = _variant_for(state, product, variant_id)
    available = variant.stock if variant else product.stock
    if available <= 0:
        raise SiteError(409, f"Sorry, {product.name}{_describe(variant)} is out of stock.")
    existing = next(
        (
            c
            for c in state.cart_items
            if c.product_id == product.id and c.variant_id == (variant.id if variant else None)
        ),
        None,
    )
    total = quantity + (existing.quantity if existing else 0)
    if total > min(available, MAX_LINE_QUANTITY):
        raise SiteError(
            409,
            f"Only {min(available, MAX_LINE_QUANTITY)} of {product.name}{_describe(variant)} can be ordered.",
        )
    if existing is not None:
        existing.quantity = total
        return existing
    item = CartItem(
        id=new_id("ci"),
        product_id=product.id,
        variant_id=variant.id if variant else None,
        quantity=quantity,
        added_at=iso(now),
    )
    state.cart_items.append(item)
    return item


def set_cart_quantity(state: ShopState, *, cart_item_id: str, quantity: int) -> CartItem:
    """Change the quantity of a cart line (1 to the stock available)."""
    item = state.find("cart_items", cart_item_id)
    if item is None:
        raise SiteError(404, "That item is no longer in your cart.")
    if quantity < 1:
        raise SiteError(400, "Quantity must be at least 1. Use Remove to take the item out.")
    product = _product(state, item.product_id)
    variant = state.find("variants", item.variant_id) if item.variant_id else None
    available = variant.stock if variant else product.stock
    if quantity > min(available, MAX_LINE_QUANTITY):
        raise SiteError(
            409,
            f"Only {min(available, MAX_LINE_QUANTITY)} of {product.name}{_describe(variant)} can be ordered.",
        )
    item.quantity = quantity
    return item


def remove_from_cart(state: ShopState, *, cart_item_id: str) -> CartItem:
    """Take a line out of the cart."""
    item = state.find("cart_items", cart_item_id)
    if item is None:
        raise SiteError(404, "That item is no longer in your cart.")
    state.cart_items.remove(item)
    return item


def wishlist_view(state: ShopState) -> dict[str, Any]:
    """Saved products, newest first."""
    items = []
    for entry in sorted(state.wishlist_items, key=lambda w: (w.added_at, w.id), reverse=True):
        product = state.find("products", entry.product_id)
        if product is not None:
            items.append(
                {"id": entry.id, "added_at": entry.added_at, "product": product_card(state, product)}
            )
    return {"items": items}


def add_to_wishlist(state: ShopState, *, product_id: str, now: datetime, new_id: NewId) -> WishlistItem:
    """Save a product; saving it twice keeps one entry."""
    product = _product(state, product_id)
    existing = next((w for w in state.wishlist_items if w.product_id == product.id), None)
    if existing is not None:
        return existing
    entry = WishlistItem(id=new_id("w"), product_id=product.id, added_at=iso(now))
    state.wishlist_items.append(entry)
    return entry


def remove_from_wishlist(state: ShopState, *, wishlist_item_id: str) -> WishlistItem:
    """Delete a saved product."""
    entry = state.find("wishlist_items", wishlist_item_id)
    if entry is None:
        raise SiteError(404, "That item is no longer in your wishlist.")
    state.wishlist_items.remove(entry)
    return entry


def find_coupon(state: ShopState, *, code: str, subtotal_cents: int, now: datetime) -> Coupon:
    """The coupon with this code if it can be used on this subtotal now."""
    wanted = code.strip().upper()
    coupon = next((c for c in state.coupons if c.code.upper() == wanted), None)
    if coupon is None:
        raise SiteError(400, f"'{code.strip()}' is not a valid promo code.")
    if not coupon.active or parse_iso(coupon.expires_at) < now:
        raise SiteError(400, f"The promo code {coupon.code} has expired.")
    if subtotal_cents < coupon.min_subtotal_cents:
        raise SiteError(
            400, f"{coupon.code} needs a subtotal of at least ${coupon.min_subtotal_cents / 100:.2f}."
        )
    return coupon


def checkout_quote(
    state: ShopState, *, coupon_code: str | None, delivery_option: str, now: datetime
) -> PricedCart:
    """The totals of the current cart with this coupon and delivery option."""
    if delivery_option not in DELIVERY_OPTIONS:
        raise SiteError(400, "Choose standard or express delivery.")
    subtotal = cart_view(state)["subtotal_cents"]
    coupon = find_coupon(state, code=coupon_code, subtotal_cents=subtotal, now=now) if coupon_code else None
    return PricedCart(
        totals=quote(subtotal_cents=subtotal, coupon=coupon, delivery_option=delivery_option), coupon=coupon
    )


def place_order(
    state: ShopState,
    *,
    address_id: str,
    payment_method_id: str,
    delivery_option: str,
    coupon_code: str | None,
    now: datetime,
    new_id: NewId,
) -> PlacedOrder:
    """Turn the whole cart into an order: check stock, card and coupon, take stock, empty the cart."""
    if not state.cart_items:
        raise SiteError(400, "Your cart is empty.")
    address = state.find("addresses", address_id)
    if address is None:
        raise SiteError(400, "Choose a shipping address.")
    card = state.find("payment_methods", payment_method_id)
    if card is None:
        raise SiteError(400, "Choose a payment method.")
    if (card.exp_year, card.exp_month) < (now.year, now.month):
        raise SiteError(400, f"Your {card_label(card)} has expired. Choose another card.")
    for item in state.cart_items:
        product = _product(state, item.product_id)
        variant = state.find("variants", item.variant_id) if item.variant_id else None
        available = variant.stock if variant else product.stock
        if item.quantity > available:
            raise SiteError(
                409, f"Only {available} of {product.name}{_describe(variant)} left. Update your cart."
            )
    priced = checkout_quote(state, coupon_code=coupon_code, delivery_option=delivery_option, now=now)
    totals, coupon = priced.totals, priced.coupon
    order_id = new_id("o")
    digits = int(order_id.split("-")[1])
    order = Order(
        id=order_id,
        number=f"114-{(digits * 7919 + 3044111) % 9000000 + 1000000}",
        status="processing",
        placed_at=iso(now),
        address_id=address.id,
        ship_to=address_line(address),
        payment_method_id=card.id,
        payment_label=card_label(card),
        delivery_option=delivery_option,
        coupon_code=coupon.code if coupon else None,
        subtotal_cents=totals.subtotal_cents,
        shipping_cents=totals.shipping_cents,
        discount_cents=totals.discount_cents,
        tax_cents=totals.tax_cents,
        total_cents=totals.total_cents,
    )
    items: list[OrderItem] = []
    for cart_item in state.cart_items:
        product = _product(state, cart_item.product_id)
        variant = state.find("variants", cart_item.variant_id) if cart_item.variant_id else None
        items.append(
            OrderItem(
                id=new_id("oi"),
                order_id=order.id,
                product_id=product.id,
                variant_id=variant.id if variant else None,
                product_name=product.name,
                size=variant.size if variant else None,
                color=variant.color if variant else None,
                quantity=cart_item.quantity,
                unit_price_cents=product.price_cents,
            )
        )
        if variant is not None:
            variant.stock -= cart_item.quantity
        product.stock -= cart_item.quantity
    state.orders.append(order)
    state.order_items.extend(items)
    state.cart_items.clear()
    return PlacedOrder(order=order, items=items)
