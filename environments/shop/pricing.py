"""Order totals: subtotal, coupon discount, shipping and tax, all in integer cents."""

from __future__ import annotations

from dataclasses import dataclass

from humantrace.environments.shop.models import Coupon

FREE_SHIPPING_MIN_CENTS = 3500
STANDARD_SHIPPING_CENTS = 599
EXPRESS_SHIPPING_CENTS = 1299
TAX_RATE_BASIS_POINTS = 800  # 8.00 % estimated sales tax
DELIVERY_OPTIONS = {"standard": "Standard (3–5 business days)", "express": "Express (1–2 business days)"}
RETURN_WINDOW_DAYS = 30


@dataclass(frozen=True)
class Quote:
    """The money lines of an order before it is placed."""

    subtotal_cents: int
    discount_cents: int
    shipping_cents: int
    tax_cents: int
    total_cents: int


def _round_half_up(numerator: int, denominator: int) -> int:
    return (2 * numerator + denominator) // (2 * denominator)


def coupon_discount(*, coupon: Coupon | None, subtotal_cents: int) -> int:
    """The discount a valid coupon gives on this subtotal (never more than the subtotal)."""
    if coupon is None:
        return 0
    if coupon.percent_off:
        return min(subtotal_cents, _round_half_up(subtotal_cents * coupon.percent_off, 100))
    return min(subtotal_cents, coupon.amount_off_cents)


def shipping_cost(*, delivery_option: str, discounted_subtotal_cents: int) -> int:
    """Standard shipping is free from $35 after discounts; express always costs $12.99."""
    if delivery_option == "express":
        return EXPRESS_SHIPPING_CENTS
    return 0 if discounted_subtotal_cents >= FREE_SHIPPING_MIN_CENTS else STANDARD_SHIPPING_CENTS


def quote(*, subtotal_cents: int, coupon: Coupon | None, delivery_option: str) -> Quote:
    """Totals for a basket: discount first, then shipping on the discounted amount, then tax."""
    discount = coupon_discount(coupon=coupon, subtotal_cents=subtotal_cents)
    discounted = subtotal_cents - discount
    shipping = shipping_cost(delivery_option=delivery_option, discounted_subtotal_cents=discounted)
    tax = _round_half_up(discounted * TAX_RATE_BASIS_POINTS, 10000)
    return Quote(
        subtotal_cents=subtotal_cents,
        discount_cents=discount,
        shipping_cents=shipping,
        tax_cents=tax,
        total_cents=discounted + shipping + tax,
    )
