"""named_invariants, oneof alternatives, canonical-diff validation and evaluate(task, session)."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import BaseModel

from humantrace.environments.evaluator import (
    CanonicalDiffError,
    compute_diff,
    evaluate,
    match,
    parse_canonical_diff,
)


def score(canonical: dict[str, Any] | BaseModel, initial: dict[str, Any], final: dict[str, Any], **kw: Any):
    return match(compute_diff(initial, final), canonical, initial=initial, final=final, **kw)


MESSAGES: dict[str, list[Any]] = {"messages": [], "reservations": [{"id": "r-1", "status": "booked"}]}


def test_named_invariant_renames_an_invariant_and_sets_its_severity() -> None:
    final = {"messages": [], "reservations": [{"id": "r-1", "status": "cancelled"}]}
    canonical = {
        "invariant": [{"collection": "state.reservations"}],
        "named_invariants": [
            {"name": "reservation untouched", "ref": "invariant[0]", "severity": "critical"}
        ],
    }
    (check,) = score(canonical, MESSAGES, final).negative_checks
    assert (check.name, check.severity, check.penalty) == ("reservation untouched", "critical", 0.30)
    assert "invariant[0] 'reservation untouched'" in check.diagnosis


def test_named_update_and_delete_refs_only_rename_the_positive_check() -> None:
    final = {"messages": [], "reservations": [{"id": "r-1", "status": "cancelled"}]}
    canonical = {
        "update": [{"entity": "reservations", "changes": {"status": "cancelled"}}],
        "delete": [{"entity": "messages"}],
        "named_invariants": [
            {"name": "cancel the booking", "ref": "update[0]", "severity": "critical"},
            {"name": "drop the draft", "ref": "delete[0]"},
        ],
    }
    verdict = score(canonical, MESSAGES, final)
    assert [c.name for c in verdict.positive_checks] == ["cancel the booking", "drop the draft"]
    assert verdict.negative_checks == []  # no extra check, whatever the severity says


def test_create_named_invariant_fails_when_more_candidates_qualify_than_slots() -> None:
    final = {
        "messages": [
            {"id": "m-1", "to": "host", "body": "Airport pickup?"},
            {"id": "m-2", "to": "host", "body": "airport pickup please"},
        ],
        "reservations": MESSAGES["reservations"],
    }
    canonical = {
        "create": [
            {
                "entity": "Message",
                "desc": "ask about airport pickup",
                "properties": {"to": "host", "body": {"substring": "airport"}},
            }
        ],
        "named_invariants": [{"name": "only one pickup message", "ref": "create[0]", "severity": "high"}],
    }
    verdict = score(canonical, MESSAGES, final)
    (positive,) = verdict.positive_checks
    assert positive.passed and positive.eligible == 2 and positive.name == "only one pickup message"
    surplus = next(n for n in verdict.negative_checks if n.kind == "surplus")
    assert (surplus.passed, surplus.severity, surplus.penalty, surplus.entries) == (
        False,
        "high",
        0.20,
        ["messages/m-2"],
    )
    assert "2 eligible candidate(s) for 1 slot(s)" in surplus.diagnosis
    # The surplus create is also visible to the sweep (step 8 does not exempt it).
    assert [n.name for n in verdict.negative_checks if n.kind == "collateral"] == [
        "Unaccounted create in messages (id=m-2)"
    ]
    assert verdict.score == pytest.approx(1 - 0.20 - 0.15)


def test_create_named_invariant_on_a_bijection_counts_eligible_candidates_against_slots() -> None:
    initial: dict[str, list[Any]] = {"orders": []}
    final = {"orders": [{"id": i, "sku": s} for i, s in enumerate(["A", "B", "B"])]}
    canonical = {
        "create": [
            {
                "entity": "orders",
                "bijection": {"over": "target['skus']"},
                "properties": {"sku": {"expr": "x == v"}},
            }
        ],
        "invariant": [{"collection": "state.orders"}],
        "named_invariants": [{"name": "one order per sku", "ref": "create[0]", "severity": "low"}],
    }
    verdict = score(canonical, initial, final, targets={"skus": ["A", "B"]})
    checks = {n.kind: n for n in verdict.negative_checks}
    assert verdict.positive_checks[0].credit == 1.0
    assert checks["surplus"].penalty == 0.10 and checks["surplus"].entries == ["orders/2"]
    assert checks["invariant"].entries == ["orders/2"]
    exact = score(canonical, initial, {"orders": final["orders"][:2]}, targets={"skus": ["A", "B"]})
    assert exact.passed and exact.score == 1.0


def test_oneof_picks_the_best_alternative_and_reports_each() -> None:
    initial = {"carts": [{"id": "c", "items": ["p-1"]}], "wishlist": []}
    final = {"carts": [{"id": "c", "items": []}], "wishlist": [{"id": "w-1", "product_id": "p-1"}]}
    canonical = {
        "update": [{"entity": "carts", "desc": "empty the cart", "changes": {"items": {"length": 0}}}],
        "oneof": [
            {"delete": [{"entity": "wishlist"}]},
            {
                "create": [
                    {"entity": "wishlist", "desc": "save it for later", "properties": {"product_id": "p-1"}}
                ]
            },
        ],
    }
    verdict = score(canonical, initial, final)
    assert verdict.alternative == 1 and verdict.passed and verdict.score == 1.0
    assert [c.name for c in verdict.positive_checks] == ["save it for later", "empty the cart"]
    assert [(a.index, a.passed) for a in verdict.alternatives] == [(0, False), (1, True)]


def test_oneof_prefers_alternatives_whose_critical_constraints_hold() -> None:
    initial = {"orders": [{"id": "o-1", "status": "open"}]}
    final = {"orders": [{"id": "o-1", "status": "paid"}]}
    canonical = {
        "oneof": [
            {
                "update": [{"entity": "orders", "changes": {"status": "paid"}}],
                "constraints": [{"expr": "False", "severity": "critical", "desc": "impossible"}],
            },
            {"update": [{"entity": "orders", "weight": 1, "changes": {"status": "shipped"}}]},
        ]
    }
    verdict = score(canonical, initial, final)
    # Alternative 0 scores 0.70 and alternative 1 scores 0, but only 1 keeps its critical constraints.
    assert [a.score for a in verdict.alternatives] == [0.7, 0.0]
    assert verdict.alternative == 1


def test_oneof_named_invariants_index_into_their_own_alternative() -> None:
    blocks = parse_canonical_diff(
        {
            "invariant": [{"collection": "state.a"}],
            "oneof": [
                {
                    "invariant": [{"collection": "state.b"}],
                    "named_invariants": [{"name": "b kept", "ref": "invariant[0]", "severity": "low"}],
                }
            ],
        }
    )
    (block,) = blocks
    assert [(i.collection, i.name, i.severity) for i in block.invariants] == [
        ("a", "invariant on state.a", "medium"),
        ("b", "b kept", "low"),
    ]


@pytest.mark.parametrize(
    ("canonical", "message"),
    [
        (
            {"update": [{"entity": "x", "chnages": {}}]},
            "canonical_diff.update[0]: unknown key(s) ['chnages']",
        ),
        ({"create": [{"properties": {}}]}, "canonical_diff.create[0]: 'entity'"),
        ({"named_invariants": [{"name": "n", "ref": "invariant[3]"}]}, "invariant[3] does not exist"),
        ({"named_invariants": [{"name": "n", "ref": "constraint[0]"}]}, "is not like invariant[0]"),
        ({"constraints": [{"expr": "x.__class__"}]}, "canonical_diff.constraints[0].expr: unsafe expression"),
        ({"invariant": [{"collection": "state.a", "filter": "open('f')"}]}, "builtin 'open'"),
        ({"constraints": [{"expr": "True", "severity": "severe"}]}, "severity 'severe' is not one of"),
        ({"update": [{"entity": "x", "where": {"id": {"equals": 1}}}]}, "canonical_diff.update[0].where.id"),
        (
            {"create": [{"entity": "x", "bijection": {"over": "[1]", "variable": "__v"}}]},
            "is not a plain name",
        ),
        ({"oneof": [{"oneof": []}]}, "canonical_diff.oneof[0]: unknown key(s) ['oneof']"),
    ],
)
def test_malformed_canonical_diffs_raise_errors_that_name_the_path(canonical, message) -> None:
    with pytest.raises(CanonicalDiffError) as info:
        parse_canonical_diff(canonical)
    assert message in str(info.value)


def test_a_pydantic_model_canonical_diff_is_read_through_model_dump() -> None:
    from pydantic import BaseModel

    class Entry(BaseModel):
        entity: str
        changes: dict[str, Any] = {}
        desc: str = ""
        collection: str | None = None

    class Diff(BaseModel):
        update: list[Entry] = []
        oneof: list[Any] = []

    initial = {"orders": [{"id": 1, "status": "open"}]}
    final = {"orders": [{"id": 1, "status": "paid"}]}
    verdict = score(Diff(update=[Entry(entity="orders", changes={"status": "paid"})]), initial, final)
    assert verdict.passed


def test_evaluate_diffs_the_session_matches_and_reports_events_beside_the_score() -> None:
    initial = {"orders": [], "products": [{"id": "p-7", "stock": 4, "updated_at": "t0"}]}
    final = {
        "orders": [{"id": "o-1", "product_id": "p-7", "qty": 2, "placed_at": "2026-03-01T10:05:00+00:00"}],
        "products": [{"id": "p-7", "stock": 4, "updated_at": "t1"}],
    }
    task = SimpleNamespace(
        canonical_diff={
            "create": [
                {
                    "entity": "Order",
                    "properties": {
                        "product_id": "{target.product_id}",
                        "qty": 2,
                        "placed_at": {"expr": "dt(x) >= session_start"},
                    },
                }
            ]
        },
        event_conditions=[{"event": "basket_add", "params": {"product_id": "p-7", "quantity": 2}}],
    )
    session = SimpleNamespace(
        initial_state=initial,
        state=final,
        targets={"product_id": "p-7"},
        session_start="2026-03-01T10:00:00Z",
        events=[
            {"event": "basket_add", "params": {"product_id": "p-7", "quantity": 2}},
            {"event": "basket_add", "params": {"product_id": "p-7", "quantity": 3}},
        ],
    )
    verdict = evaluate(task, session, ignore_fields={"products": ["updated_at"]})
    assert verdict.passed and verdict.score == 1.0
    assert verdict.event_match_score == 0.0  # the last basket_add says 3: reported, but score unchanged
    assert verdict.event_checks is not None
    assert "earlier event #0 matched" in verdict.event_checks[0].diagnosis
    assert not evaluate(task, session).passed  # without ignore_fields the updated_at touch is collateral


def test_evaluate_accepts_session_start_as_datetime_and_tasks_without_event_conditions() -> None:
    initial: dict[str, list[Any]] = {"notes": []}
    final = {"notes": [{"id": 1, "created": "2026-03-01T09:00:00"}]}
    task = SimpleNamespace(
        canonical_diff={
            "create": [{"entity": "notes", "properties": {"created": {"expr": "dt(x) < session_start"}}}]
        }
    )
    session = SimpleNamespace(
        initial_state=initial, state=final, targets={}, session_start=datetime(2026, 3, 1, 10, tzinfo=UTC)
    )
    verdict = evaluate(task, session)
    assert verdict.passed and verdict.event_match_score is None and verdict.event_checks is None
