"""Northbeam's public JSON API (mounted at /api/env/brokerage): the only surface pages and agents touch.

Handlers are thin: they call `service` (which refuses with `SiteError`) and emit one typed
semantic event per meaningful action (`EVENTS`; also in docs/sites/brokerage.md).
"""

from __future__ import annotations

from fastapi import APIRouter

from humantrace.environments.brokerage import service
from humantrace.environments.brokerage.models import BrokerageState, Instrument
from humantrace.environments.brokerage.schemas import (
    AccountDetail,
    AccountsView,
    AccountView,
    Documents,
    Holding,
    InstrumentPage,
    InstrumentRow,
    Me,
    NewAlert,
    NewOrder,
    NewRecurring,
    NewTransfer,
    NewWatchItem,
    NewWatchlist,
    Ok,
    OrderList,
    OrderResult,
    Plans,
    PositionView,
    Quote,
    Transfers,
    WatchItemResult,
    Watchlists,
    WatchlistView,
)
from humantrace.environments.brokerage.seed import money
from humantrace.environments.sessions import EnvSessionDep
from humantrace.environments.sitekit import SiteError, add_sign_in_again, find_or_404, page_of, state_of

EVENTS: dict[str, tuple[str, ...]] = {
    "instrument_search": ("q", "page"),
    "quote_view": ("symbol",),
    "order_placed": ("order_id", "account_id", "symbol", "side", "order_type", "quantity", "filled_quantity"),
    "order_cancelled": ("order_id", "symbol"),
    "transfer_made": ("transfer_id", "from_account_id", "to_account_id", "amount_cents"),
    "watchlist_created": ("watchlist_id", "name"),
    "watch_added": ("watchlist_id", "symbol"),
    "watch_removed": ("watchlist_id", "symbol"),
    "recurring_created": ("recurring_id", "account_id", "symbol", "amount_cents", "frequency"),
    "recurring_paused": ("recurring_id",),
    "alert_created": ("alert_id", "symbol", "direction", "price_cents"),
    "alert_deleted": ("alert_id",),
    "signed_in": (),
}
PAGE_SIZE = 25

router = APIRouter()


def brokerage(env: EnvSessionDep) -> BrokerageState:
    return state_of(env, BrokerageState)


def mask(number: str) -> str:
    return "••••" + number[-4:]


def _row(item: Instrument) -> InstrumentRow:
    return InstrumentRow(
        symbol=item.symbol,
        name=item.name,
        kind=item.kind,
        sector=item.sector,
        price_cents=item.price_cents,
        change_cents=item.price_cents - item.prev_close_cents,
    )


def _positions(state: BrokerageState, account_id: str | None = None) -> list[PositionView]:
    out = []
    for p in state.positions:
        if account_id is not None and p.account_id != account_id:
            continue
        item = service.instrument(state, p.symbol)
        value = p.quantity * item.price_cents
        out.append(
            PositionView(
                id=p.id,
                account_id=p.account_id,
                symbol=p.symbol,
                name=item.name,
                quantity=p.quantity,
                price_cents=item.price_cents,
                value_cents=value,
                cost_basis_cents=p.cost_basis_cents,
                gain_cents=value - p.cost_basis_cents,
            )
        )
    return sorted(out, key=lambda v: v.symbol)


def _account_view(state: BrokerageState, account_id: str) -> AccountView:
    acct = service.account(state, account_id)
    holdings = sum(v.value_cents for v in _positions(state, acct.id))
    return AccountView(
        id=acct.id,
        name=acct.name,
        kind=acct.kind,
        masked_number=mask(acct.number),
        cash_cents=acct.cash_cents,
        buying_power_cents=service.buying_power(state, acct.id),
        holdings_value_cents=holdings,
        total_value_cents=holdings + acct.cash_cents,
    )


@router.get("/me", response_model=Me)
def me(env: EnvSessionDep) -> Me:
    state = brokerage(env)
    person = state.profile[0]
    open_orders = sum(1 for o in state.orders if o.status in ("open", "partially_filled"))
    return Me(
        signed_in=person.signed_in,
        name=person.full_name,
        today=env.now().date().isoformat(),
        open_orders=open_orders,
    )


add_sign_in_again(router, lambda env: brokerage(env).profile[0], "investor")


@router.get("/accounts", response_model=AccountsView)
def accounts(env: EnvSessionDep) -> AccountsView:
    state = brokerage(env)
    views = [_account_view(state, a.id) for a in state.accounts]
    return AccountsView(accounts=views, total_value_cents=sum(v.total_value_cents for v in views))


@router.get("/accounts/{account_id}", response_model=AccountDetail)
def account_detail(account_id: str, env: EnvSessionDep) -> AccountDetail:
    state = brokerage(env)
    view = _account_view(state, account_id)
    orders = sorted(
        (o for o in state.orders if o.account_id == account_id), key=lambda o: o.created_at, reverse=True
    )
    docs = sorted(
        (d for d in state.documents if d.account_id == account_id), key=lambda d: d.issued_at, reverse=True
    )
    return AccountDetail(account=view, positions=_positions(state, account_id), orders=orders, documents=docs)


@router.get("/instruments", response_model=InstrumentPage)
def instruments(env: EnvSessionDep, q: str = "", page: int = 1, kind: str = "") -> InstrumentPage:
    """Search by symbol or name, 25 a page; an exact symbol match comes first."""
    state = brokerage(env)
    needle = q.strip().lower()
    found = [
        i
        for i in state.instruments
        if (not needle or needle in i.symbol.lower() or needle in i.name.lower())
        and (not kind or i.kind == kind)
    ]
    found.sort(key=lambda i: (i.symbol.lower() != needle, not i.symbol.lower().startswith(needle), i.symbol))
    chunk, page, pages = page_of(found, page, PAGE_SIZE)
    if needle:
        env.emit("instrument_search", q=q, page=page)
    return InstrumentPage(items=[_row(i) for i in chunk], total=len(found), page=page, pages=pages)


@router.get("/quote/{symbol}", response_model=Quote)
def quote(symbol: str, env: EnvSessionDep) -> Quote:
    state = brokerage(env)
    item = service.instrument(state, symbol)
    env.emit("quote_view", symbol=item.symbol)
    names = {a.id: a.name for a in state.accounts}
    holdings = [
        Holding(account_id=p.account_id, account_name=names[p.account_id], quantity=p.quantity)
        for p in state.positions
        if p.symbol == item.symbol
    ]
    return Quote(
        instrument=item,
        change_cents=item.price_cents - item.prev_close_cents,
        holdings=holdings,
        watchlists=list(state.watchlists),
    )


@router.get("/orders", response_model=OrderList)
def orders(env: EnvSessionDep, status: str = "") -> OrderList:
    state = brokerage(env)
    found = [
        o
        for o in state.orders
        if not status
        or o.status == status
        or (status == "working" and o.status in ("open", "partially_filled"))
    ]
    return OrderList(orders=sorted(found, key=lambda o: (o.created_at, o.id), reverse=True))


@router.post("/orders", response_model=OrderResult, status_code=201)
def place_order(body: NewOrder, env: EnvSessionDep) -> OrderResult:
    state = brokerage(env)
    order = service.place_order(
        state,
        account_id=body.account_id,
        symbol=body.symbol,
        side=body.side,
        order_type=body.order_type,
        quantity=body.quantity,
        limit_price_cents=body.limit_price_cents,
        now=env.now_iso(),
        new_id=env.new_id,
    )
    env.emit(
        "order_placed",
        order_id=order.id,
        account_id=order.account_id,
        symbol=order.symbol,
        side=order.side,
        order_type=order.order_type,
        quantity=order.quantity,
        filled_quantity=order.filled_quantity,
    )
    verb = "Bought" if order.side == "buy" else "Sold"
    if order.status == "filled":
        message = f"{verb} {order.quantity} {order.symbol} at {money(order.avg_fill_price_cents or 0)}."
    elif order.status == "partially_filled":
        message = (
            f"{verb} {order.filled_quantity} of {order.quantity} {order.symbol}; "
            f"the other {order.quantity - order.filled_quantity} stay open."
        )
    else:
        message = f"Your limit order for {order.quantity} {order.symbol} is open."
    return OrderResult(order=order, message=message)


@router.post("/orders/{order_id}/cancel", response_model=OrderResult)
def cancel_order(order_id: str, env: EnvSessionDep) -> OrderResult:
    order = service.cancel_order(brokerage(env), order_id, env.now_iso())
    env.emit("order_cancelled", order_id=order.id, symbol=order.symbol)
    return OrderResult(order=order, message=f"Order for {order.quantity} {order.symbol} cancelled.")


@router.get("/transfers", response_model=Transfers)
def transfers(env: EnvSessionDep) -> Transfers:
    return Transfers(transfers=sorted(brokerage(env).transfers, key=lambda t: t.created_at, reverse=True))


@router.post("/transfers", response_model=Transfers, status_code=201)
def make_transfer(body: NewTransfer, env: EnvSessionDep) -> Transfers:
    made = service.transfer(
        brokerage(env),
        from_id=body.from_account_id,
        to_id=body.to_account_id,
        amount_cents=body.amount_cents,
        memo=body.memo,
        now=env.now_iso(),
        new_id=env.new_id,
    )
    env.emit(
        "transfer_made",
        transfer_id=made.id,
        from_account_id=made.from_account_id,
        to_account_id=made.to_account_id,
        amount_cents=made.amount_cents,
    )
    return Transfers(transfers=[made])


def _watchlists(state: BrokerageState) -> Watchlists:
    views = []
    for wl in state.watchlists:
        rows = [
            _row(service.instrument(state, w.symbol)) for w in state.watch_items if w.watchlist_id == wl.id
        ]
        views.append(WatchlistView(watchlist=wl, items=rows))
    return Watchlists(watchlists=views)


@router.get("/watchlists", response_model=Watchlists)
def watchlists(env: EnvSessionDep) -> Watchlists:
    return _watchlists(brokerage(env))


@router.post("/watchlists", response_model=Watchlists, status_code=201)
def create_watchlist(body: NewWatchlist, env: EnvSessionDep) -> Watchlists:
    made = service.new_watchlist(brokerage(env), body.name, env.now_iso(), env.new_id)
    env.emit("watchlist_created", watchlist_id=made.id, name=made.name)
    return _watchlists(brokerage(env))


@router.post("/watchlists/{watchlist_id}/items", response_model=WatchItemResult, status_code=201)
def add_watch(watchlist_id: str, body: NewWatchItem, env: EnvSessionDep) -> WatchItemResult:
    made = service.add_watch(brokerage(env), watchlist_id, body.symbol, env.now_iso(), env.new_id)
    env.emit("watch_added", watchlist_id=watchlist_id, symbol=made.symbol)
    return WatchItemResult(item=made)


@router.delete("/watchlists/{watchlist_id}/items/{symbol}", response_model=Ok)
def remove_watch(watchlist_id: str, symbol: str, env: EnvSessionDep) -> Ok:
    state = brokerage(env)
    found = next(
        (w for w in state.watch_items if w.watchlist_id == watchlist_id and w.symbol == symbol), None
    )
    if found is None:
        raise SiteError(404, f"{symbol} is not on this watchlist.")
    state.watch_items.remove(found)
    env.emit("watch_removed", watchlist_id=watchlist_id, symbol=symbol)
    return Ok()


@router.get("/plans", response_model=Plans)
def plans(env: EnvSessionDep) -> Plans:
    state = brokerage(env)
    return Plans(recurring=list(state.recurring), alerts=list(state.alerts))


@router.post("/recurring", response_model=Plans, status_code=201)
def create_recurring(body: NewRecurring, env: EnvSessionDep) -> Plans:
    made = service.add_recurring(
        brokerage(env),
        account_id=body.account_id,
        symbol=body.symbol,
        amount_cents=body.amount_cents,
        frequency=body.frequency,
        next_date=body.next_date,
        new_id=env.new_id,
    )
    env.emit(
        "recurring_created",
        recurring_id=made.id,
        account_id=made.account_id,
        symbol=made.symbol,
        amount_cents=made.amount_cents,
        frequency=made.frequency,
    )
    return plans(env)


@router.post("/recurring/{recurring_id}/pause", response_model=Plans)
def pause_recurring(recurring_id: str, env: EnvSessionDep) -> Plans:
    found = find_or_404(
        brokerage(env), "recurring", recurring_id, "That recurring investment does not exist."
    )
    found.active = False
    env.emit("recurring_paused", recurring_id=recurring_id)
    return plans(env)


@router.post("/alerts", response_model=Plans, status_code=201)
def create_alert(body: NewAlert, env: EnvSessionDep) -> Plans:
    made = service.add_alert(
        brokerage(env),
        symbol=body.symbol,
        direction=body.direction,
        price_cents=body.price_cents,
        now=env.now_iso(),
        new_id=env.new_id,
    )
    env.emit(
        "alert_created",
        alert_id=made.id,
        symbol=made.symbol,
        direction=made.direction,
        price_cents=made.price_cents,
    )
    return plans(env)


@router.delete("/alerts/{alert_id}", response_model=Plans)
def delete_alert(alert_id: str, env: EnvSessionDep) -> Plans:
    state = brokerage(env)
    found = find_or_404(state, "alerts", alert_id, "That alert does not exist.")
    state.alerts.remove(found)
    env.emit("alert_deleted", alert_id=alert_id)
    return plans(env)


@router.get("/documents", response_model=Documents)
def documents(env: EnvSessionDep, kind: str = "") -> Documents:
    found = [d for d in brokerage(env).documents if not kind or d.kind == kind]
    return Documents(documents=sorted(found, key=lambda d: d.issued_at, reverse=True))
