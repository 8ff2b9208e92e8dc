"""Staywell's public JSON API (mounted at /api/env/booking): the only surface pages and agents touch.

Handlers are thin: they call the service functions (a refusal is a `SiteError`, which the site kit's
one handler answers) and emit one typed semantic event per meaningful action (`EVENTS` below; the
same table is in environments/booking/README.md and docs/sites/booking.md).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from humantrace.environments.booking import account_service as accounts
from humantrace.environments.booking import responses as R
from humantrace.environments.booking import search_service as search
from humantrace.environments.booking import trip_service as trips
from humantrace.environments.booking.models import BookingState
from humantrace.environments.booking.schemas import (
    BookingChange,
    NewBooking,
    NewCard,
    NewList,
    NewReview,
    ProfileChanges,
    Quote,
    SaveHotel,
)
from humantrace.environments.booking.views import card_label, trip_view
from humantrace.environments.sessions import EnvHandle, EnvSessionDep
from humantrace.environments.sitekit import state_of

# Semantic events: name -> params.
EVENTS: dict[str, tuple[str, ...]] = {
    "search": ("destination_id", "check_in", "check_out", "guests", "rooms", "sort", "filters"),
    "hotel_view": ("hotel_id", "check_in", "check_out"),
    "booking_created": (
        "booking_id",
        "hotel_id",
        "room_id",
        "rate_plan",
        "check_in",
        "check_out",
        "guests",
        "rooms",
        "total_cents",
        "card_id",
    ),
    "booking_modified": ("booking_id", "changed", "total_cents", "difference_cents"),
    "booking_cancelled": ("booking_id", "refund_cents", "fee_cents"),
    "list_created": ("list_id", "name"),
    "list_deleted": ("list_id", "name"),
    "list_item_added": ("list_id", "hotel_id"),
    "list_item_removed": ("list_id", "hotel_id"),
    "review_posted": ("review_id", "hotel_id", "booking_id", "rating"),
    "card_added": ("card_id", "last4", "is_default"),
    "default_card_set": ("card_id", "last4"),
    "card_removed": ("card_id", "last4"),
    "profile_updated": ("fields",),
    "signed_in": (),
}

router = APIRouter()


# ---------------------------------------------------------------- session, home, search


@router.get("/me", response_model=R.Me)
def me(env: EnvSessionDep) -> dict[str, Any]:
    """Header data: who is signed in and how many upcoming trips they have."""
    state = state_of(env, BookingState)
    person = accounts.account(state)
    today = env.now().date().isoformat()
    upcoming = sum(1 for b in state.bookings if b.status == "confirmed" and b.check_out > today)
    return {
        "signed_in": person.signed_in,
        "name": person.full_name,
        "first_name": person.full_name.split(" ")[0],
        "email": person.email,
        "upcoming_trips": upcoming,
        "today": today,
    }


@router.post("/auth/login", response_model=R.SignedIn)
def login(env: EnvSessionDep) -> dict[str, Any]:
    """Sign in again after a session expiry (the device remembers the traveller)."""
    person = accounts.account(state_of(env, BookingState))
    person.signed_in = True
    env.emit("signed_in")
    return {"signed_in": True, "name": person.full_name}


@router.get("/home", response_model=R.Home)
def home(env: EnvSessionDep) -> dict[str, Any]:
    return search.home(state_of(env, BookingState), now=env.now())


@router.get("/destinations", response_model=R.Suggestions)
def destinations(env: EnvSessionDep, q: str = "") -> dict[str, Any]:
    """Autocomplete suggestions for the destination field."""
    return {"suggestions": search.suggest(state_of(env, BookingState), q=q)}


def _stay(check_in: str | None, check_out: str | None, guests: int, rooms: int) -> search.Stay:
    return search.Stay(check_in=check_in or None, check_out=check_out or None, guests=guests, rooms=rooms)


@router.get("/hotels", response_model=R.SearchResults)
def hotels(
    env: EnvSessionDep,
    destination: str | None = None,
    q: str = "",
    check_in: str | None = None,
    check_out: str | None = None,
    guests: int = 2,
    rooms: int = 1,
    sort: str = "recommended",
    min_price: float | None = None,
    max_price: float | None = None,
    min_rating: float | None = None,
    stars: Annotated[list[int] | None, Query()] = None,
    amenity: Annotated[list[str] | None, Query()] = None,
    free_cancellation: bool = False,
    max_distance: float | None = None,
) -> dict[str, Any]:
    """Results: one destination, the stay, sort and filters (prices are per night, in dollars)."""
    query = search.SearchQuery(
        destination_id=destination or None,
        q=q,
        stay=_stay(check_in, check_out, guests, rooms),
        sort=sort,
        min_price_cents=round(min_price * 100) if min_price is not None else None,
        max_price_cents=round(max_price * 100) if max_price is not None else None,
        min_rating=min_rating,
        stars=tuple(stars or ()),
        amenities=tuple(amenity or ()),
        free_cancellation=free_cancellation,
        max_distance_km=max_distance,
    )
    result = search.search(state_of(env, BookingState), query=query, now=env.now())
    filters = {
        key: value
        for key, value in (
            ("min_price", min_price),
            ("max_price", max_price),
            ("min_rating", min_rating),
            ("stars", sorted(stars) if stars else None),
            ("amenities", sorted(amenity) if amenity else None),
            ("free_cancellation", free_cancellation or None),
            ("max_distance", max_distance),
        )
        if value is not None
    }
    env.emit(
        "search",
        destination_id=result["destination"]["id"],
        check_in=query.stay.check_in,
        check_out=query.stay.check_out,
        guests=guests,
        rooms=rooms,
        sort=sort,
        filters=filters,
    )
    return result


@router.get("/hotels/{hotel_id}", response_model=R.HotelDetail)
def hotel(
    hotel_id: str,
    env: EnvSessionDep,
    check_in: str | None = None,
    check_out: str | None = None,
    guests: int = 2,
    rooms: int = 1,
) -> dict[str, Any]:
    """A hotel page: rooms and rates priced for the stay, reviews, the lists it is on."""
    stay = _stay(check_in, check_out, guests, rooms)
    result = search.hotel_detail(state_of(env, BookingState), hotel_id=hotel_id, stay=stay, now=env.now())
    env.emit("hotel_view", hotel_id=hotel_id, check_in=stay.check_in, check_out=stay.check_out)
    return result


# ---------------------------------------------------------------- booking


def _selection(body: Quote | NewBooking, env: EnvHandle) -> trips.Selection:
    stay = search.Stay(check_in=body.check_in, check_out=body.check_out, guests=body.guests, rooms=body.rooms)
    return trips.select(
        state_of(env, BookingState),
        hotel_id=body.hotel_id,
        room_id=body.room_id,
        rate_code=body.rate_plan,
        stay=stay,
        now=env.now(),
    )


@router.post("/quote", response_model=R.QuoteView)
def quote(body: Quote, env: EnvSessionDep) -> dict[str, Any]:
    """The price and policy of a room and rate for a stay, and the cards to pay with."""
    return trips.quote_view(_selection(body, env), state_of(env, BookingState), env.now())


@router.post("/bookings", status_code=201, response_model=R.BookingChanged)
def create_booking(body: NewBooking, env: EnvSessionDep) -> dict[str, Any]:
    state = state_of(env, BookingState)
    selection = _selection(body, env)
    booking = trips.book(
        state,
        selection=selection,
        guest_name=body.guest_name,
        email=body.email,
        phone=body.phone,
        special_requests=body.special_requests,
        card_id=body.card_id,
        expected_total_cents=body.expected_total_cents,
        now=env.now(),
        new_id=env.new_id,
    )
    env.emit(
        "booking_created",
        booking_id=booking.id,
        hotel_id=booking.hotel_id,
        room_id=booking.room_id,
        rate_plan=booking.rate_plan,
        check_in=booking.check_in,
        check_out=booking.check_out,
        guests=booking.guests,
        rooms=booking.rooms,
        total_cents=booking.total_cents,
        card_id=booking.card_id,
    )
    return {"booking": trip_view(state, booking, env.now()), "message": "Your booking is confirmed."}


@router.get("/trips", response_model=R.Trips)
def list_trips(env: EnvSessionDep) -> dict[str, Any]:
    return trips.trips(state_of(env, BookingState), now=env.now())


@router.get("/bookings/{booking_id}", response_model=R.BookingOne)
def get_booking(booking_id: str, env: EnvSessionDep) -> dict[str, Any]:
    state = state_of(env, BookingState)
    booking = trips.find_booking(state, booking_id)
    return {"booking": trip_view(state, booking, env.now())}


def _change(body: BookingChange) -> trips.Change:
    return trips.Change(**body.model_dump())


@router.post("/bookings/{booking_id}/change-quote", response_model=R.ChangeQuote)
def change_quote(booking_id: str, body: BookingChange, env: EnvSessionDep) -> dict[str, Any]:
    """What a change would cost, without making it."""
    state = state_of(env, BookingState)
    booking = trips.find_booking(state, booking_id)
    planned = trips.plan_change(state, booking=booking, change=_change(body), now=env.now())
    sel = planned.selection
    return {
        "changed": planned.changed,
        "new_total_cents": planned.new_total_cents,
        "difference_cents": planned.difference_cents,
        "nightly_cents": sel.cost.nightly_cents if sel else booking.nightly_cents,
        "nights": sel.cost.nights if sel else None,
        "rate_name": sel.rate.name if sel else None,
        "room_type": sel.room.type if sel else None,
        "card_label": card_label(state.find("cards", booking.card_id)),
    }


@router.patch("/bookings/{booking_id}", response_model=R.BookingChanged)
def change_booking(booking_id: str, body: BookingChange, env: EnvSessionDep) -> dict[str, Any]:
    state = state_of(env, BookingState)
    booking = trips.find_booking(state, booking_id)
    planned = trips.apply_change(state, booking=booking, change=_change(body), now=env.now())
    env.emit(
        "booking_modified",
        booking_id=booking.id,
        changed=planned.changed,
        total_cents=booking.total_cents,
        difference_cents=planned.difference_cents,
    )
    return {"booking": trip_view(state, booking, env.now()), "message": "Your booking has been updated."}


@router.post("/bookings/{booking_id}/cancel", response_model=R.BookingChanged)
def cancel_booking(booking_id: str, env: EnvSessionDep) -> dict[str, Any]:
    state = state_of(env, BookingState)
    booking = trips.find_booking(state, booking_id)
    trips.cancel(state, booking=booking, now=env.now())
    env.emit(
        "booking_cancelled",
        booking_id=booking.id,
        refund_cents=booking.refund_cents,
        fee_cents=booking.cancellation_fee_cents,
    )
    return {"booking": trip_view(state, booking, env.now()), "message": "Your booking has been cancelled."}


# ---------------------------------------------------------------- saved lists


@router.get("/lists", response_model=R.Lists)
def get_lists(env: EnvSessionDep) -> dict[str, Any]:
    return accounts.lists_view(state_of(env, BookingState))


@router.post("/lists", status_code=201, response_model=R.ListCreated)
def create_list(body: NewList, env: EnvSessionDep) -> dict[str, Any]:
    saved = accounts.create_list(
        state_of(env, BookingState), name=body.name, now=env.now(), new_id=env.new_id
    )
    env.emit("list_created", list_id=saved.id, name=saved.name)
    return {"list": saved.model_dump(), "message": f"Created \u201c{saved.name}\u201d."}


@router.delete("/lists/{list_id}", response_model=R.Removed)
def delete_list(list_id: str, env: EnvSessionDep) -> dict[str, Any]:
    saved = accounts.delete_list(state_of(env, BookingState), list_id=list_id)
    env.emit("list_deleted", list_id=saved.id, name=saved.name)
    return {"removed": saved.id, "message": f"Deleted \u201c{saved.name}\u201d."}


@router.post("/lists/{list_id}/items", status_code=201, response_model=R.ListItemSaved)
def add_list_item(list_id: str, body: SaveHotel, env: EnvSessionDep) -> dict[str, Any]:
    state = state_of(env, BookingState)
    item = accounts.save_hotel(
        state, list_id=list_id, hotel_id=body.hotel_id, now=env.now(), new_id=env.new_id
    )
    env.emit("list_item_added", list_id=list_id, hotel_id=body.hotel_id)
    name = accounts.find_list(state, list_id).name
    return {"item": item.model_dump(), "message": f"Saved to \u201c{name}\u201d."}


@router.delete("/lists/{list_id}/items/{item_id}", response_model=R.Removed)
def remove_list_item(list_id: str, item_id: str, env: EnvSessionDep) -> dict[str, Any]:
    state = state_of(env, BookingState)
    item = accounts.unsave_hotel(state, list_id=list_id, item_id=item_id)
    env.emit("list_item_removed", list_id=list_id, hotel_id=item.hotel_id)
    name = accounts.find_list(state, list_id).name
    return {"removed": item.id, "message": f"Removed from \u201c{name}\u201d."}


# ---------------------------------------------------------------- reviews


@router.get("/reviews/mine", response_model=R.MyReviews)
def my_reviews(env: EnvSessionDep) -> dict[str, Any]:
    return {"reviews": accounts.my_reviews(state_of(env, BookingState))}


@router.post("/reviews", status_code=201, response_model=R.ReviewPosted)
def post_review(body: NewReview, env: EnvSessionDep) -> dict[str, Any]:
    review = accounts.post_review(
        state_of(env, BookingState),
        booking_id=body.booking_id,
        rating=body.rating,
        title=body.title,
        body=body.body,
        traveler_type=body.traveler_type,
        now=env.now(),
        new_id=env.new_id,
    )
    env.emit(
        "review_posted",
        review_id=review.id,
        hotel_id=review.hotel_id,
        booking_id=review.booking_id,
        rating=review.rating,
    )
    return {"review": review.model_dump(), "message": "Thanks! Your review has been published."}


# ---------------------------------------------------------------- account and cards


@router.get("/account", response_model=R.AccountPage)
def get_account(env: EnvSessionDep) -> dict[str, Any]:
    state = state_of(env, BookingState)
    return {"account": accounts.account(state).model_dump(), "cards": accounts.cards_view(state, env.now())}


@router.patch("/account", response_model=R.AccountSaved)
def update_account(body: ProfileChanges, env: EnvSessionDep) -> dict[str, Any]:
    state = state_of(env, BookingState)
    changed = accounts.update_profile(state, full_name=body.full_name, email=body.email, phone=body.phone)
    if changed:
        env.emit("profile_updated", fields=changed)
    return {"account": accounts.account(state).model_dump(), "message": "Your profile has been saved."}


@router.get("/cards", response_model=R.Cards)
def get_cards(env: EnvSessionDep) -> dict[str, Any]:
    return {"cards": accounts.cards_view(state_of(env, BookingState), env.now())}


@router.post("/cards", status_code=201, response_model=R.CardAdded)
def add_card(body: NewCard, env: EnvSessionDep) -> dict[str, Any]:
    state = state_of(env, BookingState)
    card = accounts.add_card(
        state,
        number=body.number,
        exp_month=body.exp_month,
        exp_year=body.exp_year,
        holder=body.holder,
        make_default=body.make_default,
        now=env.now(),
        new_id=env.new_id,
    )
    env.emit("card_added", card_id=card.id, last4=card.last4, is_default=card.is_default)
    return {
        "card": card.model_dump(),
        "cards": accounts.cards_view(state, env.now()),
        "message": f"{card_label(card)} saved.",
    }


@router.post("/cards/{card_id}/default", response_model=R.CardsChanged)
def default_card(card_id: str, env: EnvSessionDep) -> dict[str, Any]:
    state = state_of(env, BookingState)
    card = accounts.set_default_card(state, card_id=card_id)
    env.emit("default_card_set", card_id=card.id, last4=card.last4)
    return {
        "cards": accounts.cards_view(state, env.now()),
        "message": f"{card_label(card)} is now your default card.",
    }


@router.delete("/cards/{card_id}", response_model=R.CardsChanged)
def delete_card(card_id: str, env: EnvSessionDep) -> dict[str, Any]:
    state = state_of(env, BookingState)
    card = accounts.remove_card(state, card_id=card_id, now=env.now())
    env.emit("card_removed", card_id=card.id, last4=card.last4)
    return {"cards": accounts.cards_view(state, env.now()), "message": f"{card_label(card)} removed."}
