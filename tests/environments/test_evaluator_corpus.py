"""The corpus: canonical diffs in the public format's style, scored against hand-worked expectations.

`evaluator_cases/corpus.yaml` holds worlds (initial states, targets, the state model whose helpers
are callable) and cases (a canonical diff, the edits that make the final state, the expected score
and pass). It exercises every construct the public format uses that the sandbox once refused, and
lists the constructs it still refuses with the reason.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from humantrace.environments.evaluator import NegativeCheck, PositiveCheck, compute_diff, match
from humantrace.environments.evaluator.sandbox import UnsafeExpression, compile_expr, run_expr
from humantrace.environments.evaluator.views import MappingView, StateView
from humantrace.environments.mail.models import MailState
from humantrace.environments.state import Entity, EnvState
from humantrace.environments.state_helpers import state_helper

CORPUS = yaml.safe_load((Path(__file__).parent / "evaluator_cases" / "corpus.yaml").read_text())


class Holding(Entity):
    symbol: str
    shares: int


class Trade(Entity):
    symbol: str
    side: str
    shares: int
    price: str
    placed_at: str


class BrokerState(EnvState):
    """A brokerage account, as the public brokerage site's state model has it."""

    holdings: list[Holding] = []
    trades: list[Trade] = []

    @state_helper
    def get_stock(self, symbol: str) -> int:
        """Shares held of `symbol` (0 when none)."""
        return sum(h.shares for h in self.holdings if h.symbol == symbol)

    @state_helper
    def position(self, symbol: str) -> Holding | None:
        """The holding of `symbol`, or None."""
        return next((h for h in self.holdings if h.symbol == symbol), None)


MODELS: dict[str, type[EnvState]] = {"broker": BrokerState, "mail": MailState}


def final_state(initial: dict[str, Any], edits: dict[str, Any]) -> dict[str, Any]:
    """The world's initial state with a case's `set`, `add` and `remove` edits applied."""
    state = copy.deepcopy(initial)
    for ref, fields in (edits.get("set") or {}).items():
        collection, entity_id = ref.split("/")
        entity = next(e for e in state[collection] if e["id"] == entity_id)
        entity.update(fields)
    for collection, entities in (edits.get("add") or {}).items():
        state[collection].extend(copy.deepcopy(entities))
    for ref in edits.get("remove") or []:
        collection, entity_id = ref.split("/")
        state[collection] = [e for e in state[collection] if e["id"] != entity_id]
    return state


CASES = CORPUS["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_corpus_case_scores_as_worked_out_by_hand(case: dict[str, Any]) -> None:
    world = CORPUS["worlds"][case["world"]]
    initial = world["initial"]
    final = final_state(initial, case.get("final") or {})
    verdict = match(
        compute_diff(initial, final),
        case["canonical_diff"],
        targets=world["targets"],
        initial=initial,
        final=final,
        session_start=world.get("session_start"),
        state_model=MODELS.get(world.get("model")),
    )
    expected = case["expect"]
    assert verdict.score == pytest.approx(expected["score"], abs=1e-6), verdict.summary()
    assert verdict.passed is expected["passed"], verdict.summary()
    checks: list[PositiveCheck | NegativeCheck] = [*verdict.positive_checks, *verdict.negative_checks]
    errors = [c.diagnosis for c in checks if "raised" in c.diagnosis or "filter errors" in c.diagnosis]
    assert not errors, errors  # every expression ran; a score never comes from an error


def test_the_worlds_with_a_model_are_valid_states_of_it() -> None:
    for world in CORPUS["worlds"].values():
        if world.get("model"):
            MODELS[world["model"]].model_validate(world["initial"])


CONSTRUCTS = {
    "str.lower()": ".lower()",
    "str.upper()": ".upper()",
    "str.split()": ".split(",
    "str.rsplit()": ".rsplit(",
    "str.startswith()": ".startswith(",
    "str.endswith()": ".endswith(",
    "str.strip()": ".strip()",
    "str.replace()": ".replace(",
    "str.join()": ".join(",
    "next() over a generator": "next((",
    "Decimal()": "Decimal(",
    "Decimal.quantize()": ".quantize(",
    "datetime.fromisoformat()": "datetime.fromisoformat(",
    "datetime.strptime()": "datetime.strptime(",
    "date.fromisoformat()": "date.fromisoformat(",
    "key=": "key=lambda",
    "maxsplit=": "maxsplit=",
    "reverse=": "reverse=True",
    "f-string": "f'",
    "state helper": "state.get_stock(",
    "helper on initial": "initial.get_stock(",
    "helper returning an entity": ".position(",
    "site helper": "state.unread_count(",
    "final in a filter": "for e in final.",
    "initial in a filter": "for e in initial.",
    "target in a filter": "target.newsletter_id and",
    "invariant weight": "weight: 3",
    "count beside bijection": "count: 5",
}


def test_the_corpus_is_large_enough_and_exercises_every_construct() -> None:
    assert len(CASES) >= 40
    text = (Path(__file__).parent / "evaluator_cases" / "corpus.yaml").read_text()
    missing = [name for name, needle in CONSTRUCTS.items() if needle not in text]
    assert not missing
    assert sum(1 for c in CASES if c["expect"]["passed"]) >= 15
    assert sum(1 for c in CASES if not c["expect"]["passed"]) >= 15


@pytest.mark.parametrize("entry", CORPUS["still_refused"], ids=[e["expr"] for e in CORPUS["still_refused"]])
def test_constructs_still_refused_are_refused_with_their_reason(entry: dict[str, str]) -> None:
    assert entry["reason"]
    names = {"x": "text", "a": MappingView({"id": "e1"}), "state": StateView({"emails": []})}
    with pytest.raises((UnsafeExpression, Exception)) as info:
        run_expr(compile_expr(entry["expr"]), names)
    assert entry["refused"] in str(info.value)
