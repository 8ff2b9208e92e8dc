"""Seed builders for Northbeam's task situations (registered as `brokerage.<name>`).

Each builder adds one situation to the default brokerage and returns named outputs that task
files bind to targets. Prices in task files are dollars; everything stored is cents.
"""

from __future__ import annotations

from typing import Any

from humantrace.environments.brokerage.models import (
    Order,
    Position,
    PriceAlert,
    RecurringInvestment,
    Transfer,
    WatchItem,
    Watchlist,
)
from humantrace.environments.brokerage.seed import (
    BrokerageContext,
    account,
    add_instrument,
    instrument,
    money,
)
from humantrace.environments.seeding import SeedError, builder


@builder("brokerage.refs")
def refs(ctx: BrokerageContext) -> dict[str, Any]:
    """The ids of the default accounts and watchlists, by name."""
    state = ctx.state
    return {
        "account_ids": {a.name: a.id for a in state.accounts},
        "watchlist_ids": {w.name: w.id for w in state.watchlists},
    }


@builder("brokerage.instrument")
def plant_instrument(
    ctx: BrokerageContext,
    *,
    symbol: str,
    name: str,
    price: float,
    kind: str = "Stock",
    sector: str = "Technology",
    liquidity: int = 5000,
    position: int | None = None,
) -> dict[str, Any]:
    """Add one instrument whose price path ends at `price` dollars."""
    if any(i.symbol == symbol for i in ctx.state.instruments):
        raise SeedError(f"symbol {symbol} already exists")
    made = add_instrument(
        ctx,
        symbol=symbol,
        name=name,
        kind=kind,
        sector=sector,
        start_cents=int(round(price * 100)),
        liquidity=liquidity,
        position=position,
    )
    scale = round(price * 100) / made.price_cents
    made.history_cents = [max(100, int(round(p * scale))) for p in made.history_cents]
    made.price_cents = made.history_cents[-1] = int(round(price * 100))
    made.prev_close_cents = made.history_cents[-2]
    return {
        "symbol": made.symbol,
        "name": made.name,
        "price_cents": made.price_cents,
        "price_text": money(made.price_cents),
    }


@builder("brokerage.position")
def plant_position(
    ctx: BrokerageContext, *, account_name: str, symbol: str, quantity: int, cost: float
) -> dict[str, Any]:
    """Give an account `quantity` shares of `symbol` bought at `cost` dollars a share."""
    acct = account(ctx, account_name)
    instrument(ctx, symbol)
    made = Position(
        id=ctx.new_id("pos"),
        account_id=acct.id,
        symbol=symbol,
        quantity=quantity,
        cost_basis_cents=int(round(cost * 100)) * quantity,
    )
    ctx.state.positions.append(made)
    return {"position_id": made.id, "account_id": acct.id}


@builder("brokerage.open_order")
def plant_open_order(
    ctx: BrokerageContext,
    *,
    account_name: str,
    symbol: str,
    side: str,
    quantity: int,
    limit: float,
    filled: int = 0,
    days_ago: float = 2,
) -> dict[str, Any]:
    """A working limit order (nothing or `filled` shares filled so far)."""
    acct = account(ctx, account_name)
    item = instrument(ctx, symbol)
    made = Order(
        id=ctx.new_id("ord"),
        account_id=acct.id,
        symbol=item.symbol,
        side=side,
        order_type="limit",
        quantity=quantity,
        limit_price_cents=int(round(limit * 100)),
        status="partially_filled" if filled else "open",
        filled_quantity=filled,
        avg_fill_price_cents=int(round(limit * 100)) if filled else None,
        created_at=ctx.ago(days=days_ago),
    )
    ctx.state.orders.append(made)
    return {"order_id": made.id, "account_id": acct.id}


@builder("brokerage.watchlist")
def plant_watchlist(ctx: BrokerageContext, *, name: str, symbols: list[str]) -> dict[str, Any]:
    made = Watchlist(id=ctx.new_id("wl"), name=name, created_at=ctx.ago(days=14))
    state = ctx.state
    state.watchlists.append(made)
    for symbol in symbols:
        instrument(ctx, symbol)
        state.watch_items.append(
            WatchItem(id=ctx.new_id("wi"), watchlist_id=made.id, symbol=symbol, added_at=ctx.ago(days=10))
        )
    return {"watchlist_id": made.id}


@builder("brokerage.cash")
def set_cash(ctx: BrokerageContext, *, account_name: str, amount: float) -> dict[str, Any]:
    acct = account(ctx, account_name)
    acct.cash_cents = int(round(amount * 100))
    return {"account_id": acct.id, "cash_cents": acct.cash_cents}


@builder("brokerage.cheapest_on")
def cheapest_on(ctx: BrokerageContext, *, watchlist_id: str) -> dict[str, Any]:
    """The cheapest instrument on a watchlist today (a tie is a SeedError: one right answer)."""
    state = ctx.state
    symbols = [w.symbol for w in state.watch_items if w.watchlist_id == watchlist_id]
    ranked = sorted((instrument(ctx, s) for s in symbols), key=lambda i: i.price_cents)
    if len(ranked) < 2 or ranked[0].price_cents == ranked[1].price_cents:
        raise SeedError("the watchlist needs one strictly cheapest instrument")
    found = ranked[0]
    return {
        "cheapest_symbol": found.symbol,
        "cheapest_name": found.name,
        "cheapest_price_cents": found.price_cents,
    }


@builder("brokerage.funding_plan")
def funding_plan(
    ctx: BrokerageContext, *, account_name: str, from_name: str, symbol: str, quantity: int, limit: float
) -> dict[str, Any]:
    """How much cash `account_name` needs from `from_name` to place a limit buy of `quantity` at
    `limit` (buying power must cover quantity x limit), and the cash both hold once it fills at
    today's price."""
    acct, source = account(ctx, account_name), account(ctx, from_name)
    item = instrument(ctx, symbol)
    limit_cents = int(round(limit * 100))
    if item.price_cents > limit_cents:
        raise SeedError("the limit must be at or above today's price so the order fills")
    need = quantity * limit_cents - acct.cash_cents
    if need <= 0:
        raise SeedError(f"{account_name} already has enough cash")
    return {
        "transfer_cents": need,
        "transfer_text": money(need),
        "limit_cents": limit_cents,
        "limit_text": money(limit_cents),
        "to_account_id": acct.id,
        "from_account_id": source.id,
        "to_cash_after": acct.cash_cents + need - quantity * item.price_cents,
        "from_cash_after": source.cash_cents - need,
    }


@builder("brokerage.cash_after")
def cash_after(
    ctx: BrokerageContext,
    *,
    account_name: str,
    delta: float = 0,
    shares: int = 0,
    symbol: str | None = None,
    side: str = "buy",
) -> dict[str, Any]:
    """An account's cash after moving `delta` dollars and trading `shares` of `symbol` at today's price."""
    acct = account(ctx, account_name)
    trade = shares * instrument(ctx, symbol).price_cents if symbol else 0
    return {
        "account_id": acct.id,
        "cash_after": acct.cash_cents + int(round(delta * 100)) + (-trade if side == "buy" else trade),
    }


@builder("brokerage.recurring_plan")
def plant_recurring(
    ctx: BrokerageContext, *, account_name: str, symbol: str, amount: float, frequency: str = "monthly"
) -> dict[str, Any]:
    """An active recurring investment whose next purchase is a few days ahead."""
    acct = account(ctx, account_name)
    instrument(ctx, symbol)
    made = RecurringInvestment(
        id=ctx.new_id("rec"),
        account_id=acct.id,
        symbol=symbol,
        amount_cents=int(round(amount * 100)),
        frequency=frequency,
        next_date=ctx.ago(days=-5)[:10],
    )
    ctx.state.recurring.append(made)
    return {"recurring_id": made.id, "account_id": acct.id}


@builder("brokerage.past_transfer")
def plant_transfer(
    ctx: BrokerageContext, *, from_name: str, to_name: str, amount: float, memo: str = "", days_ago: float = 3
) -> dict[str, Any]:
    """A transfer made `days_ago` days before the session (its cash already moved)."""
    source, target = account(ctx, from_name), account(ctx, to_name)
    made = Transfer(
        id=ctx.new_id("trf"),
        from_account_id=source.id,
        to_account_id=target.id,
        amount_cents=int(round(amount * 100)),
        memo=memo,
        created_at=ctx.ago(days=days_ago),
    )
    ctx.state.transfers.append(made)
    return {"transfer_id": made.id, "from_account_id": source.id, "to_account_id": target.id}


@builder("brokerage.day_ahead")
def day_ahead(ctx: BrokerageContext, *, days: int) -> dict[str, Any]:
    """The calendar date `days` days after the session starts (YYYY-MM-DD)."""
    return {"date": ctx.ago(days=-days)[:10]}


@builder("brokerage.alert")
def plant_alert(ctx: BrokerageContext, *, symbol: str, direction: str, price: float) -> dict[str, Any]:
    """An active price alert set a few days ago."""
    instrument(ctx, symbol)
    made = PriceAlert(
        id=ctx.new_id("alr"),
        symbol=symbol,
        direction=direction,
        price_cents=int(round(price * 100)),
        created_at=ctx.ago(days=4),
    )
    ctx.state.alerts.append(made)
    return {"alert_id": made.id}


@builder("brokerage.largest_loss")
def largest_loss(ctx: BrokerageContext, *, account_name: str) -> dict[str, Any]:
    """The position of an account with the largest loss in dollars today (a tie is a SeedError)."""
    acct = account(ctx, account_name)
    ranked = sorted(
        (p.quantity * instrument(ctx, p.symbol).price_cents - p.cost_basis_cents, p.symbol, p)
        for p in ctx.state.positions
        if p.account_id == acct.id
    )
    if len(ranked) < 2 or ranked[0][0] == ranked[1][0] or ranked[0][0] >= 0:
        raise SeedError("the account needs one position with a strictly largest loss")
    _, symbol, found = ranked[0]
    proceeds = found.quantity * instrument(ctx, symbol).price_cents
    return {
        "symbol": symbol,
        "position_id": found.id,
        "quantity": found.quantity,
        "account_id": acct.id,
        "cash_after": acct.cash_cents + proceeds,
    }


@builder("brokerage.sell_and_buy_max")
def sell_and_buy_max(ctx: BrokerageContext, *, account_name: str, sell: str, buy: str) -> dict[str, Any]:
    """Selling all of `sell` in an account, then buying as many whole `buy` shares as its cash allows."""
    acct = account(ctx, account_name)
    held = next(p for p in ctx.state.positions if p.account_id == acct.id and p.symbol == sell)
    cash = acct.cash_cents + held.quantity * instrument(ctx, sell).price_cents
    price = instrument(ctx, buy).price_cents
    shares = cash // price
    return {
        "account_id": acct.id,
        "position_id": held.id,
        "sell_quantity": held.quantity,
        "buy_quantity": shares,
        "cash_after": cash - shares * price,
    }
