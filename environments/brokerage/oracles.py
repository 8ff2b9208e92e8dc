"""Oracle and wrong solutions of Northbeam's tasks (Playwright, through the UI only).

An oracle is what a careful investor does: it reads what the pages show and checks the answer of
every write, recovering from what the variant throws at it (a look-alike symbol, a failed
transfer, an expired session, a stuck page, a refused order) without doing anything twice. A WRONG
solution is a plausible mistake and must fail the evaluator in both conditions.
"""

from __future__ import annotations

import re
from typing import Any

from environments.brokerage import oracle_steps as ui


def watch_oracle(page: Any, ctx: Any) -> None:
    ui.ready(page)
    ui.open_quote(page, ctx.targets["symbol"])
    page.get_by_label("Watchlist").select_option(label="Ideas")
    page.get_by_role("button", name="Add to watchlist").click()
    assert "added to Ideas" in ui.notice(page)


def watch_wrong(page: Any, ctx: Any) -> None:
    """Makes a new watchlist for the stock instead of using "Ideas"."""
    ui.ready(page)
    ui.nav(page, "Watchlists")
    page.get_by_label("New watchlist name").fill("Zephyr")
    page.get_by_role("button", name="Create watchlist").click()
    ui.notice(page)
    ui.open_quote(page, ctx.targets["symbol"])
    page.get_by_label("Watchlist").select_option(label="Zephyr")
    page.get_by_role("button", name="Add to watchlist").click()
    ui.notice(page)


def _transfer(page: Any, source: str, target: str, amount: str) -> None:
    ui.nav(page, "Transfers")
    before = ui.transfer_rows(page)
    for _ in range(3):
        ui.choose_account(page, "transfer-from", source)
        ui.choose_account(page, "transfer-to", target)
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


def fund_roth_oracle(page: Any, ctx: Any) -> None:
    ui.ready(page)
    _transfer(page, "Joint Savings", "Roth IRA", "1500.00")


def fund_roth_wrong(page: Any, ctx: Any) -> None:
    """Takes the money from the Individual account."""
    ui.ready(page)
    _transfer(page, "Individual Brokerage", "Roth IRA", "1500.00")


def _cancel_working(page: Any, symbol: str) -> None:
    ui.nav(page, "Orders")
    page.get_by_role("navigation", name="Order status").get_by_role("link", name="Working").click()
    ui.ready(page)
    row = page.locator("#app tbody tr", has=page.get_by_role("link", name=symbol, exact=True))
    row.get_by_role("button", name="Cancel").click()
    ui.confirm(page, "Cancel order")
    assert "cancelled" in ui.notice(page)


def sell_out_oracle(page: Any, ctx: Any) -> None:
    ui.ready(page)
    _cancel_working(page, "VLTA")
    ui.open_quote(page, "VLTA")
    text = ui.place_order_until_done(page, account_name="Roth IRA", side="sell", quantity=30)
    assert text.startswith("Sold 30 VLTA"), text


def sell_out_wrong(page: Any, ctx: Any) -> None:
    """Cancels the order, then sells the VLTA of the wrong account."""
    ui.ready(page)
    _cancel_working(page, "VLTA")
    ui.open_quote(page, "VLTA")
    ui.place_order_until_done(page, account_name="Individual Brokerage", side="sell", quantity=12)


def _picks(page: Any) -> dict[str, int]:
    ui.nav(page, "Watchlists")
    prices = {}
    for row in ui.watchlist_section(page, "Energy picks").locator("tbody tr").all():
        cells = row.locator("td").all_inner_texts()
        prices[cells[0].strip()] = int(re.sub(r"[^\d]", "", cells[2]))
    assert len(prices) == 4, prices
    return prices


def _buy_and_unwatch(page: Any, symbol: str) -> None:
    ui.open_quote(page, symbol)
    text = ui.place_order_until_done(page, account_name="Individual Brokerage", side="buy", quantity=5)
    assert text.startswith(f"Bought 5 {symbol}"), text
    ui.nav(page, "Watchlists")
    page.get_by_role("button", name=f"Remove {symbol} from Energy picks").click()
    ui.watchlist_section(page, "Energy picks").get_by_role("link", name=symbol, exact=True).wait_for(
        state="detached"
    )


def cheapest_pick_oracle(page: Any, ctx: Any) -> None:
    ui.ready(page)
    prices = _picks(page)
    _buy_and_unwatch(page, min(prices, key=lambda s: prices[s]))


def cheapest_pick_wrong(page: Any, ctx: Any) -> None:
    """Buys the first stock on the list without comparing prices."""
    ui.ready(page)
    prices = _picks(page)
    _buy_and_unwatch(page, next(iter(prices)))


def _buying_power(page: Any, account_name: str) -> int:
    ui.nav(page, "Portfolio")
    row = page.locator("#app tbody tr", has=page.get_by_role("link", name=account_name, exact=True))
    return int(re.sub(r"[^\d]", "", row.locator("td").nth(2).inner_text()))


def fund_and_buy_oracle(page: Any, ctx: Any) -> None:
    ui.ready(page)
    limit_cents = int(re.sub(r"[^\d]", "", ctx.targets["limit_text"]))
    shortfall = 20 * limit_cents - _buying_power(page, "Roth IRA")
    _transfer(page, "Joint Savings", "Roth IRA", f"{shortfall // 100}.{shortfall % 100:02d}")
    ui.open_quote(page, "YARO")
    ui.place_order_until_done(
        page,
        account_name="Roth IRA",
        side="buy",
        quantity=20,
        order_type="limit",
        limit=ctx.targets["limit_text"].lstrip("$"),
    )


def fund_and_buy_wrong(page: Any, ctx: Any) -> None:
    """Sizes the transfer by today's price instead of the limit price (the order is then refused)."""
    ui.ready(page)
    price = 8437
    shortfall = 20 * price - _buying_power(page, "Roth IRA")
    _transfer(page, "Joint Savings", "Roth IRA", f"{shortfall // 100}.{shortfall % 100:02d}")
    ui.open_quote(page, "YARO")
    ui.place_order(
        page,
        account_name="Roth IRA",
        side="buy",
        quantity=20,
        order_type="limit",
        limit=ctx.targets["limit_text"].lstrip("$"),
    )


ORACLES = {
    "brokerage-001": watch_oracle,
    "brokerage-002": fund_roth_oracle,
    "brokerage-003": sell_out_oracle,
    "brokerage-004": cheapest_pick_oracle,
    "brokerage-005": fund_and_buy_oracle,
}
WRONG = {
    "brokerage-001": watch_wrong,
    "brokerage-002": fund_roth_wrong,
    "brokerage-003": sell_out_wrong,
    "brokerage-004": cheapest_pick_wrong,
    "brokerage-005": fund_and_buy_wrong,
}
