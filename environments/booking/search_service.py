"""Finding hotels: destination autocomplete, the results list with sort and filters, hotel pages.

Result cards, filters and sorting read each hotel's index summary (`price_from_cents`, `rating`,
`free_cancellation`); only availability for the chosen dates is checked live. The hotel page
prices every room and rate for the chosen dates from the live rate plans.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from humantrace.environments.booking.catalog import FILTER_AMENITIES, score_word
from humantrace.environments.booking.models import BookingState, Destination, Hotel, Room
from humantrace.environments.booking.pricing import (
    MAX_NIGHTS,
    is_available,
    long_date,
    night_count,
    parse_date,
    policy_text,
    price,
)
from humantrace.environments.booking.views import hotel_card
from humantrace.environments.sitekit import SiteError

SORTS = ("recommended", "price", "rating", "distance")


def fold(text: str) -> str:
    """Lower-case text without accents ("Malá Strana" -> "mala strana") for matching."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower().strip()


def suggest(state: BookingState, *, q: str, limit: int = 8) -> list[dict[str, Any]]:
    """Autocomplete: cities whose name starts with (or contains) `q`, then matching hotel names."""
    needle = fold(q)
    if not needle:
        return []
    cities = [
        d for d in state.destinations if fold(d.name).startswith(needle) or fold(d.country).startswith(needle)
    ]
    cities += [d for d in state.destinations if needle in fold(d.name) and d not in cities]
    found: list[dict[str, Any]] = [
        {
            "kind": "city",
            "id": d.id,
            "label": d.name,
            "sublabel": f"{d.region}, {d.country}",
            "count": sum(1 for h in state.hotels if h.destination_id == d.id),
        }
        for d in cities
    ]
    if len(needle) >= 3:
        for hotel in state.hotels:
            if needle in fold(hotel.name):
                found.append(
                    {
                        "kind": "hotel",
                        "id": hotel.id,
                        "label": hotel.name,
                        "sublabel": f"{hotel.neighborhood}, {hotel.city}",
                        "destination_id": hotel.destination_id,
                    }
                )
    return found[:limit]


def home(state: BookingState, *, now: datetime) -> dict[str, Any]:
    """What the home page shows: destinations with their cheapest prices and the next trip."""
    destinations = []
    for dest in state.destinations:
        hotels = [h for h in state.hotels if h.destination_id == dest.id]
        destinations.append(
            {
                **dest.model_dump(),
                "hotel_count": len(hotels),
                "price_from_cents": min((h.price_from_cents for h in hotels), default=None),
            }
        )
    upcoming = sorted(
        (b for b in state.bookings if b.status == "confirmed" and parse_date(b.check_out) > now.date()),
        key=lambda b: b.check_in,
    )
    next_trip = None
    if upcoming:
        booking = upcoming[0]
        hotel = state.find("hotels", booking.hotel_id)
        next_trip = {
            "id": booking.id,
            "hotel_name": hotel.name if hotel else "",
            "city": hotel.city if hotel else "",
            "check_in_text": long_date(booking.check_in),
            "check_out_text": long_date(booking.check_out),
        }
    return {"destinations": destinations, "next_trip": next_trip, "today": now.date().isoformat()}


@dataclass(frozen=True)
class Stay:
    """The dates and party of a search; dates are optional until the traveller picks them."""

    check_in: str | None = None
    check_out: str | None = None
    guests: int = 2
    rooms: int = 1

    @property
    def dated(self) -> bool:
        return bool(self.check_in and self.check_out)

    @property
    def per_room(self) -> int:
        return -(-self.guests // self.rooms)


def check_stay(stay: Stay, *, now: datetime) -> None:
    """Refuse impossible dates or party sizes with a message the traveller understands."""
    if not 1 <= stay.rooms <= 4:
        raise SiteError(422, "You can book between 1 and 4 rooms at a time.")
    if not 1 <= stay.guests <= 16 or stay.guests < stay.rooms:
        raise SiteError(422, "Each room needs at least one guest (up to 16 guests in total).")
    if bool(stay.check_in) != bool(stay.check_out):
        raise SiteError(422, "Choose both a check-in and a check-out date.")
    if not stay.dated:
        return
    try:
        start, end = parse_date(stay.check_in or ""), parse_date(stay.check_out or "")
    except ValueError:
        raise SiteError(422, "Those dates aren't valid. Pick them again from the calendar.") from None
    if start < now.date():
        raise SiteError(422, "Check-in can't be in the past.")
    if end <= start:
        raise SiteError(422, "Check-out must be after check-in.")
    if (end - start).days > MAX_NIGHTS:
        raise SiteError(422, f"Stays can be at most {MAX_NIGHTS} nights.")


def room_fits(room: Room, stay: Stay) -> bool:
    """Whether the room sleeps the party (split evenly over the rooms) and is free on every night."""
    if room.capacity < stay.per_room:
        return False
    return not stay.dated or is_available(room, stay.check_in or "", stay.check_out or "")


@dataclass(frozen=True)
class SearchQuery:
    """A results-page query: where, when, who, plus sort and filters."""

    destination_id: str | None = None
    q: str = ""
    stay: Stay = field(default_factory=Stay)
    sort: str = "recommended"
    min_price_cents: int | None = None
    max_price_cents: int | None = None
    min_rating: float | None = None
    stars: tuple[int, ...] = ()
    amenities: tuple[str, ...] = ()
    free_cancellation: bool = False
    max_distance_km: float | None = None


def resolve_destination(state: BookingState, query: SearchQuery) -> Destination:
    """The destination a query names by id, else by its text."""
    if query.destination_id:
        found = state.find("destinations", query.destination_id)
        if found is not None:
            return found
    needle = fold(query.q.split(",")[0]) if query.q else ""
    for dest in state.destinations:
        if needle and fold(dest.name) == needle:
            return dest
    raise SiteError(404, "We couldn't find that destination. Pick one from the suggestions.")


def search(state: BookingState, *, query: SearchQuery, now: datetime) -> dict[str, Any]:
    """Hotels of one destination that fit the stay, filtered and sorted."""
    if query.sort not in SORTS:
        raise SiteError(422, f"Unknown sort {query.sort!r}.")
    check_stay(query.stay, now=now)
    dest = resolve_destination(state, query)
    in_city = [h for h in state.hotels if h.destination_id == dest.id]
    rooms_by_hotel: dict[str, list[Room]] = {}
    for room in state.rooms:
        rooms_by_hotel.setdefault(room.hotel_id, []).append(room)
    available = [h for h in in_city if any(room_fits(r, query.stay) for r in rooms_by_hotel.get(h.id, []))]
    sold_out = len(in_city) - len(available)
    shown = [h for h in available if _passes(h, query)]
    shown = _sorted(shown, query.sort)
    nights = night_count(query.stay.check_in or "", query.stay.check_out or "") if query.stay.dated else None
    cards = []
    for hotel in shown:
        card = hotel_card(hotel)
        if nights:
            card["estimate_cents"] = hotel.price_from_cents * nights * query.stay.rooms
        cards.append(card)
    return {
        "destination": dest.model_dump(),
        "stay": {
            **query.stay.__dict__,
            "nights": nights,
            "check_in_text": long_date(query.stay.check_in or "") if query.stay.dated else None,
            "check_out_text": long_date(query.stay.check_out or "") if query.stay.dated else None,
        },
        "sort": query.sort,
        "total": len(in_city),
        "sold_out": sold_out,
        "count": len(cards),
        "hotels": cards,
        "filter_amenities": list(FILTER_AMENITIES),
    }


def _passes(hotel: Hotel, query: SearchQuery) -> bool:
    if query.min_price_cents is not None and hotel.price_from_cents < query.min_price_cents:
        return False
    if query.max_price_cents is not None and hotel.price_from_cents > query.max_price_cents:
        return False
    if query.min_rating is not None and hotel.rating < query.min_rating:
        return False
    if query.stars and hotel.stars not in query.stars:
        return False
    if any(amenity not in hotel.amenities for amenity in query.amenities):
        return False
    if query.free_cancellation and not hotel.free_cancellation:
        return False
    return query.max_distance_km is None or hotel.distance_km <= query.max_distance_km


def _sorted(hotels: list[Hotel], sort: str) -> list[Hotel]:
    # Stable sorts: ties keep the recommended (stored) order.
    if sort == "price":
        return sorted(hotels, key=lambda h: h.price_from_cents)
    if sort == "rating":
        return sorted(hotels, key=lambda h: -h.rating)
    if sort == "distance":
        return sorted(hotels, key=lambda h: h.distance_km)
    return list(hotels)


def hotel_detail(state: BookingState, *, hotel_id: str, stay: Stay, now: datetime) -> dict[str, Any]:
    """A hotel page: the hotel, every room with every rate priced for the stay, reviews, lists."""
    hotel = state.find("hotels", hotel_id)
    if hotel is None:
        raise SiteError(404, "This property is no longer listed on Staywell.")
    check_stay(stay, now=now)
    rooms = []
    for room in (r for r in state.rooms if r.hotel_id == hotel_id):
        fits_party = room.capacity >= stay.per_room
        free = not stay.dated or is_available(room, stay.check_in or "", stay.check_out or "")
        rates = []
        for rate in room.rate_plans:
            entry: dict[str, Any] = {**rate.model_dump(), "policy": None}
            if stay.dated:
                cost = price(
                    rate, check_in=stay.check_in or "", check_out=stay.check_out or "", rooms=stay.rooms
                )
                entry.update(
                    total_cents=cost.total_cents,
                    nights=cost.nights,
                    policy=policy_text(rate, stay.check_in or ""),
                )
            rates.append(entry)
        rooms.append(
            {
                **room.model_dump(exclude={"rate_plans", "unavailable_nights"}),
                "fits": fits_party,
                "available": free,
                "rates": rates,
            }
        )
    reviews = sorted(
        (r for r in state.reviews if r.hotel_id == hotel_id), key=lambda r: r.created_at, reverse=True
    )
    lists = {item.list_id for item in state.saved_items if item.hotel_id == hotel_id}
    dest = state.find("destinations", hotel.destination_id)
    return {
        "hotel": {
            **hotel_card(hotel),
            "description": hotel.description,
            "check_in_from": hotel.check_in_from,
            "check_out_until": hotel.check_out_until,
            "destination_id": hotel.destination_id,
            # The hotel page reads the live rates, not the search index's flag.
            "offers_free_cancellation": any(
                p.refundable for r in state.rooms if r.hotel_id == hotel_id for p in r.rate_plans
            ),
        },
        "destination": dest.model_dump() if dest else None,
        "stay": {
            **stay.__dict__,
            "nights": night_count(stay.check_in or "", stay.check_out or "") if stay.dated else None,
        },
        "rooms": rooms,
        "reviews": [{**r.model_dump(), "rating_word": score_word(r.rating)} for r in reviews[:8]],
        "saved_in": sorted(lists),
    }
