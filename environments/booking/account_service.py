"""The traveller's own things: saved lists, reviews of past stays, payment cards and profile."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from humantrace.environments.booking.models import Account, BookingState, Card, Review, SavedItem, SavedList
from humantrace.environments.booking.pricing import long_date
from humantrace.environments.booking.trip_service import EMAIL, find_booking
from humantrace.environments.booking.views import card_view, hotel_card
from humantrace.environments.seeding import to_iso
from humantrace.environments.sitekit import SiteError, find_or_404

NewId = Callable[[str], str]


def account(state: BookingState) -> Account:
    """The traveller."""
    if not state.account:
        raise SiteError(500, "This account is unavailable.")
    return state.account[0]


# ---------------------------------------------------------------- saved lists


def lists_view(state: BookingState) -> dict[str, Any]:
    """Every list with its hotels (newest first) and how their prices moved since saving."""
    out = []
    for saved in state.saved_lists:
        items = [i for i in state.saved_items if i.list_id == saved.id]
        items.sort(key=lambda i: (i.added_at, i.id), reverse=True)
        entries = []
        for item in items:
            hotel = state.find("hotels", item.hotel_id)
            if hotel is None:
                continue
            entries.append(
                {
                    "id": item.id,
                    "added_at": item.added_at,
                    "saved_price_cents": item.saved_price_cents,
                    "hotel": hotel_card(hotel),
                }
            )
        out.append({**saved.model_dump(), "items": entries, "count": len(entries)})
    return {"lists": out}


def find_list(state: BookingState, list_id: str) -> SavedList:
    """A saved list by id."""
    saved: SavedList = find_or_404(state, "saved_lists", list_id, "That list no longer exists.")
    return saved


def create_list(state: BookingState, *, name: str, now: datetime, new_id: NewId) -> SavedList:
    """A new, empty list; names are unique (ignoring case)."""
    clean = " ".join(name.split())
    if not clean:
        raise SiteError(422, "Give your list a name.")
    if len(clean) > 40:
        raise SiteError(422, "List names can be at most 40 characters.")
    if any(s.name.lower() == clean.lower() for s in state.saved_lists):
        raise SiteError(409, f"You already have a list called \u201c{clean}\u201d.")
    saved = SavedList(id=new_id("sl"), name=clean, created_at=to_iso(now))
    state.saved_lists.append(saved)
    return saved


def delete_list(state: BookingState, *, list_id: str) -> SavedList:
    """Remove a list and everything on it."""
    saved = find_list(state, list_id)
    state.saved_lists.remove(saved)
    state.saved_items[:] = [i for i in state.saved_items if i.list_id != list_id]
    return saved


def save_hotel(
    state: BookingState, *, list_id: str, hotel_id: str, now: datetime, new_id: NewId
) -> SavedItem:
    """Put a hotel on a list (once)."""
    saved = find_list(state, list_id)
    hotel = state.find("hotels", hotel_id)
    if hotel is None:
        raise SiteError(404, "This property is no longer listed on Staywell.")
    if any(i.list_id == list_id and i.hotel_id == hotel_id for i in state.saved_items):
        raise SiteError(409, f"{hotel.name} is already on \u201c{saved.name}\u201d.")
    item = SavedItem(
        id=new_id("si"),
        list_id=list_id,
        hotel_id=hotel_id,
        added_at=to_iso(now),
        saved_price_cents=hotel.price_from_cents,
    )
    state.saved_items.append(item)
    return item


def unsave_hotel(state: BookingState, *, list_id: str, item_id: str) -> SavedItem:
    """Take a hotel off a list."""
    find_list(state, list_id)
    item = state.find("saved_items", item_id)
    if item is None or item.list_id != list_id:
        raise SiteError(404, "That hotel is no longer on this list.")
    state.saved_items.remove(item)
    return item


# ---------------------------------------------------------------- reviews

TRAVELER_TYPES = ("Couple", "Solo", "Family", "Business", "Friends")


def post_review(
    state: BookingState,
    *,
    booking_id: str,
    rating: int,
    title: str,
    body: str,
    traveler_type: str,
    now: datetime,
    new_id: NewId,
) -> Review:
    """A review of a completed stay (one per booking)."""
    booking = find_booking(state, booking_id)
    if booking.status != "completed":
        raise SiteError(409, "You can review a stay once it's over.")
    if any(r.booking_id == booking.id for r in state.reviews):
        raise SiteError(409, "You've already reviewed this stay.")
    if not 1 <= rating <= 10:
        raise SiteError(422, "Choose a score from 1 to 10.")
    if traveler_type not in TRAVELER_TYPES:
        raise SiteError(422, "Choose who you travelled with.")
    title, body = " ".join(title.split()), body.strip()
    if not title:
        raise SiteError(422, "Give your review a title.")
    if len(body) < 10:
        raise SiteError(422, "Tell other travellers a little more (at least 10 characters).")
    review = Review(
        id=new_id("rv"),
        hotel_id=booking.hotel_id,
        author=account(state).full_name,
        author_is_me=True,
        booking_id=booking.id,
        rating=rating,
        title=title,
        body=body,
        traveler_type=traveler_type,
        created_at=to_iso(now),
    )
    state.reviews.append(review)
    return review


def my_reviews(state: BookingState) -> list[dict[str, Any]]:
    """The traveller's own reviews, newest first, with the stay they are about."""
    out = []
    for review in sorted(
        (r for r in state.reviews if r.author_is_me), key=lambda r: r.created_at, reverse=True
    ):
        hotel = state.find("hotels", review.hotel_id)
        booking = state.find("bookings", review.booking_id) if review.booking_id else None
        out.append(
            {
                **review.model_dump(),
                "hotel_name": hotel.name if hotel else "",
                "stay_text": long_date(booking.check_in) if booking else "",
            }
        )
    return out


# ---------------------------------------------------------------- cards and profile


def luhn_ok(number: str) -> bool:
    """The Luhn checksum every real card number passes."""
    total = 0
    for index, ch in enumerate(reversed(number)):
        digit = int(ch)
        if index % 2 == 1:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


def brand_of(number: str) -> str:
    """The card brand from its first digits."""
    if number.startswith("4"):
        return "Visa"
    if number[:2] in {"34", "37"}:
        return "American Express"
    if number[:2] in {"51", "52", "53", "54", "55"} or "2221" <= number[:4] <= "2720":
        return "Mastercard"
    raise SiteError(422, "We accept Visa, Mastercard and American Express.")


def add_card(
    state: BookingState,
    *,
    number: str,
    exp_month: int,
    exp_year: int,
    holder: str,
    make_default: bool,
    now: datetime,
    new_id: NewId,
) -> Card:
    """Save a card (only brand, last four digits and expiry are kept)."""
    digits = "".join(ch for ch in number if ch.isdigit())
    if not 13 <= len(digits) <= 19 or not luhn_ok(digits):
        raise SiteError(422, "That card number isn't valid. Check the digits and try again.")
    if exp_year < 100:
        exp_year += 2000
    if not 1 <= exp_month <= 12 or (exp_year, exp_month) < (now.year, now.month):
        raise SiteError(422, "That expiry date has passed.")
    holder = " ".join(holder.split())
    if len(holder) < 2:
        raise SiteError(422, "Enter the name on the card.")
    brand = brand_of(digits)
    if any(c.brand == brand and c.last4 == digits[-4:] for c in state.cards):
        raise SiteError(409, f"Your {brand} ending in {digits[-4:]} is already saved.")
    card = Card(
        id=new_id("card"),
        brand=brand,
        last4=digits[-4:],
        exp_month=exp_month,
        exp_year=exp_year,
        holder=holder,
        is_default=make_default or not state.cards,
    )
    if card.is_default:
        for other in state.cards:
            other.is_default = False
    state.cards.append(card)
    return card


def set_default_card(state: BookingState, *, card_id: str) -> Card:
    """Make one card the default."""
    card = state.find("cards", card_id)
    if card is None:
        raise SiteError(404, "That card is no longer saved.")
    for other in state.cards:
        if other.is_default != (other.id == card_id):
            other.is_default = other.id == card_id
    return card


def remove_card(state: BookingState, *, card_id: str, now: datetime) -> Card:
    """Delete a saved card unless an upcoming trip is paid with it."""
    card = state.find("cards", card_id)
    if card is None:
        raise SiteError(404, "That card is no longer saved.")
    if any(b.card_id == card_id and b.status == "confirmed" for b in state.bookings):
        raise SiteError(409, "An upcoming trip is paid with this card. Change that trip's card first.")
    state.cards.remove(card)
    if card.is_default and state.cards:
        state.cards[0].is_default = True
    return card


def cards_view(state: BookingState, now: datetime) -> list[dict[str, Any]]:
    """Saved cards, default first."""
    return [card_view(c, now) for c in sorted(state.cards, key=lambda c: not c.is_default)]


def update_profile(
    state: BookingState, *, full_name: str | None, email: str | None, phone: str | None
) -> list[str]:
    """Change profile fields; returns the names of the fields that changed."""
    me = account(state)
    changed = []
    if full_name is not None:
        clean = " ".join(full_name.split())
        if len(clean) < 2:
            raise SiteError(422, "Enter your full name.")
        if clean != me.full_name:
            me.full_name = clean
            changed.append("full_name")
    if email is not None:
        clean = email.strip()
        if not EMAIL.match(clean):
            raise SiteError(422, "Enter a valid email address.")
        if clean != me.email:
            me.email = clean
            changed.append("email")
    if phone is not None and phone.strip() != me.phone:
        me.phone = phone.strip()
        changed.append("phone")
    return changed
