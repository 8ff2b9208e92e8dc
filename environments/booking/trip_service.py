"""Trips: pricing a stay, booking it, changing it and cancelling it under its policy.

Keyword-only functions over the typed state; they raise `SiteError` with a message the
traveller can act on and never touch HTTP.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from humantrace.environments.booking.models import Booking, BookingState, Card, Hotel, RatePlan, Room
from humantrace.environments.booking.pricing import (
    Price,
    cancellation_terms,
    free_cancel_deadline,
    is_available,
    long_date,
    parse_date,
    plan,
    policy_text,
    price,
    reference_for,
)
from humantrace.environments.booking.search_service import Stay, check_stay
from humantrace.environments.booking.views import card_label, card_view, hotel_card, trip_view
from humantrace.environments.seeding import to_iso
from humantrace.environments.sitekit import SiteError

EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


@dataclass(frozen=True)
class Selection:
    """A room and rate chosen for a stay, with its price."""

    hotel: Hotel
    room: Room
    rate: RatePlan
    stay: Stay
    cost: Price


def select(
    state: BookingState, *, hotel_id: str, room_id: str, rate_code: str, stay: Stay, now: datetime
) -> Selection:
    """Check that the room and rate can be booked for the stay and price it."""
    check_stay(stay, now=now)
    if not stay.dated:
        raise SiteError(422, "Choose your check-in and check-out dates first.")
    hotel = state.find("hotels", hotel_id)
    room = state.find("rooms", room_id)
    if hotel is None or room is None or room.hotel_id != hotel_id:
        raise SiteError(404, "That room is no longer offered by this property.")
    rate = plan(room, rate_code)
    if rate is None:
        raise SiteError(404, "That rate is no longer offered for this room.")
    if room.capacity < stay.per_room:
        raise SiteError(422, f"The {room.type} sleeps {room.capacity}; choose a larger room or more rooms.")
    if not is_available(room, stay.check_in or "", stay.check_out or ""):
        raise SiteError(
            409,
            f"The {room.type} is sold out on at least one of your nights. Try other dates or another room.",
        )
    cost = price(rate, check_in=stay.check_in or "", check_out=stay.check_out or "", rooms=stay.rooms)
    return Selection(hotel=hotel, room=room, rate=rate, stay=stay, cost=cost)


def quote_view(selection: Selection, state: BookingState, now: datetime) -> dict[str, Any]:
    """What the booking page shows before the traveller confirms."""
    stay = selection.stay
    return {
        "hotel": hotel_card(selection.hotel),
        "room": {
            "id": selection.room.id,
            "type": selection.room.type,
            "beds": selection.room.beds,
            "capacity": selection.room.capacity,
        },
        "rate": selection.rate.model_dump(),
        "policy": policy_text(selection.rate, stay.check_in or ""),
        "check_in": stay.check_in,
        "check_out": stay.check_out,
        "check_in_text": long_date(stay.check_in or ""),
        "check_out_text": long_date(stay.check_out or ""),
        "guests": stay.guests,
        "rooms": stay.rooms,
        "nights": selection.cost.nights,
        "nightly_cents": selection.cost.nightly_cents,
        "total_cents": selection.cost.total_cents,
        "cards": [card_view(card, now) for card in state.cards],
    }


def usable_card(state: BookingState, card_id: str, now: datetime) -> Card:
    """A saved card that has not expired."""
    card = state.find("cards", card_id)
    if card is None:
        raise SiteError(404, "That card is no longer saved. Choose another card.")
    if card_view(card, now)["expired"]:
        raise SiteError(422, f"Your {card_label(card)} has expired. Choose another card.")
    return card


def check_guest(name: str, email: str) -> tuple[str, str]:
    """The cleaned guest name and email, or a clear refusal."""
    name, email = " ".join(name.split()), email.strip()
    if len(name) < 2 or " " not in name:
        raise SiteError(422, "Enter the guest's first and last name.")
    if not EMAIL.match(email):
        raise SiteError(422, "Enter a valid email address for the confirmation.")
    return name, email


def book(
    state: BookingState,
    *,
    selection: Selection,
    guest_name: str,
    email: str,
    phone: str,
    special_requests: str,
    card_id: str,
    expected_total_cents: int | None,
    now: datetime,
    new_id: Callable[[str], str],
) -> Booking:
    """Create a confirmed booking for the selection."""
    if expected_total_cents is not None and expected_total_cents != selection.cost.total_cents:
        raise SiteError(
            409,
            f"The price for this stay has changed to ${selection.cost.total_cents / 100:,.2f}. Review the new price and confirm again.",
        )
    name, address = check_guest(guest_name, email)
    card = usable_card(state, card_id, now)
    booking_id = new_id("bk")
    booking = Booking(
        id=booking_id,
        reference=reference_for(booking_id),
        hotel_id=selection.hotel.id,
        room_id=selection.room.id,
        check_in=selection.stay.check_in or "",
        check_out=selection.stay.check_out or "",
        guests=selection.stay.guests,
        rooms=selection.stay.rooms,
        rate_plan=selection.rate.code,
        refundable=selection.rate.refundable,
        breakfast=selection.rate.breakfast,
        nightly_cents=selection.cost.nightly_cents,
        total_cents=selection.cost.total_cents,
        status="confirmed",
        guest_name=name,
        email=address,
        phone=phone.strip(),
        special_requests=special_requests.strip(),
        card_id=card.id,
        free_cancel_until=free_cancel_deadline(selection.rate, selection.stay.check_in or ""),
        created_at=to_iso(now),
    )
    state.bookings.append(booking)
    return booking


def find_booking(state: BookingState, booking_id: str) -> Booking:
    """A booking by id (or its confirmation code)."""
    found = state.find("bookings", booking_id) or next(
        (b for b in state.bookings if b.reference == booking_id), None
    )
    if found is None:
        raise SiteError(404, "We couldn't find that booking.")
    return found


def trips(state: BookingState, *, now: datetime) -> dict[str, Any]:
    """Every booking, split into upcoming (soonest first), past and cancelled (latest first)."""
    today = now.date()
    upcoming, past, cancelled = [], [], []
    for booking in state.bookings:
        view = trip_view(state, booking, now)
        if booking.status == "cancelled":
            cancelled.append(view)
        elif booking.status == "completed" or parse_date(booking.check_out) <= today:
            past.append(view)
        else:
            upcoming.append(view)
    upcoming.sort(key=lambda t: (t["check_in"], t["id"]))
    past.sort(key=lambda t: (t["check_in"], t["id"]), reverse=True)
    cancelled.sort(key=lambda t: (t["cancelled_at"] or "", t["id"]), reverse=True)
    return {"upcoming": upcoming, "past": past, "cancelled": cancelled}


@dataclass(frozen=True)
class Change:
    """What a traveller asks to change on a booking (None = keep)."""

    check_in: str | None = None
    check_out: str | None = None
    room_id: str | None = None
    rate_plan: str | None = None
    guests: int | None = None
    guest_name: str | None = None
    email: str | None = None
    phone: str | None = None
    special_requests: str | None = None

    @property
    def touches_stay(self) -> bool:
        return any(
            v is not None for v in (self.check_in, self.check_out, self.room_id, self.rate_plan, self.guests)
        )


@dataclass(frozen=True)
class ChangePlan:
    """A priced change: the new selection (None when only guest details change) and the difference."""

    selection: Selection | None
    new_total_cents: int
    difference_cents: int
    changed: list[str]


def plan_change(state: BookingState, *, booking: Booking, change: Change, now: datetime) -> ChangePlan:
    """Check and price a change without applying it."""
    view = trip_view(state, booking, now)
    if not view["can_edit_guest"]:
        raise SiteError(409, "This booking can no longer be changed.")
    changed: list[str] = []
    selection = None
    if change.touches_stay:
        if not view["can_change_stay"]:
            raise SiteError(409, view["change_blocked_reason"])
        stay = Stay(
            check_in=change.check_in or booking.check_in,
            check_out=change.check_out or booking.check_out,
            guests=change.guests or booking.guests,
            rooms=booking.rooms,
        )
        room_id = change.room_id or booking.room_id
        code = change.rate_plan or booking.rate_plan
        room = state.find("rooms", room_id)
        if room is not None and change.rate_plan is None and plan(room, code) is None:
            raise SiteError(422, f"The {room.type} doesn't offer your current rate; choose one of its rates.")
        selection = select(
            state, hotel_id=booking.hotel_id, room_id=room_id, rate_code=code, stay=stay, now=now
        )
        for name, before, after in (
            ("check_in", booking.check_in, stay.check_in),
            ("check_out", booking.check_out, stay.check_out),
            ("guests", booking.guests, stay.guests),
            ("room_id", booking.room_id, room_id),
            ("rate_plan", booking.rate_plan, code),
        ):
            if before != after:
                changed.append(name)
    for name in ("guest_name", "email", "phone", "special_requests"):
        value = getattr(change, name)
        if value is not None and value.strip() != getattr(booking, name):
            changed.append(name)
    if change.guest_name is not None or change.email is not None:
        check_guest(
            change.guest_name if change.guest_name is not None else booking.guest_name,
            change.email if change.email is not None else booking.email,
        )
    new_total = selection.cost.total_cents if selection else booking.total_cents
    return ChangePlan(
        selection=selection,
        new_total_cents=new_total,
        difference_cents=new_total - booking.total_cents,
        changed=changed,
    )


def apply_change(state: BookingState, *, booking: Booking, change: Change, now: datetime) -> ChangePlan:
    """Apply a change (after `plan_change` accepts it); the price difference goes to the same card."""
    planned = plan_change(state, booking=booking, change=change, now=now)
    if not planned.changed:
        raise SiteError(422, "Nothing to change: the booking already looks like that.")
    if planned.selection is not None:
        sel = planned.selection
        booking.check_in = sel.stay.check_in or booking.check_in
        booking.check_out = sel.stay.check_out or booking.check_out
        booking.guests = sel.stay.guests
        booking.room_id = sel.room.id
        booking.rate_plan = sel.rate.code
        booking.refundable = sel.rate.refundable
        booking.breakfast = sel.rate.breakfast
        booking.nightly_cents = sel.cost.nightly_cents
        booking.total_cents = sel.cost.total_cents
        booking.free_cancel_until = free_cancel_deadline(sel.rate, booking.check_in)
    if change.guest_name is not None or change.email is not None:
        name, email = check_guest(
            change.guest_name if change.guest_name is not None else booking.guest_name,
            change.email if change.email is not None else booking.email,
        )
        booking.guest_name, booking.email = name, email
    if change.phone is not None:
        booking.phone = change.phone.strip()
    if change.special_requests is not None:
        booking.special_requests = change.special_requests.strip()
    booking.modified_at = to_iso(now)
    return planned


def cancel(state: BookingState, *, booking: Booking, now: datetime) -> Booking:
    """Cancel under the booking's policy: refund and fee are recorded on the booking."""
    terms = cancellation_terms(booking, now)
    if not terms.can_cancel:
        raise SiteError(409, terms.summary)
    booking.status = "cancelled"
    booking.cancelled_at = to_iso(now)
    booking.refund_cents = terms.refund_cents
    booking.cancellation_fee_cents = terms.fee_cents
    return booking
