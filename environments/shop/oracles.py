"""Oracle and wrong solutions of the shop's tasks (Playwright, through the UI only).

`ORACLES[task_id](page, ctx)` solves the task as a competent shopper would, in both conditions:
the same careful routine (read before acting, check after writing, retry, sign in again, close
pop-ups, wait) recovers from every variant. `WRONG[task_id]` makes one plausible mistake that
the evaluator must fail: the wrong size, a missing item, the look-alike product.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from humantrace.environments.oracles import OracleContext, attribute, choose
from humantrace.environments.shop import oracle_steps as s
from humantrace.environments.sitekit import Oracle

if TYPE_CHECKING:
    from playwright.sync_api import Page

Ctx = OracleContext

HOME = "1458 Maple Avenue"
WORK = "200 Harbor Street"
VISA = "Visa ending in 4242"
MASTERCARD = "Mastercard ending in 5100"


# ------------------------------------------------------------------ easy


def add_charger(page: Page, ctx: Ctx) -> None:
    name, brand = ctx.targets["product_name"], ctx.targets["brand"]
    for _ in range(3):
        s.open_product(page, name, brand)
        if page.locator("h1.product-title").inner_text().strip() != name:
            continue
        s.add_current_product(page)
        s.open_cart(page)
        line = s.cart_line(page, name).filter(has=page.locator(".opts", has_text=brand))
        if line.count() == 1:
            return
    raise AssertionError("the charger never reached the cart")


def add_charger_wrong(page: Page, ctx: Ctx) -> None:
    s.open_product(page, "Arcline 30W USB-C Wall Charger")
    s.add_current_product(page)


def save_to_wishlist(page: Page, ctx: Ctx) -> None:
    name = ctx.targets["product_name"]
    for _ in range(3):
        s.open_product(page, name)
        # Its name (its words, or an icon's label) says whether the product is saved already.
        button = page.get_by_role("button", name=re.compile("Add to wishlist"))
        if button.count():
            s.write_with_toast(page, lambda: button.click())
        s.open_header(page, "/wishlist")
        page.locator("main h1").wait_for()
        if page.locator(".product-card a.title", has_text=s.exact(name)).count():
            return
    raise AssertionError("the product never showed on the wishlist")


def save_to_wishlist_wrong(page: Page, ctx: Ctx) -> None:
    s.open_product(page, ctx.targets["product_name"])
    s.choose_options(page, color="Cherry")
    s.add_current_product(page)


def make_default_address(street: str) -> Oracle:
    def oracle(page: Page, ctx: Ctx) -> None:
        s.open_account_section(page, "Addresses")
        for _ in range(4):
            card = page.locator(".address-card[data-address]").filter(
                has=page.get_by_text(street, exact=True)
            )
            card.first.wait_for()
            if card.locator(".tag", has_text="Default").count():
                return
            s.write_with_toast(page, lambda: card.get_by_role("button", name="Set as default").click())
            page.reload()
            s.settle(page)
        raise AssertionError(f"{street} never became the default")

    return oracle


def cart_quantity(name: str, quantity: int) -> Oracle:
    def oracle(page: Page, ctx: Ctx) -> None:
        for _ in range(3):
            s.open_cart(page)
            s.set_line_quantity(page, name, quantity)
            page.reload()
            s.settle(page)
            if s.line_quantity(s.cart_line(page, name)) == quantity:
                return
        raise AssertionError(f"{name} never showed quantity {quantity}")

    return oracle


# ------------------------------------------------------------------ medium


def buy_jacket(size: str) -> Oracle:
    def oracle(page: Page, ctx: Ctx) -> None:
        s.open_product(page, ctx.targets["product_name"])
        s.choose_options(page, color=ctx.targets["color"], size=size)
        s.add_current_product(page)
        s.open_cart(page)
        assert s.cart_line(page, ctx.targets["product_name"], f"Size: {size}").count() == 1
        s.place_order(page, address=WORK, delivery="Standard", card=MASTERCARD)

    return oracle


def tidy_cart(drop_card_game: bool) -> Oracle:
    bottle, band = "Insulated Water Bottle, 750 ml", "Resistance Band Set of 5"

    def oracle(page: Page, ctx: Ctx) -> None:
        s.open_cart(page)
        s.set_line_quantity(page, bottle, 2)
        s.remove_line(page, "Foam Roller, 45 cm")
        if drop_card_game:
            s.remove_line(page, "Card Game: Fox & Hound")
        s.open_product(page, band)
        s.add_current_product(page)
        # The add was confirmed, so a cart page without it is out of date: reload, never add twice.
        for _ in range(5):
            s.open_cart(page)
            if s.cart_line(page, band).count():
                break
            page.wait_for_timeout(500)
        # A freshly loaded cart shows what the server holds: a quantity click the server answered
        # late (a loaded machine) is corrected here, as a person would on a second look.
        s.set_line_quantity(page, bottle, 2)
        names = s.cart_names(page)
        assert sorted(names) == sorted([bottle, band]) or not drop_card_game, names

    return oracle


def return_item(name: str) -> Oracle:
    def oracle(page: Page, ctx: Ctx) -> None:
        s.request_return(
            page, order_number=ctx.targets["order_number"], items={name: 1}, reason="Doesn't fit"
        )

    return oracle


def add_new_address(make_default: bool) -> Oracle:
    def oracle(page: Page, ctx: Ctx) -> None:
        t = ctx.targets
        s.open_account_section(page, "Addresses")
        s.click(page, page.locator("#new-address"))
        fields = {
            "Label (for example Home or Work)": t["label"],
            "Full name": t["full_name"],
            "Street address": t["line1"],
            "Apartment, suite, unit (optional)": t["line2"],
            "City": t["city"],
            "State": t["region"],
            "ZIP code": t["postal_code"],
            "Phone number": t["phone"],
        }
        for label, value in fields.items():
            page.get_by_label(label, exact=True).fill(value)
        if make_default:
            page.get_by_label("Make this my default address").check()
        # One click, then wait as long as it takes: a second click would save the address twice.
        s.write_with_toast(page, lambda: page.locator("#save-address").click(), attempts=1)
        card = page.locator(".address-card[data-address]").filter(
            has=page.get_by_text(t["line1"], exact=True)
        )
        card.first.wait_for()
        if make_default:
            assert card.locator(".tag", has_text="Default").count() == 1

    return oracle


# ------------------------------------------------------------------ hard


def buy_yoga_mat(check_rating: bool) -> Oracle:
    def oracle(page: Page, ctx: Ctx) -> None:
        s.search(page, "yoga mat")
        if check_rating:
            choose(page, "Minimum rating", "4.5 stars & up")
            s.settle(page)
        s.click(page, page.get_by_label("In stock only"))
        s.settle(page)
        choose(page, "Sort by", "Price: low to high")
        s.settle(page)
        first = page.locator("#results .product-card").first
        s.click(page, first.locator("a.title"))
        s.add_to_cart_button(page).wait_for()
        s.settle(page)
        colours = page.get_by_role("group", name="Colour")
        if colours.count():
            s.click(page, colours.locator(".option:not(.unavailable)").first)
        s.add_current_product(page)
        s.place_order(page, address=HOME, delivery="Standard", card=VISA)

    return oracle


def checkout_cart(coupon: str | None) -> Oracle:
    def oracle(page: Page, ctx: Ctx) -> None:
        s.place_order(page, address=WORK, delivery="Express", card=VISA, coupon=coupon)

    return oracle


def wishlist_to_cart(remove: bool) -> Oracle:
    def oracle(page: Page, ctx: Ctx) -> None:
        s.open_header(page, "/wishlist")
        page.locator("main h1").wait_for()
        s.settle(page)
        in_stock = page.locator(".product-card").filter(
            has=page.get_by_role("button", name="Add to cart", exact=True)
        )
        products = in_stock.evaluate_all("cards => cards.map(c => c.dataset.product)")
        for product in products:
            card = page.locator(f'.product-card[data-product="{product}"]')
            # Add: the cart badge in the header must go up by one.
            for _ in range(4):
                before = s.cart_badge(page)
                s.click(page, card.get_by_role("button", name="Add to cart", exact=True))
                if s.poll(page, lambda: s.cart_badge(page) > before):
                    break
            else:
                raise AssertionError(f"{product} never reached the cart")
            if not remove:
                continue
            # Remove: the card must leave the list; after an error, reload and try again.
            for _ in range(4):
                errors = page.locator(".toast.error").count()
                s.click(page, card.get_by_role("button", name="Remove", exact=True))
                s.poll(page, lambda: card.count() == 0 or page.locator(".toast.error").count() > errors)
                s.settle(page)
                if card.count() == 0:
                    break
                page.reload()
                page.locator("main h1").wait_for()
                s.settle(page)
            else:
                raise AssertionError(f"{product} stayed on the wishlist")
        s.open_cart(page)
        assert len(s.cart_names(page)) == len(products)

    return oracle


def review_shoes(stars: int) -> Oracle:
    shoe_words = re.compile(r"boot|shoe|sneaker|loafer|slipper|runner", re.IGNORECASE)

    def oracle(page: Page, ctx: Ctx) -> None:
        t = ctx.targets
        s.open_orders(page, "Delivered")
        target_name = None
        for card in page.locator("#orders .order-card").all():
            names = [n for n in card.locator("a.name").all_inner_texts() if shoe_words.search(n)]
            if names:
                target_name = names[0].strip()
                s.click(page, card.locator("a.name", has_text=s.exact(target_name)))
                break
        assert target_name, "no shoes among the delivered orders"
        for _ in range(3):
            page.locator("#reviews").wait_for()
            s.settle(page)
            if page.locator(".review .tag", has_text="Your review").count():
                return
            s.click(page, page.locator("#review-panel summary"))
            page.get_by_label(f"{stars} star{'s' if stars > 1 else ''}", exact=True).check(force=True)
            page.get_by_label("Headline").fill(t["title"])
            page.get_by_label("Your review").fill(t["body"])
            before = s.toast_count(page)
            s.click(page, page.locator("#submit-review"))
            toast = s.wait_toast(page, before)
            if toast is not None and toast.kind == "error":
                s.recover_from_error(page, toast)
                continue
            s.settle(page)
            page.reload()
        raise AssertionError("the review never appeared")

    return oracle


# ------------------------------------------------------------------ expert


def reorder(include_excluded: bool) -> Oracle:
    def oracle(page: Page, ctx: Ctx) -> None:
        s.open_order(page, ctx.targets["order_number"])
        lines = s.read_order_lines(page)
        wanted = [line for line in lines if include_excluded or "Chino" not in line.name]
        for line in wanted:
            s.open_order(page, ctx.targets["order_number"])
            s.buy_again(page, line)
        s.open_cart(page)
        assert len(s.cart_names(page)) == len(wanted)
        for line in wanted:  # say which line went wrong, before an order makes it the evaluator's
            in_cart = s.cart_line(page, line.name)
            assert in_cart.count() == 1 and s.line_quantity(in_cart) == line.quantity, (
                f"{line.name}: {in_cart.count()} cart lines, {in_cart.all_inner_texts()}; wanted {line}"
            )
        s.place_order(page, address=WORK, delivery="Standard", card=VISA)

    return oracle


def recall(also_other_kettle: bool) -> Oracle:
    def oracle(page: Page, ctx: Ctx) -> None:
        s.open_header(page, "/notifications")
        notice = None
        for note in page.locator(".notification").all():
            text = note.inner_text()
            if "recall" in text.lower() and "no action" not in text.lower():
                notice = note
                break
        assert notice is not None, "no recall notice"
        title = notice.locator(".n-title").inner_text()
        product = title.split(":", 1)[1].strip()
        product = product.split(" ", 1)[1] if product.startswith("Hearthstone ") else product
        s.click(page, notice)
        s.settle(page)
        s.open_orders(page)
        numbers = []
        for card in page.locator("#orders .order-card").all():
            names = [n.strip() for n in card.locator("a.name").all_inner_texts()]
            hit = product in names or (also_other_kettle and any("Kettle" in n for n in names))
            if hit:
                numbers.append(
                    (
                        attribute(card, "aria-label").replace("Order ", ""),
                        card.locator(".tag").first.inner_text(),
                    )
                )
        for number, status in numbers:
            if status == "Delivered" and not also_other_kettle:
                s.request_return(page, order_number=number, items={product: None}, reason="Product recall")
            elif status == "Processing":
                s.open_order(page, number)
                s.cancel_order(page, reason="No longer needed")

    return oracle


def replace_card(remove_expired: bool) -> Oracle:
    def oracle(page: Page, ctx: Ctx) -> None:
        t = ctx.targets
        s.open_account_section(page, "Payment methods")
        page.locator("#card-form").wait_for()
        s.settle(page)
        if not page.locator("[data-card]").filter(has_text=f"ending in {t['last4']}").count():
            page.get_by_label("Card number").fill(t["card_number"])
            page.get_by_label("Name on card").fill("Jordan Rivera")
            choose(page, "Expiry month", t["exp_month_text"])
            choose(page, "Expiry year", str(t["exp_year"]))
            page.get_by_label("Nickname (optional)").fill("Travel card")
            page.get_by_label("Make this my default payment method").check()
            s.write_with_toast(page, lambda: page.locator("#save-card").click())
        page.locator("[data-card]").filter(has_text=f"ending in {t['last4']}").wait_for()
        doomed = ["Mastercard ending in 5100"] + (["ending in 1009"] if remove_expired else [])
        for label in doomed:
            s.settle(page)
            page.locator("[data-card]").first.wait_for()
            row = page.locator("[data-card]").filter(has_text=label)
            if not row.count():
                continue
            s.click(page, row.get_by_role("button", name="Remove"))
            s.write_with_toast(page, lambda: page.locator(".modal [data-yes]").click(), attempts=1)
            page.locator("[data-card]").filter(has_text=label).wait_for(state="detached")

    return oracle


def best_coupon(pick_best: bool) -> Oracle:
    items = (
        ("Insulated Water Bottle, 750 ml", "Glacier Blue"),
        ("Resistance Band Set of 5", None),
        ("Jump Rope with Ball Bearings", None),
    )

    def oracle(page: Page, ctx: Ctx) -> None:
        s.open_header(page, "/notifications")
        text = " ".join(page.locator(".notification").all_inner_texts())
        codes = sorted(set(re.findall(r"\b(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{4,}\b", text)))
        for name, colour in items:
            s.open_product(page, name)
            s.choose_options(page, color=colour)
            s.add_current_product(page)
        s.open_cart(page)
        for extra in [n for n in s.cart_names(page) if n not in [i[0] for i in items]]:
            s.remove_line(page, extra)
        s.click(page, page.get_by_role("link", name="Proceed to checkout"))
        page.locator("#place-order").wait_for()
        s.settle(page)
        savings = {}
        for code in codes:
            try:
                savings[code] = s.apply_coupon(page, code)
            except AssertionError:
                continue
        best = max(savings, key=savings.__getitem__) if pick_best else min(savings, key=savings.__getitem__)
        s.place_order(page, address=HOME, delivery="Standard", card=VISA, coupon=best)

    return oracle


# ------------------------------------------------------------------ frontier


def return_brand(all_units: bool) -> Oracle:
    def oracle(page: Page, ctx: Ctx) -> None:
        brand = ctx.targets["brand"]
        s.open_orders(page, "Delivered")
        numbers = [
            attribute(card, "aria-label").replace("Order ", "")
            for card in page.locator("#orders .order-card").all()
            if card.get_by_role("link", name="Return items").count() and brand in card.inner_text()
        ]
        for number in numbers:
            s.open_order(page, number)
            lines = [line for line in s.read_order_lines(page) if line.brand == brand]
            s.request_return(
                page,
                order_number=number,
                items={line.name: (None if all_units else 1) for line in lines},
                reason="No longer needed",
            )

    return oracle


def gifts(friends: tuple[str, ...]) -> Oracle:
    def oracle(page: Page, ctx: Ctx) -> None:
        gift = ctx.targets["gift_name"]
        for friend in friends:
            s.open_cart(page)
            for extra in s.cart_names(page):
                s.remove_line(page, extra)
            s.open_product(page, gift)
            s.add_current_product(page)
            s.place_order(page, address=friend, delivery="Standard", card=VISA)

    return oracle


def move_house(delete_old: bool) -> Oracle:
    def oracle(page: Page, ctx: Ctx) -> None:
        t = ctx.targets
        s.open_account_section(page, "Addresses")
        new_card = page.locator(".address-card[data-address]").filter(
            has=page.get_by_text(t["line1"], exact=True)
        )
        if not new_card.count():
            s.click(page, page.locator("#new-address"))
            values = {
                "Label (for example Home or Work)": "Home",
                "Full name": "Jordan Rivera",
                "Street address": t["line1"],
                "City": t["city"],
                "State": t["region"],
                "ZIP code": t["postal_code"],
            }
            for label, value in values.items():
                page.get_by_label(label, exact=True).fill(value)
            page.get_by_label("Make this my default address").check()
            s.write_with_toast(page, lambda: page.locator("#save-address").click(), attempts=1)
        # The list may lag behind a save: reload until it shows the truth, never save twice.
        for _ in range(5):
            if new_card.count() and new_card.locator(".tag", has_text="Default").count():
                break
            page.reload()
            s.settle(page)
        old = page.locator(".address-card[data-address]").filter(has=page.get_by_text(HOME, exact=True))
        if delete_old and old.count():
            s.click(page, old.get_by_role("button", name="Remove"))
            s.write_with_toast(page, lambda: page.locator(".modal [data-yes]").click(), attempts=1)
            for _ in range(5):
                page.reload()
                s.settle(page)
                if not old.count():
                    break
        s.open_orders(page, "Processing")
        numbers = [
            attribute(c, "aria-label").replace("Order ", "")
            for c in page.locator("#orders .order-card").all()
        ]
        for number in numbers:
            s.open_order(page, number)
            if HOME not in page.locator("aside").inner_text():
                continue
            lines = s.read_order_lines(page)
            s.cancel_order(page, reason="Need to change the shipping address")
            for line in lines:
                s.open_order(page, number)
                s.buy_again(page, line)
            s.place_order(page, address=t["line1"], delivery="Standard", card=VISA)
            return
        raise AssertionError("no open order to the old address")

    return oracle


def sort_out_cart(save_for_later: bool) -> Oracle:
    def oracle(page: Page, ctx: Ctx) -> None:
        s.open_header(page, "/notifications")
        newest_promo = page.locator(".notification").filter(has=page.locator(".tag", has_text="Offer")).first
        found = re.search(r"\b([A-Z]{3,}\d+)\b", newest_promo.inner_text())
        assert found is not None, "the newest offer names a coupon code"
        code = found.group(1)
        s.open_cart(page)
        sold_out = page.locator("#lines .line").filter(has=page.locator(".stock-out")).locator("a.name")
        for name in [n.strip() for n in sold_out.all_inner_texts()]:
            s.remove_line(page, name, save_for_later=save_for_later)
        s.open_product(page, ctx.targets["extra_name"])
        s.add_current_product(page, quantity=2)
        s.place_order(page, address=WORK, delivery="Express", card=MASTERCARD, coupon=code)
        s.open_header(page, "/wishlist")

    return oracle


ORACLES: dict[str, Oracle] = {
    "shop-001": add_charger,
    "shop-002": save_to_wishlist,
    "shop-003": make_default_address("77 Cedar Point Road"),
    "shop-004": cart_quantity("Gel Ink Pens, 12-pack", 3),
    "shop-005": buy_jacket("L"),
    "shop-006": tidy_cart(drop_card_game=True),
    "shop-007": return_item("Fleece Pullover Hoodie"),
    "shop-008": add_new_address(make_default=True),
    "shop-009": buy_yoga_mat(check_rating=True),
    "shop-010": checkout_cart("SPRING25"),
    "shop-011": wishlist_to_cart(remove=True),
    "shop-012": review_shoes(4),
    "shop-013": reorder(include_excluded=False),
    "shop-014": recall(also_other_kettle=False),
    "shop-015": replace_card(remove_expired=True),
    "shop-016": best_coupon(pick_best=True),
    "shop-017": return_brand(all_units=True),
    "shop-018": gifts(("Priya Natarajan", "Marcus Bell", "Elena Petrova")),
    "shop-019": move_house(delete_old=True),
    "shop-020": sort_out_cart(save_for_later=True),
}

WRONG: dict[str, Oracle] = {
    "shop-001": add_charger_wrong,  # the 30 W charger of the same line
    "shop-002": save_to_wishlist_wrong,  # puts it in the cart instead
    "shop-003": make_default_address("77 Cedar Street"),  # the look-alike street
    "shop-004": cart_quantity("Dotted Hardcover Notebook, A5", 3),  # the wrong line
    "shop-005": buy_jacket("M"),  # the wrong size
    "shop-006": tidy_cart(drop_card_game=False),  # one item left in the cart
    "shop-007": return_item("Merino Wool Crew Socks, 3-pack"),  # the other item of the order
    "shop-008": add_new_address(make_default=False),  # forgets to make it the default
    "shop-009": buy_yoga_mat(check_rating=False),  # cheapest, but rated below 4.5
    "shop-010": checkout_cart(None),  # forgets the promo code
    "shop-011": wishlist_to_cart(remove=False),  # leaves them on the wishlist
    "shop-012": review_shoes(5),  # five stars instead of four
    "shop-013": reorder(include_excluded=True),  # reorders the chinos too
    "shop-014": recall(also_other_kettle=True),  # also acts on the unaffected kettle
    "shop-015": replace_card(remove_expired=False),  # keeps the expired card
    "shop-016": best_coupon(pick_best=False),  # the smaller saving
    "shop-017": return_brand(all_units=False),  # one unit of a two-unit line
    "shop-018": gifts(("Priya Natarajan", "Marcus Bell")),  # one friend forgotten
    "shop-019": move_house(delete_old=False),  # keeps the old address
    "shop-020": sort_out_cart(save_for_later=False),  # deletes instead of saving for later
}
