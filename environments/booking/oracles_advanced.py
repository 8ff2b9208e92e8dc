"""Oracle and wrong solutions of the hard, expert and frontier Staywell tasks (011-020)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from humantrace.environments.booking import oracle_steps as ui
from humantrace.environments.booking.oracle_steps import AMEX, FLEX_BB, MASTERCARD, VISA
from humantrace.environments.oracles import OracleContext, attribute

if TYPE_CHECKING:
    from playwright.sync_api import Page

# ---------------------------------------------------------------- hard


def central_hotel_oracle(page: Page, ctx: OracleContext) -> None:
    t = ctx.targets
    ui.loaded(page)
    ui.search(page, "Amsterdam", t["check_in_text"], t["check_out_text"])
    ui.filter_results(
        page,
        free_cancellation=True,
        rating="Very good: 8+",
        distance="Less than 2 km",
        sort="Price (lowest first)",
    )
    # The distance filter stops at 2 km: read each card and keep those within 1.5 km, then compare
    # their cheapest breakfast + free cancellation room for two on the hotel pages.
    near = [
        attribute(card.locator("h2 a"), "href").split("/hotel/")[1].split("?")[0]
        for card in page.locator(".hotel-card").all()
        if float(card.locator(".distance").inner_text().split()[0]) <= 1.5
    ]
    totals = {}
    for hotel_id in near:
        ui.open_hotel(page, hotel_id)
        offers = [r["total"] for r in ui.rate_rows(page) if r["name"] == FLEX_BB]
        if offers:
            totals[hotel_id] = min(offers)
        page.go_back()
        ui.results_ready(page)
    best = min(totals, key=totals.__getitem__)
    assert best == t["hotel_id"]
    ui.open_hotel(page, best)
    ui.reserve(page, t["room_id"], t["rate_plan"])
    ui.complete_booking(page, card_label=VISA)


def central_hotel_wrong(page: Page, ctx: OracleContext) -> None:
    # Sorts by price with the rating and cancellation filters but forgets the distance.
    t = ctx.targets
    ui.loaded(page)
    ui.search(page, "Amsterdam", t["check_in_text"], t["check_out_text"])
    ui.filter_results(page, free_cancellation=True, rating="Very good: 8+", sort="Price (lowest first)")
    page.locator(".hotel-card h2 a").first.click()
    ui.hotel_ready(page)
    page.get_by_role("button", name=re.compile(f"^Reserve .*: {FLEX_BB}$")).first.click()
    ui.loaded(page)
    ui.complete_booking(page, card_label=VISA)


def _review_both_stays(page: Page, t: Mapping[str, Any]) -> None:
    """Review stay A (9, "Wonderful staff") and stay B (6, "Noisy at night") from Past trips."""
    ui.loaded(page)
    ui.open_trip_by_id(page, t["booking_a"], tab="Past")
    ui.write_review(
        page,
        score=9,
        title="Wonderful staff",
        body="Wonderful staff and a lovely rooftop terrace for breakfast.",
    )
    ui.open_trip_by_id(page, t["booking_b"], tab="Past")
    ui.write_review(
        page,
        score=6,
        title="Noisy at night",
        body="Decent room, but the street noise kept us awake at night.",
    )


def two_reviews_oracle(page: Page, ctx: OracleContext) -> None:
    _review_both_stays(page, ctx.targets)
    ui.open_trip_by_id(page, ctx.targets["booking_a"], tab="Past")
    ui.hotel_page_from_trip(page)
    ui.save_to_list(page, "Summer")


def two_reviews_wrong(page: Page, ctx: OracleContext) -> None:
    """Saves the hotel of the stay reviewed last (B) instead of the one scored higher (A)."""
    _review_both_stays(page, ctx.targets)
    ui.hotel_page_from_trip(page)
    ui.save_to_list(page, "Summer")


# ---------------------------------------------------------------- expert


def _swap_city(page: Page, t: dict[str, Any], *, cancel_id: str) -> None:
    ui.open_trip_by_id(page, cancel_id)
    ui.cancel_trip(page)
    ui.nav(page, "Stays")
    ui.search(page, "Vienna", t["check_in_text"], t["check_out_text"])
    ui.filter_results(page, free_cancellation=True, stars=[4], sort="Price (lowest first)")
    budget = float(t["budget_text"].strip("$").replace(",", ""))
    totals = {}
    for hotel_id in ui.result_ids(page):
        # A card's "from" price is the cheapest room of any size, and can be out of date: the hotel
        # page shows what a room for two costs for these dates.
        ui.open_hotel(page, hotel_id)
        refundable = [r["total"] for r in ui.rate_rows(page) if r["name"].startswith("Free cancellation")]
        if refundable and min(refundable) <= budget:
            totals[hotel_id] = min(refundable)
        page.go_back()
        ui.results_ready(page)
    best = min(totals, key=totals.__getitem__)
    assert best == t["hotel_id"], "the cheapest refundable 4-star stay within budget is the target"
    ui.open_hotel(page, best)
    ui.reserve(page, t["room_id"], t["rate_plan"])
    ui.complete_booking(page, card_label=AMEX)


def swap_city_oracle(page: Page, ctx: OracleContext) -> None:
    ui.loaded(page)
    _swap_city(page, ctx.targets, cancel_id=ctx.targets["cancel_id"])


def swap_city_wrong(page: Page, ctx: OracleContext) -> None:
    # Cancels the non-refundable Paris booking instead of the free one.
    ui.loaded(page)
    _swap_city(page, ctx.targets, cancel_id=ctx.targets["keep_id"])


def _delete_list(page: Page, name: str) -> None:
    for _ in range(4):
        ui.nav(page, "Saved")
        buttons = page.get_by_role("navigation", name="Your lists").get_by_role(
            "button", name=re.compile(rf"^{re.escape(name)}")
        )
        if not buttons.count():
            return
        ui.open_list(page, name)
        ui.dismiss_toasts(page)
        page.get_by_role("button", name="Delete list").click()
        page.get_by_role("dialog").get_by_role("button", name="Delete list").click()
        page.wait_for_timeout(1500)
    raise AssertionError(f"the list {name} could not be deleted")


def _book_saved(page: Page, t: dict[str, Any], hotel_id: str, room_id: str | None, rate: str) -> None:
    ui.open_list(page, "Lisbon long weekend")
    ui.open_hotel(page, hotel_id)
    ui.set_stay_on_hotel(page, t["check_in_text"], t["check_out_text"])
    if room_id:
        ui.reserve(page, room_id, rate)
    else:
        page.get_by_role("button", name=re.compile(r"^Reserve .*: Free cancellation$")).first.click()
        ui.loaded(page)
    ui.complete_booking(page, card_label=VISA)


def saved_cheapest_oracle(page: Page, ctx: OracleContext) -> None:
    t = ctx.targets
    ui.loaded(page)
    ui.open_list(page, "Lisbon long weekend")
    totals = {}
    for hotel_id in page.locator(".saved-card h2 a").evaluate_all(
        "els => els.map(e => e.getAttribute('href').split('/hotel/')[1].split('?')[0])"
    ):
        # The saved prices are old: price each hotel for the dates on its own page.
        ui.open_hotel(page, hotel_id)
        ui.set_stay_on_hotel(page, t["check_in_text"], t["check_out_text"])
        totals[hotel_id] = min(r["total"] for r in ui.rate_rows(page) if r["name"] == "Free cancellation")
        ui.nav(page, "Saved")
        ui.open_list(page, "Lisbon long weekend")
    cheapest = min(totals, key=totals.__getitem__)
    assert cheapest == t["hotel_id"]
    _book_saved(page, t, cheapest, t["room_id"], t["rate_plan"])
    _delete_list(page, "Lisbon long weekend")


def saved_cheapest_wrong(page: Page, ctx: OracleContext) -> None:
    # Trusts the prices from when the hotels were saved: Casa Lusitana was cheapest then.
    t = ctx.targets
    ui.loaded(page)
    ui.open_list(page, "Lisbon long weekend")
    card = page.locator(".saved-card").filter(has_text="Casa Lusitana")
    hotel_id = attribute(card.locator("h2 a"), "href").split("/hotel/")[1].split("?")[0]
    _book_saved(page, t, hotel_id, None, "flex")
    _delete_list(page, "Lisbon long weekend")


def _family(page: Page, t: dict[str, Any], *, parents_name: str) -> None:
    ui.loaded(page)
    ui.hotel_by_name(page, t["hotel_name"], "Barcelona")
    ui.set_stay_on_hotel(page, t["check_in_text"], t["check_out_text"], guests=4)
    ui.reserve(page, t["family_room_id"], "flex_bb")
    ui.complete_booking(page, card_label=AMEX)
    ui.hotel_page_from_trip(page)
    ui.set_stay_on_hotel(page, t["check_in_text"], t["check_out_text"], guests=2)
    ui.reserve(page, t["twin_room_id"], "flex_bb")
    email = "elena.morgan@example.com" if parents_name == "Elena Morgan" else None
    ui.complete_booking(page, card_label=AMEX, guest_name=parents_name, email=email)


def family_oracle(page: Page, ctx: OracleContext) -> None:
    _family(page, ctx.targets, parents_name="Elena Morgan")
    assert ui.trip_field(page, "Guest name") == "Elena Morgan"


def family_wrong(page: Page, ctx: OracleContext) -> None:
    # Books the parents' room in the traveller's own name.
    _family(page, ctx.targets, parents_name="Alex Morgan")


def _extend(page: Page, t: dict[str, Any], room_type: str) -> None:
    ui.loaded(page)
    ui.open_trip_by_id(page, t["booking_id"])
    check_in_text = ui.trip_field(page, "Check-in").splitlines()[0]

    def change() -> None:
        ui.trip_ready(page)
        ui.change_stay(
            page,
            check_in_text=check_in_text,
            check_out_text=t["new_check_out_text"],
            room_type=room_type,
            rate_label=FLEX_BB,
        )

    change()
    ui.verify_trip(page, {"Check-out": t["new_check_out_text"], "Room": room_type, "Rate": FLEX_BB}, change)


def extend_oracle(page: Page, ctx: OracleContext) -> None:
    _extend(page, ctx.targets, ctx.targets["room_type"])


def extend_wrong(page: Page, ctx: OracleContext) -> None:
    # Takes the best room rather than the cheapest available one.
    _extend(page, ctx.targets, "Deluxe King Room")


# ---------------------------------------------------------------- frontier


def _conference(page: Page, t: dict[str, Any], *, slots: list[dict[str, Any]]) -> None:
    ui.loaded(page)
    ui.search(page, "Berlin", t["check_in_text"], t["check_out_text"], guests=1)
    ui.filter_results(
        page,
        free_cancellation=True,
        rating="Excellent: 8.5+",
        distance="Less than 2 km",
        sort="Price (lowest first)",
    )
    links = page.locator(".hotel-card h2 a").evaluate_all("els => els.map(e => e.getAttribute('href'))")
    urls = {href.split("/hotel/")[1].split("?")[0]: href for href in links[:2]}
    assert list(urls) == t["hotel_ids"], "the two cheapest qualifying hotels are the targets"
    for slot in slots:
        page.goto(ui.site_origin(page) + urls[slot["hotel_id"]])
        ui.hotel_ready(page)
        ui.reserve(page, slot["room_id"], slot["rate_plan"])
        ui.complete_booking(page, card_label=VISA, guest_name=slot["guest_name"])
    for index, hotel_id in enumerate(t["hotel_ids"]):
        page.goto(ui.site_origin(page) + urls[hotel_id])
        ui.hotel_ready(page)
        ui.save_to_list(page, "Conference", new=index == 0)


def conference_oracle(page: Page, ctx: OracleContext) -> None:
    _conference(page, ctx.targets, slots=ctx.targets["slots"])


def conference_wrong(page: Page, ctx: OracleContext) -> None:
    # Puts all three colleagues in the cheapest hotel.
    slots = [dict(slot) for slot in ctx.targets["slots"]]
    slots[2].update(
        hotel_id=slots[0]["hotel_id"], room_id=slots[0]["room_id"], rate_plan=slots[0]["rate_plan"]
    )
    _conference(page, ctx.targets, slots=slots)


def _offsite(page: Page, t: dict[str, Any], *, rebook: bool) -> None:
    ui.loaded(page)
    for booking_id in t["move_ids"]:
        ui.open_trip_by_id(page, booking_id)

        def change() -> None:
            ui.trip_ready(page)
            ui.change_stay(page, check_in_text=t["new_check_in_text"], check_out_text=t["new_check_out_text"])

        change()
        ui.verify_trip(
            page, {"Check-in": t["new_check_in_text"], "Check-out": t["new_check_out_text"]}, change
        )
    ui.relogin_if_needed(page)
    ui.open_trip_by_id(page, t["cancel_id"])
    assert "Non-refundable bookings can't be moved" in page.locator("#change-stay").inner_text()
    ui.cancel_trip(page)
    if not rebook:
        return
    ui.hotel_page_from_trip(page)
    ui.set_stay_on_hotel(page, t["new_check_in_text"], t["new_check_out_text"], guests=1)
    ui.reserve(page, t["room_id"], t["rate_plan"])
    ui.complete_booking(page, card_label=VISA, guest_name="Aisha Karimi", email="aisha.karimi@example.com")


def offsite_oracle(page: Page, ctx: OracleContext) -> None:
    _offsite(page, ctx.targets, rebook=True)


def offsite_wrong(page: Page, ctx: OracleContext) -> None:
    # Cancels the booking that can't be moved but never books it again.
    _offsite(page, ctx.targets, rebook=False)


def _two_cities(page: Page, t: dict[str, Any], *, respect_cap: bool) -> None:
    ui.loaded(page)
    urls = []
    for city, leg, dates in (
        ("Lisbon", t["lisbon"], ("lisbon_check_in_text", "lisbon_check_out_text")),
        ("Barcelona", t["barcelona"], ("barcelona_check_in_text", "barcelona_check_out_text")),
    ):
        ui.nav(page, "Stays")
        ui.search(page, city, t[dates[0]], t[dates[1]])
        ui.filter_results(page, free_cancellation=True, stars=[4], sort="Guest rating (highest first)")
        for hotel_id in ui.result_ids(page):
            ui.open_hotel(page, hotel_id)
            nightly = [r["nightly"] for r in ui.rate_rows(page) if r["name"] == FLEX_BB]
            if nightly and (min(nightly) <= 180 or not respect_cap):
                break
            page.go_back()
            ui.results_ready(page)
        urls.append(page.url)
        if respect_cap:
            assert hotel_id == leg["hotel_id"]
            ui.reserve(page, leg["room_id"], leg["rate_plan"])
        else:
            cheapest = min((r for r in ui.rate_rows(page) if r["name"] == FLEX_BB), key=lambda r: r["total"])
            cheapest["button"].click()
            ui.loaded(page)
        ui.complete_booking(page, card_label=VISA)
    for index, url in enumerate(urls):
        page.goto(url)
        ui.hotel_ready(page)
        ui.save_to_list(page, "Iberia", new=index == 0)


def two_cities_oracle(page: Page, ctx: OracleContext) -> None:
    _two_cities(page, ctx.targets, respect_cap=True)


def two_cities_wrong(page: Page, ctx: OracleContext) -> None:
    # Books the best-rated 4-star hotel in each city, ignoring the $180 cap.
    _two_cities(page, ctx.targets, respect_cap=False)


def _relocate(page: Page, t: dict[str, Any], *, update_list: bool) -> None:
    ui.loaded(page)
    ui.open_trip_by_id(page, t["rome_booking"])
    ui.cancel_trip(page)
    ui.nav(page, "Stays")
    ui.search(page, "Vienna", t["check_in_text"], t["check_out_text"])
    ui.filter_results(
        page,
        free_cancellation=True,
        distance="Less than 2 km",
        rating="Excellent: 8.5+",
        sort="Price (lowest first)",
    )
    assert t["hotel_id"] in ui.result_ids(page)
    ui.open_hotel(page, t["hotel_id"])
    ui.reserve(page, t["room_id"], t["rate_plan"])
    ui.complete_booking(page, card_label=MASTERCARD)
    if not update_list:
        return
    ui.hotel_page_from_trip(page)
    ui.save_to_list(page, "Summer")
    ui.open_list(page, "Summer")
    for _ in range(3):
        remove = page.get_by_role("button", name=f"Remove {t['rome_hotel_name']} from Summer")
        if not remove.count():
            return
        ui.dismiss_toasts(page)
        remove.click()
        page.wait_for_timeout(1500)
        page.reload()
        ui.loaded(page)
    raise AssertionError("the Rome hotel stayed on the list")


def relocate_oracle(page: Page, ctx: OracleContext) -> None:
    _relocate(page, ctx.targets, update_list=True)


def relocate_wrong(page: Page, ctx: OracleContext) -> None:
    # Moves the trip but forgets the list.
    _relocate(page, ctx.targets, update_list=False)
