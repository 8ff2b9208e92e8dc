"""Northbeam's default state and the helpers the task builders share.

`build_default_state` lists 320 instruments (a fixed set of well-known-sounding names plus
generated ones) with a 60-day seeded price path each, three accounts with cash and positions, a
filled and an open order, a watchlist, a recurring plan, an alert and the accounts' documents.
Every random draw goes through `ctx.rng` in a fixed order, so the same seed gives the same market.
"""

from __future__ import annotations

from typing import Any

from humantrace.environments.brokerage.models import (
    Account,
    BrokerageState,
    Document,
    Instrument,
    Order,
    Position,
    PriceAlert,
    Profile,
    RecurringInvestment,
    WatchItem,
    Watchlist,
)
from humantrace.environments.seeding import SeedContext, SeedError

INVESTOR_NAME = "Jordan Ellis"
INVESTOR_EMAIL = "jordan.ellis@example.com"
HISTORY_DAYS = 60
INSTRUMENT_COUNT = 320

SECTORS = (
    "Technology",
    "Health Care",
    "Financials",
    "Energy",
    "Consumer",
    "Industrials",
    "Utilities",
    "Materials",
)
EXCHANGES = ("NYSE", "NASDAQ")
NAME_HEADS = (
    "Acorn",
    "Alder",
    "Apex",
    "Arbor",
    "Aster",
    "Atlas",
    "Beacon",
    "Birch",
    "Bolt",
    "Brook",
    "Cedar",
    "Cinder",
    "Cobalt",
    "Comet",
    "Coral",
    "Crest",
    "Delta",
    "Drift",
    "Ember",
    "Falcon",
    "Fern",
    "Flint",
    "Forge",
    "Gale",
    "Garnet",
    "Glade",
    "Granite",
    "Harbor",
    "Hazel",
    "Helix",
    "Heron",
    "Indigo",
    "Iris",
    "Juniper",
    "Kestrel",
    "Lark",
    "Linden",
    "Lumen",
    "Maple",
    "Meridian",
    "Mesa",
    "Nimbus",
    "Nova",
    "Oak",
    "Onyx",
    "Orbit",
    "Osprey",
    "Pine",
    "Pioneer",
    "Prism",
    "Quartz",
    "Quill",
    "Raven",
    "Ridge",
    "Rowan",
    "Sable",
    "Sage",
    "Summit",
    "Tide",
)
NAME_TAILS = (
    ("Systems", "Technology"),
    ("Therapeutics", "Health Care"),
    ("Bancorp", "Financials"),
    ("Energy", "Energy"),
    ("Brands", "Consumer"),
    ("Industries", "Industrials"),
    ("Power", "Utilities"),
    ("Materials", "Materials"),
    ("Software", "Technology"),
    ("Health", "Health Care"),
    ("Capital", "Financials"),
    ("Foods", "Consumer"),
)
ETF_NAMES = (
    ("NBTM", "Northbeam Total Market ETF"),
    ("NBSP", "Northbeam S&P 500 Index ETF"),
    ("NBIN", "Northbeam International Equity ETF"),
    ("NBBD", "Northbeam Aggregate Bond ETF"),
    ("NBDV", "Northbeam Dividend Growth ETF"),
    ("NBTC", "Northbeam Technology Sector ETF"),
    ("NBHC", "Northbeam Health Care Sector ETF"),
    ("NBSC", "Northbeam Small Cap ETF"),
)

BrokerageContext = SeedContext[BrokerageState]


def money(cents: int) -> str:
    """`$1,234.56` (negative amounts as `-$1,234.56`)."""
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) // 100:,}.{abs(cents) % 100:02d}"


def instrument(ctx: BrokerageContext, symbol: str) -> Instrument:
    found = next((i for i in ctx.state.instruments if i.symbol == symbol), None)
    if found is None:
        raise SeedError(f"no instrument {symbol!r}")
    return found


def account(ctx: BrokerageContext, ref: str) -> Account:
    """An account by id or name."""
    state = ctx.state
    found = state.find("accounts", ref) or next((a for a in state.accounts if a.name == ref), None)
    if found is None:
        raise SeedError(f"no account {ref!r}")
    return found


def price_path(rng: Any, start_cents: int, days: int = HISTORY_DAYS) -> list[int]:
    """A seeded daily random walk (about 1.6% a day) ending at today's close."""
    path = [start_cents]
    for _ in range(days - 1):
        step = rng.gauss(0.0004, 0.016)
        path.append(max(100, int(round(path[-1] * (1 + step)))))
    return path


def add_instrument(
    ctx: BrokerageContext,
    *,
    symbol: str,
    name: str,
    kind: str,
    sector: str,
    start_cents: int,
    liquidity: int = 5000,
    position: int | None = None,
) -> Instrument:
    path = price_path(ctx.rng, start_cents)
    made = Instrument(
        id=ctx.new_id("ins"),
        symbol=symbol,
        name=name,
        kind=kind,
        sector=sector,
        exchange=EXCHANGES[len(symbol) % 2],
        price_cents=path[-1],
        prev_close_cents=path[-2],
        history_cents=path,
        liquidity=liquidity,
    )
    items = ctx.state.instruments
    items.insert(len(items) if position is None else position, made)
    return made


def _symbol_for(name: str, taken: set[str]) -> str:
    letters = [c for c in name.upper() if c.isalpha()]
    for length in (3, 4):
        for offset in range(len(letters) - length + 1):
            candidate = letters[0] + "".join(letters[1 + offset : offset + length])
            if len(candidate) == length and candidate not in taken:
                return candidate
    raise SeedError(f"no free symbol for {name!r}")


def build_default_state(ctx: BrokerageContext) -> None:
    """The brokerage every task starts from (then the task's builders add its situation)."""
    state = ctx.state
    rng = ctx.rng
    taken: set[str] = set()
    for symbol, name in ETF_NAMES:
        taken.add(symbol)
        add_instrument(
            ctx, symbol=symbol, name=name, kind="ETF", sector="Fund", start_cents=rng.randint(5000, 45000)
        )
    combos = [(head, tail) for head in NAME_HEADS for tail in NAME_TAILS]
    rng.shuffle(combos)
    for head, (tail, sector) in combos[: INSTRUMENT_COUNT - len(ETF_NAMES)]:
        name = f"{head} {tail}"
        symbol = _symbol_for(name, taken)
        taken.add(symbol)
        add_instrument(
            ctx,
            symbol=symbol,
            name=f"{name} Inc.",
            kind="Stock",
            sector=sector,
            start_cents=rng.randint(800, 52000),
        )
    state.profile.append(Profile(id="profile", full_name=INVESTOR_NAME, email=INVESTOR_EMAIL))
    accounts = [
        Account(
            id=ctx.new_id("acct"),
            name="Individual Brokerage",
            kind="Individual",
            number=f"{rng.randint(1000, 9999)}-{rng.randint(100000, 999999)}",
            cash_cents=1_250_000,
        ),
        Account(
            id=ctx.new_id("acct"),
            name="Roth IRA",
            kind="Roth IRA",
            number=f"{rng.randint(1000, 9999)}-{rng.randint(100000, 999999)}",
            cash_cents=310_000,
        ),
        Account(
            id=ctx.new_id("acct"),
            name="Joint Savings",
            kind="Joint",
            number=f"{rng.randint(1000, 9999)}-{rng.randint(100000, 999999)}",
            cash_cents=842_500,
        ),
    ]
    state.accounts.extend(accounts)
    held = rng.sample(state.instruments[len(ETF_NAMES) :], 6)
    for index, item in enumerate(held):
        owner = accounts[index % 2]
        quantity = rng.randint(5, 60)
        state.positions.append(
            Position(
                id=ctx.new_id("pos"),
                account_id=owner.id,
                symbol=item.symbol,
                quantity=quantity,
                cost_basis_cents=quantity * item.history_cents[10],
            )
        )
    etf = state.instruments[0]
    state.positions.append(
        Position(
            id=ctx.new_id("pos"),
            account_id=accounts[1].id,
            symbol=etf.symbol,
            quantity=40,
            cost_basis_cents=40 * etf.history_cents[0],
        )
    )
    first = held[0]
    state.orders.append(
        Order(
            id=ctx.new_id("ord"),
            account_id=accounts[0].id,
            symbol=first.symbol,
            side="buy",
            order_type="market",
            quantity=5,
            status="filled",
            filled_quantity=5,
            avg_fill_price_cents=first.history_cents[-8],
            created_at=ctx.ago(days=7),
        )
    )
    watch = Watchlist(id=ctx.new_id("wl"), name="Ideas", created_at=ctx.ago(days=30))
    state.watchlists.append(watch)
    for item in rng.sample(state.instruments, 4):
        state.watch_items.append(
            WatchItem(
                id=ctx.new_id("wi"), watchlist_id=watch.id, symbol=item.symbol, added_at=ctx.ago(days=20)
            )
        )
    state.recurring.append(
        RecurringInvestment(
            id=ctx.new_id("rec"),
            account_id=accounts[1].id,
            symbol=etf.symbol,
            amount_cents=20_000,
            frequency="monthly",
            next_date=ctx.ago(days=-12)[:10],
        )
    )
    alert_on = held[1]
    state.alerts.append(
        PriceAlert(
            id=ctx.new_id("alr"),
            symbol=alert_on.symbol,
            direction="below",
            price_cents=alert_on.price_cents * 85 // 100,
            created_at=ctx.ago(days=9),
        )
    )
    year = ctx.now.year
    for acct in accounts:
        for months_back in range(1, 4):
            month = (ctx.now.month - months_back - 1) % 12 + 1
            label_year = year if month < ctx.now.month else year - 1
            state.documents.append(
                Document(
                    id=ctx.new_id("doc"),
                    account_id=acct.id,
                    kind="statement",
                    title=f"Monthly statement {label_year}-{month:02d}",
                    period=f"{label_year}-{month:02d}",
                    issued_at=ctx.ago(days=30 * months_back),
                )
            )
        state.documents.append(
            Document(
                id=ctx.new_id("doc"),
                account_id=acct.id,
                kind="tax_form",
                title=f"Form 1099 ({year - 1})" if acct.kind != "Roth IRA" else f"Form 5498 ({year - 1})",
                period=str(year - 1),
                issued_at=ctx.ago(days=200),
            )
        )
