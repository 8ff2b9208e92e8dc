"""Oracle and wrong solutions of Staywell's tasks (Playwright, through the UI only).

An oracle is what a competent, careful person does: it reads what the pages show, re-reads after
every change, and recovers from what the variant throws at it (a look-alike hotel, a refused or
slow save, a stale page, a session that expires). A WRONG solution is a plausible mistake (the
wrong list, the cheapest rate instead of the cheapest refundable one, one item forgotten) and must
fail the evaluator in both conditions. Steps shared by several tasks are in `oracle_steps`; the
solutions themselves are in `oracles_basic` (001-010) and `oracles_advanced` (011-020).
"""

from __future__ import annotations

from humantrace.environments.booking.oracles_advanced import (
    central_hotel_oracle,
    central_hotel_wrong,
    conference_oracle,
    conference_wrong,
    extend_oracle,
    extend_wrong,
    family_oracle,
    family_wrong,
    offsite_oracle,
    offsite_wrong,
    relocate_oracle,
    relocate_wrong,
    saved_cheapest_oracle,
    saved_cheapest_wrong,
    swap_city_oracle,
    swap_city_wrong,
    two_cities_oracle,
    two_cities_wrong,
    two_reviews_oracle,
    two_reviews_wrong,
)
from humantrace.environments.booking.oracles_basic import (
    cancel_oracle,
    cancel_wrong,
    cheapest_refundable_oracle,
    cheapest_refundable_wrong,
    colleague_oracle,
    colleague_wrong,
    conference_off_oracle,
    conference_off_wrong,
    move_trip_oracle,
    move_trip_wrong,
    pool_list_oracle,
    pool_list_wrong,
    review_oracle,
    review_wrong,
    save_hotel_oracle,
    save_hotel_wrong,
    special_request_oracle,
    special_request_wrong,
    tidy_list_oracle,
    tidy_list_wrong,
)
from humantrace.environments.sitekit import Oracle

ORACLES: dict[str, Oracle] = {
    "booking-001": save_hotel_oracle,
    "booking-002": special_request_oracle,
    "booking-003": review_oracle,
    "booking-004": cancel_oracle,
    "booking-005": cheapest_refundable_oracle,
    "booking-006": pool_list_oracle,
    "booking-007": colleague_oracle,
    "booking-008": tidy_list_oracle,
    "booking-009": move_trip_oracle,
    "booking-010": conference_off_oracle,
    "booking-011": central_hotel_oracle,
    "booking-012": two_reviews_oracle,
    "booking-013": swap_city_oracle,
    "booking-014": saved_cheapest_oracle,
    "booking-015": family_oracle,
    "booking-016": extend_oracle,
    "booking-017": conference_oracle,
    "booking-018": offsite_oracle,
    "booking-019": two_cities_oracle,
    "booking-020": relocate_oracle,
}
WRONG: dict[str, Oracle] = {
    "booking-001": save_hotel_wrong,
    "booking-002": special_request_wrong,
    "booking-003": review_wrong,
    "booking-004": cancel_wrong,
    "booking-005": cheapest_refundable_wrong,
    "booking-006": pool_list_wrong,
    "booking-007": colleague_wrong,
    "booking-008": tidy_list_wrong,
    "booking-009": move_trip_wrong,
    "booking-010": conference_off_wrong,
    "booking-011": central_hotel_wrong,
    "booking-012": two_reviews_wrong,
    "booking-013": swap_city_wrong,
    "booking-014": saved_cheapest_wrong,
    "booking-015": family_wrong,
    "booking-016": extend_wrong,
    "booking-017": conference_wrong,
    "booking-018": offsite_wrong,
    "booking-019": two_cities_wrong,
    "booking-020": relocate_wrong,
}
