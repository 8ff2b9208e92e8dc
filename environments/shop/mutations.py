"""Server-layer mutations of the shop (registered as `shop.<name>`)."""

from __future__ import annotations

from datetime import timedelta

from humantrace.environments.seeding import mutation
from humantrace.environments.shop.builders import find_product, find_variant
from humantrace.environments.shop.models import CartItem
from humantrace.environments.shop.seed import ShopContext, iso


@mutation("shop.cart_leftovers")
def cart_leftovers(
    ctx: ShopContext, *, product: str, size: str | None = None, color: str | None = None, quantity: int = 1
) -> None:
    """Leave an item in the cart from an earlier visit: checkout takes the whole cart, so it must go first."""
    state = ctx.state
    found = find_product(ctx, product)
    variant = find_variant(ctx, found, size, color)
    if variant is not None and variant.stock < quantity:
        variant.stock = quantity + 4
    if found.stock < quantity:
        found.stock = quantity + 4
    state.cart_items.insert(
        0,
        CartItem(
            id=ctx.new_id("ci"),
            product_id=found.id,
            variant_id=variant.id if variant else None,
            quantity=quantity,
            added_at=iso(ctx.now - timedelta(days=6)),
        ),
    )
