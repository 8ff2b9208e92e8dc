"""Request bodies of the shop's public API."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AddToCart(Body):
    product_id: str
    variant_id: str | None = None
    quantity: int = Field(default=1, ge=1, le=10)


class SetQuantity(Body):
    quantity: int = Field(ge=0, le=10)


class AddToWishlist(Body):
    product_id: str


class CheckoutQuote(Body):
    delivery_option: str = "standard"
    coupon_code: str | None = None


class PlaceOrder(Body):
    address_id: str
    payment_method_id: str
    delivery_option: str = "standard"
    coupon_code: str | None = None


class CancelOrder(Body):
    reason: str


class ReturnLine(Body):
    order_item_id: str
    quantity: int = Field(default=1, ge=1)


class RequestReturn(Body):
    items: list[ReturnLine]
    reason: str
    resolution: str = "refund"
    comment: str = ""


class AddressFields(Body):
    label: str | None = None
    full_name: str | None = None
    line1: str | None = None
    line2: str | None = None
    city: str | None = None
    region: str | None = None
    postal_code: str | None = None
    country: str | None = None
    phone: str | None = None
    make_default: bool = False


class AddCard(Body):
    number: str
    exp_month: int
    exp_year: int
    holder: str
    nickname: str = ""
    make_default: bool = False


class AccountChanges(Body):
    full_name: str | None = None
    phone: str | None = None
    marketing_emails: bool | None = None
    order_updates_sms: bool | None = None
    newsletter_frequency: str | None = None


class PostReview(Body):
    rating: int
    title: str
    body: str


class SignIn(Body):
    email: str
