"""Stay dates, prices and the cancellation policy: pure functions shared by the seed and the API.

A stay runs from the check-in date to the check-out date; its nights are the dates from check-in up
to the day before check-out. A rate's price is per room per night with taxes included, so a stay
costs `nightly × nights × rooms`. A refundable rate can be cancelled for free until 23:59 UTC on
the day `free_cancel_days` before check-in; after that the first night is charged. A
non-refundable rate keeps the whole amount.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from humantrace.environments.booking.models import Booking, RatePlan, Room
from humantrace.environments.seeding import to_iso

MAX_NIGHTS = 30


def parse_date(value: str) -> date:
    """The date of an ISO date string (`2026-03-13`); ValueError otherwise."""
    return date.fromisoformat(value[:10])


def date_text(value: date) -> str:
    """The ISO form stays store."""
    return value.isoformat()


def long_date(value: date | str) -> str:
    """How instructions and pages write a date: `Friday 13 March 2026`."""
    day = parse_date(value) if isinstance(value, str) else value
    return f"{day.strftime('%A')} {day.day} {day.strftime('%B %Y')}"


def nights(check_in: str, check_out: str) -> list[str]:
    """The ISO dates of every night of a stay."""
    start, end = parse_date(check_in), parse_date(check_out)
    return [date_text(start + timedelta(days=offset)) for offset in range((end - start).days)]


def night_count(check_in: str, check_out: str) -> int:
    """How many nights a stay has (0 or less when the dates are out of order)."""
    return (parse_date(check_out) - parse_date(check_in)).days


def plan(room: Room, code: str) -> RatePlan | None:
    """The room's rate plan with this code, if it has one."""
    return next((p for p in room.rate_plans if p.code == code), None)


def is_available(room: Room, check_in: str, check_out: str) -> bool:
    """Whether the room has a room left on every night of the stay."""
    blocked = set(room.unavailable_nights)
    return not any(night in blocked for night in nights(check_in, check_out))


@dataclass(frozen=True)
class Price:
    """What a stay costs on one rate."""

    nightly_cents: int
    nights: int
    rooms: int
    total_cents: int


def price(rate: RatePlan, *, check_in: str, check_out: str, rooms: int = 1) -> Price:
    """The price of a stay on `rate` for `rooms` rooms."""
    count = night_count(check_in, check_out)
    return Price(
        nightly_cents=rate.price_cents,
        nights=count,
        rooms=rooms,
        total_cents=rate.price_cents * count * rooms,
    )


def free_cancel_deadline(rate: RatePlan, check_in: str) -> str | None:
    """When free cancellation ends (ISO moment), or None for a non-refundable rate."""
    if not rate.refundable:
        return None
    day = parse_date(check_in) - timedelta(days=max(1, rate.free_cancel_days))
    return to_iso(datetime.combine(day, time(23, 59), tzinfo=UTC))


def parse_moment(value: str) -> datetime:
    """The aware datetime of a stored ISO moment."""
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


@dataclass(frozen=True)
class CancellationTerms:
    """What cancelling a booking now would cost and refund."""

    can_cancel: bool
    free: bool
    fee_cents: int
    refund_cents: int
    summary: str


def cancellation_terms(booking: Booking, now: datetime) -> CancellationTerms:
    """The policy applied to `booking` at `now`."""
    if booking.status != "confirmed":
        return CancellationTerms(False, False, 0, 0, f"This booking is {booking.status}.")
    if parse_date(booking.check_in) <= now.date():
        return CancellationTerms(False, False, 0, 0, "Stays that have started can't be cancelled online.")
    if not booking.refundable:
        return CancellationTerms(
            True, False, booking.total_cents, 0, "This rate is non-refundable: cancelling refunds nothing."
        )
    if booking.free_cancel_until and now <= parse_moment(booking.free_cancel_until):
        return CancellationTerms(
            True, True, 0, booking.total_cents, "Free cancellation: you'll get a full refund."
        )
    first_night = booking.nightly_cents * booking.rooms
    return CancellationTerms(
        True,
        False,
        first_night,
        booking.total_cents - first_night,
        "The free cancellation period has ended: the first night is charged.",
    )


def policy_text(rate: RatePlan, check_in: str) -> str:
    """The one-line policy a rate shows ("Free cancellation until 23:59 on 11 March 2026")."""
    deadline = free_cancel_deadline(rate, check_in)
    if deadline is None:
        return "Non-refundable: you pay the full amount if you cancel or don't show up."
    day = parse_moment(deadline).date()
    return f"Free cancellation until 23:59 on {day.day} {day.strftime('%B %Y')}"


def reference_for(booking_id: str) -> str:
    """A booking's confirmation code, derived from its id (the same id gives the same code)."""
    digest = hashlib.sha256(f"staywell:{booking_id}".encode()).hexdigest().upper()
    letters = "".join(ch for ch in digest if ch in "ABCDEFHJKMNPRSTUVWXYZ") + "STAYWELL"
    digits = "".join(ch for ch in digest if ch.isdigit()) + "000000"
    return f"SW-{letters[:2]}{digits[:4]}{letters[2]}"
