"""Request bodies and response models of Northbeam's public API."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from humantrace.environments.brokerage.models import (
    Document,
    Instrument,
    Order,
    PriceAlert,
    RecurringInvestment,
    Transfer,
    WatchItem,
    Watchlist,
)
from humantrace.environments.responses import Answer, Ok  # noqa: F401  (Ok: the sites' shared answer)


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewOrder(Body):
    account_id: str
    symbol: str = Field(min_length=1, max_length=8)
    side: Literal["buy", "sell"]
    order_type: Literal["market", "limit"]
    quantity: int = Field(ge=1, le=1_000_000)
    limit_price_cents: int | None = Field(default=None, ge=1)


class NewTransfer(Body):
    from_account_id: str
    to_account_id: str
    amount_cents: int = Field(ge=1)
    memo: str = Field(default="", max_length=80)


class NewWatchlist(Body):
    name: str = Field(max_length=40)


class NewWatchItem(Body):
    symbol: str = Field(min_length=1, max_length=8)


class NewRecurring(Body):
    account_id: str
    symbol: str
    amount_cents: int
    frequency: Literal["weekly", "monthly"]
    next_date: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")


class NewAlert(Body):
    symbol: str
    direction: Literal["above", "below"]
    price_cents: int


class Me(Answer):
    signed_in: bool
    name: str
    today: str
    open_orders: int


class AccountView(Answer):
    id: str
    name: str
    kind: str
    masked_number: str
    cash_cents: int
    buying_power_cents: int
    holdings_value_cents: int
    total_value_cents: int


class PositionView(Answer):
    id: str
    account_id: str
    symbol: str
    name: str
    quantity: int
    price_cents: int
    value_cents: int
    cost_basis_cents: int
    gain_cents: int


class AccountsView(Answer):
    accounts: list[AccountView]
    total_value_cents: int


class AccountDetail(Answer):
    account: AccountView
    positions: list[PositionView]
    orders: list[Order]
    documents: list[Document]


class InstrumentRow(Answer):
    symbol: str
    name: str
    kind: str
    sector: str
    price_cents: int
    change_cents: int


class InstrumentPage(Answer):
    items: list[InstrumentRow]
    total: int
    page: int
    pages: int


class Holding(Answer):
    account_id: str
    account_name: str
    quantity: int


class Quote(Answer):
    instrument: Instrument
    change_cents: int
    holdings: list[Holding]
    watchlists: list[Watchlist]


class OrderList(Answer):
    orders: list[Order]


class OrderResult(Answer):
    order: Order
    message: str


class WatchlistView(Answer):
    watchlist: Watchlist
    items: list[InstrumentRow]


class Watchlists(Answer):
    watchlists: list[WatchlistView]


class WatchItemResult(Answer):
    item: WatchItem


class Transfers(Answer):
    transfers: list[Transfer]


class Plans(Answer):
    recurring: list[RecurringInvestment]
    alerts: list[PriceAlert]


class Documents(Answer):
    documents: list[Document]
