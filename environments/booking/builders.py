"""Seed builders for task situations (registered as `booking.<name>`).

Each builder adds one situation to the default site, or reads the state to compute a task's
answer, and returns named outputs that task files bind to targets (`{output.hotel_id}`). Hotels
are named by output id or exact name; prices in task files are whole dollars. Answers that depend
on the whole state ("the cheapest hotel rated 8.5 or more") are computed here from the state,
never assumed, and a tie is a `SeedError` so every task has exactly one right answer.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from humantrace.environments.booking.catalog import ROOM_TYPES
from humantrace.environments.booking.pricing import (
    date_text,
    is_available,
    long_date,
    night_count,
    parse_date,
    price,
)
from humantrace.environments.booking.seed import (
    TRAVELLER_EMAIL,
    TRAVELLER_NAME,
    BookingContext,
    add_booking,
    add_hotel,
    hotel,
    reindex,
    room_of_type,
    rooms_of,
    today,
)
from humantrace.environments.seeding import SeedError, builder

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def _dates(check_in: Any, check_out: Any) -> dict[str, Any]:
    start, end = parse_date(str(check_in)), parse_date(str(check_out))
    return {
        "check_in": date_text(start),
        "check_out": date_text(end),
        "check_in_text": long_date(start),
        "check_out_text": long_date(end),
        "nights": (end - start).days,
    }


@builder("booking.stay_dates")
def stay_dates(
    ctx: BookingContext,
    *,
    nights: int,
    days_ahead: int | None = None,
    weekday: str | None = None,
    weeks_ahead: int = 1,
) -> dict[str, Any]:
    """Dates relative to the session start: `days_ahead` days from today, or the `weekday` of the
    `weeks_ahead`-th week to come (1 = the first such day after today)."""
    first = today(ctx)
    if weekday is not None:
        target = WEEKDAYS.index(weekday.lower())
        gap = (target - first.weekday()) % 7 or 7
        start = first + timedelta(days=gap + 7 * (weeks_ahead - 1))
    elif days_ahead is not None:
        start = first + timedelta(days=days_ahead)
    else:
        raise SeedError("stay_dates needs days_ahead or weekday")
    return _dates(start, start + timedelta(days=nights))


@builder("booking.shift_dates")
def shift_dates(
    ctx: BookingContext, *, check_in: str, check_out: str, days: int = 0, extend: int = 0
) -> dict[str, Any]:
    """A stay moved by `days` (both dates) and lengthened by `extend` nights."""
    start = parse_date(check_in) + timedelta(days=days)
    end = parse_date(check_out) + timedelta(days=days + extend)
    return _dates(start, end)


def _cents(dollars: float | None) -> int | None:
    return None if dollars is None else int(round(dollars * 100))


@builder("booking.hotel")
def plant_hotel(
    ctx: BookingContext,
    *,
    city: str,
    name: str,
    stars: int = 4,
    rating: float = 8.6,
    review_count: int = 812,
    distance_km: float = 1.2,
    amenities: list[str] | None = None,
    base_price: float = 140,
    room_types: list[str] | None = None,
    prices: dict[str, float] | None = None,
    refundable: bool = True,
    non_refundable: bool = True,
    breakfast: float | None = 18,
    free_cancel_days: int = 2,
    property_type: str = "Hotel",
    neighborhood: str | None = None,
    unavailable: dict[str, list[str]] | None = None,
    position: int | None = None,
) -> dict[str, Any]:
    """Add one hotel. `prices` sets a room type's non-refundable nightly price in dollars;
    `unavailable` maps a room type to ISO nights it is sold out; `position` puts the hotel at that
    index of the stored (recommended) order."""
    types = room_types or ["Standard Double Room", "Superior Double Room", "Deluxe King Room"]
    for room_type in types:
        if room_type not in ROOM_TYPES:
            raise SeedError(f"unknown room type {room_type!r} (known: {', '.join(ROOM_TYPES)})")
    planted = add_hotel(
        ctx,
        city=city,
        name=name,
        stars=stars,
        rating=rating,
        review_count=review_count,
        distance_km=distance_km,
        amenities=list(
            amenities or ["Free WiFi", "Air conditioning", "24-hour front desk", "Non-smoking rooms"]
        ),
        base_cents=_cents(base_price) or 0,
        room_types=types,
        refundable=refundable,
        non_refundable=non_refundable,
        breakfast_cents=_cents(breakfast),
        free_cancel_days=free_cancel_days,
        property_type=property_type,
        neighborhood=neighborhood,
        prices={key: _cents(value) or 0 for key, value in (prices or {}).items()},
    )
    for room_type, dates in (unavailable or {}).items():
        planted.room(room_type).unavailable_nights = sorted(str(d) for d in dates)
    if position is not None:
        hotels = ctx.state.hotels
        hotels.remove(planted.hotel)
        hotels.insert(position, planted.hotel)
    return {
        "hotel_id": planted.hotel.id,
        "hotel_name": planted.hotel.name,
        "city": planted.hotel.city,
        "room_ids": {room.type: room.id for room in planted.rooms},
    }


@builder("booking.trip")
def trip(
    ctx: BookingContext,
    *,
    hotel_ref: str,
    room_type: str = "Standard Double Room",
    rate: str = "flex",
    days_ahead: int = 20,
    nights: int = 2,
    guests: int = 2,
    rooms: int = 1,
    status: str = "confirmed",
    guest_name: str = TRAVELLER_NAME,
    email: str = TRAVELLER_EMAIL,
    card: str | None = None,
    special_requests: str = "",
    booked_days_before: int = 12,
) -> dict[str, Any]:
    """Add a booking at a hotel `days_ahead` days from today (negative: a past stay)."""
    found = hotel(ctx, hotel_ref)
    room = room_of_type(ctx, found.id, room_type)
    card_id = _card(ctx, card) if card else None
    booking = add_booking(
        ctx,
        hotel_id=found.id,
        room_id=room.id,
        rate_code=rate,
        check_in=today(ctx) + timedelta(days=days_ahead),
        nights=nights,
        guests=guests,
        rooms=rooms,
        status=status,
        card_id=card_id,
        guest_name=guest_name,
        email=email,
        special_requests=special_requests,
        booked_days_before=booked_days_before,
    )
    return {
        "booking_id": booking.id,
        "reference": booking.reference,
        "hotel_id": found.id,
        "hotel_name": found.name,
        "city": found.city,
        "rating": found.rating,
        "room_id": room.id,
        "rate_plan": booking.rate_plan,
        "card_id": booking.card_id,
        "total_cents": booking.total_cents,
        **_dates(booking.check_in, booking.check_out),
    }


def _card(ctx: BookingContext, last4: str) -> str:
    found = next((c for c in ctx.state.cards if c.last4 == str(last4)), None)
    if found is None:
        raise SeedError(f"no saved card ending in {last4}")
    return found.id


@builder("booking.refs")
def refs(ctx: BookingContext) -> dict[str, Any]:
    """Ids of the default site's things: cards by last four digits, lists by name."""
    state = ctx.state
    return {
        "card_ids": {card.last4: card.id for card in state.cards},
        "list_ids": {saved.name: saved.id for saved in state.saved_lists},
        "traveller_name": TRAVELLER_NAME,
        "traveller_email": TRAVELLER_EMAIL,
    }


@builder("booking.saved_list")
def saved_list(ctx: BookingContext, *, name: str, hotels: list[str], days_ago: int = 20) -> dict[str, Any]:
    """A list with these hotels (ids or names), saved `days_ago` days ago at their index prices."""
    from humantrace.environments.booking.models import SavedItem, SavedList

    state = ctx.state
    saved = SavedList(id=ctx.new_id("sl"), name=name, created_at=ctx.ago(days=days_ago))
    state.saved_lists.append(saved)
    item_ids, hotel_ids = [], []
    for offset, ref in enumerate(hotels):
        found = hotel(ctx, ref)
        item = SavedItem(
            id=ctx.new_id("si"),
            list_id=saved.id,
            hotel_id=found.id,
            added_at=ctx.ago(days=days_ago, hours=-offset),
            saved_price_cents=found.price_from_cents,
        )
        state.saved_items.append(item)
        item_ids.append(item.id)
        hotel_ids.append(found.id)
    return {"list_id": saved.id, "item_ids": item_ids, "hotel_ids": hotel_ids}


@builder("booking.list_items")
def list_items(ctx: BookingContext, *, list_name: str, below_rating: float | None = None) -> dict[str, Any]:
    """The saved items of a list by name; `below_ids` are those whose hotel is rated under `below_rating`."""
    state = ctx.state
    saved = next((s for s in state.saved_lists if s.name == list_name), None)
    if saved is None:
        raise SeedError(f"no saved list {list_name!r}")
    items = [i for i in state.saved_items if i.list_id == saved.id]
    below = [i.id for i in items if below_rating is not None and hotel(ctx, i.hotel_id).rating < below_rating]
    return {
        "list_id": saved.id,
        "item_ids": [i.id for i in items],
        "hotel_ids": [i.hotel_id for i in items],
        "below_ids": below,
    }


@builder("booking.save_to_list")
def save_to_list(
    ctx: BookingContext, *, list_name: str, hotel_ref: str, days_ago: int = 15
) -> dict[str, Any]:
    """Put a hotel on an existing list (by name)."""
    from humantrace.environments.booking.models import SavedItem

    state = ctx.state
    saved = next((s for s in state.saved_lists if s.name == list_name), None)
    if saved is None:
        raise SeedError(f"no saved list {list_name!r}")
    found = hotel(ctx, hotel_ref)
    item = SavedItem(
        id=ctx.new_id("si"),
        list_id=saved.id,
        hotel_id=found.id,
        added_at=ctx.ago(days=days_ago),
        saved_price_cents=found.price_from_cents,
    )
    state.saved_items.append(item)
    return {"item_id": item.id, "list_id": saved.id}


@builder("booking.rate_change")
def rate_change(ctx: BookingContext, *, hotel_ref: str, percent: int) -> dict[str, Any]:
    """Change every rate of a hotel by `percent` (after it was saved to lists) and refresh the index."""
    from humantrace.environments.booking.seed import dollars

    found = hotel(ctx, hotel_ref)
    for room in rooms_of(ctx, found.id):
        for rate in room.rate_plans:
            rate.price_cents = dollars(rate.price_cents * (100 + percent) / 10000)
    reindex(ctx, found.id)
    return {"changed_hotel_id": found.id, "price_from_cents": found.price_from_cents}


@builder("booking.assignments")
def assignments(
    ctx: BookingContext,
    *,
    hotels: list[dict[str, Any]],
    guests: list[list[str]],
    email: str = TRAVELLER_EMAIL,
) -> dict[str, Any]:
    """One booking slot per guest: `guests[i]` stay at `hotels[i]` on that hotel's chosen room and rate."""
    if len(hotels) != len(guests):
        raise SeedError(f"{len(hotels)} hotels but {len(guests)} guest groups")
    slots = []
    for picked, names in zip(hotels, guests, strict=True):
        for name in names:
            slots.append(
                {
                    "hotel_id": picked["hotel_id"],
                    "room_id": picked["room_id"],
                    "rate_plan": picked["rate_plan"],
                    "guest_name": name,
                    "email": email,
                }
            )
    return {"slots": slots}


def _best_rate(
    ctx: BookingContext,
    hotel_id: str,
    *,
    check_in: str,
    check_out: str,
    guests: int,
    rooms: int,
    refundable: bool | None,
    breakfast: bool | None,
    room_types: list[str] | None,
) -> dict[str, Any] | None:
    options: list[dict[str, Any]] = []
    for room in rooms_of(ctx, hotel_id):
        if room_types and room.type not in room_types:
            continue
        if room.capacity * rooms < guests or -(-guests // rooms) > room.capacity:
            continue
        if not is_available(room, check_in, check_out):
            continue
        for rate in room.rate_plans:
            if refundable is not None and rate.refundable != refundable:
                continue
            if breakfast is not None and rate.breakfast != breakfast:
                continue
            cost = price(rate, check_in=check_in, check_out=check_out, rooms=rooms)
            options.append(
                {
                    "room_id": room.id,
                    "room_type": room.type,
                    "rate_plan": rate.code,
                    "rate_name": rate.name,
                    "total_cents": cost.total_cents,
                    "nightly_cents": cost.nightly_cents,
                }
            )
    if not options:
        return None
    options.sort(key=lambda o: o["total_cents"])
    if len(options) > 1 and options[0]["total_cents"] == options[1]["total_cents"]:
        raise SeedError(
            f"hotel {hotel_id}: two options tie at {options[0]['total_cents']} cents "
            f"({options[0]['room_type']} {options[0]['rate_plan']}, {options[1]['room_type']} {options[1]['rate_plan']})"
        )
    return options[0]


@builder("booking.pick_rate")
def pick_rate(
    ctx: BookingContext,
    *,
    hotel_ref: str,
    check_in: str,
    check_out: str,
    guests: int = 2,
    rooms: int = 1,
    refundable: bool | None = None,
    breakfast: bool | None = None,
    room_types: list[str] | None = None,
) -> dict[str, Any]:
    """The cheapest room and rate of a hotel for a stay under the given conditions."""
    found = hotel(ctx, hotel_ref)
    best = _best_rate(
        ctx,
        found.id,
        check_in=check_in,
        check_out=check_out,
        guests=guests,
        rooms=rooms,
        refundable=refundable,
        breakfast=breakfast,
        room_types=room_types,
    )
    if best is None:
        raise SeedError(f"{found.name} has no room and rate for these conditions")
    return {
        **best,
        "hotel_id": found.id,
        "hotel_name": found.name,
        "total_text": f"${best['total_cents'] / 100:,.2f}",
    }


@builder("booking.pick_hotels")
def pick_hotels(
    ctx: BookingContext,
    *,
    city: str,
    check_in: str,
    check_out: str,
    guests: int = 2,
    rooms: int = 1,
    count: int = 1,
    rank_by: str = "price",
    min_rating: float | None = None,
    max_distance_km: float | None = None,
    stars: int | None = None,
    amenities: list[str] | None = None,
    refundable: bool | None = None,
    breakfast: bool | None = None,
    room_types: list[str] | None = None,
    max_total: float | None = None,
    max_nightly: float | None = None,
    hotel_ids: list[str] | None = None,
) -> dict[str, Any]:
    """The `count` best hotels of a city that meet every condition (by `price` of their cheapest
    qualifying rate, or by `rating`), each with that rate. Outputs `hotels` (list) and `hotel_ids`."""
    picked = []
    for found in ctx.state.hotels:
        if found.city != city or (hotel_ids is not None and found.id not in hotel_ids):
            continue
        if min_rating is not None and found.rating < min_rating:
            continue
        if max_distance_km is not None and found.distance_km > max_distance_km:
            continue
        if stars is not None and found.stars != stars:
            continue
        if any(a not in found.amenities for a in amenities or []):
            continue
        best = _best_rate(
            ctx,
            found.id,
            check_in=check_in,
            check_out=check_out,
            guests=guests,
            rooms=rooms,
            refundable=refundable,
            breakfast=breakfast,
            room_types=room_types,
        )
        if best is None:
            continue
        if max_total is not None and best["total_cents"] > max_total * 100:
            continue
        if max_nightly is not None and best["nightly_cents"] > max_nightly * 100:
            continue
        picked.append(
            {
                **best,
                "hotel_id": found.id,
                "hotel_name": found.name,
                "rating": found.rating,
                "distance_km": found.distance_km,
            }
        )
    if rank_by == "price":
        picked.sort(key=lambda p: p["total_cents"])
        key = "total_cents"
    elif rank_by == "rating":
        picked.sort(key=lambda p: -p["rating"])
        key = "rating"
    else:
        raise SeedError(f"rank_by must be 'price' or 'rating', not {rank_by!r}")
    if len(picked) < count:
        raise SeedError(f"only {len(picked)} hotel(s) in {city} meet the conditions, {count} needed")
    if len(picked) > count and picked[count - 1][key] == picked[count][key]:
        raise SeedError(
            f"{city}: {picked[count - 1]['hotel_name']} and {picked[count]['hotel_name']} tie on {key}"
        )
    chosen = picked[:count]
    return {
        "hotels": chosen,
        "hotel_ids": [p["hotel_id"] for p in chosen],
        "first": chosen[0],
        "candidates": len(picked),
    }


@builder("booking.budget")
def budget(ctx: BookingContext, *, total_cents: int, margin: float = 60) -> dict[str, Any]:
    """A round budget a little above a total (whole tens of dollars)."""
    amount = int((total_cents / 100 + margin) // 10 * 10)
    return {"budget": amount, "budget_text": f"${amount:,}"}


@builder("booking.sell_out")
def sell_out(
    ctx: BookingContext, *, hotel_ref: str, room_type: str, check_in: str, check_out: str
) -> dict[str, Any]:
    """Make a room type sold out on every night from check-in to the day before check-out."""
    found = hotel(ctx, hotel_ref)
    room = room_of_type(ctx, found.id, room_type)
    start = parse_date(check_in)
    blocked = [date_text(start + timedelta(days=i)) for i in range(night_count(check_in, check_out))]
    room.unavailable_nights = sorted(set(room.unavailable_nights) | set(blocked))
    return {"sold_out_room_id": room.id}


# ---------------------------------------------------------------- variant (seed-layer) builders


@builder("booking.decoy_hotel")
def decoy_hotel(
    ctx: BookingContext, *, like: str, city: str, name: str | None = None, position: int = 0
) -> dict[str, Any]:
    """A hotel in another city named like `like` (same name unless `name`), placed early in the
    stored order so search and autocomplete meet it first."""
    original = hotel(ctx, like)
    room_types = [room.type for room in rooms_of(ctx, original.id)]
    prices = {room.type: room.rate_plans[0].price_cents / 100 for room in rooms_of(ctx, original.id)}
    planted = plant_hotel(
        ctx,
        city=city,
        name=name or original.name,
        stars=original.stars,
        rating=max(6.0, original.rating - 0.3),
        distance_km=original.distance_km + 0.4,
        amenities=list(original.amenities),
        base_price=original.price_from_cents / 100,
        room_types=room_types,
        prices=prices,
        refundable=original.free_cancellation,
        position=position,
    )
    if planted is None:  # the builder always returns the planted hotel's ids
        raise SeedError(f"the decoy of {like!r} was not planted")
    return {"decoy_hotel_id": planted["hotel_id"]}


@builder("booking.recent_stays")
def recent_stays(ctx: BookingContext, *, cities: list[str], within_days: int = 20) -> dict[str, Any]:
    """Past stays, one per city, all more recent than `within_days` days ago (they list first)."""
    made = []
    for offset, city in enumerate(cities):
        found = next(h for h in ctx.state.hotels if h.city == city)
        room = rooms_of(ctx, found.id)[0]
        nights = 1 + offset % 3
        start = today(ctx) - timedelta(days=within_days - offset * 2 + nights)
        booking = add_booking(
            ctx,
            hotel_id=found.id,
            room_id=room.id,
            rate_code=room.rate_plans[0].code,
            check_in=start,
            nights=nights,
            status="completed",
            booked_days_before=40,
        )
        made.append(booking.id)
    return {"recent_stay_ids": made}


@builder("booking.stale_index_price")
def stale_index_price(ctx: BookingContext, *, hotel_ref: str, price_from: float) -> dict[str, Any]:
    """The search index still shows an old, lower "from" price for a hotel whose rates went up."""
    found = hotel(ctx, hotel_ref)
    reindex(ctx, found.id)
    found.price_from_cents = int(round(price_from * 100))
    return {"stale_hotel_id": found.id}
