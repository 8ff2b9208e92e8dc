"""Seed builders for task situations (registered as `shop.<name>`).

Each builder adds one situation to the default store and returns named outputs that task files
bind to targets (`{output.product_id}`). Products are named either by an output id or by their
exact catalogue name; options by `size` / `color`.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from humantrace.environments.seeding import SeedError, builder
from humantrace.environments.shop.models import (
    Address,
    CartItem,
    Coupon,
    Notification,
    PaymentMethod,
    Product,
    ReturnRequest,
    ShopState,
    Variant,
    WishlistItem,
)
from humantrace.environments.shop.pricing import RETURN_WINDOW_DAYS
from humantrace.environments.shop.seed import ShopContext, add_order, add_product, add_reviews, iso, parse_iso


def _state(ctx: ShopContext) -> ShopState:
    return ctx.state


def find_product(ctx: ShopContext, ref: str) -> Product:
    """A product by id or by exact name (the first one with that name)."""
    state = _state(ctx)
    found = state.find("products", ref) or next((p for p in state.products if p.name == ref), None)
    if found is None:
        raise SeedError(f"no product with id or name {ref!r}")
    return found


def find_variant(ctx: ShopContext, product: Product, size: str | None, color: str | None) -> Variant | None:
    """The product's variant with this size and colour (None for a product without options)."""
    options = [v for v in _state(ctx).variants if v.product_id == product.id]
    if not options:
        return None
    for variant in options:
        if variant.size == size and variant.color == color:
            return variant
    raise SeedError(f"{product.name} has no option size={size!r} color={color!r}")


def find_address(ctx: ShopContext, label: str) -> Address:
    """A saved address by label ("Home") or id."""
    state = _state(ctx)
    found = state.find("addresses", label) or next((a for a in state.addresses if a.label == label), None)
    if found is None:
        raise SeedError(f"no address labelled {label!r}")
    return found


def find_card(ctx: ShopContext, last4: str) -> PaymentMethod:
    """A saved card by its last four digits."""
    found = next((p for p in _state(ctx).payment_methods if p.last4 == last4), None)
    if found is None:
        raise SeedError(f"no card ending in {last4}")
    return found


def _restock(ctx: ShopContext, product: Product, variant: Variant | None, at_least: int) -> None:
    # A task that asks for an option must find it in stock.
    if variant is not None and variant.stock < at_least:
        variant.stock = at_least
        product.stock = sum(v.stock for v in _state(ctx).variants if v.product_id == product.id)
    elif variant is None and product.stock < at_least:
        product.stock = at_least


@builder("shop.plant_product")
def plant_product(
    ctx: ShopContext,
    *,
    category: str,
    name: str,
    brand: str,
    icon: str,
    price_cents: int,
    rating: float = 4.5,
    review_count: int = 214,
    stock: int = 25,
    description: str = "",
    features: list[str] | None = None,
    sizes: list[str] | None = None,
    colors: list[str] | None = None,
    out_of_stock: list[dict[str, str]] | None = None,
    list_price_cents: int | None = None,
    returnable: bool = True,
    want: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Add one product; `want` picks the option whose id is returned as `variant_id`."""
    sold_out = {(o.get("size"), o.get("color")) for o in out_of_stock or []}
    variant_stock: dict[tuple[str | None, str | None], int] | None = None
    if sizes or colors:
        size_options: list[str | None] = [*sizes] if sizes else [None]
        color_options: list[str | None] = [*colors] if colors else [None]
        variant_stock = {
            (size, color): 0 if (size, color) in sold_out else 6 + (index * 3) % 11
            for index, (size, color) in enumerate((s, c) for s in size_options for c in color_options)
        }
    planted = add_product(
        ctx,
        category_slug=category,
        name=name,
        brand=brand,
        icon=icon,
        price=price_cents,
        list_price=list_price_cents,
        description=description or f"The {name} from {brand}.",
        features=features or [],
        sizes=sizes or [],
        colors=colors or [],
        rating=rating,
        review_count=review_count,
        stock=stock,
        returnable=returnable,
        days_old=ctx.rng.randint(10, 200),
        variant_stock=variant_stock,
    )
    add_reviews(ctx, product=planted.product, count=3)
    outputs: dict[str, Any] = {
        "product_id": planted.product.id,
        "product_name": planted.product.name,
        "brand": brand,
        "price_cents": price_cents,
    }
    if want:
        variant = planted.variant(size=want.get("size"), color=want.get("color"))
        outputs.update({"variant_id": variant.id, "size": variant.size, "color": variant.color})
    return outputs


@builder("shop.cart")
def cart(ctx: ShopContext, *, lines: list[dict[str, Any]], clear: bool = True) -> dict[str, Any]:
    """Fill the cart: each line names `product` (id or name), optional `size`/`color`, `quantity`."""
    state = _state(ctx)
    if clear:
        state.cart_items.clear()
    ids: list[str] = []
    product_ids: list[str] = []
    in_stock_lines: list[dict[str, Any]] = []
    out_of_stock: list[str] = []
    for offset, line in enumerate(lines):
        product = find_product(ctx, line["product"])
        variant = find_variant(ctx, product, line.get("size"), line.get("color"))
        quantity = int(line.get("quantity", 1))
        if line.get("stock") is not None:
            if variant is not None:
                variant.stock = int(line["stock"])
                product.stock = sum(v.stock for v in state.variants if v.product_id == product.id)
            else:
                product.stock = int(line["stock"])
        else:
            _restock(ctx, product, variant, quantity + 3)
        item = CartItem(
            id=ctx.new_id("ci"),
            product_id=product.id,
            variant_id=variant.id if variant else None,
            quantity=quantity,
            added_at=iso(ctx.now - timedelta(days=2, minutes=37 * offset)),
        )
        state.cart_items.append(item)
        ids.append(item.id)
        product_ids.append(product.id)
        available = variant.stock if variant is not None else product.stock
        if available >= quantity:
            in_stock_lines.append(
                {"product_id": product.id, "variant_id": item.variant_id, "quantity": quantity}
            )
        else:
            out_of_stock.append(product.id)
    return {
        "cart_item_ids": ids,
        "cart_product_ids": product_ids,
        "in_stock_lines": in_stock_lines,
        "out_of_stock_product_ids": out_of_stock,
    }


@builder("shop.past_order")
def past_order(
    ctx: ShopContext,
    *,
    lines: list[dict[str, Any]],
    status: str = "delivered",
    days_ago: int = 10,
    delivered_days_ago: int | None = None,
    address: str = "Home",
    card: str = "4242",
    delivery_option: str = "standard",
    exclude: str | None = None,
) -> dict[str, Any]:
    """An order in the history; outputs its id, number, line ids and line lists for bijections.

    `kept_lines` are the lines whose product is not named `exclude` (for "everything except ...").
    """
    resolved = []
    for line in lines:
        product = find_product(ctx, line["product"])
        variant = find_variant(ctx, product, line.get("size"), line.get("color"))
        _restock(ctx, product, variant, int(line.get("quantity", 1)) + 3)
        resolved.append((product, variant, int(line.get("quantity", 1))))
    placed = add_order(
        ctx,
        lines=resolved,
        status=status,
        days_ago=days_ago,
        address=find_address(ctx, address),
        payment=find_card(ctx, card),
        delivery_option=delivery_option,
        delivered_days_ago=delivered_days_ago,
    )
    return {
        "order_id": placed.order.id,
        "order_number": placed.order.number,
        "order_item_ids": [i.id for i in placed.items],
        "lines": [
            {
                "order_item_id": i.id,
                "product_id": i.product_id,
                "variant_id": i.variant_id,
                "quantity": i.quantity,
            }
            for i in placed.items
        ],
        "product_names": [i.product_name for i in placed.items],
        "kept_lines": [
            {"product_id": i.product_id, "variant_id": i.variant_id, "quantity": i.quantity}
            for i in placed.items
            if i.product_name != exclude
        ],
    }


@builder("shop.wishlist")
def wishlist(ctx: ShopContext, *, items: list[dict[str, Any]], clear: bool = True) -> dict[str, Any]:
    """Set the wishlist: each item names `product` and may force `stock` (0 = out of stock)."""
    state = _state(ctx)
    if clear:
        state.wishlist_items.clear()
    in_stock_products, in_stock_entries, out_entries = [], [], []
    for offset, entry in enumerate(items):
        product = find_product(ctx, entry["product"])
        if entry.get("stock") is not None:
            product.stock = int(entry["stock"])
            for variant in state.variants:
                if variant.product_id == product.id:
                    variant.stock = int(entry["stock"])
        saved = WishlistItem(
            id=ctx.new_id("w"), product_id=product.id, added_at=iso(ctx.now - timedelta(days=3 + 4 * offset))
        )
        state.wishlist_items.append(saved)
        if product.stock > 0:
            in_stock_products.append(product.id)
            in_stock_entries.append(saved.id)
        else:
            out_entries.append(saved.id)
    return {
        "in_stock_product_ids": in_stock_products,
        "in_stock_wishlist_ids": in_stock_entries,
        "out_of_stock_wishlist_ids": out_entries,
    }


@builder("shop.coupon")
def coupon(
    ctx: ShopContext,
    *,
    code: str,
    description: str,
    percent_off: int = 0,
    amount_off_cents: int = 0,
    min_subtotal_cents: int = 0,
    days_valid: int = 14,
) -> dict[str, Any]:
    """A promotion code valid for `days_valid` more days."""
    _state(ctx).coupons.append(
        Coupon(
            id=ctx.new_id("cp"),
            code=code,
            description=description,
            percent_off=percent_off,
            amount_off_cents=amount_off_cents,
            min_subtotal_cents=min_subtotal_cents,
            expires_at=iso(ctx.now + timedelta(days=days_valid)),
        )
    )
    return {"coupon_code": code}


@builder("shop.address")
def address(
    ctx: ShopContext,
    *,
    label: str,
    full_name: str,
    line1: str,
    city: str,
    region: str,
    postal_code: str,
    line2: str = "",
    phone: str = "",
) -> dict[str, Any]:
    """A saved (non-default) address."""
    saved = Address(
        id=ctx.new_id("a"),
        label=label,
        full_name=full_name,
        line1=line1,
        line2=line2,
        city=city,
        region=region,
        postal_code=postal_code,
        phone=phone,
    )
    _state(ctx).addresses.append(saved)
    return {"address_id": saved.id, "address_label": label, "full_name": full_name, "line1": line1}


@builder("shop.default_ids")
def default_ids(ctx: ShopContext) -> dict[str, Any]:
    """Ids of the default customer's records (Home, Work, Visa, Mastercard)."""
    return {
        "home_id": find_address(ctx, "Home").id,
        "work_id": find_address(ctx, "Work").id,
        "visa_id": find_card(ctx, "4242").id,
        "mastercard_id": find_card(ctx, "5100").id,
    }


@builder("shop.expired_card")
def expired_card(ctx: ShopContext, *, brand: str, last4: str, nickname: str = "") -> dict[str, Any]:
    """A saved card that expired last year."""
    card = PaymentMethod(
        id=ctx.new_id("pm"),
        brand=brand,
        last4=last4,
        exp_month=6,
        exp_year=ctx.now.year - 1,
        holder="Jordan Rivera",
        nickname=nickname,
    )
    _state(ctx).payment_methods.append(card)
    return {"expired_card_id": card.id}


@builder("shop.notification")
def notification(
    ctx: ShopContext,
    *,
    kind: str,
    title: str,
    body: str,
    hours_ago: int = 5,
    link: str | None = None,
    is_read: bool = False,
) -> dict[str, Any]:
    """A message in the notification centre."""
    note = Notification(
        id=ctx.new_id("n"),
        kind=kind,
        title=title,
        body=body,
        created_at=iso(ctx.now - timedelta(hours=hours_ago)),
        link=link,
        is_read=is_read,
    )
    _state(ctx).notifications.append(note)
    return {"notification_id": note.id}


@builder("shop.product_ref")
def product_ref(
    ctx: ShopContext,
    *,
    name: str,
    size: str | None = None,
    color: str | None = None,
    price_cents: int | None = None,
    rating: float | None = None,
) -> dict[str, Any]:
    """The id (and option id) of a catalogue product by name, restocked so it can be bought.

    `price_cents` / `rating` pin values a task's arithmetic or criteria depend on.
    """
    product = find_product(ctx, name)
    variant = find_variant(ctx, product, size, color)
    _restock(ctx, product, variant, 8)
    if price_cents is not None:
        product.price_cents = price_cents
        product.list_price_cents = None
    if rating is not None:
        product.rating = rating
    return {
        "product_id": product.id,
        "product_name": product.name,
        "variant_id": variant.id if variant else None,
    }


@builder("shop.recent_brand_lines")
def recent_brand_lines(ctx: ShopContext, *, brand: str) -> dict[str, Any]:
    """Every returnable line of `brand` in orders delivered within the return window."""
    state = _state(ctx)
    lines = []
    for order in state.orders:
        if order.status != "delivered" or order.delivered_at is None:
            continue
        if parse_iso(order.delivered_at) + timedelta(days=RETURN_WINDOW_DAYS) < ctx.now:
            continue
        for item in state.order_items:
            product = state.find("products", item.product_id)
            if (
                item.order_id == order.id
                and product is not None
                and product.brand == brand
                and product.returnable
            ):
                lines.append({"order_item_id": item.id, "quantity": item.quantity})
    return {"brand_lines": lines}


@builder("shop.existing_return")
def existing_return(
    ctx: ShopContext, *, order_item_id: str, quantity: int = 1, reason: str = "Changed my mind"
) -> dict[str, Any]:
    """A return already requested for an order line."""
    state = _state(ctx)
    item = state.find("order_items", order_item_id)
    if item is None:
        raise SeedError(f"no order line {order_item_id!r}")
    request = ReturnRequest(
        id=ctx.new_id("rt"),
        order_id=item.order_id,
        order_item_id=item.id,
        quantity=quantity,
        reason=reason,
        resolution="refund",
        status="requested",
        refund_cents=item.unit_price_cents * quantity,
        created_at=iso(ctx.now - timedelta(days=2)),
    )
    state.returns.append(request)
    return {"return_id": request.id}


@builder("shop.add_confusing_decoys")
def add_confusing_decoys(ctx: ShopContext, *, of: str, decoys: list[dict[str, Any]]) -> dict[str, Any]:
    """Near-copies of a product that tie it on a salient attribute; each decoy overrides some fields."""
    state = _state(ctx)
    original = find_product(ctx, of)
    options = [v for v in state.variants if v.product_id == original.id]
    made = []
    for overrides in decoys:
        product = original.model_copy(update={"id": ctx.new_id("p"), "featured": False, **overrides})
        state.products.append(product)
        sold_out = overrides.get("stock") == 0
        for variant in options:
            state.variants.append(
                variant.model_copy(
                    update={
                        "id": ctx.new_id("v"),
                        "product_id": product.id,
                        "sku": variant.sku + "-D",
                        "stock": 0 if sold_out else variant.stock,
                    }
                )
            )
        add_reviews(ctx, product=product, count=2)
        made.append(product.id)
    return {"decoy_ids": made}
