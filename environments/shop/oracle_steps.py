"""What a competent shopper does on Brightcart, as reusable Playwright steps for the oracles.

Every step goes through the page (clicks, typing, reading what is shown). After each write the
steps look at the result the way a careful person would: they read the toast, re-open the page
that should show the change, and retry when it is not there; they close pop-ups that get in the
way, reload a page that never finishes loading, sign in again when asked, and wait out slowness.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from playwright.sync_api import Error as PlaywrightError

from humantrace.environments.oracles import choose, settle_network

if TYPE_CHECKING:
    from collections.abc import Callable

    from playwright.sync_api import Locator, Page


WRITE_TIMEOUT_MS = 30_000


def exact(text: str) -> re.Pattern[str]:
    """A pattern matching exactly `text` (trimmed)."""
    return re.compile(r"^\s*" + re.escape(text) + r"\s*$")


def settle(page: Page) -> None:
    """Wait until the page has finished its API calls."""
    settle_network(page)


def close_popups(page: Page) -> None:
    """Close promotion dialogs and reload past a loader that never finishes."""
    for _ in range(3):
        changed = False
        stuck = page.locator('[role="progressbar"][aria-busy="true"]')
        if stuck.count() and stuck.first.is_visible():
            page.reload()
            settle(page)
            changed = True
        for dialog in page.locator('[role="dialog"][aria-modal="true"]').all():
            # Our own confirmation modals have the .modal class; anything else is a pop-up.
            if dialog.is_visible() and "modal" not in (dialog.get_attribute("class") or "").split():
                dialog.locator("button").last.click()
                changed = True
        if not changed:
            return


def click(page: Page, locator: Locator) -> None:
    """Click after clearing anything that covers the page."""
    close_popups(page)
    locator.click()


def open_header(page: Page, href_end: str) -> None:
    """Follow one of the header links (cart, orders, wishlist, notifications, account)."""
    click(page, page.locator(f'header a.header-link[href$="{href_end}"]'))
    settle(page)
    close_popups(page)


def open_account_section(page: Page, name: str) -> None:
    """Account > a section of the side navigation ("Addresses", "Payment methods")."""
    open_header(page, "/account")
    click(page, page.locator("nav.side-nav").get_by_role("link", name=name, exact=True))
    settle(page)


@dataclass
class Toast:
    """The newest toast on the page."""

    kind: str
    text: str


def wait_toast(page: Page, before: int = 0, timeout_ms: int = WRITE_TIMEOUT_MS) -> Toast | None:
    """The first toast shown since `toast_count` was last called (None if none comes in time).

    Toasts come and go on their own timers, so counting them is unreliable: the ones already on
    screen are marked as seen by `toast_count`, and only an unmarked one counts as the answer.
    """
    fresh = page.locator(".toast:not([data-seen])")
    deadline = time.monotonic() + timeout_ms / 1000
    while time.monotonic() < deadline:
        try:
            shown = fresh.count()
        except Exception:  # noqa: BLE001 - the page moved on (a saved form opens the next page): no error toast
            return None
        if shown > before:
            last = fresh.last
            try:
                classes = (last.get_attribute("class", timeout=1000) or "").split()
                text = last.inner_text(timeout=1000)
            except Exception:  # it closed while being read: wait for the next one
                continue
            return Toast(kind="error" if "error" in classes else "success", text=text)
        page.wait_for_timeout(100)
    return None


def poll(page: Page, condition: Callable[[], object], timeout_ms: int = 10_000) -> bool:
    """Wait until `condition()` is true (False if it never becomes true in time)."""
    deadline = time.monotonic() + timeout_ms / 1000
    while time.monotonic() < deadline:
        if condition():
            return True
        page.wait_for_timeout(100)
    return bool(condition())


def cart_badge(page: Page) -> int:
    """The item count on the header's cart badge (0 when hidden)."""
    badge = page.locator("#cart-count")
    text = badge.inner_text().strip() if badge.is_visible() else ""
    return int(text) if text.isdigit() else 0


def new_toasts(page: Page) -> int:
    """How many toasts appeared since `toast_count` was last called."""
    return page.locator(".toast:not([data-seen])").count()


def toast_count(page: Page) -> int:
    """Mark the toasts on screen as seen (so `wait_toast` waits for a new one); returns 0."""
    page.evaluate("document.querySelectorAll('.toast').forEach(t => t.setAttribute('data-seen', ''))")
    return 0


def dismiss_toasts(page: Page) -> None:
    """Close the toasts on screen, if they are still there: toasts also go by themselves after
    5 s, so one may vanish between being seen and being clicked (never wait for it)."""
    for button in page.get_by_role("button", name="Dismiss", exact=True).all():
        try:
            button.click(timeout=1000)
        except PlaywrightError:
            pass  # it closed on its own first


def recover_from_error(page: Page, toast: Toast) -> None:
    """After an error toast: sign in again, wait out a rate limit, or just let the person retry."""
    if "expired" in toast.text.lower() or "sign in" in toast.text.lower():
        page.locator(".toast").last.get_by_role("button", name="Sign in").click()
        page.get_by_role("button", name="Sign in").wait_for()
        page.get_by_role("button", name="Sign in").click()
        settle(page)
    elif "too many" in toast.text.lower():
        found = re.search(r"(\d+)\s*s", toast.text)
        page.wait_for_timeout(1000 * (int(found.group(1)) if found else 3) + 300)
        dismiss_toasts(page)
    else:
        page.wait_for_timeout(600)
        dismiss_toasts(page)


def write_with_toast(page: Page, action: Any, attempts: int = 4) -> Toast:
    """Run `action` (a click) until it answers with a success toast, recovering from errors."""
    last: Toast | None = None
    for _ in range(attempts):
        before = toast_count(page)
        close_popups(page)
        action()
        last = wait_toast(page, before, timeout_ms=4000)
        if last is None and page.locator(".btn .spinner").count():
            # Still saving (the button shows a spinner): wait for the answer instead of clicking again.
            last = wait_toast(page, before)
        if last is None:
            # Nothing happened: a pop-up or an unresponsive button swallowed the click.
            close_popups(page)
            continue
        if last.kind == "success":
            settle(page)
            return last
        recover_from_error(page, last)
    raise AssertionError(f"the action never succeeded (last toast: {last})")


# ------------------------------------------------------------------ catalogue


def search(page: Page, text: str) -> None:
    """Type into the header search box and wait for results."""
    close_popups(page)
    box = page.get_by_label("Search products")
    box.fill(text)
    box.press("Enter")
    page.locator("#results .product-card, #results .empty").first.wait_for()
    settle(page)


def product_cards(page: Page, name: str, brand: str | None = None) -> Locator:
    """Cards in the results whose title is exactly `name` (and brand, if given)."""
    cards = page.locator("#results .product-card").filter(has=page.locator("a.title", has_text=exact(name)))
    if brand:
        cards = cards.filter(has=page.locator(".brand", has_text=exact(brand)))
    return cards


def open_product(page: Page, name: str, brand: str | None = None) -> None:
    """Search for a product and open the card with exactly this name (and brand)."""
    search(page, name)
    cards = product_cards(page, name, brand)
    if cards.count() == 0:
        raise AssertionError(f"no product card named {name!r} ({brand})")
    click(page, cards.first.locator("a.title"))
    add_to_cart_button(page).wait_for()
    settle(page)


def add_to_cart_button(page: Page) -> Locator:
    """The product page's "Add to cart" (labelled, or an icon named so, by the UI profile)."""
    return page.get_by_role("button", name="Add to cart", exact=True)


def set_quantity(page: Page, quantity: int) -> None:
    """The product page's quantity: a select, or a stepper (− number +) by the UI profile."""
    field = page.get_by_role("spinbutton", name="Quantity", exact=True)
    if not field.count():
        choose(page, "Quantity", str(quantity))
        return
    for _ in range(12):
        current = int(field.input_value() or 1)
        if current == quantity:
            return
        name = "Increase quantity" if current < quantity else "Decrease quantity"
        page.get_by_role("button", name=name, exact=True).click()
    raise AssertionError(f"the quantity never showed {quantity}")


def choose_last(scope: Page | Locator, label: str) -> None:
    """Choose the last option of the select named `label` (the native one or the custom listbox)."""
    box = scope.get_by_role("combobox", name=label, exact=True)
    if box.evaluate("el => el.tagName") == "SELECT":
        box.select_option(label=box.locator("option").all_inner_texts()[-1].strip())
        return
    box.click()
    scope.get_by_role("listbox", name=label, exact=True).get_by_role("option").last.click()


def choose_options(page: Page, *, color: str | None = None, size: str | None = None) -> None:
    """Pick colour and size on the product page (once each)."""
    for axis, value in (("Colour", color), ("Size", size)):
        if value is None:
            continue
        button = page.get_by_role("group", name=axis).get_by_role("button", name=value, exact=True)
        if button.get_attribute("aria-pressed") != "true":
            click(page, button)


def add_current_product(page: Page, *, quantity: int = 1) -> None:
    """Add the open product to the cart and wait for the confirmation."""
    if quantity != 1:
        set_quantity(page, quantity)
    write_with_toast(page, lambda: add_to_cart_button(page).click())
    dismiss_toasts(page)


# ------------------------------------------------------------------ cart


def open_cart(page: Page) -> None:
    open_header(page, "/cart")
    page.locator("#lines, .empty").first.wait_for()
    settle(page)


def cart_line(page: Page, name: str, opts: str | None = None) -> Locator:
    """The cart line of a product (optionally one whose options text contains `opts`)."""
    lines = page.locator("#lines .line").filter(has=page.locator("a.name", has_text=exact(name)))
    if opts:
        lines = lines.filter(has=page.locator(".opts", has_text=opts))
    return lines


def line_quantity(line: Locator) -> int:
    return int(line.locator("output").inner_text().strip())


def cart_names(page: Page) -> list[str]:
    return [n.strip() for n in page.locator("#lines .line a.name").all_inner_texts()]


def set_line_quantity(page: Page, name: str, quantity: int, opts: str | None = None) -> None:
    """Click + / − until the line shows `quantity`, reading the number after every click."""
    for _ in range(12):
        current = line_quantity(cart_line(page, name, opts))
        if current == quantity:
            return
        step = "Increase quantity" if current < quantity else "Decrease quantity"
        click(page, cart_line(page, name, opts).get_by_role("button", name=step, exact=True))
        deadline = time.monotonic() + 2.5
        while time.monotonic() < deadline and line_quantity(cart_line(page, name, opts)) == current:
            page.wait_for_timeout(100)
        settle(page)
    raise AssertionError(f"could not set {name} to {quantity}")


def remove_line(page: Page, name: str, *, save_for_later: bool = False) -> None:
    """Delete a line (or move it to the wishlist) and wait until it is gone."""
    for _ in range(4):
        line = cart_line(page, name)
        if line.count() == 0:
            return
        button = line.get_by_role("button", name="Save for later" if save_for_later else "Delete", exact=True)
        before = toast_count(page)
        click(page, button)
        toast = wait_toast(page, before, timeout_ms=6000)
        if toast is not None and toast.kind == "error":
            recover_from_error(page, toast)
        settle(page)
    if cart_line(page, name).count():
        raise AssertionError(f"{name} is still in the cart")


# ------------------------------------------------------------------ checkout


def place_order(
    page: Page,
    *,
    address: str,
    delivery: str,
    card: str,
    coupon: str | None = None,
) -> str:
    """From the cart: check out with the address/card whose text contains the given words."""
    for _ in range(4):
        open_cart(page)
        click(page, page.get_by_role("link", name="Proceed to checkout"))
        page.locator("#place-order").wait_for()
        settle(page)
        close_popups(page)
        click(page, page.locator("label.choice", has_text=address).locator("input"))
        click(page, page.locator("label.choice", has_text=delivery).locator("input"))
        click(page, page.locator("label.choice", has_text=card).locator("input"))
        if coupon:
            apply_coupon(page, coupon)
        settle(page)
        before = toast_count(page)
        click(page, page.locator("#place-order"))
        try:
            page.wait_for_url(re.compile(r"/orders/[^/]+/confirmation$"), timeout=WRITE_TIMEOUT_MS)
        except Exception:
            toast = wait_toast(page, before, timeout_ms=1000)
            if toast is not None and toast.kind == "error":
                recover_from_error(page, toast)
            continue
        page.locator(".alert.success").wait_for()
        return page.locator("main h1").inner_text().replace("Order #", "").strip()
    raise AssertionError("the order could not be placed")


def apply_coupon(page: Page, code: str) -> int:
    """Apply a promo code (waiting out 'too many requests'); returns the discount shown in cents."""
    for _ in range(6):
        status = page.locator("#coupon-status")
        page.get_by_label("Promo code").fill(code)
        page.evaluate("document.getElementById('coupon-status').textContent = ''")
        before = toast_count(page)
        click(page, page.locator("#apply-coupon"))
        deadline = time.monotonic() + WRITE_TIMEOUT_MS / 1000
        while time.monotonic() < deadline and not status.inner_text().strip() and not new_toasts(page):
            page.wait_for_timeout(100)
        settle(page)
        if "applied" in status.inner_text():
            promo = page.locator("#summary .summary-row", has_text="Promo")
            promo.wait_for()
            return cents(promo.locator("span").last.inner_text())
        toast = wait_toast(page, before, timeout_ms=500)
        if toast is not None and toast.kind == "error":
            recover_from_error(page, toast)
        elif status.inner_text().strip():
            raise AssertionError(f"promo code {code} refused: {status.inner_text()}")
    raise AssertionError(f"promo code {code} could not be applied")


def cents(text: str) -> int:
    """'−$38.74' -> 3874 (sign dropped)."""
    digits = re.sub(r"[^0-9.]", "", text)
    dollars, _, frac = digits.partition(".")
    return int(dollars or 0) * 100 + int((frac + "00")[:2])


# ------------------------------------------------------------------ orders


def open_orders(page: Page, status_tab: str | None = None) -> None:
    open_header(page, "/orders")
    if status_tab:
        click(page, page.locator("nav.tabs").get_by_role("link", name=status_tab, exact=True))
    page.locator("#orders .order-card, #orders .empty").first.wait_for()
    settle(page)


def open_order(page: Page, number: str) -> None:
    """Orders > the order with this number > details."""
    open_orders(page)
    card = page.locator(f'#orders .order-card[aria-label="Order {number}"]')
    click(page, card.get_by_role("link", name="View order details"))
    page.locator(".timeline, .alert.info").first.wait_for()
    settle(page)


@dataclass
class OrderLine:
    """An order line as the order page shows it."""

    name: str
    brand: str | None
    color: str | None
    size: str | None
    quantity: int


def read_order_lines(page: Page) -> list[OrderLine]:
    """Parse the item rows of an order page ("Brand · Colour · Size M · Qty 2")."""
    lines = []
    for row in page.locator("section.panel .line").all():
        name = row.locator("a.name").inner_text().strip()
        parts = [p.strip() for p in row.locator(".opts").inner_text().split("·")]
        quantity = int(next(p for p in parts if p.startswith("Qty")).split()[1])
        size = next((p[5:] for p in parts if p.startswith("Size ")), None)
        rest = [p for p in parts if not p.startswith("Qty") and not p.startswith("Size ")]
        brand = rest[0] if rest else None
        color = rest[1] if len(rest) > 1 else None
        lines.append(OrderLine(name=name, brand=brand, color=color, size=size, quantity=quantity))
    return lines


def buy_again(page: Page, line: OrderLine) -> None:
    """From an order page: open the line's product, pick its options, add its quantity."""
    row = (
        page.locator("section.panel .line")
        .filter(has=page.locator("a.name", has_text=exact(line.name)))
        .first
    )
    click(page, row.get_by_role("link", name="Buy it again"))
    add_to_cart_button(page).wait_for()
    settle(page)
    choose_options(page, color=line.color, size=line.size)
    add_current_product(page, quantity=line.quantity)


def request_return(page: Page, *, order_number: str, items: dict[str, int | None], reason: str) -> None:
    """Return `items` (name -> quantity, None = all) of an order for a refund, then check the list."""
    for _ in range(3):
        open_order(page, order_number)
        click(page, page.get_by_role("link", name="Return items"))
        page.locator("#submit-return").wait_for()
        settle(page)
        for name, quantity in items.items():
            box = page.get_by_role("checkbox", name=name, exact=True)
            box.check()
            row = page.locator(".line").filter(has=box)
            if row.get_by_role("combobox", name="Quantity", exact=True).count():
                if quantity:
                    choose(row, "Quantity", str(quantity))
                else:
                    choose_last(row, "Quantity")
        choose(page, "Reason for return", reason)
        page.get_by_label("Refund to original payment").check()
        before = toast_count(page)
        click(page, page.locator("#submit-return"))
        toast = wait_toast(page, before)
        if toast is not None and toast.kind == "error":
            recover_from_error(page, toast)
            continue
        page.wait_for_url(re.compile(r"/returns$"))
        page.locator("#returns .line, #returns .empty").first.wait_for()
        settle(page)
        listed = page.locator("#returns .line").filter(has=page.get_by_role("link", name=order_number))
        names = " ".join(listed.all_inner_texts())
        if all(name in names for name in items):
            return
    raise AssertionError(f"the return of {list(items)} never showed up")


def cancel_order(page: Page, *, reason: str) -> None:
    """On an order page: cancel it and check it reads Cancelled."""
    for _ in range(3):
        click(page, page.locator("#cancel-order"))
        choose(page, "Reason for cancelling", reason)
        before = toast_count(page)
        click(page, page.locator("#confirm-cancel"))
        toast = wait_toast(page, before)
        if toast is not None and toast.kind == "error":
            recover_from_error(page, toast)
        page.reload()
        settle(page)
        if page.locator(".tag", has_text="Cancelled").count():
            return
    raise AssertionError("the order was not cancelled")
