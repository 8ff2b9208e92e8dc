"""Server-layer mutations of Staywell (registered as `booking.<name>`).

The variants mostly use the framework's generic mutations (`shuffle_list`, `corrupt_field`);
this module adds the ones that need to know how a hotel's rates and index summary relate.
"""

from __future__ import annotations

from humantrace.environments.booking.seed import BookingContext, dollars, hotel, rooms_of
from humantrace.environments.seeding import mutation


@mutation("booking.rate_rise")
def rate_rise(ctx: BookingContext, *, hotel_ref: str, percent: int) -> None:
    """Raise every live rate of a hotel by `percent` without refreshing the search index, so result
    cards keep showing the old "from" price until the hotel page is opened."""
    found = hotel(ctx, hotel_ref)
    for room in rooms_of(ctx, found.id):
        for rate in room.rate_plans:
            rate.price_cents = dollars(rate.price_cents * (100 + percent) / 10000)
