"""Northbeam's public API against a live server (SQLite and PostgreSQL): market and limit orders,
buying power, cancels, transfers, ids that are never handed out twice, and the kit's error shape
for refused input; plus partial fills under an instrument's liquidity (service level)."""

from __future__ import annotations

import itertools
import random

import httpx
import pytest

from humantrace.environments.brokerage import service
from humantrace.environments.brokerage.models import BrokerageState
from humantrace.environments.brokerage.seed import build_default_state
from humantrace.environments.responses import Refusal
from humantrace.environments.seeding import SeedContext, session_start_for
from humantrace.environments.sitekit import SiteError

pytestmark = pytest.mark.all_sites

API = "/api/env/brokerage"


@pytest.fixture
def site(server_factory, db_url, port):
    """A live server with a session of brokerage-003 (VLTA in the Roth IRA behind an open limit sell)."""
    server = server_factory(db_url, port)
    info = server.create("brokerage-003", "clean", seed=42)
    client = server.public(info["session_id"])
    yield info, client
    client.close()


def _ids(client: httpx.Client) -> dict[str, str]:
    return {a["name"]: a["id"] for a in client.get(f"{API}/accounts").json()["accounts"]}


def _account(client: httpx.Client, account_id: str) -> dict:
    return client.get(f"{API}/accounts/{account_id}").json()


def _order(client: httpx.Client, **body: object) -> httpx.Response:
    return client.post(f"{API}/orders", json=body)


def _refused(response: httpx.Response, status: int, words: str) -> None:
    assert response.status_code == status, response.text
    body = Refusal.model_validate(response.json())
    assert isinstance(body.detail, str) and words in body.detail, body.detail


def test_orders_buying_power_and_cancel(site):
    _, client = site
    ids = _ids(client)
    individual = ids["Individual Brokerage"]
    price = client.get(f"{API}/quote/VLTA").json()["instrument"]["price_cents"]
    before = _account(client, individual)["account"]
    assert before["buying_power_cents"] == before["cash_cents"]

    bought = _order(
        client, account_id=individual, symbol="vlta", side="buy", order_type="market", quantity=10
    )
    assert bought.status_code == 201, bought.text
    order = bought.json()["order"]
    assert (order["status"], order["filled_quantity"], order["avg_fill_price_cents"]) == ("filled", 10, price)
    assert bought.json()["message"].startswith("Bought 10 VLTA")
    after = _account(client, individual)
    assert after["account"]["cash_cents"] == before["cash_cents"] - 10 * price
    assert [p["quantity"] for p in after["positions"] if p["symbol"] == "VLTA"] == [22]

    limit = price - 500  # below the market: stays open and reserves its cost
    resting = _order(
        client,
        account_id=individual,
        symbol="VLTA",
        side="buy",
        order_type="limit",
        quantity=4,
        limit_price_cents=limit,
    ).json()["order"]
    assert resting["status"] == "open" and resting["filled_quantity"] == 0
    held = _account(client, individual)["account"]
    assert held["cash_cents"] == after["account"]["cash_cents"]
    assert held["buying_power_cents"] == held["cash_cents"] - 4 * limit
    working = client.get(f"{API}/orders", params={"status": "working"}).json()["orders"]
    assert resting["id"] in {o["id"] for o in working}

    cancelled = client.post(f"{API}/orders/{resting['id']}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["order"]["status"] == "cancelled"
    assert _account(client, individual)["account"]["buying_power_cents"] == held["cash_cents"]
    _refused(client.post(f"{API}/orders/{resting['id']}/cancel"), 409, "already cancelled")
    _refused(client.post(f"{API}/orders/ord-9999/cancel"), 404, "does not exist")

    # Refusals change nothing.
    _refused(
        _order(
            client, account_id=individual, symbol="VLTA", side="buy", order_type="market", quantity=900_000
        ),
        422,
        "Not enough buying power",
    )
    _refused(
        _order(
            client, account_id=ids["Roth IRA"], symbol="VLTA", side="sell", order_type="market", quantity=1
        ),
        422,
        "at most 0 shares",  # the open limit sell holds all 30
    )
    _refused(
        _order(client, account_id=individual, symbol="VLTA", side="buy", order_type="limit", quantity=1),
        422,
        "needs a limit price",
    )
    _refused(
        _order(client, account_id=individual, symbol="NOPEX", side="buy", order_type="market", quantity=1),
        404,
        "NOPEX",
    )
    malformed = _order(
        client, account_id=individual, symbol="VLTA", side="hold", order_type="market", quantity=0
    )
    assert malformed.status_code == 422
    assert isinstance(Refusal.model_validate(malformed.json()).detail, list)
    assert _account(client, individual)["account"]["cash_cents"] == held["cash_cents"]


def test_transfers_move_cash_once_and_refuse_bad_amounts(site):
    _, client = site
    ids = _ids(client)
    joint, roth = ids["Joint Savings"], ids["Roth IRA"]
    cash = {i: _account(client, i)["account"]["cash_cents"] for i in (joint, roth)}
    made = client.post(
        f"{API}/transfers",
        json={"from_account_id": joint, "to_account_id": roth, "amount_cents": 12_345, "memo": "IRA"},
    )
    assert made.status_code == 201, made.text
    assert made.json()["transfers"][0]["amount_cents"] == 12_345
    assert _account(client, joint)["account"]["cash_cents"] == cash[joint] - 12_345
    assert _account(client, roth)["account"]["cash_cents"] == cash[roth] + 12_345
    listed = client.get(f"{API}/transfers").json()["transfers"]
    assert listed[0]["memo"] == "IRA"

    _refused(
        client.post(
            f"{API}/transfers", json={"from_account_id": joint, "to_account_id": joint, "amount_cents": 100}
        ),
        422,
        "two different accounts",
    )
    _refused(
        client.post(
            f"{API}/transfers", json={"from_account_id": joint, "to_account_id": roth, "amount_cents": 10**10}
        ),
        422,
        "available to transfer",
    )
    _refused(
        client.post(
            f"{API}/transfers",
            json={"from_account_id": "acct-9999", "to_account_id": roth, "amount_cents": 100},
        ),
        404,
        "does not exist",
    )
    zero = client.post(
        f"{API}/transfers", json={"from_account_id": joint, "to_account_id": roth, "amount_cents": 0}
    )
    assert zero.status_code == 422 and isinstance(Refusal.model_validate(zero.json()).detail, list)
    assert _account(client, joint)["account"]["cash_cents"] == cash[joint] - 12_345
    assert len(client.get(f"{API}/transfers").json()["transfers"]) == 1


def test_ids_freed_by_a_sale_or_a_delete_are_not_handed_out_again(site):
    _, client = site
    individual = _ids(client)["Individual Brokerage"]
    old = next(p for p in _account(client, individual)["positions"] if p["symbol"] == "VLTA")
    sold = _order(
        client,
        account_id=individual,
        symbol="VLTA",
        side="sell",
        order_type="market",
        quantity=old["quantity"],
    )
    assert sold.json()["order"]["status"] == "filled"
    assert all(p["symbol"] != "VLTA" for p in _account(client, individual)["positions"])
    _order(client, account_id=individual, symbol="VLTA", side="buy", order_type="market", quantity=1)
    new = next(p for p in _account(client, individual)["positions"] if p["symbol"] == "VLTA")
    assert new["id"] != old["id"]

    alerts = client.get(f"{API}/plans").json()["alerts"]
    for alert in alerts:
        assert client.delete(f"{API}/alerts/{alert['id']}").status_code == 200
    made = client.post(f"{API}/alerts", json={"symbol": "VLTA", "direction": "above", "price_cents": 5000})
    assert made.status_code == 201
    assert made.json()["alerts"][0]["id"] not in {a["id"] for a in alerts}


def test_a_limit_order_fills_at_most_the_liquidity_and_the_rest_stays_open():
    ctx = SeedContext(
        state=BrokerageState(), rng=random.Random(42), now=session_start_for(42), env_id="brokerage"
    )
    build_default_state(ctx)
    state = ctx.state
    item = state.instruments[0]
    item.liquidity = 7
    account = state.accounts[0]
    counter = itertools.count(1)

    def new_id(prefix: str) -> str:
        return f"{prefix}-test-{next(counter)}"

    cash = account.cash_cents
    order = service.place_order(
        state,
        account_id=account.id,
        symbol=item.symbol,
        side="buy",
        order_type="limit",
        quantity=10,
        limit_price_cents=item.price_cents,
        now="2026-01-01T00:00:00Z",
        new_id=new_id,
    )
    assert (order.status, order.filled_quantity) == ("partially_filled", 7)
    assert account.cash_cents == cash - 7 * item.price_cents
    assert service.buying_power(state, account.id) == account.cash_cents - 3 * item.price_cents
    service.try_fill(state, order, new_id)
    assert (order.status, order.filled_quantity) == ("filled", 10)
    assert state.shares(account.id, item.symbol) == 10
    with pytest.raises(SiteError) as refused:
        service.cancel_order(state, order.id, "2026-01-01T00:00:00Z")
    assert refused.value.status_code == 409
