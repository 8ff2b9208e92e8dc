"""What a competent Staywell user does, step by step, in Playwright (used by `oracles.py`).

Every step acts through the UI (clicks and typing) and waits the way a person waits: for the page's
own content to appear. Steps that write check what the page shows afterwards and say so, so the
oracles can recover from a failed, slow or stale answer the way a careful person would.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING, Any

from humantrace.environments.oracles import choose

if TYPE_CHECKING:
    from collections.abc import Callable

    from playwright.sync_api import Locator, Page

from humantrace.environments.oracles import app_loaded, sign_in_again

LONG = 20_000  # ms: slow networks in some variants
VISA, MASTERCARD, AMEX = "Visa ending in 4242", "Mastercard ending in 5454", "American Express ending in 1005"
FLEX_BB = "Free cancellation · Breakfast included"


def loaded(page: Page) -> None:
    """Wait until the page's main content has replaced its loading indicator."""
    app_loaded(page, LONG)


def nav(page: Page, name: str) -> None:
    """Click a main navigation tab (Stays, Trips, Saved) or the account chip."""
    if name == "Account":
        page.locator("a.account-chip").click()
    else:
        page.get_by_role("navigation", name="Main").get_by_role("link", name=re.compile(rf"^{name}")).click()
    loaded(page)


def dismiss_toasts(page: Page) -> None:
    """Close any toast that could cover a button."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for button in page.get_by_role("button", name="Dismiss").all():
        if button.is_visible():
            try:
                button.click(timeout=2_000)
            except PlaywrightTimeout:
                pass  # the toast closed by itself in between: what this step wanted


# ---------------------------------------------------------------- search widgets


def choose_destination(
    page: Page, city: str, *, sublabel: str | None = None, text: str | None = None
) -> None:
    """Type into "Where to?" and pick the suggestion `city` (whose second line contains `sublabel`)."""
    field = page.get_by_label("Where to?")
    field.fill("")
    field.type(text or city[:4], delay=40)
    options = page.get_by_role("option").filter(has_text=city)
    if sublabel:
        options = options.filter(has_text=sublabel)
    options.first.click()


def pick_dates(page: Page, check_in_text: str, check_out_text: str, *, scope: Locator | None = None) -> None:
    """Open the calendar and click the check-in then the check-out day (paging months as needed);
    where the dates are date fields (UI profile date=native), type them in."""
    root = scope or page
    fields = root.get_by_label("Check-in", exact=True)
    if fields.count():
        fields.first.fill(_iso(check_in_text))
        root.get_by_label("Check-out", exact=True).first.fill(_iso(check_out_text))
        return
    calendar = page.get_by_role("dialog", name="Choose your dates")
    page.wait_for_timeout(150)  # the calendar opens by itself after a destination is picked
    if not calendar.count() or not calendar.is_visible():
        root.get_by_role("button", name=re.compile(r"^Check-in date")).first.click()
    for day in (check_in_text, check_out_text):
        for _ in range(14):
            button = calendar.get_by_role("button", name=day, exact=True)
            if button.count():
                button.click()
                break
            calendar.get_by_role("button", name="Next month").click()
        else:
            raise AssertionError(f"{day} never appeared in the calendar")
    if calendar.is_visible():
        calendar.get_by_role("button", name="Done").click()


def _iso(day_text: str) -> str:
    """A day as the calendar names it ("Friday 13 March 2026") in ISO form (2026-03-13)."""
    return datetime.strptime(day_text.strip(), "%A %d %B %Y").date().isoformat()


def set_guests(page: Page, guests: int, rooms: int = 1, *, scope: Locator | None = None) -> None:
    """Open the guests picker and step adults and rooms to the wanted numbers."""
    root = scope or page
    root.get_by_role("button", name=re.compile(r"^Guests and rooms")).first.click()
    dialog = page.get_by_role("dialog", name="Guests and rooms")
    for label, wanted in (("adults", guests), ("rooms", rooms)):
        for _ in range(20):
            current = int(dialog.locator("output").nth(0 if label == "adults" else 1).inner_text())
            if current == wanted:
                break
            dialog.get_by_role("button", name=f"{'More' if wanted > current else 'Fewer'} {label}").click()
    dialog.get_by_role("button", name="Done").click()


def search(
    page: Page,
    city: str,
    check_in_text: str | None = None,
    check_out_text: str | None = None,
    guests: int = 2,
    rooms: int = 1,
) -> None:
    """Run a search from the search bar of the current page and wait for the results."""
    choose_destination(page, city)
    calendar = page.get_by_role("dialog", name="Choose your dates")
    page.wait_for_timeout(150)  # the calendar opens by itself after a destination is picked
    if calendar.is_visible() and not check_in_text:
        calendar.get_by_role("button", name="Done").click()
    if check_in_text and check_out_text:
        pick_dates(page, check_in_text, check_out_text)
    if guests != 2 or rooms != 1:
        set_guests(page, guests, rooms)
    page.get_by_role("button", name="Search", exact=True).click()
    page.wait_for_url(re.compile(r"/search\?"))
    results_ready(page)


def results_ready(page: Page) -> None:
    """Wait for the results list (slow searches show a spinner first)."""
    page.wait_for_function(
        "() => { const r = document.getElementById('results');"
        " return r && !r.querySelector('.loading') && r.children.length > 0; }",
        timeout=LONG,
    )


def filter_results(
    page: Page,
    *,
    free_cancellation: bool = False,
    rating: str | None = None,
    distance: str | None = None,
    stars: list[int] | None = None,
    amenities: list[str] | None = None,
    sort: str | None = None,
) -> None:
    """Tick filters in the sidebar and choose a sort order, waiting for the list after each."""
    side = page.get_by_role("complementary", name="Filters")
    if free_cancellation:
        side.get_by_label("Free cancellation").check()
        results_ready(page)
    if rating:
        side.get_by_label(rating).check()
        results_ready(page)
    if distance:
        side.get_by_label(distance).check()
        results_ready(page)
    for count in stars or []:
        side.get_by_label(f"{count} stars").check()
        results_ready(page)
    for amenity in amenities or []:
        side.get_by_label(amenity, exact=True).check()
        results_ready(page)
    if sort:
        choose(page, "Sort by", sort)
        results_ready(page)


def open_hotel(page: Page, hotel_id: str) -> None:
    """Open a hotel from a list of results or saved hotels (its name link)."""
    page.locator(f'a[href*="/hotel/{hotel_id}"]').first.click()
    page.wait_for_url(re.compile(rf"/hotel/{hotel_id}"))
    hotel_ready(page)


def hotel_ready(page: Page) -> None:
    """Wait for the hotel page; a "Try again" panel (busy server) is retried after a pause."""
    for _ in range(6):
        loaded(page)
        retry = page.get_by_role("alert").get_by_role("button", name=re.compile("Try again"))
        if retry.count() and retry.first.is_visible():
            page.wait_for_timeout(3500)
            retry.first.click()
            continue
        page.get_by_role("heading", name="Rooms and rates").wait_for(timeout=LONG)
        return
    raise AssertionError("the hotel page never loaded")


def reserve(page: Page, room_id: str, rate_code: str) -> None:
    """Press Reserve on a room's rate and wait for the booking form."""
    page.locator(f'button[data-room="{room_id}"][data-rate="{rate_code}"]').click()
    page.wait_for_url(re.compile(r"/book\?"))
    loaded(page)
    page.get_by_role("button", name="Complete booking").wait_for(timeout=LONG)


def complete_booking(
    page: Page, *, card_label: str, guest_name: str | None = None, email: str | None = None, attempts: int = 4
) -> str:
    """Fill the guest details, choose the card, press Complete booking until the trip page confirms
    it (a refused attempt leaves the form as it was); returns the new booking's trip URL."""
    if guest_name is not None:
        page.get_by_label("Guest's full name").fill(guest_name)
    if email is not None:
        page.get_by_label("Email for the confirmation").fill(email)
    page.get_by_role("radio", name=re.compile(re.escape(card_label))).check()
    confirmed = re.compile(r"/trips/bk-\d+\?booked=1")
    button = page.get_by_role("button", name="Complete booking")
    for _ in range(attempts):
        dismiss_toasts(page)
        button.click()
        try:
            page.wait_for_url(confirmed, timeout=8000)
        except Exception:  # refused or slow: read what the page says before trying again
            # Still sending (the button is busy): wait for it rather than booking twice.
            try:
                page.wait_for_function(
                    "() => !/Complete booking/.test(document.body.innerText) || "
                    "[...document.querySelectorAll('button')].some(b => /Complete booking/.test(b.textContent) && !b.disabled)",
                    timeout=LONG,
                )
            except Exception:  # the page moved on while we looked
                page.wait_for_load_state("load")
            if confirmed.search(page.url):
                loaded(page)
                return page.url
            page.wait_for_timeout(3500)
            continue
        loaded(page)
        return page.url
    raise AssertionError("the booking never went through")


# ---------------------------------------------------------------- trips


def trip_ready(page: Page) -> None:
    """Wait for a trip page; a page stuck on its loader is reloaded, as a person would."""
    for _ in range(3):
        try:
            loaded(page)
            page.get_by_text("Confirmation number").first.wait_for(timeout=6000)
            page.wait_for_timeout(700)  # a cover that appears a moment after the page is still in the way
            stuck = page.get_by_role("progressbar")
            if stuck.count() and stuck.first.is_visible():
                raise TimeoutError("a loading cover never went away")
            return
        except Exception:
            page.reload()
    raise AssertionError("the trip page never loaded")


def trip_field(page: Page, label: str) -> str:
    """The value shown next to a label in the trip's details."""
    return (
        page.locator("dl.detail-grid > div")
        .filter(has=page.locator("dt", has_text=re.compile(f"^{label}$")))
        .locator("dd")
        .inner_text()
        .strip()
    )


def trip_status(page: Page) -> str:
    """The trip's status chip (confirmed, cancelled, completed)."""
    return page.locator(".panel .status").first.inner_text().strip().lower()


def cancel_trip(page: Page) -> None:
    """Cancel the open trip and make sure it shows as cancelled (re-reading the page, retrying)."""
    for _ in range(4):
        trip_ready(page)
        if trip_status(page) == "cancelled":
            return
        dismiss_toasts(page)
        page.get_by_role("button", name="Cancel booking").click()
        page.get_by_role("dialog").get_by_role("button", name="Yes, cancel booking").click()
        page.wait_for_timeout(1500)
        page.reload()
    trip_ready(page)
    assert trip_status(page) == "cancelled", "the booking never showed as cancelled"


def change_stay(
    page: Page,
    *,
    check_in_text: str | None = None,
    check_out_text: str | None = None,
    room_type: str | None = None,
    rate_label: str | None = None,
    guests: int | None = None,
) -> None:
    """Fill the "Change your stay" form, check the new price and confirm it."""
    form = page.locator("#change-stay")
    if check_in_text and check_out_text:
        pick_dates(page, check_in_text, check_out_text, scope=form)
    if guests is not None:
        choose(form, "Guests", value=str(guests))
    wait_rooms(page)
    if room_type:
        choose(form, "Room type", room_type)
    if rate_label:
        # The rate's full text holds its price; read it from the select (there under every build).
        options = [text.strip() for text in page.locator("#change-rate option").all_text_contents()]
        chosen = next(text for text in options if text.startswith(rate_label + " –"))
        choose(form, "Rate", chosen)
    dismiss_toasts(page)
    form.get_by_role("button", name="Check new price").click()
    form.get_by_role("button", name="Confirm changes").click()
    page.wait_for_timeout(1200)


def wait_rooms(page: Page) -> None:
    """Wait until the room and rate choices of the change form are filled in for the chosen dates."""
    page.wait_for_function(
        "() => { const r = document.getElementById('change-room'), p = document.getElementById('change-rate');"
        " return r && p && !r.disabled && r.options.length > 0 && p.options.length > 0; }",
        timeout=LONG,
    )


def save_guest_details(page: Page, **fields: str) -> None:
    """Edit the guest details form of the open trip and save it."""
    labels = {
        "guest_name": "Guest name",
        "email": "Email",
        "phone": "Phone number",
        "special_requests": "Special requests",
    }
    form = page.locator("#guest-form")
    for key, value in fields.items():
        form.get_by_label(labels[key], exact=True).fill(value)
    dismiss_toasts(page)
    form.get_by_role("button", name="Save guest details").click()
    page.wait_for_timeout(1200)


def relogin_if_needed(page: Page) -> bool:
    """After a session expiry: press "Sign in" and sign in again; True if it was needed."""
    sign_in = page.get_by_role("button", name="Sign in").or_(page.get_by_role("link", name="Sign in"))
    return sign_in_again(page, sign_in)


# ---------------------------------------------------------------- lists


def save_to_list(page: Page, list_name: str, *, new: bool = False) -> None:
    """On a hotel page, open Save and tick `list_name` (or create it); waits for the confirmation."""
    for _ in range(3):
        page.locator("#save-wrap .save-btn").click()
        dialog = page.get_by_role("dialog", name="Save to a list")
        box = dialog.get_by_role("checkbox", name=re.compile(rf"^{re.escape(list_name)} \("))
        if box.count() and box.is_checked():
            return
        if new and not box.count():
            dialog.get_by_label("New list").fill(list_name)
            dialog.get_by_role("button", name="Create").click()
        else:
            box.check()
        page.get_by_text(f"Saved to \u201c{list_name}\u201d").first.wait_for(timeout=LONG)
        page.wait_for_timeout(400)
        page.reload()
        hotel_ready(page)
    raise AssertionError(f"never saved to {list_name}")


def open_list(page: Page, list_name: str) -> None:
    """On the saved lists page, show one list."""
    if "/lists" not in page.url:
        nav(page, "Saved")
    page.get_by_role("navigation", name="Your lists").get_by_role(
        "button", name=re.compile(rf"^{re.escape(list_name)}")
    ).click()


# ---------------------------------------------------------------- shared by several oracles


def open_trip_by_id(page: Page, booking_id: str, tab: str = "Upcoming") -> None:
    if not page.url.rstrip("/").endswith("/trips"):
        nav(page, "Trips")
    page.get_by_role("tab", name=re.compile(rf"^{tab}")).click()
    link = page.locator(f'.trip-card h2 a[href$="/trips/{booking_id}"]')
    more = page.get_by_role("button", name=re.compile(r"^Show \d+ older"))
    if not link.count() and more.count():
        more.click()
    link.click()
    trip_ready(page)


def hotel_page_from_trip(page: Page) -> None:
    page.locator(".panel h1 a").first.click()
    hotel_ready(page)


def set_stay_on_hotel(
    page: Page, check_in_text: str, check_out_text: str, guests: int = 2, rooms: int = 1
) -> None:
    bar = page.locator("#staybar")
    pick_dates(page, check_in_text, check_out_text, scope=bar)
    set_guests(page, guests, rooms, scope=bar)
    page.get_by_role("button", name="Update").click()
    page.wait_for_url(re.compile(r"check_in="))
    hotel_ready(page)


def hotel_by_name(page: Page, name: str, city: str) -> None:
    """From a page with a search bar, type the hotel's name and pick it (the one in `city`)."""
    choose_destination(page, name, sublabel=city, text=name)
    page.wait_for_url(re.compile(r"/hotel/"))
    hotel_ready(page)


def write_review(page: Page, *, score: int, title: str, body: str, traveled: str = "Couple") -> None:
    """Fill and publish the review form of the open (past) trip; publish again if it didn't stick."""
    for _ in range(4):
        trip_ready(page)
        if page.get_by_role("heading", name="Your review").count():
            return
        form = page.locator("#review-form")
        choose(form, "Score", value=str(score))
        choose(form, "Travelled as", traveled)
        form.get_by_label("Title").fill(title)
        form.get_by_label("Your review").fill(body)
        for _ in range(3):
            dismiss_toasts(page)
            form.get_by_role("button", name="Publish review").click()
            try:
                page.get_by_role("heading", name="Your review").wait_for(timeout=6000)
                return
            except Exception:  # the server refused: the form is still filled in, so publish again
                continue
    raise AssertionError("the review was never published")


def verify_trip(page: Page, checks: dict[str, str], redo: Callable[[], object], attempts: int = 3) -> None:
    """Re-read the trip (a reload shows what the server really has) until every field shows what
    it should; after two reads that disagree, do the change again."""
    for _ in range(attempts):
        for _ in range(2):
            relogin_if_needed(page)
            page.reload()
            trip_ready(page)
            if all(trip_field(page, label).startswith(value) for label, value in checks.items()):
                return
        redo()
    raise AssertionError(f"the trip never showed {checks}")


def rate_rows(page: Page) -> list[dict[str, Any]]:
    """Every rate row of the open hotel page: name, total and nightly price in dollars."""
    rows = []
    for row in page.locator(".rate-row").all():
        prices = row.locator(".price").inner_text().replace(",", "")
        amounts = [float(x) for x in re.findall(r"\$(\d+(?:\.\d+)?)", prices)]
        rows.append(
            {
                "name": row.locator(".rate-name").inner_text().strip(),
                "total": amounts[0],
                "nightly": amounts[-1],
                "button": row.get_by_role("button", name=re.compile("^Reserve")),
            }
        )
    return rows


def result_ids(page: Page) -> list[str]:
    return page.locator(".hotel-card h2 a").evaluate_all(
        "els => els.map(e => e.getAttribute('href').split('/hotel/')[1].split('?')[0])"
    )


def site_origin(page: Page) -> str:
    """The site's origin (to go back to a page visited earlier, as a person uses history)."""
    found = re.match(r"^https?://[^/]+", page.url)
    if found is None:
        raise ValueError(f"{page.url!r} is not a page of the site")
    return found.group(0)
