"""Staywell's state: one typed collection per kind of entity.

Every entity has a string `id`; money is integer cents; stay dates are ISO dates (`2026-03-13`) and
moments are ISO-8601 UTC strings, all written from the session's virtual clock. A hotel's
`rating`, `price_from_cents` and `free_cancellation` are the search index's summary of the hotel
(what result cards show and filters use); the rooms and their rate plans are the live truth.
"""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, ConfigDict

from humantrace.environments.state import Entity, EnvState, state_helper


class Destination(Entity):
    """A city people search for ("Lisbon, Portugal")."""

    name: str
    country: str
    region: str
    tagline: str
    hue: int
    popular: bool = True


class Hotel(Entity):
    """A property and its search-index summary."""

    name: str
    destination_id: str
    city: str
    neighborhood: str
    address: str
    property_type: str  # Hotel | Apartments | Guesthouse | Resort | Hostel
    stars: int
    rating: float  # guest score out of 10
    review_count: int
    distance_km: float  # from the city centre
    amenities: list[str]
    free_cancellation: bool
    price_from_cents: int  # the cheapest nightly rate when the index was built
    description: str
    hue: int
    check_in_from: str = "15:00"
    check_out_until: str = "11:00"


class RatePlan(BaseModel):
    """One way to pay for a room: refundable or not, breakfast or not, a nightly price."""

    model_config = ConfigDict(extra="forbid")

    code: str  # nr | nr_bb | flex | flex_bb
    name: str
    refundable: bool
    breakfast: bool
    price_cents: int  # per room per night, taxes included
    free_cancel_days: int = 0  # refundable: free cancellation until this many days before check-in


class Room(Entity):
    """A room type of a hotel with its rate plans."""

    hotel_id: str
    type: str  # "Standard Double Room"
    beds: str
    capacity: int
    size_m2: int
    features: list[str]
    rate_plans: list[RatePlan]
    unavailable_nights: list[str] = []  # ISO dates of nights with no room left


class Booking(Entity):
    """A reservation (upcoming `confirmed`, past `completed`, or `cancelled`)."""

    reference: str
    hotel_id: str
    room_id: str
    check_in: str
    check_out: str
    guests: int
    rooms: int = 1
    rate_plan: str
    refundable: bool
    breakfast: bool
    nightly_cents: int
    total_cents: int
    status: str  # confirmed | completed | cancelled
    guest_name: str
    email: str
    phone: str = ""
    special_requests: str = ""
    card_id: str
    free_cancel_until: str | None = None  # ISO moment; None for non-refundable rates
    created_at: str
    modified_at: str | None = None
    cancelled_at: str | None = None
    refund_cents: int | None = None
    cancellation_fee_cents: int | None = None


class SavedList(Entity):
    """A named wishlist of hotels ("Summer")."""

    name: str
    created_at: str


class SavedItem(Entity):
    """A hotel on a saved list; `saved_price_cents` is its "from" price when it was saved."""

    list_id: str
    hotel_id: str
    added_at: str
    saved_price_cents: int | None = None


class Review(Entity):
    """A guest review; `author_is_me` marks the account holder's own (written after a stay)."""

    hotel_id: str
    author: str
    author_is_me: bool = False
    booking_id: str | None = None
    rating: int  # 1..10
    title: str
    body: str
    traveler_type: str = "Couple"  # Couple | Solo | Family | Business | Friends
    created_at: str


class Card(Entity):
    """A saved payment card (brand, last four digits and expiry only)."""

    brand: str
    last4: str
    exp_month: int
    exp_year: int
    holder: str
    is_default: bool = False


class Account(Entity):
    """The signed-in traveller (a single-entity collection)."""

    full_name: str
    email: str
    phone: str
    home_city: str
    signed_in: bool = True


class BookingState(EnvState):
    """The whole booking site as seen by one traveller."""

    destinations: list[Destination] = []
    hotels: list[Hotel] = []
    rooms: list[Room] = []
    bookings: list[Booking] = []
    saved_lists: list[SavedList] = []
    saved_items: list[SavedItem] = []
    reviews: list[Review] = []
    cards: list[Card] = []
    account: list[Account] = []

    # State helpers (pure; callable from task expressions as state.name(...) or initial.name(...)).

    @state_helper
    def booking_ids(self) -> list[str]:
        """The ids of every booking, whatever its status."""
        return [b.id for b in self.bookings]

    @state_helper
    def confirmed_bookings(self) -> list[Booking]:
        """The bookings whose status is confirmed (upcoming, not cancelled or completed)."""
        return [b for b in self.bookings if b.status == "confirmed"]

    @state_helper
    def nights(self, booking_id: str) -> int:
        """Nights of booking `booking_id` (check-out minus check-in), 0 when there is none."""
        booking = next((b for b in self.bookings if b.id == booking_id), None)
        if booking is None:
            return 0
        return (date.fromisoformat(booking.check_out[:10]) - date.fromisoformat(booking.check_in[:10])).days

    @state_helper
    def hotel_by_name(self, name: str) -> Hotel | None:
        """The hotel whose name is exactly `name`, or None."""
        return next((h for h in self.hotels if h.name == name), None)

    @state_helper
    def saved_hotel_ids(self, list_name: str) -> list[str]:
        """The hotel ids saved in the list named `list_name` (empty when there is no such list)."""
        ids = {lst.id for lst in self.saved_lists if lst.name == list_name}
        return [item.hotel_id for item in self.saved_items if item.list_id in ids]
