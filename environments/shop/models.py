"""The shop's state: one typed collection per kind of entity.

Every entity has a string `id`; money is integer cents; datetimes are ISO-8601 strings in UTC
(written from the session's virtual clock). Orders keep their lines in a separate `order_items`
collection so that set-valued obligations ("one line per product") match diff entries one to one.
"""

from __future__ import annotations

from humantrace.environments.state import Entity, EnvState, state_helper


class Category(Entity):
    """A department of the catalogue ("Shoes")."""

    name: str
    slug: str
    description: str
    position: int


class Product(Entity):
    """A catalogue item. Options (size, colour) live in `variants`."""

    category_id: str
    name: str
    brand: str
    description: str
    features: list[str]
    price_cents: int
    list_price_cents: int | None = None
    rating: float
    review_count: int
    stock: int
    featured: bool = False
    returnable: bool = True
    image_hue: int
    image_icon: str
    created_at: str


class Variant(Entity):
    """One purchasable option of a product (size and/or colour) with its own stock."""

    product_id: str
    sku: str
    size: str | None = None
    color: str | None = None
    stock: int


class Review(Entity):
    """A customer review of a product; `author_is_me` marks the signed-in customer's own."""

    product_id: str
    author: str
    author_is_me: bool = False
    rating: int
    title: str
    body: str
    created_at: str
    verified_purchase: bool = True
    helpful_count: int = 0


class CartItem(Entity):
    """A line of the shopping cart."""

    product_id: str
    variant_id: str | None = None
    quantity: int
    added_at: str


class WishlistItem(Entity):
    """A product saved for later."""

    product_id: str
    variant_id: str | None = None
    added_at: str


class Address(Entity):
    """A saved shipping address; exactly one is the default."""

    label: str
    full_name: str
    line1: str
    line2: str = ""
    city: str
    region: str
    postal_code: str
    country: str = "US"
    phone: str = ""
    is_default: bool = False


class PaymentMethod(Entity):
    """A saved card (only brand, last four digits and expiry are kept)."""

    brand: str
    last4: str
    exp_month: int
    exp_year: int
    holder: str
    nickname: str = ""
    is_default: bool = False


class Order(Entity):
    """A placed order with its totals and a snapshot of where it ships."""

    number: str
    status: str  # processing | shipped | delivered | cancelled
    placed_at: str
    shipped_at: str | None = None
    delivered_at: str | None = None
    cancelled_at: str | None = None
    cancel_reason: str | None = None
    address_id: str
    ship_to: str
    payment_method_id: str
    payment_label: str
    delivery_option: str  # standard | express
    coupon_code: str | None = None
    subtotal_cents: int
    shipping_cents: int
    discount_cents: int
    tax_cents: int
    total_cents: int


class OrderItem(Entity):
    """One line of an order, with the product's name and price at the time of purchase."""

    order_id: str
    product_id: str
    variant_id: str | None = None
    product_name: str
    size: str | None = None
    color: str | None = None
    quantity: int
    unit_price_cents: int


class ReturnRequest(Entity):
    """A return of some quantity of one order line."""

    order_id: str
    order_item_id: str
    quantity: int
    reason: str
    comment: str = ""
    resolution: str  # refund | replacement
    status: str  # requested | approved | refunded
    refund_cents: int
    created_at: str


class Notification(Entity):
    """A message in the account's notification centre."""

    kind: str  # order | promo | account | recall
    title: str
    body: str
    created_at: str
    is_read: bool = False
    link: str | None = None


class Account(Entity):
    """The signed-in customer (a single-entity collection)."""

    full_name: str
    email: str
    phone: str
    marketing_emails: bool = True
    order_updates_sms: bool = False
    newsletter_frequency: str = "weekly"  # daily | weekly | monthly | never
    signed_in: bool = True


class Coupon(Entity):
    """A promotion code; either percent_off or amount_off_cents applies to the subtotal."""

    code: str
    description: str
    percent_off: int = 0
    amount_off_cents: int = 0
    min_subtotal_cents: int = 0
    category_id: str | None = None
    expires_at: str
    active: bool = True


class ShopState(EnvState):
    """The whole shop as seen by one customer."""

    categories: list[Category] = []
    products: list[Product] = []
    variants: list[Variant] = []
    reviews: list[Review] = []
    cart_items: list[CartItem] = []
    wishlist_items: list[WishlistItem] = []
    addresses: list[Address] = []
    payment_methods: list[PaymentMethod] = []
    orders: list[Order] = []
    order_items: list[OrderItem] = []
    returns: list[ReturnRequest] = []
    notifications: list[Notification] = []
    account: list[Account] = []
    coupons: list[Coupon] = []

    # State helpers (pure; callable from task expressions as state.name(...) or initial.name(...)).

    @state_helper
    def product_by_name(self, name: str) -> Product | None:
        """The product whose name is exactly `name`, or None."""
        return next((p for p in self.products if p.name == name), None)

    @state_helper
    def stock_of(self, product_id: str, variant_id: str | None = None) -> int:
        """Units in stock of a product: of `variant_id` when given, else the product's own stock."""
        if variant_id is not None:
            return next(
                (v.stock for v in self.variants if v.id == variant_id and v.product_id == product_id), 0
            )
        return next((p.stock for p in self.products if p.id == product_id), 0)

    @state_helper
    def cart_quantity(self, product_id: str) -> int:
        """Units of `product_id` in the cart, over all its lines (0 when none)."""
        return sum(item.quantity for item in self.cart_items if item.product_id == product_id)

    @state_helper
    def order_lines(self, order_id: str) -> list[OrderItem]:
        """The lines of order `order_id`, in list order."""
        return [item for item in self.order_items if item.order_id == order_id]

    @state_helper
    def default_address(self) -> Address | None:
        """The default shipping address, or None."""
        return next((a for a in self.addresses if a.is_default), None)
