"""Oracle and wrong solutions of the easy, medium and first hard Staywell tasks (001-010)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from humantrace.environments.booking import oracle_steps as ui
from humantrace.environments.booking.oracle_steps import FLEX_BB, MASTERCARD, VISA
from humantrace.environments.oracles import OracleContext

if TYPE_CHECKING:
    from playwright.sync_api import Page

# ---------------------------------------------------------------- easy


def save_hotel_oracle(page: Page, ctx: OracleContext) -> None:
    t = ctx.targets
    ui.loaded(page)
    ui.hotel_by_name(page, t["hotel_name"], t["city"])
    assert t["city"] in page.locator(".hotel-head").inner_text()
    ui.save_to_list(page, "Summer")


def save_hotel_wrong(page: Page, ctx: OracleContext) -> None:
    t = ctx.targets
    ui.loaded(page)
    ui.hotel_by_name(page, t["hotel_name"], t["city"])
    ui.save_to_list(page, "Weekend ideas")


def special_request_oracle(page: Page, ctx: OracleContext) -> None:
    t = ctx.targets
    ui.loaded(page)
    ui.open_trip_by_id(page, t["booking_id"])

    def write() -> None:
        # The request box is the multi-line one with the request hint, whatever its label says.
        page.locator("#guest-form").get_by_placeholder("e.g. quiet room, late arrival").fill(t["request"])
        ui.dismiss_toasts(page)
        page.get_by_role("button", name="Save guest details").click()
        page.wait_for_timeout(1200)

    write()
    ui.verify_trip(page, {"Special requests": t["request"], "Phone": "+1 415 555 0134"}, write)


def special_request_wrong(page: Page, ctx: OracleContext) -> None:
    t = ctx.targets
    ui.loaded(page)
    ui.open_trip_by_id(page, t["booking_id"])
    ui.save_guest_details(page, special_requests="Late arrival")


def review_oracle(page: Page, ctx: OracleContext) -> None:
    t = ctx.targets
    ui.loaded(page)
    ui.open_trip_by_id(page, t["booking_id"], tab="Past")
    ui.write_review(
        page,
        score=8,
        title="Charming and central",
        body="The breakfast was great, but the room was a bit small for two.",
    )


def review_wrong(page: Page, ctx: OracleContext) -> None:
    t = ctx.targets
    ui.loaded(page)
    ui.open_trip_by_id(page, t["booking_id"], tab="Past")
    ui.write_review(
        page, score=8, title="Charming and central", body="The breakfast was great and the staff were lovely."
    )


def cancel_oracle(page: Page, ctx: OracleContext) -> None:
    t = ctx.targets
    ui.loaded(page)
    ui.open_trip_by_id(page, t["booking_id"])
    assert t["check_in_text"] in ui.trip_field(page, "Check-in")
    ui.cancel_trip(page)


def cancel_wrong(page: Page, ctx: OracleContext) -> None:
    # Cancels the first upcoming trip in the list, which is another one.
    ui.loaded(page)
    ui.nav(page, "Trips")
    links = page.locator(".trip-card h2 a")
    href = next(
        h
        for h in links.evaluate_all("els => els.map(e => e.getAttribute('href'))")
        if not h.endswith(ctx.targets["booking_id"])
    )
    page.locator(f'.trip-card h2 a[href="{href}"]').click()
    ui.cancel_trip(page)


# ---------------------------------------------------------------- medium


def _book_from_search(
    page: Page,
    t: dict[str, Any],
    city: str,
    *,
    guests: int,
    card: str,
    rate: str | None = None,
    guest_name: str | None = None,
    email: str | None = None,
) -> str:
    ui.loaded(page)
    ui.search(page, city, t["check_in_text"], t["check_out_text"], guests=guests)
    ui.open_hotel(page, t["hotel_id"])
    ui.reserve(page, t["room_id"], rate or t["rate_plan"])
    return ui.complete_booking(page, card_label=card, guest_name=guest_name, email=email)


def cheapest_refundable_oracle(page: Page, ctx: OracleContext) -> None:
    _book_from_search(page, ctx.targets, "Rome", guests=2, card=VISA)
    assert ui.trip_field(page, "Rate").startswith("Free cancellation")


def cheapest_refundable_wrong(page: Page, ctx: OracleContext) -> None:
    _book_from_search(page, ctx.targets, "Rome", guests=2, card=VISA, rate="nr")


def pool_list_oracle(page: Page, ctx: OracleContext) -> None:
    ui.loaded(page)
    ui.search(page, "Barcelona")
    ui.filter_results(page, free_cancellation=True, amenities=["Pool"], sort="Guest rating (highest first)")
    ids = page.locator(".hotel-card h2 a").evaluate_all(
        "els => els.map(e => e.getAttribute('href').split('/hotel/')[1].split('?')[0])"
    )
    for hotel_id in ids:
        # The results index can be out of date: only the hotel's own rates say whether it can be cancelled.
        ui.open_hotel(page, hotel_id)
        if page.get_by_text("Free cancellation on selected rates").count():
            break
        page.go_back()
        ui.results_ready(page)
    assert hotel_id == ctx.targets["hotel_id"], "the best pool hotel with free cancellation is the target"
    ui.save_to_list(page, "Barcelona trip", new=True)


def pool_list_wrong(page: Page, ctx: OracleContext) -> None:
    # Forgets the free-cancellation condition and saves the best-rated pool hotel.
    ui.loaded(page)
    ui.search(page, "Barcelona")
    ui.filter_results(page, amenities=["Pool"], sort="Guest rating (highest first)")
    page.locator(".hotel-card h2 a").first.click()
    ui.hotel_ready(page)
    ui.save_to_list(page, "Barcelona trip", new=True)


def colleague_oracle(page: Page, ctx: OracleContext) -> None:
    _book_from_search(
        page,
        ctx.targets,
        "Paris",
        guests=1,
        card=MASTERCARD,
        guest_name="Priya Shah",
        email="priya.shah@example.com",
    )
    ui.verify_trip(
        page,
        {"Guest name": "Priya Shah", "Email": "priya.shah@example.com"},
        lambda: ui.save_guest_details(page, guest_name="Priya Shah", email="priya.shah@example.com"),
    )


def colleague_wrong(page: Page, ctx: OracleContext) -> None:
    # Leaves the party at two adults and takes the cheapest breakfast rate shown.
    t = ctx.targets
    ui.loaded(page)
    ui.search(page, "Paris", t["check_in_text"], t["check_out_text"])
    ui.open_hotel(page, t["hotel_id"])
    page.get_by_role(
        "button", name=re.compile(r"^Reserve .*: Non-refundable · Breakfast included$")
    ).first.click()
    ui.loaded(page)
    ui.complete_booking(page, card_label=MASTERCARD, guest_name="Priya Shah", email="priya.shah@example.com")


def _list_item_ids(page: Page) -> list[str]:
    return page.locator("[data-remove]").evaluate_all("els => els.map(e => e.dataset.remove)")


def tidy_list_oracle(page: Page, ctx: OracleContext) -> None:
    t = ctx.targets
    ui.loaded(page)
    ui.open_list(page, "City breaks")
    for _ in range(3):
        low = [
            card.get_by_role("button", name=re.compile("^Remove"))
            for card in page.locator(".saved-card").all()
            if float(card.locator(".score .num").inner_text()) < 8.0
        ]
        if not low:
            break
        ui.dismiss_toasts(page)
        low[0].click()
        page.wait_for_function(
            "() => !document.querySelector('#app > .loading') && !document.querySelector('.saved-card .spinner')",
            timeout=ui.LONG,
        )
        ui.loaded(page)
    ui.nav(page, "Stays")
    ui.hotel_by_name(page, t["hotel_name"], "Prague")
    ui.save_to_list(page, "City breaks")
    ui.nav(page, "Saved")
    ui.open_list(page, "City breaks")
    ids = _list_item_ids(page)
    assert not set(t["remove_item_ids"]) & set(ids) and len(ids) == 3


def tidy_list_wrong(page: Page, ctx: OracleContext) -> None:
    # Removes only the first low-rated property.
    t = ctx.targets
    ui.loaded(page)
    ui.open_list(page, "City breaks")
    page.locator(f'[data-remove="{t["remove_item_ids"][0]}"]').click()
    page.wait_for_timeout(4500)
    ui.nav(page, "Stays")
    ui.hotel_by_name(page, t["hotel_name"], "Prague")
    ui.save_to_list(page, "City breaks")


# ---------------------------------------------------------------- hard


def move_trip_oracle(page: Page, ctx: OracleContext) -> None:
    t = ctx.targets
    ui.loaded(page)
    ui.open_trip_by_id(page, t["booking_id"])

    def change() -> None:
        ui.trip_ready(page)
        ui.change_stay(
            page,
            check_in_text=t["new_check_in_text"],
            check_out_text=t["new_check_out_text"],
            rate_label=FLEX_BB,
        )

    change()
    ui.verify_trip(
        page,
        {
            "Check-in": t["new_check_in_text"],
            "Check-out": t["new_check_out_text"],
            "Rate": FLEX_BB,
            "Room": "Standard Double Room",
        },
        change,
    )


def move_trip_wrong(page: Page, ctx: OracleContext) -> None:
    t = ctx.targets
    ui.loaded(page)
    ui.open_trip_by_id(page, t["booking_id"])
    ui.change_stay(page, check_in_text=t["new_check_in_text"], check_out_text=t["new_check_out_text"])


def conference_off_oracle(page: Page, ctx: OracleContext) -> None:
    t = ctx.targets
    ui.loaded(page)
    ui.open_trip_by_id(page, t["cancel_id"])
    assert "Free cancellation" in page.locator("#actions").inner_text()
    ui.cancel_trip(page)
    ui.open_trip_by_id(page, t["keep_id"])
    assert "non-refundable" in page.locator("#actions").inner_text().lower()

    def rename() -> None:
        ui.save_guest_details(page, guest_name="Marco Bellini", email="marco.bellini@example.com")

    rename()
    ui.verify_trip(page, {"Guest name": "Marco Bellini", "Email": "marco.bellini@example.com"}, rename)


def conference_off_wrong(page: Page, ctx: OracleContext) -> None:
    t = ctx.targets
    ui.loaded(page)
    for booking_id in (t["cancel_id"], t["keep_id"]):
        ui.open_trip_by_id(page, booking_id)
        ui.cancel_trip(page)
