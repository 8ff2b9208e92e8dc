"""The customer's own records: profile, addresses, cards, notifications, reviews and sign-in."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from humantrace.environments.shop.cart_service import NewId
from humantrace.environments.shop.models import (
    Account,
    Address,
    Notification,
    PaymentMethod,
    Review,
    ShopState,
)
from humantrace.environments.shop.seed import card_label, iso
from humantrace.environments.sitekit import SiteError

NEWSLETTER_FREQUENCIES = ("daily", "weekly", "monthly", "never")
ADDRESS_FIELDS = ("label", "full_name", "line1", "line2", "city", "region", "postal_code", "country", "phone")
REQUIRED_ADDRESS_FIELDS = {
    "full_name": "full name",
    "line1": "street address",
    "city": "city",
    "region": "state",
    "postal_code": "ZIP code",
}


def account(state: ShopState) -> Account:
    """The one customer account."""
    return state.account[0]


def require_signed_in(state: ShopState) -> Account:
    """The account, or 401 when the shopper signed out."""
    customer = account(state)
    if not customer.signed_in:
        raise SiteError(401, "Please sign in to continue.")
    return customer


def update_account(state: ShopState, *, changes: dict[str, Any]) -> Account:
    """Apply profile and preference changes (only known fields)."""
    customer = account(state)
    if "full_name" in changes and not str(changes["full_name"]).strip():
        raise SiteError(400, "Your name can't be empty.")
    if "newsletter_frequency" in changes and changes["newsletter_frequency"] not in NEWSLETTER_FREQUENCIES:
        raise SiteError(400, "Choose how often you want the newsletter.")
    for field in ("full_name", "phone", "marketing_emails", "order_updates_sms", "newsletter_frequency"):
        if field in changes and changes[field] is not None:
            value = changes[field].strip() if isinstance(changes[field], str) else changes[field]
            setattr(customer, field, value)
    return customer


def _clean_address(fields: dict[str, Any]) -> dict[str, str]:
    cleaned = {key: str(fields.get(key) or "").strip() for key in ADDRESS_FIELDS}
    missing = [label for key, label in REQUIRED_ADDRESS_FIELDS.items() if not cleaned[key]]
    if missing:
        raise SiteError(400, "Please fill in the " + ", ".join(missing) + ".")
    cleaned["country"] = cleaned["country"] or "US"
    cleaned["label"] = cleaned["label"] or "Other"
    cleaned["region"] = cleaned["region"].upper()
    return cleaned


def _make_default(state: ShopState, address: Address) -> None:
    for other in state.addresses:
        if other.id != address.id and other.is_default:
            other.is_default = False
    address.is_default = True


def create_address(state: ShopState, *, fields: dict[str, Any], make_default: bool, new_id: NewId) -> Address:
    """Save a new address; the first one (or when asked) becomes the default."""
    address = Address(id=new_id("a"), **_clean_address(fields))
    state.addresses.append(address)
    if make_default or len(state.addresses) == 1:
        _make_default(state, address)
    return address


def update_address(state: ShopState, *, address_id: str, fields: dict[str, Any]) -> Address:
    """Edit a saved address."""
    address = state.find("addresses", address_id)
    if address is None:
        raise SiteError(404, "That address no longer exists.")
    merged = {key: getattr(address, key) for key in ADDRESS_FIELDS}
    merged.update({k: v for k, v in fields.items() if k in ADDRESS_FIELDS and v is not None})
    for key, value in _clean_address(merged).items():
        if getattr(address, key) != value:
            setattr(address, key, value)
    return address


def set_default_address(state: ShopState, *, address_id: str) -> Address:
    """Make one address the default for checkout."""
    address = state.find("addresses", address_id)
    if address is None:
        raise SiteError(404, "That address no longer exists.")
    _make_default(state, address)
    return address


def delete_address(state: ShopState, *, address_id: str) -> Address:
    """Remove an address that is not the default."""
    address = state.find("addresses", address_id)
    if address is None:
        raise SiteError(404, "That address no longer exists.")
    if address.is_default and len(state.addresses) > 1:
        raise SiteError(409, "This is your default address. Make another address the default first.")
    state.addresses.remove(address)
    return address


def _luhn_ok(number: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(number)):
        digit = int(char)
        if index % 2 == 1:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


def _card_brand(number: str) -> str:
    if number.startswith("4"):
        return "Visa"
    if number[:2] in {"51", "52", "53", "54", "55"} or number[:2] == "22":
        return "Mastercard"
    if number[:2] in {"34", "37"}:
        return "American Express"
    if number.startswith("6"):
        return "Discover"
    return "Card"


@dataclass(frozen=True)
class NewCard:
    """What the add-card form sends (the number itself is never stored)."""

    number: str
    exp_month: int
    exp_year: int
    holder: str
    nickname: str = ""


def add_payment_method(
    state: ShopState, *, card: NewCard, make_default: bool, now: datetime, new_id: NewId
) -> PaymentMethod:
    """Check and save a card: valid number, expiry in the future, a cardholder name."""
    digits = "".join(ch for ch in card.number if ch.isdigit())
    if not 13 <= len(digits) <= 19 or not _luhn_ok(digits):
        raise SiteError(400, "That card number doesn't look right. Check it and try again.")
    if not 1 <= card.exp_month <= 12:
        raise SiteError(400, "Choose the expiry month.")
    if (card.exp_year, card.exp_month) < (now.year, now.month):
        raise SiteError(400, "This card has expired.")
    if not card.holder.strip():
        raise SiteError(400, "Enter the name on the card.")
    brand = _card_brand(digits)
    if any(p.brand == brand and p.last4 == digits[-4:] for p in state.payment_methods):
        raise SiteError(409, f"{brand} ending in {digits[-4:]} is already saved.")
    method = PaymentMethod(
        id=new_id("pm"),
        brand=brand,
        last4=digits[-4:],
        exp_month=card.exp_month,
        exp_year=card.exp_year,
        holder=card.holder.strip(),
        nickname=card.nickname.strip(),
    )
    state.payment_methods.append(method)
    if make_default or len(state.payment_methods) == 1:
        set_default_payment(state, payment_method_id=method.id)
    return method


def set_default_payment(state: ShopState, *, payment_method_id: str) -> PaymentMethod:
    """Make one card the default for checkout."""
    method = state.find("payment_methods", payment_method_id)
    if method is None:
        raise SiteError(404, "That card is no longer saved.")
    for other in state.payment_methods:
        if other.id != method.id and other.is_default:
            other.is_default = False
    method.is_default = True
    return method


def delete_payment_method(state: ShopState, *, payment_method_id: str) -> PaymentMethod:
    """Remove a card that is not the default."""
    method = state.find("payment_methods", payment_method_id)
    if method is None:
        raise SiteError(404, "That card is no longer saved.")
    if method.is_default and len(state.payment_methods) > 1:
        raise SiteError(
            409, f"{card_label(method)} is your default card. Make another card the default first."
        )
    state.payment_methods.remove(method)
    return method


def payment_view(method: PaymentMethod, now: datetime) -> dict[str, Any]:
    """A card as the wallet page shows it."""
    return {
        **method.model_dump(),
        "label": card_label(method),
        "expired": (method.exp_year, method.exp_month) < (now.year, now.month),
    }


def mark_notification_read(state: ShopState, *, notification_id: str) -> Notification:
    """Opening a notification marks it read."""
    note = state.find("notifications", notification_id)
    if note is None:
        raise SiteError(404, "That notification no longer exists.")
    if not note.is_read:
        note.is_read = True
    return note


def mark_all_read(state: ShopState) -> list[Notification]:
    """Mark every unread notification read; returns the ones that changed."""
    changed = [n for n in state.notifications if not n.is_read]
    for note in changed:
        note.is_read = True
    return changed


def post_review(
    state: ShopState, *, product_id: str, rating: int, title: str, body: str, now: datetime, new_id: NewId
) -> Review:
    """The customer's review of a product (one per product)."""
    product = state.find("products", product_id)
    if product is None:
        raise SiteError(404, "This product is no longer available.")
    if not 1 <= rating <= 5:
        raise SiteError(400, "Choose a star rating from 1 to 5.")
    if not title.strip() or not body.strip():
        raise SiteError(400, "Add a headline and a few words about the product.")
    if any(r.product_id == product.id and r.author_is_me for r in state.reviews):
        raise SiteError(409, "You've already reviewed this product.")
    bought = any(
        i.product_id == product.id
        and (o := state.find("orders", i.order_id)) is not None
        and o.status == "delivered"
        for i in state.order_items
    )
    customer = account(state)
    first, _, last = customer.full_name.partition(" ")
    review = Review(
        id=new_id("r"),
        product_id=product.id,
        author=f"{first} {last[:1]}." if last else first,
        author_is_me=True,
        rating=rating,
        title=title.strip(),
        body=body.strip(),
        created_at=iso(now),
        verified_purchase=bought,
        helpful_count=0,
    )
    state.reviews.append(review)
    return review


def sign_in(state: ShopState, *, email: str) -> Account:
    """Sign the customer back in (the store remembers this device, so no password is asked)."""
    customer = account(state)
    if email.strip().lower() != customer.email.lower():
        raise SiteError(401, "We don't recognise that email address.")
    customer.signed_in = True
    return customer


def sign_out(state: ShopState) -> Account:
    """Sign the customer out."""
    customer = account(state)
    customer.signed_in = False
    return customer
