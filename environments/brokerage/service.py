"""Northbeam's rules: buying power, order placement and fills, transfers, watchlists, plans, alerts.

Fills are deterministic: a market order fills at the instrument's last price, a limit order fills
at that price only when it is at or better than the limit, and at most `liquidity` shares fill at
once (the rest stays open as `partially_filled`). Nothing here reads the wall clock.

Ids come from the caller's `new_id` (the session's `EnvHandle.new_id`), which counts the initial
snapshot too: an id freed by a sale, a cancel or a delete is never handed out again, so the diff
shows a Delete and a Create, never an Update of someone else's entity.
"""

from __future__ import annotations

from collections.abc import Callable

from humantrace.environments.brokerage.models import (
    Account,
    BrokerageState,
    Instrument,
    Order,
    Position,
    PriceAlert,
    RecurringInvestment,
    Transfer,
    WatchItem,
    Watchlist,
)
from humantrace.environments.brokerage.seed import money
from humantrace.environments.sitekit import SiteError

NewId = Callable[[str], str]


def account(state: BrokerageState, account_id: str) -> Account:
    found = state.find("accounts", account_id)
    if found is None:
        raise SiteError(404, "That account does not exist.")
    return found


def instrument(state: BrokerageState, symbol: str) -> Instrument:
    found = next((i for i in state.instruments if i.symbol == symbol.upper()), None)
    if found is None:
        raise SiteError(404, f"No stock or ETF has the symbol {symbol.upper()!r}.")
    return found


def reserved_cash(state: BrokerageState, account_id: str) -> int:
    """Cash held back for the unfilled part of open buy orders."""
    total = 0
    for order in state.orders:
        if (
            order.account_id == account_id
            and order.side == "buy"
            and order.status in ("open", "partially_filled")
        ):
            left = order.quantity - order.filled_quantity
            price = order.limit_price_cents or instrument(state, order.symbol).price_cents
            total += left * price
    return total


def buying_power(state: BrokerageState, account_id: str) -> int:
    return account(state, account_id).cash_cents - reserved_cash(state, account_id)


def held(state: BrokerageState, account_id: str, symbol: str) -> Position | None:
    return next((p for p in state.positions if p.account_id == account_id and p.symbol == symbol), None)


def sellable(state: BrokerageState, account_id: str, symbol: str) -> int:
    position = held(state, account_id, symbol)
    pending = sum(
        o.quantity - o.filled_quantity
        for o in state.orders
        if o.account_id == account_id
        and o.symbol == symbol
        and o.side == "sell"
        and o.status in ("open", "partially_filled")
    )
    return (position.quantity if position else 0) - pending


def _apply_fill(state: BrokerageState, order: Order, quantity: int, price: int, new_id: NewId) -> None:
    acct = account(state, order.account_id)
    position = held(state, order.account_id, order.symbol)
    if order.side == "buy":
        acct.cash_cents -= quantity * price
        if position is None:
            state.positions.append(
                Position(
                    id=new_id("pos"),
                    account_id=acct.id,
                    symbol=order.symbol,
                    quantity=quantity,
                    cost_basis_cents=quantity * price,
                )
            )
        else:
            position.quantity += quantity
            position.cost_basis_cents += quantity * price
    else:
        assert position is not None  # sellable() checked it when the order was placed
        acct.cash_cents += quantity * price
        basis_per_share = position.cost_basis_cents // position.quantity
        position.quantity -= quantity
        position.cost_basis_cents -= basis_per_share * quantity
        if position.quantity == 0:
            state.positions.remove(position)
    before = order.filled_quantity * (order.avg_fill_price_cents or 0)
    order.filled_quantity += quantity
    order.avg_fill_price_cents = (before + quantity * price) // order.filled_quantity
    order.status = "filled" if order.filled_quantity == order.quantity else "partially_filled"


def try_fill(state: BrokerageState, order: Order, new_id: NewId) -> None:
    """Fill what the current price and the instrument's liquidity allow."""
    item = instrument(state, order.symbol)
    price = item.price_cents
    if order.order_type == "limit" and order.limit_price_cents is not None:
        if order.side == "buy" and price > order.limit_price_cents:
            return
        if order.side == "sell" and price < order.limit_price_cents:
            return
    quantity = min(order.quantity - order.filled_quantity, item.liquidity)
    if quantity > 0:
        _apply_fill(state, order, quantity, price, new_id)


def place_order(
    state: BrokerageState,
    *,
    account_id: str,
    symbol: str,
    side: str,
    order_type: str,
    quantity: int,
    limit_price_cents: int | None,
    now: str,
    new_id: NewId,
) -> Order:
    acct = account(state, account_id)
    item = instrument(state, symbol)
    if order_type == "limit" and not limit_price_cents:
        raise SiteError(422, "A limit order needs a limit price.")
    if order_type == "market":
        limit_price_cents = None
    if side == "buy":
        cost = quantity * (limit_price_cents or item.price_cents)
        power = buying_power(state, acct.id)
        if cost > power:
            raise SiteError(
                422,
                f"Not enough buying power: this order needs about {money(cost)} and "
                f"{acct.name} has {money(power)} available.",
            )
    elif quantity > sellable(state, acct.id, item.symbol):
        raise SiteError(
            422,
            f"You can sell at most {max(0, sellable(state, acct.id, item.symbol))} shares of "
            f"{item.symbol} from {acct.name}.",
        )
    order = Order(
        id=new_id("ord"),
        account_id=acct.id,
        symbol=item.symbol,
        side=side,
        order_type=order_type,
        quantity=quantity,
        limit_price_cents=limit_price_cents,
        status="open",
        created_at=now,
    )
    state.orders.append(order)
    try_fill(state, order, new_id)
    return order


def cancel_order(state: BrokerageState, order_id: str, now: str) -> Order:
    order = state.find("orders", order_id)
    if order is None:
        raise SiteError(404, "That order does not exist.")
    if order.status not in ("open", "partially_filled"):
        raise SiteError(
            409, f"This order is already {order.status.replace('_', ' ')} and cannot be cancelled."
        )
    order.status = "cancelled"
    order.cancelled_at = now
    return order


def transfer(
    state: BrokerageState,
    *,
    from_id: str,
    to_id: str,
    amount_cents: int,
    memo: str,
    now: str,
    new_id: NewId,
) -> Transfer:
    source, target = account(state, from_id), account(state, to_id)
    if source.id == target.id:
        raise SiteError(422, "Choose two different accounts.")
    if amount_cents <= 0:
        raise SiteError(422, "Enter an amount greater than $0.00.")
    available = buying_power(state, source.id)
    if amount_cents > available:
        raise SiteError(422, f"{source.name} has {money(available)} available to transfer.")
    source.cash_cents -= amount_cents
    target.cash_cents += amount_cents
    made = Transfer(
        id=new_id("trf"),
        from_account_id=source.id,
        to_account_id=target.id,
        amount_cents=amount_cents,
        memo=memo,
        created_at=now,
    )
    state.transfers.append(made)
    return made


def add_watch(state: BrokerageState, watchlist_id: str, symbol: str, now: str, new_id: NewId) -> WatchItem:
    if state.find("watchlists", watchlist_id) is None:
        raise SiteError(404, "That watchlist does not exist.")
    item = instrument(state, symbol)
    if any(w.watchlist_id == watchlist_id and w.symbol == item.symbol for w in state.watch_items):
        raise SiteError(409, f"{item.symbol} is already on this watchlist.")
    made = WatchItem(id=new_id("wi"), watchlist_id=watchlist_id, symbol=item.symbol, added_at=now)
    state.watch_items.append(made)
    return made


def new_watchlist(state: BrokerageState, name: str, now: str, new_id: NewId) -> Watchlist:
    name = name.strip()
    if not name:
        raise SiteError(422, "Give the watchlist a name.")
    if any(w.name.lower() == name.lower() for w in state.watchlists):
        raise SiteError(409, f"You already have a watchlist named {name!r}.")
    made = Watchlist(id=new_id("wl"), name=name, created_at=now)
    state.watchlists.append(made)
    return made


def add_recurring(
    state: BrokerageState,
    *,
    account_id: str,
    symbol: str,
    amount_cents: int,
    frequency: str,
    next_date: str,
    new_id: NewId,
) -> RecurringInvestment:
    acct = account(state, account_id)
    item = instrument(state, symbol)
    if amount_cents < 1000:
        raise SiteError(422, "Recurring investments start at $10.00.")
    made = RecurringInvestment(
        id=new_id("rec"),
        account_id=acct.id,
        symbol=item.symbol,
        amount_cents=amount_cents,
        frequency=frequency,
        next_date=next_date,
    )
    state.recurring.append(made)
    return made


def add_alert(
    state: BrokerageState, *, symbol: str, direction: str, price_cents: int, now: str, new_id: NewId
) -> PriceAlert:
    item = instrument(state, symbol)
    if price_cents <= 0:
        raise SiteError(422, "Enter a price greater than $0.00.")
    made = PriceAlert(
        id=new_id("alr"),
        symbol=item.symbol,
        direction=direction,
        price_cents=price_cents,
        created_at=now,
    )
    state.alerts.append(made)
    return made
