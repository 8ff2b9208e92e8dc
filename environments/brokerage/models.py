"""Northbeam's state: one typed collection per kind of entity.

Money is integer cents, share quantities are whole shares, moments are ISO-8601 UTC strings from
the session's virtual clock. An instrument's `price_cents` is the last trade of its seeded price
path (`history_cents`, oldest first), so every price and fill follows from the seed.
"""

from __future__ import annotations

from humantrace.environments.state import Entity, EnvState, state_helper


class Instrument(Entity):
    """A listed stock or ETF with its seeded daily closes."""

    symbol: str
    name: str
    kind: str  # Stock | ETF
    sector: str
    exchange: str
    price_cents: int
    prev_close_cents: int
    history_cents: list[int]
    liquidity: int = 5000  # shares a single order can fill at once; the rest stays open


class Account(Entity):
    """A brokerage account (individual, retirement, ...) holding cash and positions."""

    name: str
    kind: str  # Individual | Roth IRA | Joint
    number: str  # full account number; pages show it masked except on the account page
    cash_cents: int


class Position(Entity):
    """Shares of one instrument held in one account."""

    account_id: str
    symbol: str
    quantity: int
    cost_basis_cents: int  # total paid for the shares held


class Order(Entity):
    """An equity order: market or limit, buy or sell; open until filled or cancelled."""

    account_id: str
    symbol: str
    side: str  # buy | sell
    order_type: str  # market | limit
    quantity: int
    limit_price_cents: int | None = None
    status: str  # open | partially_filled | filled | cancelled
    filled_quantity: int = 0
    avg_fill_price_cents: int | None = None
    created_at: str
    cancelled_at: str | None = None


class Watchlist(Entity):
    name: str
    created_at: str


class WatchItem(Entity):
    watchlist_id: str
    symbol: str
    added_at: str


class Transfer(Entity):
    """Cash moved between two of the investor's accounts."""

    from_account_id: str
    to_account_id: str
    amount_cents: int
    memo: str = ""
    created_at: str


class RecurringInvestment(Entity):
    """A standing plan: buy `amount_cents` of `symbol` in an account every period."""

    account_id: str
    symbol: str
    amount_cents: int
    frequency: str  # weekly | monthly
    next_date: str
    active: bool = True


class PriceAlert(Entity):
    symbol: str
    direction: str  # above | below
    price_cents: int
    active: bool = True
    created_at: str


class Document(Entity):
    """A statement or tax form of an account."""

    account_id: str
    kind: str  # statement | tax_form | confirmation
    title: str
    period: str
    issued_at: str


class Profile(Entity):
    """The signed-in investor (a single-entity collection)."""

    full_name: str
    email: str
    signed_in: bool = True


class BrokerageState(EnvState):
    """The whole brokerage as seen by one investor."""

    instruments: list[Instrument] = []
    accounts: list[Account] = []
    positions: list[Position] = []
    orders: list[Order] = []
    watchlists: list[Watchlist] = []
    watch_items: list[WatchItem] = []
    transfers: list[Transfer] = []
    recurring: list[RecurringInvestment] = []
    alerts: list[PriceAlert] = []
    documents: list[Document] = []
    profile: list[Profile] = []

    @state_helper
    def order_ids(self) -> list[str]:
        """The ids of every order, whatever its status."""
        return [o.id for o in self.orders]

    @state_helper
    def shares(self, account_id: str, symbol: str) -> int:
        """Shares of `symbol` held in account `account_id` (0 when none)."""
        return sum(p.quantity for p in self.positions if p.account_id == account_id and p.symbol == symbol)

    @state_helper
    def cash(self, account_id: str) -> int:
        """Cash of account `account_id` in cents (0 when there is no such account)."""
        return next((a.cash_cents for a in self.accounts if a.id == account_id), 0)

    @state_helper
    def watched(self, list_name: str) -> list[str]:
        """Symbols on the watchlist named `list_name` (empty when there is none)."""
        ids = {w.id for w in self.watchlists if w.name == list_name}
        return sorted(i.symbol for i in self.watch_items if i.watchlist_id in ids)
