"""Request bodies of Staywell's public API."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StayFields(Body):
    hotel_id: str
    room_id: str
    rate_plan: str
    check_in: str
    check_out: str
    guests: int = Field(default=2, ge=1, le=16)
    rooms: int = Field(default=1, ge=1, le=4)


class Quote(StayFields):
    """Price a room and rate for a stay before booking."""


class NewBooking(StayFields):
    guest_name: str
    email: str
    phone: str = ""
    special_requests: str = Field(default="", max_length=500)
    card_id: str
    expected_total_cents: int | None = None


class BookingChange(Body):
    check_in: str | None = None
    check_out: str | None = None
    room_id: str | None = None
    rate_plan: str | None = None
    guests: int | None = Field(default=None, ge=1, le=16)
    guest_name: str | None = None
    email: str | None = None
    phone: str | None = None
    special_requests: str | None = Field(default=None, max_length=500)


class NewList(Body):
    name: str


class SaveHotel(Body):
    hotel_id: str


class NewReview(Body):
    booking_id: str
    rating: int = Field(ge=1, le=10)
    title: str
    body: str
    traveler_type: str = "Couple"


class NewCard(Body):
    number: str
    exp_month: int
    exp_year: int
    holder: str
    make_default: bool = False


class ProfileChanges(Body):
    full_name: str | None = None
    email: str | None = None
    phone: str | None = None
