"""The shop's default state and the entity-making helpers the task builders share.

`build_default_state` lays out a whole store for one customer: about sixty products over eight
categories with options and reviews, two addresses, two cards, a few coupons, past orders in every
status, a wishlist and some notifications. Every random draw goes through `ctx.rng` in a fixed
order, so the same seed gives the same store.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from humantrace.environments.seeding import SeedContext
from humantrace.environments.shop.catalog import (
    CATEGORIES,
    FIRST_NAMES,
    LAST_INITIALS,
    PRODUCTS,
    REVIEW_LINES,
    ProductSpec,
)
from humantrace.environments.shop.models import (
    Account,
    Address,
    Category,
    Coupon,
    Notification,
    Order,
    OrderItem,
    PaymentMethod,
    Product,
    Review,
    ShopState,
    Variant,
    WishlistItem,
)
from humantrace.environments.shop.pricing import quote

# What this site's builders see: `ctx.state` is typed as the site's state.
ShopContext = SeedContext[ShopState]

CUSTOMER_NAME = "Jordan Rivera"
CUSTOMER_EMAIL = "jordan.rivera@example.com"


def iso(moment: datetime) -> str:
    """An ISO-8601 UTC string with a trailing Z (the format of every stored datetime)."""
    return moment.astimezone(UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_iso(value: str) -> datetime:
    """The datetime of a stored ISO string."""
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def price_cents(rng: random.Random, low: int, high: int) -> int:
    """A shop-like price between two whole-dollar bounds (ends in .99, .49 or .95)."""
    return rng.randint(low, high) * 100 - rng.choice((1, 1, 51, 5))


def category_id(state: ShopState, slug: str) -> str:
    """The id of the category with this slug."""
    for category in state.categories:
        if category.slug == slug:
            return category.id
    raise KeyError(f"no category {slug!r}")


def sku_part(text: str) -> str:
    return "".join(ch for ch in text.upper() if ch.isalnum())[:3]


@dataclass(frozen=True)
class PlantedProduct:
    """A product just added to the state with its option variants."""

    product: Product
    variants: list[Variant]

    def variant(self, *, size: str | None = None, color: str | None = None) -> Variant:
        """The variant with this size and colour."""
        for variant in self.variants:
            if variant.size == size and variant.color == color:
                return variant
        raise KeyError(f"{self.product.name} has no variant size={size} color={color}")


@dataclass(frozen=True)
class PastOrder:
    """An order planted in the seed and its lines."""

    order: Order
    items: list[OrderItem]


def add_product(
    ctx: ShopContext,
    *,
    category_slug: str,
    name: str,
    brand: str,
    icon: str,
    price: int,
    description: str,
    features: list[str] | tuple[str, ...] = (),
    sizes: list[str] | tuple[str, ...] = (),
    colors: list[str] | tuple[str, ...] = (),
    rating: float,
    review_count: int,
    stock: int,
    list_price: int | None = None,
    returnable: bool = True,
    featured: bool = False,
    days_old: int = 60,
    variant_stock: dict[tuple[str | None, str | None], int] | None = None,
) -> PlantedProduct:
    """Append a product (and one variant per size × colour) and return both."""
    state: ShopState = ctx.state
    product = Product(
        id=ctx.new_id("p"),
        category_id=category_id(state, category_slug),
        name=name,
        brand=brand,
        description=description,
        features=list(features),
        price_cents=price,
        list_price_cents=list_price,
        rating=round(rating, 1),
        review_count=review_count,
        stock=stock,
        featured=featured,
        returnable=returnable,
        image_hue=ctx.rng.randint(0, 359),
        image_icon=icon,
        created_at=iso(ctx.now - timedelta(days=days_old)),
    )
    state.products.append(product)
    variants: list[Variant] = []
    size_axis: list[str | None] = list(sizes) or [None]
    color_axis: list[str | None] = list(colors) or [None]
    if sizes or colors:
        for size in size_axis:
            for color in color_axis:
                if variant_stock is not None:
                    amount = variant_stock.get((size, color), 0)
                else:
                    amount = ctx.rng.choice((0, 2, 4, 7, 9, 12, 15, 20)) if stock else 0
                variant = Variant(
                    id=ctx.new_id("v"),
                    product_id=product.id,
                    sku=f"{sku_part(brand)}-{product.id[2:]}-{sku_part(size or 'OS')}-{sku_part(color or 'STD')}",
                    size=size,
                    color=color,
                    stock=amount,
                )
                variants.append(variant)
        state.variants.extend(variants)
        product.stock = sum(v.stock for v in variants)
    return PlantedProduct(product=product, variants=variants)


def add_reviews(ctx: ShopContext, *, product: Product, count: int) -> None:
    """A few written reviews whose stars follow the product's average rating."""
    for _ in range(count):
        stars = max(1, min(5, round(product.rating + ctx.rng.choice((-2, -1, 0, 0, 0, 1)))))
        title, body = ctx.rng.choice(REVIEW_LINES[stars])
        author = f"{ctx.rng.choice(FIRST_NAMES)} {ctx.rng.choice(LAST_INITIALS)}."
        ctx.state.reviews.append(
            Review(
                id=ctx.new_id("r"),
                product_id=product.id,
                author=author,
                rating=stars,
                title=title,
                body=body,
                created_at=iso(
                    ctx.now - timedelta(days=ctx.rng.randint(3, 300), hours=ctx.rng.randint(0, 23))
                ),
                helpful_count=ctx.rng.randint(0, 40),
            )
        )


def plant_spec(
    ctx: ShopContext, *, category_slug: str, spec: ProductSpec, featured: bool = False
) -> PlantedProduct:
    """Add one catalogue template with drawn price, rating, stock and reviews."""
    rng = ctx.rng
    price = price_cents(rng, *spec.price)
    on_sale = rng.random() < 0.25
    planted = add_product(
        ctx,
        category_slug=category_slug,
        name=spec.name,
        brand=spec.brand,
        icon=spec.icon,
        price=price,
        list_price=price + rng.randint(3, 15) * 100 if on_sale else None,
        description=spec.description,
        features=spec.features,
        sizes=spec.sizes,
        colors=spec.colors,
        rating=rng.randint(34, 48) / 10,
        review_count=rng.randint(12, 2400),
        stock=rng.choice((0, 3, 8, 15, 25, 40, 60)) if rng.random() < 0.93 else 0,
        returnable=spec.returnable,
        featured=featured,
        days_old=rng.randint(5, 400),
    )
    add_reviews(ctx, product=planted.product, count=rng.randint(2, 4))
    return planted


def add_order(
    ctx: ShopContext,
    *,
    lines: list[tuple[Product, Variant | None, int]],
    status: str,
    days_ago: int,
    address: Address,
    payment: PaymentMethod,
    delivery_option: str = "standard",
    delivered_days_ago: int | None = None,
) -> PastOrder:
    """Append a past order with its lines; dates follow the status (shipped a day after placing)."""
    state: ShopState = ctx.state
    placed = ctx.now - timedelta(days=days_ago, hours=ctx.rng.randint(1, 9))
    order_id = ctx.new_id("o")
    items = [
        OrderItem(
            id=ctx.new_id("oi"),
            order_id=order_id,
            product_id=product.id,
            variant_id=variant.id if variant else None,
            product_name=product.name,
            size=variant.size if variant else None,
            color=variant.color if variant else None,
            quantity=quantity,
            unit_price_cents=product.price_cents,
        )
        for product, variant, quantity in lines
    ]
    totals = quote(
        subtotal_cents=sum(i.unit_price_cents * i.quantity for i in items),
        coupon=None,
        delivery_option=delivery_option,
    )
    shipped_at = delivered_at = cancelled_at = None
    if status in ("shipped", "delivered"):
        shipped_at = iso(placed + timedelta(days=1))
    if status == "delivered":
        delivered = ctx.now - timedelta(
            days=delivered_days_ago if delivered_days_ago is not None else max(0, days_ago - 4)
        )
        delivered_at = iso(delivered)
    if status == "cancelled":
        cancelled_at = iso(placed + timedelta(hours=3))
    order = Order(
        id=order_id,
        number=f"{ctx.rng.randint(111, 114)}-{ctx.rng.randint(1000000, 9999999)}",
        status=status,
        placed_at=iso(placed),
        shipped_at=shipped_at,
        delivered_at=delivered_at,
        cancelled_at=cancelled_at,
        cancel_reason="Ordered by mistake" if status == "cancelled" else None,
        address_id=address.id,
        ship_to=address_line(address),
        payment_method_id=payment.id,
        payment_label=card_label(payment),
        delivery_option=delivery_option,
        subtotal_cents=totals.subtotal_cents,
        shipping_cents=totals.shipping_cents,
        discount_cents=totals.discount_cents,
        tax_cents=totals.tax_cents,
        total_cents=totals.total_cents,
    )
    state.orders.append(order)
    state.order_items.extend(items)
    return PastOrder(order=order, items=items)


def address_line(address: Address) -> str:
    """One-line form of an address as printed on an order."""
    street = f"{address.line1}, {address.line2}" if address.line2 else address.line1
    return f"{address.full_name}, {street}, {address.city}, {address.region} {address.postal_code}"


def card_label(card: PaymentMethod) -> str:
    """How a card is named on an order ("Visa ending in 4242")."""
    return f"{card.brand} ending in {card.last4}"


def build_default_state(ctx: ShopContext) -> None:
    """The store every task starts from (then the task's builders add its situation)."""
    state: ShopState = ctx.state
    for position, spec in enumerate(CATEGORIES):
        state.categories.append(
            Category(
                id=ctx.new_id("cat"),
                name=spec.name,
                slug=spec.slug,
                description=spec.description,
                position=position,
            )
        )
    planted: list[PlantedProduct] = []
    for spec_category in CATEGORIES:
        templates = PRODUCTS[spec_category.slug]
        featured_index = ctx.rng.randrange(len(templates))
        for index, template in enumerate(templates):
            planted.append(
                plant_spec(
                    ctx, category_slug=spec_category.slug, spec=template, featured=index == featured_index
                )
            )
    _add_customer(ctx)
    _add_history(ctx, planted)


def _add_customer(ctx: ShopContext) -> None:
    state: ShopState = ctx.state
    state.account.append(
        Account(id="acct-1", full_name=CUSTOMER_NAME, email=CUSTOMER_EMAIL, phone="(503) 555-0142")
    )
    state.addresses.extend(
        [
            Address(
                id=ctx.new_id("a"),
                label="Home",
                full_name=CUSTOMER_NAME,
                line1="1458 Maple Avenue",
                line2="Apt 3B",
                city="Portland",
                region="OR",
                postal_code="97214",
                phone="(503) 555-0142",
                is_default=True,
            ),
            Address(
                id=ctx.new_id("a"),
                label="Work",
                full_name=CUSTOMER_NAME,
                line1="200 Harbor Street",
                line2="Suite 900",
                city="Portland",
                region="OR",
                postal_code="97204",
                phone="(503) 555-0188",
            ),
        ]
    )
    year = ctx.now.year
    state.payment_methods.extend(
        [
            PaymentMethod(
                id=ctx.new_id("pm"),
                brand="Visa",
                last4="4242",
                exp_month=8,
                exp_year=year + 2,
                holder=CUSTOMER_NAME,
                nickname="Everyday card",
                is_default=True,
            ),
            PaymentMethod(
                id=ctx.new_id("pm"),
                brand="Mastercard",
                last4="5100",
                exp_month=11,
                exp_year=year + 1,
                holder=CUSTOMER_NAME,
                nickname="Travel card",
            ),
        ]
    )
    state.coupons.extend(
        [
            Coupon(
                id=ctx.new_id("cp"),
                code="SAVE10",
                description="10% off orders of $50 or more",
                percent_off=10,
                min_subtotal_cents=5000,
                expires_at=iso(ctx.now + timedelta(days=45)),
            ),
            Coupon(
                id=ctx.new_id("cp"),
                code="TAKE5",
                description="$5 off orders of $25 or more",
                amount_off_cents=500,
                min_subtotal_cents=2500,
                expires_at=iso(ctx.now + timedelta(days=20)),
            ),
            Coupon(
                id=ctx.new_id("cp"),
                code="WINTER20",
                description="20% off winter styles",
                percent_off=20,
                expires_at=iso(ctx.now - timedelta(days=10)),
                active=False,
            ),
        ]
    )


def _pick_line(ctx: ShopContext, planted: list[PlantedProduct]) -> tuple[Product, Variant | None, int]:
    choice = planted[ctx.rng.randrange(len(planted))]
    variant = ctx.rng.choice(choice.variants) if choice.variants else None
    return choice.product, variant, ctx.rng.choice((1, 1, 1, 2))


def _add_history(ctx: ShopContext, planted: list[PlantedProduct]) -> None:
    state: ShopState = ctx.state
    home, work = state.addresses[0], state.addresses[1]
    visa, master = state.payment_methods[0], state.payment_methods[1]
    history = (
        ("delivered", 95, home, visa),
        ("delivered", 52, work, master),
        ("cancelled", 30, home, visa),
        ("delivered", 21, home, visa),
        ("shipped", 3, work, visa),
    )
    for status, days_ago, address, card in history:
        lines = [_pick_line(ctx, planted) for _ in range(ctx.rng.randint(1, 3))]
        unique: dict[str, tuple[Product, Variant | None, int]] = {line[0].id: line for line in lines}
        add_order(
            ctx, lines=list(unique.values()), status=status, days_ago=days_ago, address=address, payment=card
        )
    for _ in range(2):
        product = planted[ctx.rng.randrange(len(planted))].product
        if any(w.product_id == product.id for w in state.wishlist_items):
            continue
        state.wishlist_items.append(
            WishlistItem(
                id=ctx.new_id("w"),
                product_id=product.id,
                added_at=iso(ctx.now - timedelta(days=ctx.rng.randint(2, 40))),
            )
        )
    shipped = state.orders[-1]
    notes = (
        (
            "order",
            f"Order {shipped.number} has shipped",
            "Your package is on its way and should arrive in 2–3 days.",
            2,
            f"/orders/{shipped.id}",
            False,
        ),
        (
            "promo",
            "Spring refresh: up to 30% off outdoor gear",
            "Trail-ready packs, bottles and more, this week only.",
            1,
            "/c/sports-outdoors",
            False,
        ),
        (
            "account",
            "New sign-in to your account",
            "We noticed a sign-in from Chrome on Linux. If this was you, no action is needed.",
            6,
            "/account",
            True,
        ),
        (
            "promo",
            "Use TAKE5 for $5 off",
            "Take $5 off any order of $25 or more before the end of the month.",
            9,
            None,
            True,
        ),
    )
    for kind, title, body, days_ago, link, is_read in notes:
        state.notifications.append(
            Notification(
                id=ctx.new_id("n"),
                kind=kind,
                title=title,
                body=body,
                created_at=iso(ctx.now - timedelta(days=days_ago, hours=ctx.rng.randint(0, 8))),
                is_read=is_read,
                link=link,
            )
        )
