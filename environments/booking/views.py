"""How entities look in API answers: plain dicts with the derived text pages show.

Shared by the search, trip and account services so a hotel card or a trip summary has one shape
everywhere.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from humantrace.environments.booking.catalog import score_word
from humantrace.environments.booking.models import Booking, BookingState, Card, Hotel, Room
from humantrace.environments.booking.pricing import (
    cancellation_terms,
    long_date,
    night_count,
    parse_date,
    plan,
)


def hotel_card(hotel: Hotel) -> dict[str, Any]:
    """A hotel as result cards, lists and trips show it."""
    return {
        "id": hotel.id,
        "name": hotel.name,
        "city": hotel.city,
        "neighborhood": hotel.neighborhood,
        "address": hotel.address,
        "property_type": hotel.property_type,
        "stars": hotel.stars,
        "rating": hotel.rating,
        "rating_word": score_word(hotel.rating),
        "review_count": hotel.review_count,
        "distance_km": hotel.distance_km,
        "amenities": list(hotel.amenities),
        "free_cancellation": hotel.free_cancellation,
        "price_from_cents": hotel.price_from_cents,
        "hue": hotel.hue,
    }


def card_label(card: Card | None) -> str:
    """ "Visa ending in 4242"."""
    return f"{card.brand} ending in {card.last4}" if card else "Card removed"


def card_view(card: Card, now: datetime) -> dict[str, Any]:
    """A saved card with its label and whether it has expired."""
    expired = (card.exp_year, card.exp_month) < (now.year, now.month)
    return {
        **card.model_dump(),
        "label": card_label(card),
        "expired": expired,
        "expiry": f"{card.exp_month:02d}/{card.exp_year % 100:02d}",
    }


def trip_view(state: BookingState, booking: Booking, now: datetime) -> dict[str, Any]:
    """A booking with its hotel, room, rate, policy and what can still be done with it."""
    hotel = state.find("hotels", booking.hotel_id)
    room: Room | None = state.find("rooms", booking.room_id)
    rate = plan(room, booking.rate_plan) if room else None
    card = state.find("cards", booking.card_id)
    terms = cancellation_terms(booking, now)
    started = parse_date(booking.check_in) <= now.date()
    changeable = booking.status == "confirmed" and not started
    stay_changeable = changeable and booking.refundable and terms.free
    reviewed = any(r.booking_id == booking.id for r in state.reviews)
    return {
        **booking.model_dump(),
        "hotel": hotel_card(hotel) if hotel else None,
        "room_type": room.type if room else "Room",
        "room_beds": room.beds if room else "",
        "rate_name": rate.name if rate else booking.rate_plan,
        "nights": night_count(booking.check_in, booking.check_out),
        "check_in_text": long_date(booking.check_in),
        "check_out_text": long_date(booking.check_out),
        "card_label": card_label(card),
        "cancellation": {
            "can_cancel": terms.can_cancel,
            "free": terms.free,
            "fee_cents": terms.fee_cents,
            "refund_cents": terms.refund_cents,
            "summary": terms.summary,
        },
        "can_edit_guest": changeable,
        "can_change_stay": stay_changeable,
        "change_blocked_reason": None if stay_changeable else _blocked(booking, changeable),
        "can_review": booking.status == "completed" and not reviewed,
        "reviewed": reviewed,
    }


def _blocked(booking: Booking, changeable: bool) -> str:
    if not changeable:
        return "This booking can no longer be changed."
    if not booking.refundable:
        return "Non-refundable bookings can't be moved or upgraded online. You can still update the guest details."
    return "The free cancellation period has ended, so dates and room can't be changed online."
