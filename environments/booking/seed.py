"""Staywell's default state and the entity-making helpers the task builders share.

`build_default_state` lays out eight cities with seven hotels each (rooms, rate plans, reviews),
one traveller with three saved cards, two saved lists, past stays, a cancelled trip and two
upcoming trips. Every random draw goes through `ctx.rng` in a fixed order, so the same seed gives
the same site. Background trips are in fixed cities (past: Vienna, Prague, Berlin; cancelled:
Paris; upcoming: Amsterdam, Barcelona) so task builders can plant theirs elsewhere unambiguously.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from humantrace.environments.booking.catalog import (
    AMENITIES,
    CITIES,
    FIRST_NAMES,
    LAST_INITIALS,
    NAME_PATTERNS,
    NAME_WORDS,
    RATE_NAMES,
    REVIEW_LINES,
    ROOM_TYPES,
    STAR_PRICES,
    TRAVELER_TYPES,
    CitySpec,
    review_band,
)
from humantrace.environments.booking.models import (
    Account,
    Booking,
    BookingState,
    Card,
    Destination,
    Hotel,
    RatePlan,
    Review,
    Room,
    SavedItem,
    SavedList,
)
from humantrace.environments.booking.pricing import (
    date_text,
    free_cancel_deadline,
    plan,
    price,
    reference_for,
)
from humantrace.environments.seeding import SeedContext, SeedError, to_iso

# What this site's builders see: `ctx.state` is typed as the site's state.
BookingContext = SeedContext[BookingState]

TRAVELLER_NAME = "Alex Morgan"
TRAVELLER_EMAIL = "alex.morgan@example.com"
TRAVELLER_PHONE = "+1 415 555 0134"
HOTELS_PER_CITY = 7


def today(ctx: BookingContext) -> date:
    """The session's first day (the date of the virtual clock's start)."""
    return ctx.now.date()


def dollars(amount: float) -> int:
    """Whole dollars in cents (hotel prices are whole dollars)."""
    return int(round(amount)) * 100


def destination(ctx: BookingContext, ref: str) -> Destination:
    """A destination by id or city name."""
    state = ctx.state
    found = state.find("destinations", ref) or next((d for d in state.destinations if d.name == ref), None)
    if found is None:
        raise SeedError(f"no destination {ref!r}")
    return found


def hotel(ctx: BookingContext, ref: str) -> Hotel:
    """A hotel by id or exact name (the first one with that name)."""
    state = ctx.state
    found = state.find("hotels", ref) or next((h for h in state.hotels if h.name == ref), None)
    if found is None:
        raise SeedError(f"no hotel with id or name {ref!r}")
    return found


def rooms_of(ctx: BookingContext, hotel_id: str) -> list[Room]:
    """The hotel's rooms in stored order."""
    return [room for room in ctx.state.rooms if room.hotel_id == hotel_id]


def room_of_type(ctx: BookingContext, hotel_id: str, room_type: str) -> Room:
    """The hotel's room of this type."""
    found = next((room for room in rooms_of(ctx, hotel_id) if room.type == room_type), None)
    if found is None:
        raise SeedError(f"hotel {hotel_id} has no {room_type!r}")
    return found


def rate_plans(
    *,
    nightly_cents: int,
    refundable: bool,
    breakfast_cents: int | None,
    free_cancel_days: int,
    non_refundable: bool = True,
) -> list[RatePlan]:
    """The plans of one room: non-refundable (cheapest), flexible (+14 %), each with breakfast if offered."""
    flex = dollars(nightly_cents * 1.14 / 100)
    plans: list[RatePlan] = []
    if non_refundable:
        plans.append(
            RatePlan(
                code="nr", name=RATE_NAMES["nr"], refundable=False, breakfast=False, price_cents=nightly_cents
            )
        )
        if breakfast_cents:
            plans.append(
                RatePlan(
                    code="nr_bb",
                    name=RATE_NAMES["nr_bb"],
                    refundable=False,
                    breakfast=True,
                    price_cents=nightly_cents + breakfast_cents,
                )
            )
    if refundable:
        plans.append(
            RatePlan(
                code="flex",
                name=RATE_NAMES["flex"],
                refundable=True,
                breakfast=False,
                price_cents=flex,
                free_cancel_days=free_cancel_days,
            )
        )
        if breakfast_cents:
            plans.append(
                RatePlan(
                    code="flex_bb",
                    name=RATE_NAMES["flex_bb"],
                    refundable=True,
                    breakfast=True,
                    price_cents=flex + breakfast_cents,
                    free_cancel_days=free_cancel_days,
                )
            )
    return plans


@dataclass(frozen=True)
class PlantedHotel:
    """A hotel just added with its rooms."""

    hotel: Hotel
    rooms: list[Room]

    def room(self, room_type: str) -> Room:
        """The room of this type."""
        found = next((room for room in self.rooms if room.type == room_type), None)
        if found is None:
            raise SeedError(f"{self.hotel.name} has no {room_type!r}")
        return found


def add_hotel(
    ctx: BookingContext,
    *,
    city: str,
    name: str,
    stars: int,
    rating: float,
    review_count: int,
    distance_km: float,
    amenities: list[str],
    base_cents: int,
    room_types: list[str],
    refundable: bool = True,
    breakfast_cents: int | None = None,
    free_cancel_days: int = 2,
    property_type: str = "Hotel",
    neighborhood: str | None = None,
    description: str = "",
    reviews: int = 3,
    prices: dict[str, int] | None = None,
    non_refundable: bool = True,
) -> PlantedHotel:
    """Append a hotel, its rooms (one per type; `prices` overrides a type's non-refundable nightly
    price) and a few reviews; the index summary (`price_from_cents`, `free_cancellation`) is
    computed from the rooms."""
    state = ctx.state
    dest = destination(ctx, city)
    spec = _city_spec(dest.name)
    hood = neighborhood or ctx.rng.choice(spec.neighborhoods)
    street = ctx.rng.choice(spec.streets)
    amenity_list = list(amenities)
    if breakfast_cents and "Breakfast available" not in amenity_list:
        amenity_list.append("Breakfast available")
    hotel_id = ctx.new_id("h")
    rooms: list[Room] = []
    for room_type in room_types:
        room_spec = ROOM_TYPES[room_type]
        nightly = (prices or {}).get(room_type) or dollars(base_cents * room_spec.factor / 100)
        rooms.append(
            Room(
                id=ctx.new_id("rm"),
                hotel_id=hotel_id,
                type=room_type,
                beds=room_spec.beds,
                capacity=room_spec.capacity,
                size_m2=ctx.rng.randint(*room_spec.size),
                features=list(room_spec.features),
                rate_plans=rate_plans(
                    nightly_cents=nightly,
                    refundable=refundable,
                    breakfast_cents=breakfast_cents,
                    free_cancel_days=free_cancel_days,
                    non_refundable=non_refundable,
                ),
            )
        )
    found = Hotel(
        id=hotel_id,
        name=name,
        destination_id=dest.id,
        city=dest.name,
        neighborhood=hood,
        address=f"{street} {ctx.rng.randint(2, 180)}, {hood}, {dest.name}",
        property_type=property_type,
        stars=stars,
        rating=round(rating, 1),
        review_count=review_count,
        distance_km=round(distance_km, 1),
        amenities=amenity_list,
        free_cancellation=any(p.refundable for room in rooms for p in room.rate_plans),
        price_from_cents=min(p.price_cents for room in rooms for p in room.rate_plans),
        description=description
        or _describe(name, stars, property_type, hood, dest.name, distance_km, amenity_list),
        hue=ctx.rng.randint(0, 359),
    )
    state.hotels.append(found)
    state.rooms.extend(rooms)
    add_reviews(ctx, hotel=found, count=reviews)
    return PlantedHotel(hotel=found, rooms=rooms)


def reindex(ctx: BookingContext, hotel_id: str) -> None:
    """Recompute a hotel's index summary from its rooms (after a builder changed the rates)."""
    found = hotel(ctx, hotel_id)
    plans = [p for room in rooms_of(ctx, hotel_id) for p in room.rate_plans]
    found.price_from_cents = min(p.price_cents for p in plans)
    found.free_cancellation = any(p.refundable for p in plans)


def _describe(
    name: str, stars: int, kind: str, hood: str, city: str, distance: float, amenities: list[str]
) -> str:
    noun = {"Apartments": "apartment building", "Guesthouse": "guesthouse", "Hostel": "hostel"}.get(
        kind, "hotel"
    )
    extras = [a for a in amenities if a in ("Pool", "Spa", "Rooftop terrace", "Restaurant", "Fitness centre")]
    offer = (
        f" Guests enjoy the {extras[0].lower()}" + (f" and {extras[1].lower()}." if len(extras) > 1 else ".")
        if extras
        else ""
    )
    return (
        f"{name} is a {stars}-star {noun} in {hood}, {distance:.1f} km from the centre of {city}.{offer} "
        "Rooms are air-conditioned and non-smoking, and the front desk can help with tickets and transfers."
    )


def _city_spec(name: str) -> CitySpec:
    return next(spec for spec in CITIES if spec.name == name)


def add_reviews(ctx: BookingContext, *, hotel: Hotel, count: int) -> None:
    """A few guest reviews whose scores follow the hotel's rating."""
    for _ in range(count):
        score = max(3, min(10, round(hotel.rating + ctx.rng.choice((-2, -1, 0, 0, 1)))))
        title, body = ctx.rng.choice(REVIEW_LINES[review_band(score)])
        ctx.state.reviews.append(
            Review(
                id=ctx.new_id("rv"),
                hotel_id=hotel.id,
                author=f"{ctx.rng.choice(FIRST_NAMES)} {ctx.rng.choice(LAST_INITIALS)}.",
                rating=score,
                title=title,
                body=body,
                traveler_type=ctx.rng.choice(TRAVELER_TYPES),
                created_at=ctx.ago(days=ctx.rng.randint(4, 400), hours=ctx.rng.randint(0, 23)),
            )
        )


def add_booking(
    ctx: BookingContext,
    *,
    hotel_id: str,
    room_id: str,
    rate_code: str,
    check_in: date,
    nights: int,
    guests: int = 2,
    rooms: int = 1,
    status: str = "confirmed",
    card_id: str | None = None,
    guest_name: str = TRAVELLER_NAME,
    email: str = TRAVELLER_EMAIL,
    special_requests: str = "",
    booked_days_before: int = 20,
) -> Booking:
    """Append a booking priced from the room's rate; dates are relative to the session start."""
    state = ctx.state
    room = state.find("rooms", room_id)
    if room is None or room.hotel_id != hotel_id:
        raise SeedError(f"room {room_id!r} is not a room of hotel {hotel_id!r}")
    rate = plan(room, rate_code)
    if rate is None:
        raise SeedError(f"room {room_id} ({room.type}) has no rate {rate_code!r}")
    start, end = date_text(check_in), date_text(check_in + timedelta(days=nights))
    cost = price(rate, check_in=start, check_out=end, rooms=rooms)
    booked = min(
        ctx.now - timedelta(days=booked_days_before, hours=ctx.rng.randint(1, 11)),
        ctx.now - timedelta(hours=2),
    )
    booking_id = ctx.new_id("bk")
    booking = Booking(
        id=booking_id,
        reference=reference_for(booking_id),
        hotel_id=hotel_id,
        room_id=room_id,
        check_in=start,
        check_out=end,
        guests=guests,
        rooms=rooms,
        rate_plan=rate.code,
        refundable=rate.refundable,
        breakfast=rate.breakfast,
        nightly_cents=cost.nightly_cents,
        total_cents=cost.total_cents,
        status=status,
        guest_name=guest_name,
        email=email,
        phone=TRAVELLER_PHONE if guest_name == TRAVELLER_NAME else "",
        special_requests=special_requests,
        card_id=card_id or default_card(ctx).id,
        free_cancel_until=free_cancel_deadline(rate, start),
        created_at=to_iso(booked),
    )
    if status == "cancelled":
        booking.cancelled_at = to_iso(booked + timedelta(days=3))
        booking.refund_cents = booking.total_cents
        booking.cancellation_fee_cents = 0
    state.bookings.append(booking)
    return booking


def default_card(ctx: BookingContext) -> Card:
    """The traveller's default card."""
    return next(card for card in ctx.state.cards if card.is_default)


def build_default_state(ctx: BookingContext) -> None:
    """The site every task starts from (then the task's builders add its situation)."""
    state = ctx.state
    for spec in CITIES:
        state.destinations.append(
            Destination(
                id=ctx.new_id("dst"),
                name=spec.name,
                country=spec.country,
                region=spec.region,
                tagline=spec.tagline,
                hue=spec.hue,
            )
        )
    words = list(NAME_WORDS)
    ctx.rng.shuffle(words)
    for city_index, spec in enumerate(CITIES):
        for slot in range(HOTELS_PER_CITY):
            _generated_hotel(ctx, spec, words[(city_index * HOTELS_PER_CITY + slot) % len(words)], slot)
    _add_traveller(ctx)
    _add_history(ctx)


def _generated_hotel(ctx: BookingContext, spec: CitySpec, word: str, slot: int) -> PlantedHotel:
    rng = ctx.rng
    pattern, kind = NAME_PATTERNS[rng.randrange(len(NAME_PATTERNS))]
    hood = rng.choice(spec.neighborhoods)
    name = pattern.format(w=word, n=hood)
    stars = rng.choice((2, 3, 3, 3, 4, 4, 4, 5)) if kind != "Hostel" else 2
    low, high = STAR_PRICES[stars]
    base = dollars(rng.randint(low, high) * spec.price_factor)
    amenities = [a for a in AMENITIES if rng.random() < (0.35 + 0.1 * stars)]
    for needed in ("Free WiFi", "Non-smoking rooms"):
        if needed not in amenities:
            amenities.insert(0, needed)
    if stars < 4 and "Spa" in amenities and rng.random() < 0.6:
        amenities.remove("Spa")
    breakfast = (
        dollars(rng.randint(12, 28) * (1 + 0.1 * (stars - 2))) if "Breakfast available" in amenities else None
    )
    types = ["Standard Double Room"] + rng.sample(
        [
            "Single Room",
            "Twin Room",
            "Superior Double Room",
            "Deluxe King Room",
            "Junior Suite",
            "Family Room",
        ],
        k=rng.randint(1, 3),
    )
    types = [t for t in ROOM_TYPES if t in types]  # catalogue order: cheapest first
    return add_hotel(
        ctx,
        city=spec.name,
        name=name,
        stars=stars,
        rating=rng.randint(68, 95) / 10,
        review_count=rng.randint(40, 4200),
        distance_km=rng.randint(2, 65) / 10,
        amenities=amenities,
        base_cents=base,
        room_types=types,
        refundable=rng.random() < 0.78 or slot == 0,
        breakfast_cents=breakfast,
        free_cancel_days=rng.choice((1, 2, 3, 7)),
        property_type=kind,
        neighborhood=hood,
        reviews=rng.randint(2, 4),
    )


def _add_traveller(ctx: BookingContext) -> None:
    state = ctx.state
    year = ctx.now.year
    state.account.append(
        Account(
            id="me",
            full_name=TRAVELLER_NAME,
            email=TRAVELLER_EMAIL,
            phone=TRAVELLER_PHONE,
            home_city="San Francisco",
        )
    )
    state.cards.extend(
        [
            Card(
                id=ctx.new_id("card"),
                brand="Visa",
                last4="4242",
                exp_month=9,
                exp_year=year + 2,
                holder=TRAVELLER_NAME,
                is_default=True,
            ),
            Card(
                id=ctx.new_id("card"),
                brand="Mastercard",
                last4="5454",
                exp_month=4,
                exp_year=year + 1,
                holder=TRAVELLER_NAME,
            ),
            Card(
                id=ctx.new_id("card"),
                brand="American Express",
                last4="1005",
                exp_month=12,
                exp_year=year + 3,
                holder=TRAVELLER_NAME,
            ),
        ]
    )


def city_hotels(ctx: BookingContext, city: str) -> list[Hotel]:
    """The hotels of a city in stored order."""
    return [h for h in ctx.state.hotels if h.city == city]


def _add_history(ctx: BookingContext) -> None:
    state = ctx.state
    now = today(ctx)
    lists = [
        SavedList(id=ctx.new_id("sl"), name="Summer", created_at=ctx.ago(days=64)),
        SavedList(id=ctx.new_id("sl"), name="Weekend ideas", created_at=ctx.ago(days=31)),
    ]
    state.saved_lists.extend(lists)
    for saved, city, days in ((lists[0], "Rome", 60), (lists[0], "Lisbon", 58), (lists[1], "Prague", 30)):
        chosen = ctx.rng.choice(city_hotels(ctx, city))
        state.saved_items.append(
            SavedItem(
                id=ctx.new_id("si"),
                list_id=saved.id,
                hotel_id=chosen.id,
                added_at=ctx.ago(days=days),
                saved_price_cents=chosen.price_from_cents,
            )
        )
    history = (
        ("Vienna", -118, 3, "completed", True),
        ("Prague", -61, 2, "completed", False),
        ("Berlin", -26, 2, "completed", False),
        ("Paris", -40, 3, "cancelled", False),
        ("Amsterdam", 34, 3, "confirmed", False),
        ("Barcelona", 51, 4, "confirmed", False),
    )
    for city, offset, length, status, reviewed in history:
        # The cancelled trip and the Amsterdam one were booked on a refundable rate.
        flexible = status == "cancelled" or city == "Amsterdam"
        candidates = [h for h in city_hotels(ctx, city) if h.free_cancellation or not flexible]
        chosen = ctx.rng.choice(candidates)
        room = rooms_of(ctx, chosen.id)[0]
        code = next(p.code for p in room.rate_plans if p.refundable) if flexible else room.rate_plans[0].code
        booking = add_booking(
            ctx,
            hotel_id=chosen.id,
            room_id=room.id,
            rate_code=code,
            check_in=now + timedelta(days=offset),
            nights=length,
            status=status,
            booked_days_before=max(10, -offset + 25),
        )
        if reviewed:
            state.reviews.append(
                Review(
                    id=ctx.new_id("rv"),
                    hotel_id=chosen.id,
                    author=TRAVELLER_NAME,
                    author_is_me=True,
                    booking_id=booking.id,
                    rating=9,
                    title="Lovely stay near the centre",
                    body="Quiet room, friendly staff and a great breakfast. Would book again.",
                    created_at=to_iso(ctx.now - timedelta(days=-offset - length - 2)),
                )
            )
