"""The 19 predicate verbs, each with a case that holds and one that does not, plus templates."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from humantrace.environments.evaluator import VERBS, CanonicalDiffError, Scope, check
from humantrace.environments.evaluator.predicates import check_predicate
from humantrace.environments.evaluator.views import MappingView, StateView

TARGETS = {
    "product_id": "p-7",
    "price": 19.99,
    "email_ids": ["e-1", "e-2"],
    "buyer": {"name": "Ada", "tags": ["vip", "eu"]},
    "orders": [{"id": "o-1"}, {"id": "o-2"}],
}
STATE = {"products": [{"id": "p-7", "stock": 3}], "owner": "ada"}


def scope(slot: object = None) -> Scope:
    return Scope(
        targets=TARGETS,
        target=MappingView(TARGETS, "target"),
        initial=StateView(STATE, "initial"),
        state=StateView(STATE),
        session_start=datetime(2026, 1, 1, tzinfo=UTC),
        slot=slot,
    )


CASES = [
    # (predicate, value that satisfies it, value that does not)
    ({"any": True}, None, None),
    ({"eq": 2}, 2.005, 2.02),
    ({"eq": "12.50"}, 12.5, 12.6),
    ({"eq": "Ada"}, "Ada", "ada"),
    ({"in": ["a", "b"]}, "b", "c"),
    ({"between": [1, 5]}, 5, 5.5),
    ({"between": ["2026-01-01", "2026-12-31"]}, "2026-06-01", "2027-01-01"),
    ({"expr": "x > 3 and x % 2 == 0"}, 4, 5),
    ({"set_eq": ["a", "b"]}, ["b", "a"], ["a"]),
    ({"subset": ["a", "b", "c"]}, ["a", "c"], ["a", "d"]),
    ({"superset": ["a"]}, ["a", "z"], ["z"]),
    ({"contains": "vip"}, ["eu", "vip"], ["eu"]),
    ({"contains": "fund"}, "refund please", "REFUND"),
    ({"length": {"between": [2, 3]}}, ["x", "y"], ["x"]),
    ({"length": 0}, "", "a"),
    ({"substring": "INVOICE"}, "your invoice #4", "your receipt"),
    ({"substring_all": ["late", "refund"]}, "Refund: it came LATE", "Refund please"),
    ({"substring_any": ["late", "refund"]}, "it came late", "all good"),
    ({"regex": r"^ORD-\d{4}$"}, "ORD-1234", "ord-1234"),
    ({"matches_semantic": "Please cancel my order"}, "please cancel my order!", "ship it fast"),
    ({"matches_semantic": {"value": "cancel my order", "threshold": 0.6}}, "cancel the order", "hello"),
    (
        {"fields": {"city": "Paris", "zip": {"regex": r"^75"}}},
        {"city": "Paris", "zip": "75001"},
        {"city": "Lyon", "zip": "69001"},
    ),
    ({"not": {"eq": "draft"}}, "sent", "draft"),
    ({"all_of": [{"eq": 3}, {"expr": "x < 10"}]}, 3, 4),
    ({"any_of": [{"eq": 3}, {"eq": 4}]}, 4, 5),
    ("sent", "sent", "draft"),  # a bare scalar means eq
    (None, None, "x"),
]


@pytest.mark.parametrize(("predicate", "good", "bad"), CASES, ids=[str(c[0]) for c in CASES])
def test_each_verb_holds_for_a_matching_value_and_fails_with_a_reason_otherwise(predicate, good, bad) -> None:
    assert check(predicate, good, scope()).ok
    if predicate == {"any": True}:
        return
    outcome = check(predicate, bad, scope())
    assert not outcome.ok
    assert outcome.reason


def test_the_case_table_covers_all_nineteen_verbs() -> None:
    used = {next(iter(p)) for p, _, _ in CASES if isinstance(p, dict)}
    assert used == set(VERBS) and len(VERBS) == 19


def test_eq_treats_numeric_strings_as_numbers_but_compares_two_strings_exactly() -> None:
    assert check({"eq": 3}, "3.001", scope()).ok
    assert not check({"eq": "3"}, "3.0", scope()).ok
    assert not check({"eq": True}, 1, scope()).ok
    assert check({"eq": [1, "a"]}, [1.001, "a"], scope()).ok


def test_templates_resolve_from_targets_with_dotted_paths_and_list_indexes() -> None:
    assert check({"eq": "{target.product_id}"}, "p-7", scope()).ok
    assert check({"eq": "{target.price}"}, "19.99", scope()).ok
    assert check({"in": "{target.email_ids}"}, "e-2", scope()).ok
    assert check({"eq": "{target.buyer.name}"}, "Ada", scope()).ok
    assert check({"eq": "{target.orders.1.id}"}, "o-2", scope()).ok
    assert check({"contains": "{target.buyer.tags.0}"}, ["vip"], scope()).ok
    assert check({"substring": "for {target.buyer.name}"}, "A gift for Ada!", scope()).ok


def test_an_unknown_template_fails_the_predicate_and_names_the_missing_key() -> None:
    outcome = check({"eq": "{target.nope}"}, "x", scope())
    assert not outcome.ok and "'nope'" in outcome.reason


def test_expr_sees_v_target_state_and_session_start() -> None:
    assert check({"expr": "x == v"}, "e-1", scope(slot="e-1")).ok
    assert check({"expr": "x in target.email_ids and x != target['email_ids'][1]"}, "e-1", scope()).ok
    assert check({"expr": "any(p.id == x and p.stock > 0 for p in state.products)"}, "p-7", scope()).ok
    assert check({"expr": "dt(x) >= session_start"}, "2026-01-02T10:00:00Z", scope()).ok
    assert check({"expr": "x == '{target.product_id}'"}, "p-7", scope()).ok
    assert check({"expr": "lower(x) == state.owner"}, "ADA", scope()).ok


def test_expr_runtime_errors_are_false_with_the_error_in_the_reason() -> None:
    outcome = check({"expr": "x / 0 > 1"}, 4, scope())
    assert not outcome.ok and "ZeroDivisionError" in outcome.reason
    outcome = check({"expr": "x.real > 0"}, 4, scope())
    assert not outcome.ok and "attribute access is only allowed" in outcome.reason


def test_substring_is_case_insensitive_but_regex_and_contains_are_not() -> None:
    assert check({"substring": "REFUND"}, "refund", scope()).ok
    assert not check({"regex": "REFUND"}, "refund", scope()).ok
    assert check({"regex": "(?i)REFUND"}, "refund", scope()).ok
    assert not check({"contains": "REFUND"}, "refund", scope()).ok


def test_missing_fields_read_as_none() -> None:
    assert check({"fields": {"gift_note": None}}, {"city": "Paris"}, scope()).ok


@pytest.mark.parametrize(
    ("predicate", "message"),
    [
        ({"equals": 3}, "is not a predicate"),
        ({"eq": 1, "in": [1]}, "is not a predicate"),
        ({"all_of": []}, "non-empty list"),
        ({"regex": "("}, "invalid regular expression"),
        ({"expr": "__import__('os')"}, "unsafe expression"),
        ({"not": {"between": [1]}}, "needs [low, high]"),
        ({"matches_semantic": {"text": "x"}}, "needs {value, threshold?}"),
    ],
)
def test_malformed_predicates_are_authoring_errors_naming_where(predicate, message) -> None:
    with pytest.raises(CanonicalDiffError, match="update\\[0\\].changes.status") as info:
        check_predicate(predicate, "update[0].changes.status")
    assert message in str(info.value)
