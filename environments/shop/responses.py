"""The shop API's answers, one pydantic model per response (see `environments/responses.py`).

Money is integer cents, datetimes ISO-8601 strings, as in the state (`models.py`); entities the API
returns whole (an address, a notification) are the state's own models.
"""

from __future__ import annotations

from humantrace.environments.responses import Answer, Removed
from humantrace.environments.shop.models import Address, CartItem, Notification, Review, WishlistItem

# ---------------------------------------------------------------- session


class SignedOut(Answer):
    """Header data while signed out."""

    signed_in: bool
    name: None
    cart_count: int
    unread_notifications: int


class Me(Answer):
    """Header data: who is signed in, cart count, unread notifications."""

    signed_in: bool
    name: str
    first_name: str
    email: str
    cart_count: int
    unread_notifications: int


class SignedIn(Answer):
    signed_in: bool
    name: str


class Remembered(Answer):
    name: str
    email: str


class LoginHint(Answer):
    remembered: Remembered
    signed_in: bool


class SignedOutNow(Answer):
    signed_in: bool


# ---------------------------------------------------------------- catalogue


class CategoryRef(Answer):
    slug: str
    name: str


class CategoryInfo(CategoryRef):
    description: str


class CategoryEntry(CategoryInfo):
    id: str


class ProductImage(Answer):
    hue: int
    icon: str


class ProductCard(Answer):
    """The short form of a product shown in grids and lists."""

    id: str
    name: str
    brand: str
    price_cents: int
    list_price_cents: int | None
    rating: float
    review_count: int
    in_stock: bool
    low_stock: bool
    has_options: bool
    image: ProductImage
    category: CategoryRef | None


class Home(Answer):
    categories: list[CategoryEntry]
    featured: list[ProductCard]
    deals: list[ProductCard]
    new_arrivals: list[ProductCard]


class Categories(Answer):
    categories: list[CategoryEntry]


class Facets(Answer):
    brands: list[str]
    price_max_cents: int


class SearchResults(Answer):
    query: str
    category: CategoryInfo | None
    sort: str
    sorts: dict[str, str]
    total: int
    page: int
    pages: int
    items: list[ProductCard]
    facets: Facets


class VariantStock(Answer):
    id: str
    size: str | None
    color: str | None
    stock: int
    sku: str


class ReviewView(Answer):
    id: str
    author: str
    mine: bool
    rating: int
    title: str
    body: str
    created_at: str
    verified_purchase: bool
    helpful_count: int


class ProductDetail(ProductCard):
    description: str
    features: list[str]
    stock: int
    returnable: bool
    sizes: list[str]
    colors: list[str]
    variants: list[VariantStock]
    reviews: list[ReviewView]
    in_wishlist: bool
    related: list[ProductCard]


class ReviewPosted(Answer):
    review: Review
    message: str


# ---------------------------------------------------------------- cart and wishlist


class VariantRef(Answer):
    id: str
    size: str | None
    color: str | None


class CartLine(Answer):
    id: str
    product: ProductCard
    variant: VariantRef | None
    quantity: int
    available: int
    unit_price_cents: int
    line_total_cents: int


class Cart(Answer):
    items: list[CartLine]
    count: int
    subtotal_cents: int


class CartChanged(Answer):
    item: CartItem
    cart: Cart
    message: str


class CartLineRemoved(Removed):
    cart: Cart


class WishlistEntry(Answer):
    id: str
    added_at: str
    product: ProductCard


class Wishlist(Answer):
    items: list[WishlistEntry]


class WishlistSaved(Answer):
    item: WishlistItem
    message: str


# ---------------------------------------------------------------- checkout and orders


class PaymentView(Answer):
    """A saved card as the wallet page shows it."""

    id: str
    brand: str
    last4: str
    exp_month: int
    exp_year: int
    holder: str
    nickname: str
    is_default: bool
    label: str
    expired: bool


class CheckoutOptions(Answer):
    cart: Cart
    addresses: list[Address]
    payment_methods: list[PaymentView]
    delivery_options: dict[str, str]


class CouponRef(Answer):
    code: str
    description: str


class Quote(Answer):
    subtotal_cents: int
    discount_cents: int
    shipping_cents: int
    tax_cents: int
    total_cents: int
    coupon: CouponRef | None


class OrderLine(Answer):
    id: str
    product: ProductCard | None
    product_id: str
    name: str
    size: str | None
    color: str | None
    quantity: int
    unit_price_cents: int
    returned_quantity: int
    final_sale: bool
    can_return: bool


class ReturnView(Answer):
    id: str
    order_id: str
    order_number: str | None
    item_name: str | None
    size: str | None
    color: str | None
    quantity: int
    reason: str
    comment: str
    resolution: str
    status: str
    refund_cents: int
    created_at: str


class OrderSummary(Answer):
    """An order as the orders list shows it."""

    id: str
    number: str
    status: str
    placed_at: str
    shipped_at: str | None
    delivered_at: str | None
    cancelled_at: str | None
    total_cents: int
    ship_to: str
    items: list[OrderLine]
    can_cancel: bool
    can_return: bool
    return_by: str | None


class OrderDetail(OrderSummary):
    """An order as its own page shows it: money lines, returns, and the reasons the forms offer."""

    cancel_reason: str | None
    payment_label: str
    delivery_option: str
    coupon_code: str | None
    subtotal_cents: int
    shipping_cents: int
    discount_cents: int
    tax_cents: int
    returns: list[ReturnView]
    cancel_reasons: list[str]
    return_reasons: list[str]


class Orders(Answer):
    orders: list[OrderSummary]


class OrderChanged(Answer):
    order: OrderDetail
    message: str


class ReturnsRequested(Answer):
    returns: list[ReturnView]
    message: str


class Returns(Answer):
    returns: list[ReturnView]


# ---------------------------------------------------------------- account


class Addresses(Answer):
    addresses: list[Address]


class AddressChanged(Answer):
    address: Address
    message: str


class PaymentMethods(Answer):
    payment_methods: list[PaymentView]
    current_year: int


class PaymentChanged(Answer):
    payment_method: PaymentView
    message: str


class AccountView(Answer):
    id: str
    full_name: str
    email: str
    phone: str
    marketing_emails: bool
    order_updates_sms: bool
    newsletter_frequency: str


class AccountPage(Answer):
    account: AccountView
    newsletter_frequencies: list[str]


class AccountSaved(Answer):
    account: AccountView
    message: str


class Notifications(Answer):
    notifications: list[Notification]
    unread: int


class NotificationRead(Answer):
    notification: Notification


class AllRead(Answer):
    marked: int
    message: str
