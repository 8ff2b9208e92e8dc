"""State helpers: pure functions a site declares on its state model, callable from expressions."""

from __future__ import annotations

import orjson
import pytest

from humantrace.environments import catalog, registry
from humantrace.environments.evaluator import compute_diff, evaluate, match
from humantrace.environments.sessions import _built
from humantrace.environments.state import Entity, EnvState, canonical_json
from humantrace.environments.state_helpers import StateHelperError, describe_helpers, helpers_of, state_helper


class Holding(Entity):
    symbol: str
    shares: int


class BrokerState(EnvState):
    holdings: list[Holding] = []

    @state_helper
    def get_stock(self, symbol: str) -> int:
        """Shares held of `symbol` (0 when none)."""
        return sum(h.shares for h in self.holdings if h.symbol == symbol)

    @state_helper
    def position(self, symbol: str) -> Holding | None:
        """The holding of `symbol`, or None."""
        return next((h for h in self.holdings if h.symbol == symbol), None)

    @state_helper
    def sell_everything(self) -> int:
        """A badly behaved helper that changes the state it is given (must not leak)."""
        for holding in self.holdings:
            holding.shares = 0
        return 0

    def not_a_helper(self) -> int:
        return 1


INITIAL = {
    "holdings": [{"id": "h1", "symbol": "ACME", "shares": 10}, {"id": "h2", "symbol": "INIT", "shares": 5}]
}
FINAL = {
    "holdings": [{"id": "h1", "symbol": "ACME", "shares": 0}, {"id": "h2", "symbol": "INIT", "shares": 5}]
}
SELL = {
    "update": [
        {
            "entity": "holdings",
            "bijection": {"over": "target.symbols"},
            "where": {"symbol": {"expr": "x == v and initial.get_stock(v) > 0"}},
            "changes": {"shares": {"expr": "state.get_stock(v) == 0 and state.position(v).shares == 0"}},
        }
    ],
    "constraints": [{"desc": "INIT kept", "expr": "final.get_stock('INIT') == initial.get_stock('INIT')"}],
}


def score(canonical: dict, final: dict = FINAL, model: type | None = BrokerState):
    return match(
        compute_diff(INITIAL, final),
        canonical,
        targets={"symbols": ["ACME"]},
        initial=INITIAL,
        final=final,
        state_model=model,
    )


def test_declared_helpers_are_callable_on_state_initial_and_final() -> None:
    verdict = score(SELL)
    assert (verdict.score, verdict.passed) == (1.0, True), verdict.summary()
    sold_too_few = {"holdings": [{"id": "h1", "symbol": "ACME", "shares": 4}, INITIAL["holdings"][1]]}
    assert not score(SELL, sold_too_few).passed


def test_only_declared_helpers_run_and_a_site_without_a_model_has_none() -> None:
    other = {"constraints": [{"expr": "state.not_a_helper() == 1"}]}
    with pytest.raises(Exception, match=r"calling the method \.not_a_helper\(\) is not allowed"):
        score(other)
    undeclared = score({"constraints": [{"expr": "state.index('x') == 0"}]})  # a str method name
    assert "state has no method .index()" in undeclared.negative_checks[0].diagnosis
    assert "get_stock" in undeclared.negative_checks[0].diagnosis  # it lists this site's helpers
    no_model = score(SELL, model=None)
    assert not no_model.passed
    assert "state helpers of this site: []" in no_model.positive_checks[0].diagnosis


def test_a_helper_cannot_change_the_state_being_scored() -> None:
    final = {"holdings": [dict(h) for h in FINAL["holdings"]]}
    before = canonical_json(final)
    verdict = score(
        {
            "constraints": [
                {"expr": "state.sell_everything() == 0 and state.get_stock('INIT') == 0"},
                {"expr": "state.holdings[1].shares == 5"},
            ]
        },
        final,
    )
    assert canonical_json(final) == before
    assert [c.passed for c in verdict.negative_checks] == [True, True]


def test_helpers_must_be_documented_and_well_named() -> None:
    with pytest.raises(StateHelperError, match="needs a docstring"):
        state_helper(lambda self: 1)  # noqa: PT011 - the lambda has no docstring

    def keys(self):  # noqa: ANN001, ANN202
        """Shadows the view method."""

    with pytest.raises(StateHelperError, match="must not start with '_' or be one of"):
        state_helper(keys)


@pytest.mark.all_sites
@pytest.mark.parametrize(
    ("task_id", "calls"),
    [
        (
            "shop-001",
            [
                "stock_of(state.products[0].id)",
                "cart_quantity('nope')",
                "order_lines('nope')",
                "product_by_name(state.products[0].name).id == state.products[0].id",
                "default_address()",
            ],
        ),
        (
            "mail-008",
            [
                "account_settings().display_name",
                "in_folder('inbox')",
                "unread_count()",
                "unread_count('spam')",
                "thread(state.emails[0].thread_id)",
                "contact_by_email(state.contacts[0].email.upper()).id",
            ],
        ),
        (
            "booking-007",
            [
                "booking_ids()",
                "confirmed_bookings()",
                "nights(state.bookings[0].id)",
                "hotel_by_name(state.hotels[0].name).id == state.hotels[0].id",
                "saved_hotel_ids('none')",
            ],
        ),
        (
            "portal-001",
            [
                "active_appointments()",
                "balance()",
                "primary_insurance()",
            ],
        ),
    ],
)
def test_site_helpers_are_documented_pure_and_answer_on_a_seeded_state(
    task_id: str, calls: list[str]
) -> None:
    task = catalog.get_task(task_id)
    model = registry.get(task.env_id).state_model
    documented = describe_helpers(model)
    assert documented and all(documented.values())
    called = {call.split("(")[0] for call in calls}
    assert called == set(helpers_of(model)), "every helper of the site is exercised here"
    initial = orjson.loads(_built(0, task_id, "clean", 42)[0])["initial"]
    before = canonical_json(initial)
    canonical = {"constraints": [{"desc": call, "expr": f"state.{call} is not None"} for call in calls]}
    verdict = match([], canonical, initial=initial, final=initial, state_model=model)
    assert all(c.passed for c in verdict.negative_checks), verdict.summary()
    assert canonical_json(initial) == before


@pytest.mark.all_sites
def test_tasks_that_use_helpers_evaluate_through_the_session_snapshot() -> None:
    # booking-007's invariant filter reads initial.booking_ids(): an untouched session passes the
    # invariant (no change), and a cancelled pre-existing booking is caught by it.
    task = catalog.get_task("booking-007")
    parts = orjson.loads(_built(0, "booking-007", "clean", 42)[0])
    initial = parts["initial"]
    final = orjson.loads(orjson.dumps(initial))
    final["bookings"][0]["status"] = "cancelled"
    snap = {
        "initial_state": initial,
        "state": final,
        "targets": parts["targets"],
        "session_start": None,
        "state_model": registry.get("booking").state_model,
    }
    verdict = evaluate(task.evaluator_view(), snap)
    invariants = [c for c in verdict.negative_checks if c.kind == "invariant"]
    assert invariants and not invariants[0].passed
    assert "filter errors" not in invariants[0].diagnosis
