"""The WebPageBench event-condition verifier."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from humantrace.environments.event_conditions import (
    EventConditionError,
    check_event_conditions,
    is_identity_param,
    is_quantity_param,
)


def ev(name: str, **params: object) -> dict[str, object]:
    return {"event": name, "params": params, "t_ms": 0}


RAIL = [
    ev("select_city", direction="from", cityId="msk", cityName="Moscow"),
    ev("select_city", direction="to", cityId="spb", cityName="St. Petersburg"),
    ev("select_date", date="2026-10-04"),
    ev("select_tariff", tariff="economy"),
    ev("basket_add", product_id="t-1", quantity=1, price=2100),
    ev("submit_payment", result="success"),
]


def one(condition: dict, events: list) -> tuple[bool, str]:
    result = check_event_conditions([condition], events)
    return result.conditions[0].passed, result.conditions[0].diagnosis


def test_exact_params_match_and_every_condition_must_hold_for_a_score_of_one() -> None:
    conditions = [
        {"event": "select_city", "params": {"direction": "to", "cityId": "spb"}},
        {"event": "select_tariff", "params": {"tariff": "economy"}},
        {"event": "submit_payment", "params": {"result": "success"}},
    ]
    result = check_event_conditions(conditions, RAIL)
    assert (result.score, result.passed) == (1.0, True)
    assert [c.matched_event for c in result.conditions] == [1, 3, 5]


def test_a_wrong_tariff_fails_one_condition_and_scores_zero() -> None:
    conditions = [
        {"event": "select_city", "params": {"cityId": "msk"}},
        {"event": "select_tariff", "params": {"tariff": "business"}},
    ]
    result = check_event_conditions(conditions, RAIL)
    assert result.score == 0.0 and [c.passed for c in result.conditions] == [True, False]
    assert "tariff: 'economy' != 'business'" in result.conditions[1].diagnosis


def test_missing_event_and_missing_param_are_named() -> None:
    assert one({"event": "select_train"}, RAIL) == (False, "select_train: no select_train event in the log")
    passed, why = one({"event": "select_date", "params": {"time": "10:00"}}, RAIL)
    assert not passed and "time: absent" in why


def test_an_event_without_required_params_holds_for_any_event_of_that_name() -> None:
    assert one({"event": "basket_add"}, RAIL)[0]


def test_wildcards_glob_on_strings_and_numbers() -> None:
    assert one({"event": "select_city", "params": {"cityName": "St. *"}}, RAIL)[0]
    assert one({"event": "select_date", "params": {"date": "2026-10-*"}}, RAIL)[0]
    assert one({"event": "basket_add", "params": {"price": "21*"}}, RAIL)[0]
    assert one({"event": "select_city", "params": {"cityName": "*burg"}}, RAIL)[0]
    assert not one({"event": "select_city", "params": {"cityName": "st. *"}}, RAIL)[0]  # case-sensitive
    assert not one({"event": "select_date", "params": {"time": "*"}}, RAIL)[0]  # * needs the param present


@pytest.mark.parametrize(
    ("comparison", "holds"),
    [
        ({">=": 2000}, True),
        ({">": 2100}, False),
        ({"<": 3000}, True),
        ({"<=": 2099}, False),
        ({"==": 2100}, True),
        ({"!=": 2100}, False),
        ({">=": 2000, "<=": 2200}, True),
        ({">=": "2000"}, True),
    ],
)
def test_comparisons_on_numeric_params(comparison: dict, holds: bool) -> None:
    assert one({"event": "basket_add", "params": {"price": comparison}}, RAIL)[0] is holds


def test_numeric_strings_in_events_compare_as_numbers() -> None:
    events = [ev("select_guests", guestsCount="2", roomsCount="1")]
    assert one({"event": "select_guests", "params": {"guestsCount": 2, "roomsCount": {">=": 1}}}, events)[0]


def test_quantities_are_compared_with_the_last_event_for_the_item() -> None:
    events = [
        ev("basket_add", product_id="p-1", quantity=2),
        ev("basket_add", product_id="p-2", quantity=5),
        ev("basket_add", product_id="p-1", quantity=3),
    ]
    passed, why = one({"event": "basket_add", "params": {"product_id": "p-1", "quantity": 2}}, events)
    assert not passed
    assert "closest latest #2" in why and "quantity: 3 != 2" in why and "earlier event #0 matched" in why
    # The other item's last event is its own: p-2 still has 5.
    assert one({"event": "basket_add", "params": {"product_id": "p-2", "quantity": 5}}, events)[0]
    assert one({"event": "basket_add", "params": {"product_id": "p-1", "quantity": 3}}, events)[0]


def test_match_any_accepts_an_intermediate_quantity() -> None:
    events = [ev("basket_add", product_id="p-1", quantity=2), ev("basket_add", product_id="p-1", quantity=3)]
    condition = {"event": "basket_add", "params": {"product_id": "p-1", "quantity": 2}, "match": "any"}
    result = check_event_conditions([condition], events)
    assert result.passed and result.conditions[0].match == "any" and result.conditions[0].matched_event == 0


def test_events_without_identity_params_have_one_last_state() -> None:
    events = [ev("select_guests", guestsCount=2), ev("select_guests", guestsCount=3)]
    assert not one({"event": "select_guests", "params": {"guestsCount": 2}}, events)[0]
    assert one({"event": "select_guests", "params": {"guestsCount": 3}}, events)[0]


def test_conditions_without_quantities_hold_on_any_event_even_with_match_last() -> None:
    events = [ev("select_tariff", tariff="economy"), ev("select_tariff", tariff="business")]
    result = check_event_conditions(
        [{"event": "select_tariff", "params": {"tariff": "economy"}, "match": "last"}], events
    )
    assert result.passed and result.conditions[0].match == "any"


def test_any_of_holds_when_one_member_holds() -> None:
    group = {
        "any_of": [
            {"event": "submit_payment", "params": {"result": "failed"}},
            {"event": "select_tariff", "params": {"tariff": "econ*"}},
        ]
    }
    result = check_event_conditions([group], RAIL)
    (top,) = result.conditions
    assert top.passed and [m.passed for m in top.members] == [False, True] and top.matched_event == 3
    none = check_event_conditions([{"any_of": [{"event": "x"}, {"event": "y"}]}], RAIL)
    assert none.score == 0.0 and "no member held" in none.conditions[0].diagnosis


def test_nested_params_and_dotted_names() -> None:
    events = [ev("select_city", city={"id": "zrh", "country": "Switzerland"})]
    assert one({"event": "select_city", "params": {"city": {"id": "zrh"}}}, events)[0]
    assert one({"event": "select_city", "params": {"city.country": "Swi*"}}, events)[0]


def test_events_may_be_objects_or_flat_mappings() -> None:
    events = [
        SimpleNamespace(event="basket_add", params={"product_id": "p", "qty": 1}),
        {"name": "submit_payment", "result": "success"},
    ]
    result = check_event_conditions(
        [
            {"event": "basket_add", "params": {"qty": 1}},
            {"event": "submit_payment", "params": {"result": "success"}},
        ],
        events,
    )
    assert result.passed


def test_no_conditions_is_vacuously_a_match() -> None:
    assert check_event_conditions([], []).score == 1.0


@pytest.mark.parametrize(
    ("condition", "message"),
    [
        ({"params": {}}, "'event'"),
        ({"event": "a", "when": 1}, "unknown key(s) ['when']"),
        ({"event": "a", "match": "first"}, "must be last or any"),
        ({"any_of": []}, "non-empty list"),
        ({"any_of": [{"event": "a"}], "event": "b"}, "any_of must be the only key"),
    ],
)
def test_malformed_conditions_are_authoring_errors(condition: dict, message: str) -> None:
    with pytest.raises(EventConditionError, match="event_conditions\\[0\\]") as info:
        check_event_conditions([condition], [])
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("name", "quantity"),
    [
        ("quantity", True),
        ("qty", True),
        ("count", True),
        ("amount", True),
        ("number", True),
        ("guestsCount", True),
        ("rooms_count", True),
        ("item_quantity", True),
        ("account", False),
        ("phone_number", False),
        ("product_id", False),
        ("discount", False),
    ],
)
def test_quantity_like_param_names(name: str, quantity: bool) -> None:
    assert is_quantity_param(name) is quantity


def test_identity_params_are_ids_skus_and_slugs() -> None:
    assert all(map(is_identity_param, ["id", "product_id", "cityId", "sku", "item_slug"]))
    assert not any(map(is_identity_param, ["paid", "identity", "name"]))


def test_evaluate_resolves_target_templates_in_event_conditions():
    """A task's event conditions name targets ('{target.note_id}') exactly as its canonical diff does."""
    from types import SimpleNamespace

    from humantrace.environments.evaluator import evaluate

    task = SimpleNamespace(
        canonical_diff={
            "update": [
                {
                    "entity": "notes",
                    "where": {"id": {"eq": "{target.note_id}"}},
                    "changes": {"pinned": {"eq": True}},
                }
            ]
        },
        event_conditions=[{"event": "note_pin", "params": {"note_id": "{target.note_id}", "pinned": True}}],
    )
    initial = {"notes": [{"id": "n-1", "pinned": False}, {"id": "n-2", "pinned": False}]}
    session = SimpleNamespace(
        initial_state=initial,
        state={"notes": [{"id": "n-1", "pinned": True}, {"id": "n-2", "pinned": False}]},
        targets={"note_id": "n-1"},
        session_start=None,
        events=[{"event": "note_pin", "params": {"note_id": "n-1", "pinned": True}}],
    )
    assert evaluate(task, session).event_match_score == 1
    session.events = [{"event": "note_pin", "params": {"note_id": "n-2", "pinned": True}}]
    assert evaluate(task, session).event_match_score == 0
