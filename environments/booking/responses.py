"""The booking API's answers, one pydantic model per response (see `environments/responses.py`).

Views that extend a state entity (a trip is a `Booking` plus what can be done with it) subclass
the state's model, so the schema lists the entity's fields once.
"""

from __future__ import annotations

from pydantic import ConfigDict

from humantrace.environments.booking.models import (
    Account,
    Booking,
    Card,
    Destination,
    RatePlan,
    Review,
    SavedItem,
    SavedList,
)
from humantrace.environments.responses import Answer
from humantrace.environments.responses import (
    Removed as Removed,  # re-exported: the API answers deletions with it
)

# ---------------------------------------------------------------- session, home, search


class Me(Answer):
    signed_in: bool
    name: str
    first_name: str
    email: str
    upcoming_trips: int
    today: str


class SignedIn(Answer):
    signed_in: bool
    name: str


class DestinationEntry(Destination):
    hotel_count: int
    price_from_cents: int | None


class NextTrip(Answer):
    id: str
    hotel_name: str
    city: str
    check_in_text: str
    check_out_text: str


class Home(Answer):
    destinations: list[DestinationEntry]
    next_trip: NextTrip | None
    today: str


class CitySuggestion(Answer):
    kind: str  # "city"
    id: str
    label: str
    sublabel: str
    count: int


class HotelSuggestion(Answer):
    kind: str  # "hotel"
    id: str
    label: str
    sublabel: str
    destination_id: str


class Suggestions(Answer):
    suggestions: list[CitySuggestion | HotelSuggestion]


class HotelCard(Answer):
    """A hotel as result cards, lists and trips show it."""

    id: str
    name: str
    city: str
    neighborhood: str
    address: str
    property_type: str
    stars: int
    rating: float
    rating_word: str
    review_count: int
    distance_km: float
    amenities: list[str]
    free_cancellation: bool
    price_from_cents: int
    hue: int


class EstimatedHotelCard(HotelCard):
    """A result card when the search has dates: the cheapest stay's estimate."""

    estimate_cents: int


class Stay(Answer):
    check_in: str | None
    check_out: str | None
    guests: int
    rooms: int
    nights: int | None


class SearchStay(Stay):
    check_in_text: str | None
    check_out_text: str | None


class SearchResults(Answer):
    destination: Destination
    stay: SearchStay
    sort: str
    total: int
    sold_out: int
    count: int
    hotels: list[EstimatedHotelCard | HotelCard]
    filter_amenities: list[str]


class HotelInfo(HotelCard):
    description: str
    check_in_from: str
    check_out_until: str
    destination_id: str
    offers_free_cancellation: bool


class RateEntry(RatePlan):
    """A rate without dates: no price for the stay, no policy yet."""

    model_config = ConfigDict(extra="forbid")

    policy: None


class PricedRate(RatePlan):
    """A rate priced for the stay's dates, with its cancellation policy."""

    model_config = ConfigDict(extra="forbid")

    policy: str
    total_cents: int
    nights: int


class RoomEntry(Answer):
    id: str
    hotel_id: str
    type: str
    beds: str
    capacity: int
    size_m2: int
    features: list[str]
    fits: bool
    available: bool
    rates: list[PricedRate | RateEntry]


class ReviewEntry(Review):
    rating_word: str


class HotelDetail(Answer):
    hotel: HotelInfo
    destination: Destination | None
    stay: Stay
    rooms: list[RoomEntry]
    reviews: list[ReviewEntry]
    saved_in: list[str]


# ---------------------------------------------------------------- booking


class CardView(Card):
    """A saved card with its label and whether it has expired."""

    label: str
    expired: bool
    expiry: str


class RoomRef(Answer):
    id: str
    type: str
    beds: str
    capacity: int


class QuoteView(Answer):
    hotel: HotelCard
    room: RoomRef
    rate: RatePlan
    policy: str
    check_in: str | None
    check_out: str | None
    check_in_text: str
    check_out_text: str
    guests: int
    rooms: int
    nights: int
    nightly_cents: int
    total_cents: int
    cards: list[CardView]


class Cancellation(Answer):
    can_cancel: bool
    free: bool
    fee_cents: int
    refund_cents: int
    summary: str


class TripView(Booking):
    """A booking with its hotel, room, rate, policy and what can still be done with it."""

    hotel: HotelCard | None
    room_type: str
    room_beds: str
    rate_name: str
    nights: int
    check_in_text: str
    check_out_text: str
    card_label: str
    cancellation: Cancellation
    can_edit_guest: bool
    can_change_stay: bool
    change_blocked_reason: str | None
    can_review: bool
    reviewed: bool


class BookingOne(Answer):
    booking: TripView


class BookingChanged(BookingOne):
    message: str


class Trips(Answer):
    upcoming: list[TripView]
    past: list[TripView]
    cancelled: list[TripView]


class ChangeQuote(Answer):
    changed: list[str]
    new_total_cents: int
    difference_cents: int
    nightly_cents: int
    nights: int | None
    rate_name: str | None
    room_type: str | None
    card_label: str


# ---------------------------------------------------------------- saved lists


class ListEntry(Answer):
    id: str
    added_at: str
    saved_price_cents: int | None
    hotel: HotelCard


class ListView(SavedList):
    items: list[ListEntry]
    count: int


class Lists(Answer):
    lists: list[ListView]


class ListCreated(Answer):
    list: SavedList
    message: str


class ListItemSaved(Answer):
    item: SavedItem
    message: str


# ---------------------------------------------------------------- reviews, account, cards


class MyReview(Review):
    hotel_name: str
    stay_text: str


class MyReviews(Answer):
    reviews: list[MyReview]


class ReviewPosted(Answer):
    review: Review
    message: str


class AccountPage(Answer):
    account: Account
    cards: list[CardView]


class AccountSaved(Answer):
    account: Account
    message: str


class Cards(Answer):
    cards: list[CardView]


class CardsChanged(Cards):
    message: str


class CardAdded(CardsChanged):
    card: Card
