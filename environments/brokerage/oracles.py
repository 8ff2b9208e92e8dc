"""Oracle and wrong solutions of Northbeam's tasks (Playwright, through the UI only).

An oracle is what a careful investor does: it reads what the pages show and checks the answer of
every write, recovering from what the variant throws at it (a look-alike symbol, a failed
transfer, an expired session, a stuck page, a refused order) without doing anything twice. A WRONG
solution is a plausible mistake and must fail the evaluator in both conditions.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Locator, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from humantrace.environments.brokerage import oracle_steps as ui
from humantrace.environments.oracles import OracleContext, choose


def watch_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    ui.open_quote(page, ctx.targets["symbol"])
    choose(page, "Watchlist", "Ideas")
    page.get_by_role("button", name="Add to watchlist").click()
    assert "added to Ideas" in ui.notice(page)


def watch_wrong(page: Page, ctx: OracleContext) -> None:
    """Makes a new watchlist for the stock instead of using "Ideas"."""
    ui.ready(page)
    ui.nav(page, "Watchlists")
    page.get_by_label("New watchlist name").fill("Zephyr")
    page.get_by_role("button", name="Create watchlist").click()
    ui.notice(page)
    ui.open_quote(page, ctx.targets["symbol"])
    choose(page, "Watchlist", "Zephyr")
    page.get_by_role("button", name="Add to watchlist").click()
    ui.notice(page)


def _transfer(page: Page, source: str, target: str, amount: str) -> None:
    ui.nav(page, "Transfers")
    before = ui.transfer_rows(page)
    for _ in range(3):
        ui.choose_account(page, "From", source)
        ui.choose_account(page, "To", target)
        page.get_by_label("Amount").fill(amount)
        page.get_by_role("button", name="Review transfer").click()
        ui.confirm(page, re.compile(r"^Transfer \$"))
        if ui.notice(page).startswith("Moved"):
            return
        # Refused or failed: re-read the history before trying again, so nothing moves twice.
        page.reload()
        ui.ready(page)
        if ui.transfer_rows(page) > before and page.locator("#app table tbody tr").first.inner_text().count(
            amount.split(".")[0]
        ):
            return
    raise AssertionError("the transfer never went through")


def fund_roth_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _transfer(page, "Joint Savings", "Roth IRA", "1500.00")


def fund_roth_wrong(page: Page, ctx: OracleContext) -> None:
    """Takes the money from the Individual account."""
    ui.ready(page)
    _transfer(page, "Individual Brokerage", "Roth IRA", "1500.00")


def _cancel_working(page: Page, symbol: str) -> None:
    ui.nav(page, "Orders")
    page.get_by_role("navigation", name="Order status").get_by_role("link", name="Working").click()
    ui.ready(page)
    row = page.locator("#app tbody tr", has=page.get_by_role("link", name=symbol, exact=True))
    row.get_by_role("button", name="Cancel").click()
    ui.confirm(page, "Cancel order")
    assert "cancelled" in ui.notice(page)


def sell_out_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _cancel_working(page, "VLTA")
    ui.open_quote(page, "VLTA")
    text = ui.place_order_until_done(page, account_name="Roth IRA", side="sell", quantity=30)
    assert text.startswith("Sold 30 VLTA"), text


def sell_out_wrong(page: Page, ctx: OracleContext) -> None:
    """Cancels the order, then sells the VLTA of the wrong account."""
    ui.ready(page)
    _cancel_working(page, "VLTA")
    ui.open_quote(page, "VLTA")
    ui.place_order_until_done(page, account_name="Individual Brokerage", side="sell", quantity=12)


def _picks(page: Page) -> dict[str, int]:
    ui.nav(page, "Watchlists")
    prices = {}
    for row in ui.watchlist_section(page, "Energy picks").locator("tbody tr").all():
        cells = row.locator("td").all_inner_texts()
        prices[cells[0].strip()] = int(re.sub(r"[^\d]", "", cells[2]))
    assert len(prices) == 4, prices
    return prices


def _buy_and_unwatch(page: Page, symbol: str) -> None:
    ui.open_quote(page, symbol)
    text = ui.place_order_until_done(page, account_name="Individual Brokerage", side="buy", quantity=5)
    assert text.startswith(f"Bought 5 {symbol}"), text
    ui.nav(page, "Watchlists")
    page.get_by_role("button", name=f"Remove {symbol} from Energy picks").click()
    ui.watchlist_section(page, "Energy picks").get_by_role("link", name=symbol, exact=True).wait_for(
        state="detached"
    )


def cheapest_pick_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    prices = _picks(page)
    _buy_and_unwatch(page, min(prices, key=lambda s: prices[s]))


def cheapest_pick_wrong(page: Page, ctx: OracleContext) -> None:
    """Buys the first stock on the list without comparing prices."""
    ui.ready(page)
    prices = _picks(page)
    _buy_and_unwatch(page, next(iter(prices)))


def _buying_power(page: Page, account_name: str) -> int:
    ui.nav(page, "Portfolio")
    row = page.locator("#app tbody tr", has=page.get_by_role("link", name=account_name, exact=True))
    return int(re.sub(r"[^\d]", "", row.locator("td").nth(2).inner_text()))


def _fund_and_buy_yaro(
    page: Page, ctx: OracleContext, per_share_cents: int, place: Callable[..., object]
) -> None:
    """Move the Roth IRA's shortfall for 20 YARO at `per_share_cents` from Joint Savings, then
    place the limit order for them with `place` (`ui.place_order` or `ui.place_order_until_done`)."""
    shortfall = 20 * per_share_cents - _buying_power(page, "Roth IRA")
    _transfer(page, "Joint Savings", "Roth IRA", f"{shortfall // 100}.{shortfall % 100:02d}")
    ui.open_quote(page, "YARO")
    place(
        page,
        account_name="Roth IRA",
        side="buy",
        quantity=20,
        order_type="limit",
        limit=ctx.targets["limit_text"].lstrip("$"),
    )


def fund_and_buy_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    limit_cents = int(re.sub(r"[^\d]", "", ctx.targets["limit_text"]))
    _fund_and_buy_yaro(page, ctx, limit_cents, ui.place_order_until_done)


def fund_and_buy_wrong(page: Page, ctx: OracleContext) -> None:
    """Sizes the transfer by today's price instead of the limit price (the order is then refused)."""
    ui.ready(page)
    _fund_and_buy_yaro(page, ctx, 8437, ui.place_order)


def _alert(page: Page, symbol: str, direction: str, price: str) -> None:
    ui.open_quote(page, symbol)
    choose(page, "Alert me when the price", value=direction)
    page.get_by_label("Price", exact=True).fill(price)
    ui.click_working(page, "Create alert", page.locator("#notice .notice"))
    assert ui.notice(page).startswith(f"Alert set: {symbol}"), ui.notice(page)


def alert_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _alert(page, ctx.targets["symbol"], "below", ui.dollars(ctx.targets["price_text"]))


def alert_wrong(page: Page, ctx: OracleContext) -> None:
    """Sets the alert for when the price rises above the level instead of falling below it."""
    ui.ready(page)
    _alert(page, ctx.targets["symbol"], "above", ui.dollars(ctx.targets["price_text"]))


def _pause(page: Page, button: Locator) -> None:
    button.click()
    with page.expect_response(re.compile(r"/recurring/[^/]+/pause$")):
        ui.confirm(page, "Pause plan")
    ui.ready(page)


def pause_plan_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    symbol = ctx.targets["symbol"]
    ui.nav(page, "Recurring & alerts")
    for _ in range(3):
        _pause(page, page.get_by_role("button", name=f"Pause {symbol} plan"))
        # Check it stuck: a reload shows what the server kept.
        page.reload()
        ui.ready(page)
        if "Paused" in ui.table_row(page, symbol).first.inner_text():
            return
    raise AssertionError("the plan never paused")


def pause_plan_wrong(page: Page, ctx: OracleContext) -> None:
    """Pauses the first plan on the list without reading which stock it buys."""
    ui.ready(page)
    ui.nav(page, "Recurring & alerts")
    _pause(page, page.get_by_role("button", name=re.compile(r"^Pause .+ plan$")).first)


def _buy(page: Page, symbol: str, quantity: int) -> None:
    ui.open_quote(page, symbol)
    text = ui.place_order(page, account_name="Individual Brokerage", side="buy", quantity=quantity)
    assert text.startswith(f"Bought {quantity} {symbol}"), text


def buy_once_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _buy(page, ctx.targets["symbol"], ctx.targets["quantity"])


def buy_once_wrong(page: Page, ctx: OracleContext) -> None:
    """Not sure the first order went through, places it a second time."""
    ui.ready(page)
    _buy(page, ctx.targets["symbol"], ctx.targets["quantity"])
    _buy(page, ctx.targets["symbol"], ctx.targets["quantity"])


def _plan(page: Page, ctx: OracleContext, frequency: str) -> None:
    ui.nav(page, "Recurring & alerts")
    ui.choose_account(page, "Account", "Roth IRA")
    page.get_by_label("Symbol").fill(ctx.targets["symbol"])
    page.get_by_label("Amount per purchase").fill(ui.dollars(ctx.targets["amount_text"]))
    choose(page, "Frequency", value=frequency)
    page.get_by_label("First purchase").fill(ctx.targets["date"])
    ui.click_working(page, "Review plan", page.locator("dialog[open]"))
    ui.confirm(page, "Start plan")
    assert ui.notice(page) == "Recurring investment started.", ui.notice(page)


def monthly_plan_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _plan(page, ctx, "monthly")


def monthly_plan_wrong(page: Page, ctx: OracleContext) -> None:
    """Leaves the frequency at its default, weekly."""
    ui.ready(page)
    _plan(page, ctx, "weekly")


def _mistake_amount(page: Page, memo: str) -> str:
    ui.nav(page, "Transfers")
    row = ui.table_row(page, memo)
    assert row.count() == 1, memo
    cells = row.locator("td").all_inner_texts()
    assert cells[1] == "Joint Savings" and cells[2] == "Individual Brokerage", cells
    return ui.dollars(cells[3])


def undo_transfer_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    amount = _mistake_amount(page, ctx.targets["memo"])
    _transfer(page, "Individual Brokerage", "Joint Savings", amount)


def undo_transfer_wrong(page: Page, ctx: OracleContext) -> None:
    """Repeats the transfer in the same direction instead of reversing it."""
    ui.ready(page)
    amount = _mistake_amount(page, ctx.targets["memo"])
    _transfer(page, "Joint Savings", "Individual Brokerage", amount)


def _delete_alert(page: Page, button: Locator) -> None:
    label = str(button.get_attribute("aria-label"))
    for _ in range(3):
        page.get_by_role("button", name=label, exact=True).click()
        try:
            page.get_by_role("button", name=label, exact=True).wait_for(state="detached", timeout=3000)
            return
        except PlaywrightTimeout:
            continue  # the click did nothing: click again
    raise AssertionError(f"{label} never worked")


def delete_alert_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    ui.nav(page, "Recurring & alerts")
    _delete_alert(page, page.get_by_role("button", name=f"Delete {ctx.targets['symbol']} alert"))


def delete_alert_wrong(page: Page, ctx: OracleContext) -> None:
    """Deletes the first alert on the list without reading its symbol."""
    ui.ready(page)
    ui.nav(page, "Recurring & alerts")
    _delete_alert(page, page.get_by_role("button", name=re.compile(r"^Delete .+ alert$")).first)


def _cancel_in(page: Page, symbol: str, account_name: str) -> None:
    ui.nav(page, "Orders")
    for _ in range(3):
        page.get_by_role("navigation", name="Order status").get_by_role("link", name="Working").click()
        ui.ready(page)
        row = ui.table_row(page, symbol).filter(has_text=account_name)
        row.get_by_role("button", name="Cancel").click()
        ui.confirm(page, "Cancel order")
        if "cancelled" in ui.notice(page):
            return
        page.reload()
        ui.ready(page)
    raise AssertionError("the order was never cancelled")


def cancel_roth_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _cancel_in(page, ctx.targets["symbol"], "Roth IRA")


def cancel_roth_wrong(page: Page, ctx: OracleContext) -> None:
    """Cancels the order of the other account."""
    ui.ready(page)
    _cancel_in(page, ctx.targets["symbol"], "Individual Brokerage")


def _holdings(page: Page) -> dict[str, int]:
    """Shares per account, from the quote page's "Your shares" list."""
    found = {}
    for line in page.locator("#app .quote-grid ul li").all_inner_texts():
        name, _, shares = line.partition(": ")
        found[name] = int(shares.split()[0])
    return found


def _sell_everywhere(page: Page, symbol: str, only_first: bool) -> None:
    ui.open_quote(page, symbol)
    held = _holdings(page)
    assert len(held) == 2, held
    for name, quantity in list(held.items())[: 1 if only_first else None]:
        text = ui.place_order_until_done(page, account_name=name, side="sell", quantity=quantity)
        assert text.startswith(f"Sold {quantity} {symbol}"), text
        page.reload()  # a fresh ticket, and no earlier notice to misread
        ui.ready(page)


def sell_everywhere_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _sell_everywhere(page, ctx.targets["symbol"], only_first=False)


def sell_everywhere_wrong(page: Page, ctx: OracleContext) -> None:
    """Sells the shares of the first account only."""
    ui.ready(page)
    _sell_everywhere(page, ctx.targets["symbol"], only_first=True)


def _losses(page: Page) -> list[tuple[int, str, str, int]]:
    """(gain/loss in cents, symbol, account, shares) of every position on the Portfolio page."""
    ui.nav(page, "Portfolio")
    table = page.locator("section.panel", has=page.get_by_role("heading", name="Positions")).locator(
        "tbody tr"
    )
    rows = []
    for row in table.all():
        cells = row.locator("td").all_inner_texts()
        gain = int(re.sub(r"[^\d]", "", cells[5])) * (-1 if cells[5].strip().startswith("-") else 1)
        rows.append((gain, cells[0].split()[0], cells[1].strip(), int(cells[2])))
    return sorted(rows)


def _sell_all(page: Page, symbol: str, account_name: str, quantity: int) -> None:
    ui.open_quote(page, symbol)
    text = ui.place_order_until_done(page, account_name=account_name, side="sell", quantity=quantity)
    assert text.startswith(f"Sold {quantity} {symbol}"), text


def biggest_loser_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _, symbol, account_name, quantity = next(r for r in _losses(page) if r[2] == "Individual Brokerage")
    _sell_all(page, symbol, account_name, quantity)


def biggest_loser_wrong(page: Page, ctx: OracleContext) -> None:
    """Sells the largest loss of the whole portfolio, whichever account holds it."""
    ui.ready(page)
    _, symbol, account_name, quantity = _losses(page)[0]
    _sell_all(page, symbol, account_name, quantity)


def _cash(page: Page, account_name: str) -> int:
    ui.nav(page, "Portfolio")
    row = page.locator("#app tbody tr", has=page.get_by_role("link", name=account_name, exact=True))
    return int(re.sub(r"[^\d]", "", row.locator("td").nth(1).inner_text()))


def _swap(page: Page, ctx: OracleContext, size_before_sale: bool) -> None:
    ui.ready(page)
    sell, buy = ctx.targets["sell"], ctx.targets["buy"]
    cash_before = _cash(page, "Roth IRA")
    ui.open_quote(page, sell)
    quantity = _holdings(page)["Roth IRA"]
    text = ui.place_order_until_done(page, account_name="Roth IRA", side="sell", quantity=quantity)
    assert text.startswith(f"Sold {quantity} {sell}"), text
    page.reload()
    ui.ready(page)
    cash = cash_before if size_before_sale else _cash(page, "Roth IRA")
    ui.open_quote(page, buy)
    price = int(re.sub(r"[^\d]", "", page.locator("#app .price strong").inner_text()))
    shares = cash // price
    text = ui.place_order_until_done(page, account_name="Roth IRA", side="buy", quantity=shares)
    assert text.startswith(f"Bought {shares} {buy}"), text


def swap_oracle(page: Page, ctx: OracleContext) -> None:
    _swap(page, ctx, size_before_sale=False)


def swap_wrong(page: Page, ctx: OracleContext) -> None:
    """Sizes the ETF purchase by the cash the Roth IRA had before the sale."""
    _swap(page, ctx, size_before_sale=True)


def _cancel_until_gone(page: Page, symbol: str) -> None:
    """Cancel the working order of `symbol`, then re-read the Working tab until it is gone."""
    ui.nav(page, "Orders")
    working = page.get_by_role("navigation", name="Order status").get_by_role("link", name="Working")
    for _ in range(3):
        working.click()
        ui.ready(page)
        row = ui.table_row(page, symbol)
        if not row.count():
            return
        row.get_by_role("button", name="Cancel").click()
        with page.expect_response(re.compile(r"/orders/[^/]+/cancel$")):
            ui.confirm(page, "Cancel order")
        page.reload()
    raise AssertionError("the order never went away")


def raise_limit_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _cancel_until_gone(page, ctx.targets["symbol"])
    ui.open_quote(page, ctx.targets["symbol"])
    text = ui.place_order_until_done(
        page,
        account_name="Roth IRA",
        side="sell",
        quantity=50,
        order_type="limit",
        limit=ui.dollars(ctx.targets["new_text"]),
    )
    assert text.startswith("Your limit order for 50"), text


def raise_limit_wrong(page: Page, ctx: OracleContext) -> None:
    """Cancels the old order, then sells at the market instead of placing the new limit."""
    ui.ready(page)
    _cancel_until_gone(page, ctx.targets["symbol"])
    ui.open_quote(page, ctx.targets["symbol"])
    ui.place_order_until_done(page, account_name="Roth IRA", side="sell", quantity=50)


def _shortlist(page: Page, symbols: list[str]) -> None:
    ui.nav(page, "Watchlists")
    for _ in range(3):
        page.get_by_label("New watchlist name").fill("To buy")
        page.get_by_role("button", name="Create watchlist").click()
        if ui.notice(page) == "Watchlist created.":
            break
        page.reload()
        ui.ready(page)
    for symbol in symbols:
        ui.open_quote(page, symbol)
        choose(page, "Watchlist", "To buy")
        page.get_by_role("button", name="Add to watchlist").click()
        assert f"{symbol} added to To buy" in ui.notice(page)


def _growth_and_owned(page: Page) -> tuple[list[str], set[str]]:
    ui.nav(page, "Watchlists")
    growth = [
        t.split()[0]
        for t in ui.watchlist_section(page, "Growth").locator("tbody tr td:first-child").all_inner_texts()
    ]
    owned = {r[1] for r in _losses(page)}
    return growth, owned


def shortlist_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    growth, owned = _growth_and_owned(page)
    _shortlist(page, [s for s in growth if s not in owned])


def shortlist_wrong(page: Page, ctx: OracleContext) -> None:
    """Copies the whole Growth list without checking what is already held."""
    ui.ready(page)
    growth, _ = _growth_and_owned(page)
    _shortlist(page, growth)


def _top_up(page: Page, ctx: OracleContext, have: int) -> None:
    need = int(ctx.targets["goal_cents"]) - have
    _transfer(page, "Joint Savings", "Individual Brokerage", f"{need // 100}.{need % 100:02d}")


def top_up_oracle(page: Page, ctx: OracleContext) -> None:
    ui.ready(page)
    _top_up(page, ctx, _cash(page, "Individual Brokerage"))


def top_up_wrong(page: Page, ctx: OracleContext) -> None:
    """Reads the buying power (less the open order's reserve) as if it were the cash."""
    ui.ready(page)
    _top_up(page, ctx, _buying_power(page, "Individual Brokerage"))


def _buy_and_alert(page: Page, ctx: OracleContext, round_up: bool) -> None:
    ui.ready(page)
    symbol = ctx.targets["symbol"]
    ui.open_quote(page, symbol)
    price = int(re.sub(r"[^\d]", "", page.locator("#app .price strong").inner_text()))
    text = ui.place_order_until_done(
        page,
        account_name="Individual Brokerage",
        side="buy",
        quantity=10,
        order_type="limit",
        limit=f"{price // 100}.{price % 100:02d}",
    )
    assert text.startswith(f"Bought 10 {symbol}"), text
    level = -(-price * 9 // 10) if round_up else price * 9 // 10
    for _ in range(3):
        page.reload()
        ui.ready(page)
        choose(page, "Alert me when the price", value="below")
        page.get_by_label("Price", exact=True).fill(f"{level // 100}.{level % 100:02d}")
        page.get_by_role("button", name="Create alert").click()
        if ui.notice(page).startswith(f"Alert set: {symbol}"):
            return
        ui.relogin_if_needed(page)
    raise AssertionError("the alert was never set")


def buy_and_alert_oracle(page: Page, ctx: OracleContext) -> None:
    _buy_and_alert(page, ctx, round_up=False)


def buy_and_alert_wrong(page: Page, ctx: OracleContext) -> None:
    """Rounds 90% of the price up to the cent instead of down."""
    _buy_and_alert(page, ctx, round_up=True)


def _wind_down(page: Page, ctx: OracleContext, read_before_cancel: bool) -> None:
    ui.ready(page)
    before = _buying_power(page, "Individual Brokerage")
    for symbol in ("HALX", "IVRY"):
        _cancel_until_gone(page, symbol)
    have = before if read_before_cancel else _cash(page, "Individual Brokerage")
    move = have - int(ctx.targets["keep_cents"])
    _transfer(page, "Individual Brokerage", "Joint Savings", f"{move // 100}.{move % 100:02d}")


def wind_down_oracle(page: Page, ctx: OracleContext) -> None:
    _wind_down(page, ctx, read_before_cancel=False)


def wind_down_wrong(page: Page, ctx: OracleContext) -> None:
    """Sizes the transfer by the buying power read before the cancels freed the reserve."""
    _wind_down(page, ctx, read_before_cancel=True)


ORACLES = {
    "brokerage-001": watch_oracle,
    "brokerage-002": fund_roth_oracle,
    "brokerage-003": sell_out_oracle,
    "brokerage-004": cheapest_pick_oracle,
    "brokerage-005": fund_and_buy_oracle,
    "brokerage-006": alert_oracle,
    "brokerage-007": pause_plan_oracle,
    "brokerage-008": buy_once_oracle,
    "brokerage-009": monthly_plan_oracle,
    "brokerage-010": undo_transfer_oracle,
    "brokerage-011": delete_alert_oracle,
    "brokerage-012": cancel_roth_oracle,
    "brokerage-013": sell_everywhere_oracle,
    "brokerage-014": biggest_loser_oracle,
    "brokerage-015": swap_oracle,
    "brokerage-016": raise_limit_oracle,
    "brokerage-017": shortlist_oracle,
    "brokerage-018": top_up_oracle,
    "brokerage-019": buy_and_alert_oracle,
    "brokerage-020": wind_down_oracle,
}
WRONG = {
    "brokerage-001": watch_wrong,
    "brokerage-002": fund_roth_wrong,
    "brokerage-003": sell_out_wrong,
    "brokerage-004": cheapest_pick_wrong,
    "brokerage-005": fund_and_buy_wrong,
    "brokerage-006": alert_wrong,
    "brokerage-007": pause_plan_wrong,
    "brokerage-008": buy_once_wrong,
    "brokerage-009": monthly_plan_wrong,
    "brokerage-010": undo_transfer_wrong,
    "brokerage-011": delete_alert_wrong,
    "brokerage-012": cancel_roth_wrong,
    "brokerage-013": sell_everywhere_wrong,
    "brokerage-014": biggest_loser_wrong,
    "brokerage-015": swap_wrong,
    "brokerage-016": raise_limit_wrong,
    "brokerage-017": shortlist_wrong,
    "brokerage-018": top_up_wrong,
    "brokerage-019": buy_and_alert_wrong,
    "brokerage-020": wind_down_wrong,
}
