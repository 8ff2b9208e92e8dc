"""match(): positive entries, bijection, invariants, severities, sweep, benign reads, near misses."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from humantrace.environments.evaluator import Verdict, compute_diff, match

CASES = Path(__file__).parent / "evaluator_cases"
INVOICES = ["e-101", "e-102", "e-103", "e-104", "e-105"]


def inbox() -> dict[str, list[dict[str, Any]]]:
    """Five unread invoices, two already-read distractors, one unread newsletter."""
    emails = [{"id": i, "subject": f"Invoice {i}", "is_read": False, "starred": False} for i in INVOICES]
    emails += [
        {"id": "e-201", "subject": "Lunch?", "is_read": True, "starred": False},
        {"id": "e-202", "subject": "Re: trip", "is_read": True, "starred": False},
        {"id": "e-301", "subject": "Newsletter", "is_read": False, "starred": False},
    ]
    return {"emails": emails, "labels": [{"id": "l-1", "name": "Work"}]}


def act(state: dict[str, Any], **changes: dict[str, Any]) -> dict[str, Any]:
    """A copy of `state` with per-email field changes, e.g. act(s, **{"e-101": {"is_read": True}})."""
    final = json.loads(json.dumps(state))
    for email in final["emails"]:
        email.update(changes.get(email["id"], {}))
    return final


def score(canonical: dict[str, Any], initial: dict[str, Any], final: dict[str, Any], **kw: Any) -> Verdict:
    kw.setdefault("targets", {"invoice_ids": INVOICES})
    return match(compute_diff(initial, final), canonical, initial=initial, final=final, **kw)


def invoices_task() -> dict[str, Any]:
    return yaml.safe_load((CASES / "mark_invoices_read.yaml").read_text())["canonical_diff"]


READ = {"is_read": True}


# --- BreakingWeb Appendix B.1.1 ---------------------------------------------------------------


def test_b11_four_of_five_targets_is_partial_credit_and_fails() -> None:
    initial = inbox()
    verdict = score(invoices_task(), initial, act(initial, **{i: READ for i in INVOICES[:4]}))
    (check,) = verdict.positive_checks
    assert (check.matched, check.slots, check.credit) == (4, 5, 0.8)
    assert verdict.raw_score == 0.8 and verdict.score == 0.8
    assert verdict.passed is False
    assert check.unmatched_slots == ["e-105"]
    assert "matched 4 of 5 slots; unmatched slots: ['e-105']" in check.diagnosis
    assert all(n.passed for n in verdict.negative_checks)


def test_b11_all_five_plus_a_toggled_distractor_breaks_the_invariant_and_fails() -> None:
    initial = inbox()
    final = act(initial, **{i: READ for i in INVOICES}, **{"e-201": {"is_read": False}})
    verdict = score(invoices_task(), initial, final)
    (check,) = verdict.positive_checks
    assert check.credit == 1.0 and check.matched == 5 and "emails/e-201" not in check.used
    (invariant,) = verdict.negative_checks
    assert invariant.kind == "invariant" and not invariant.passed
    assert (invariant.severity, invariant.penalty, invariant.entries) == ("medium", 0.15, ["emails/e-201"])
    assert "update emails/e-201 (is_read: True -> False)" in invariant.diagnosis
    assert verdict.raw_score == 1.0 and verdict.score == 0.85 and verdict.passed is False


def test_b11_all_five_in_any_order_passes() -> None:
    initial = inbox()
    results = []
    for seed in range(5):
        order = INVOICES[:]
        random.Random(seed).shuffle(order)
        final = act(initial, **{i: READ for i in order})
        random.Random(seed).shuffle(final["emails"])  # list order in the final state is irrelevant too
        diff = compute_diff(initial, final)
        random.Random(seed).shuffle(diff)  # and so is the order diff entries are handed over in
        verdict = match(diff, invoices_task(), targets={"invoice_ids": order}, initial=initial, final=final)
        results.append((verdict.score, verdict.passed))
    assert results == [(1.0, True)] * 5


# --- positive entries -------------------------------------------------------------------------


def test_singleton_takes_the_first_satisfying_candidate_and_earns_full_weight() -> None:
    initial: dict[str, Any] = {"orders": []}
    final = {
        "orders": [{"id": "o-1", "product_id": "p-9", "qty": 1}, {"id": "o-2", "product_id": "p-7", "qty": 2}]
    }
    canonical = {
        "create": [{"entity": "Order", "properties": {"product_id": "{target.product_id}", "qty": 2}}]
    }
    verdict = score(canonical, initial, final, targets={"product_id": "p-7"})
    (check,) = verdict.positive_checks
    assert check.passed and check.used == ["orders/o-2"]
    # o-1 was not used: it is a collateral create in a collection the task names (medium).
    (sweep,) = verdict.negative_checks
    assert sweep.name == "Unaccounted create in orders (id=o-1)" and sweep.penalty == 0.15
    assert verdict.score == 0.85 and not verdict.passed


def test_a_failed_singleton_makes_every_candidate_a_near_miss_charged_only_once() -> None:
    initial: dict[str, Any] = {"orders": []}
    final = {"orders": [{"id": "o-1", "product_id": "p-7", "qty": 3}]}
    canonical = {
        "create": [
            {"entity": "orders", "desc": "order two units", "properties": {"product_id": "p-7", "qty": 2}}
        ]
    }
    verdict = score(canonical, initial, final)
    (check,) = verdict.positive_checks
    assert not check.passed and check.near_misses == ["orders/o-1"]
    assert "closest orders/o-1: properties.qty: eq 2: got 3" in check.diagnosis
    assert verdict.negative_checks == []  # the near miss is not charged again by the sweep
    assert verdict.score == 0.0


def test_update_where_reads_the_before_state_and_changes_the_after_state() -> None:
    initial = {"orders": [{"id": "o-1", "status": "open"}, {"id": "o-2", "status": "shipped"}]}
    final = {"orders": [{"id": "o-1", "status": "cancelled"}, {"id": "o-2", "status": "cancelled"}]}
    canonical = {
        "update": [{"entity": "Order", "where": {"status": "open"}, "changes": {"status": "cancelled"}}]
    }
    verdict = score(canonical, initial, final)
    assert verdict.positive_checks[0].used == ["orders/o-1"]
    assert [n.name for n in verdict.negative_checks] == ["Unaccounted update in orders (id=o-2)"]


def test_delete_where_reads_the_last_fields_and_id() -> None:
    initial = {"addresses": [{"id": "a-1", "city": "Paris"}, {"id": "a-2", "city": "Lyon"}]}
    final = {"addresses": [{"id": "a-1", "city": "Paris"}]}
    canonical = {"delete": [{"entity": "Address", "where": {"id": "a-2", "city": {"substring": "ly"}}}]}
    verdict = score(canonical, initial, final)
    assert verdict.passed and verdict.positive_checks[0].used == ["addresses/a-2"]


def test_entity_class_names_resolve_to_snake_case_plural_collections() -> None:
    initial: dict[str, list[Any]] = {"order_items": [], "categories": []}
    final = {"order_items": [{"id": 1}], "categories": [{"id": 2}]}
    canonical = {"create": [{"entity": "OrderItem"}, {"entity": "Category"}]}
    verdict = score(canonical, initial, final)
    assert [c.collection for c in verdict.positive_checks] == ["order_items", "categories"]
    assert verdict.passed


def test_an_explicit_collection_wins_over_the_entity_name() -> None:
    initial: dict[str, list[Any]] = {"sent_messages": [], "messages": []}
    final = {"sent_messages": [{"id": "m1", "to": "bob"}], "messages": []}
    canonical = {
        "create": [{"entity": "Message", "collection": "state.sent_messages", "properties": {"to": "bob"}}]
    }
    assert score(canonical, initial, final).passed


def test_count_requires_that_many_satisfying_creates() -> None:
    initial: dict[str, list[Any]] = {"tickets": []}
    final = {"tickets": [{"id": 1, "kind": "adult"}, {"id": 2, "kind": "child"}]}
    canonical = {
        "create": [{"entity": "tickets", "count": 3, "properties": {"kind": {"in": ["adult", "child"]}}}]
    }
    verdict = score(canonical, initial, final)
    (check,) = verdict.positive_checks
    assert (check.matched, check.slots, round(check.credit, 4), check.passed) == (2, 3, 0.6667, False)
    assert "1 more create(s) needed" in check.diagnosis


def test_weights_make_the_raw_score_a_weighted_share() -> None:
    initial = {"orders": [{"id": "o-1", "status": "open"}], "carts": [{"id": "c", "total": 5}]}
    final = {"orders": [{"id": "o-1", "status": "paid"}], "carts": [{"id": "c", "total": 5}]}
    canonical = {
        "update": [
            {"entity": "orders", "weight": 2, "changes": {"status": "paid"}},
            {"entity": "carts", "weight": 1, "changes": {"total": 0}},
        ]
    }
    verdict = score(canonical, initial, final)
    assert (verdict.earned_weight, verdict.total_weight) == (2.0, 3.0)
    assert verdict.score == pytest.approx(2 / 3, abs=1e-6)


def test_bijection_with_no_slots_is_not_applicable_and_passes() -> None:
    initial = {"emails": [{"id": "e-1", "is_read": False}]}
    canonical = {
        "update": [{"entity": "emails", "changes": {"is_read": True}, "bijection": {"over": "target['ids']"}}]
    }
    verdict = score(canonical, initial, initial, targets={"ids": []})
    (check,) = verdict.positive_checks
    assert (check.applicable, check.weight, check.passed) == (False, 0.0, True)
    assert verdict.score == 1.0 and verdict.passed


def test_bijection_slots_may_come_from_a_template_a_list_or_the_state() -> None:
    initial = inbox()
    final = act(initial, **{i: READ for i in INVOICES[:2]})
    changes = {"entity": "emails", "where": {"id": {"expr": "x == v"}}, "changes": {"is_read": True}}
    for over, slots in (
        ("{target.invoice_ids}", 5),
        (["e-101", "e-102"], 2),
        ("[e.id for e in initial.emails if startswith(e.subject, 'Invoice')]", 5),
    ):
        verdict = score({"update": [{**changes, "bijection": {"over": over}}]}, initial, final)
        assert verdict.positive_checks[0].slots == slots


def test_bijection_variable_can_be_renamed() -> None:
    initial: dict[str, Any] = {"stocks": []}
    final = {"stocks": [{"id": 1, "symbol": "ACME", "qty": 10}, {"id": 2, "symbol": "INIT", "qty": 5}]}
    canonical = {
        "create": [
            {
                "entity": "stocks",
                "bijection": {"over": "target['buys']", "variable": "buy"},
                "properties": {"symbol": {"expr": "x == buy.symbol"}, "qty": {"expr": "x == buy['qty']"}},
            }
        ]
    }
    verdict = score(
        canonical,
        initial,
        final,
        targets={"buys": [{"symbol": "INIT", "qty": 5}, {"symbol": "ACME", "qty": 10}]},
    )
    assert verdict.passed and verdict.positive_checks[0].matched == 2


def test_bijection_rejects_duplicates_of_one_target_as_matches_for_another() -> None:
    initial: dict[str, list[Any]] = {"orders": []}
    final = {"orders": [{"id": 1, "sku": "A"}, {"id": 2, "sku": "A"}]}
    canonical = {
        "create": [
            {
                "entity": "orders",
                "bijection": {"over": "['A', 'B']"},
                "properties": {"sku": {"expr": "x == v"}},
            }
        ]
    }
    verdict = score(canonical, initial, final)
    (check,) = verdict.positive_checks
    assert (check.matched, check.unmatched_slots, check.surplus) == (1, ["B"], ["orders/2"])
    # The duplicate had an edge, so it is surplus and stays visible to the sweep (not a near miss).
    assert [n.name for n in verdict.negative_checks] == ["Unaccounted create in orders (id=2)"]


def test_unsaturated_bijection_turns_edgeless_candidates_into_near_misses() -> None:
    initial = inbox()
    final = act(initial, **{"e-101": READ, "e-301": READ, "e-201": {"starred": True}})
    canonical = {
        "update": [
            {
                "entity": "emails",
                "where": {"id": {"expr": "x == v"}},
                "changes": {"is_read": True},
                "bijection": {"over": "target['invoice_ids']"},
            }
        ]
    }
    verdict = score(canonical, initial, final)
    (check,) = verdict.positive_checks
    assert check.matched == 1
    # e-301 (read) is a benign read side effect, but still a near miss here; e-201 had no edge either.
    assert check.near_misses == ["emails/e-201", "emails/e-301"]
    assert verdict.negative_checks == []


# --- negative checks --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("severity", "penalty"), [("critical", 0.30), ("high", 0.20), ("medium", 0.15), ("low", 0.10)]
)
def test_each_severity_subtracts_its_penalty(severity: str, penalty: float) -> None:
    initial = {"orders": [{"id": "o-1", "status": "open"}]}
    final = {"orders": [{"id": "o-1", "status": "paid"}]}
    canonical = {
        "update": [{"entity": "orders", "changes": {"status": "paid"}}],
        "constraints": [
            {"desc": "nothing was refunded", "expr": "len(state.orders) == 2", "severity": severity}
        ],
    }
    verdict = score(canonical, initial, final)
    (constraint,) = verdict.negative_checks
    assert (constraint.severity, constraint.penalty, constraint.passed) == (severity, penalty, False)
    assert verdict.score == pytest.approx(1 - penalty) and not verdict.passed


def test_constraint_defaults_to_medium_and_a_raising_constraint_fails_without_crashing() -> None:
    initial = {"orders": [{"id": "o-1", "status": "open"}]}
    final = {"orders": [{"id": "o-1", "status": "paid"}]}
    canonical = {
        "update": [{"entity": "orders", "changes": {"status": "paid"}}],
        "constraints": [{"expr": "state.orders[5].status == 'x'"}],
    }
    (constraint,) = score(canonical, initial, final).negative_checks
    assert constraint.severity == "medium" and not constraint.passed
    assert "raised IndexError" in constraint.diagnosis


def test_collateral_in_a_named_collection_is_unaccounted_medium_elsewhere_unexpected_high() -> None:
    initial = inbox()
    final = act(initial, **{i: READ for i in INVOICES}, **{"e-202": {"starred": True}})
    final["labels"].append({"id": "l-2", "name": "Junk"})
    canonical = {
        "update": [
            {
                "entity": "emails",
                "where": {"id": {"in": "{target.invoice_ids}"}},
                "changes": {"is_read": True},
                "bijection": {"over": "{target.invoice_ids}"},
            }
        ]
    }
    verdict = score(canonical, initial, final)
    charges = {(n.name, n.severity, n.penalty) for n in verdict.negative_checks}
    assert charges == {
        ("Unaccounted update in emails (id=e-202)", "medium", 0.15),
        ("Unexpected create in labels (id=l-2)", "high", 0.20),
    }
    assert verdict.score == pytest.approx(1 - 0.35)


def test_unfiltered_invariant_charges_once_and_the_sweep_skips_its_collection() -> None:
    initial = inbox()
    final = act(initial, **{"e-201": {"starred": True}, "e-202": {"starred": True}})
    canonical = {"invariant": [{"collection": "state.emails", "preserve": "ALL"}]}
    verdict = score(canonical, initial, final)
    (invariant,) = verdict.negative_checks
    assert invariant.entries == ["emails/e-201", "emails/e-202"] and invariant.penalty == 0.15
    assert verdict.score == 0.85


def test_sweep_skips_entries_a_filtered_invariant_matches_and_charges_the_rest() -> None:
    initial = inbox()
    final = act(initial, **{"e-201": {"starred": True}, "e-101": {"starred": True}})
    canonical = {"invariant": [{"collection": "state.emails", "filter": "a.is_read"}]}
    verdict = score(canonical, initial, final)
    assert [(n.kind, n.entries) for n in verdict.negative_checks] == [
        ("invariant", ["emails/e-201"]),
        ("collateral", ["emails/e-101"]),
    ]
    assert verdict.negative_checks[1].severity == "high"  # no positive entry names emails


def test_comprehensive_filtered_invariant_covers_its_whole_collection_for_the_sweep() -> None:
    initial = inbox()
    final = act(initial, **{"e-201": {"starred": True}, "e-101": {"starred": True}})
    canonical = {"invariant": [{"collection": "state.emails", "filter": "a.is_read", "comprehensive": True}]}
    verdict = score(canonical, initial, final)
    assert [(n.kind, n.entries) for n in verdict.negative_checks] == [("invariant", ["emails/e-201"])]


def test_constraints_only_block_scores_the_share_of_held_constraints_without_sweep_or_penalty() -> None:
    initial = inbox()
    final = act(initial, **{"e-201": {"starred": True}})
    canonical = {
        "constraints": [
            {
                "desc": "e-201 starred",
                "expr": "any(e.id == 'e-201' and e.starred for e in state.emails)",
                "severity": "high",
            },
            {
                "desc": "e-202 starred",
                "expr": "any(e.id == 'e-202' and e.starred for e in state.emails)",
                "severity": "high",
            },
        ]
    }
    verdict = score(canonical, initial, final)
    assert [n.kind for n in verdict.negative_checks] == ["constraint", "constraint"]
    assert verdict.raw_score == 0.5 and verdict.penalty == 0.0 and verdict.score == 0.5
    assert not verdict.passed


def test_no_positive_entries_and_no_constraints_means_leave_everything_alone() -> None:
    initial = inbox()
    assert score({}, initial, initial).score == 1.0
    verdict = score({}, initial, act(initial, **{"e-201": {"starred": True}}))
    assert (
        verdict.score == 0.8 and verdict.negative_checks[0].name == "Unexpected update in emails (id=e-201)"
    )


def test_benign_read_side_effects_are_skipped_by_invariants_and_the_sweep() -> None:
    initial = inbox()
    for email in initial["emails"]:
        email["last_viewed_at"] = None
    opened: dict[str, dict[str, Any]] = {
        "e-301": {"is_read": True, "last_viewed_at": "2026-01-01T10:00:00Z"},  # opened the newsletter
        "e-202": {"last_viewed_at": "2026-01-01T10:01:00Z"},  # looked at a read email
    }
    final = act(initial, **opened)
    canonical = {"invariant": [{"collection": "state.emails"}]}
    verdict = score(canonical, initial, final)
    assert verdict.passed and verdict.benign == ["emails/e-202", "emails/e-301"]


def test_unreading_or_mixing_a_read_flag_with_a_real_change_is_not_benign() -> None:
    initial = inbox()
    final = act(initial, **{"e-201": {"is_read": False}, "e-301": {"is_read": True, "starred": True}})
    verdict = score({"invariant": [{"collection": "state.emails"}]}, initial, final)
    assert verdict.benign == [] and verdict.negative_checks[0].entries == ["emails/e-201", "emails/e-301"]


def test_positive_entries_still_see_benign_updates() -> None:
    initial = inbox()
    verdict = score(invoices_task(), initial, act(initial, **{i: READ for i in INVOICES}))
    assert verdict.passed and len(verdict.benign) == 5


def test_declared_benign_fields_count_as_side_effects() -> None:
    initial = {"products": [{"id": "p-1", "views": 3}]}
    final = {"products": [{"id": "p-1", "views": 4}]}
    assert not score({}, initial, final).passed
    assert score({}, initial, final, benign_fields={"products": ["views"]}).passed


def test_invariant_filter_errors_count_as_no_match_and_are_reported() -> None:
    initial = inbox()
    final = act(initial, **{"e-201": {"starred": True}})
    verdict = score(
        {"invariant": [{"collection": "state.emails", "filter": "a.folder == 'x'"}]}, initial, final
    )
    invariant, sweep = verdict.negative_checks
    assert (
        invariant.passed
        and "filter errors" in invariant.diagnosis
        and "no field 'folder'" in invariant.diagnosis
    )
    assert sweep.kind == "collateral" and sweep.entries == ["emails/e-201"]


def test_an_expr_error_in_a_predicate_fails_the_entry_with_the_error_in_the_diagnosis() -> None:
    initial: dict[str, Any] = {"orders": []}
    final = {"orders": [{"id": "o-1", "total": "n/a"}]}
    canonical = {"create": [{"entity": "orders", "properties": {"total": {"expr": "x + 1 > 3"}}}]}
    (check,) = score(canonical, initial, final).positive_checks
    assert not check.passed and "TypeError" in check.diagnosis


def test_verdict_dumps_to_json_with_every_check() -> None:
    initial = inbox()
    final = act(initial, **{i: READ for i in INVOICES[:4]}, **{"e-201": {"is_read": False}})
    verdict = score(invoices_task(), initial, final)
    data = json.loads(verdict.model_dump_json())
    assert data["positive_checks"][0]["credit"] == 0.8
    assert data["negative_checks"][0]["kind"] == "invariant"
    assert Verdict.model_validate(data) == verdict
    assert "unmatched slots: ['e-105']" in verdict.summary()


def test_entry_predicates_see_the_whole_entity_as_a_before_and_after_the_change() -> None:
    initial = {"orders": [{"id": "o-1", "status": "open", "total": 40, "refund": 0}]}
    final = {"orders": [{"id": "o-1", "status": "refunded", "total": 40, "refund": 40}]}
    canonical = {
        "update": [
            {
                "entity": "orders",
                "where": {"status": {"expr": "x == 'open' and a.refund == 0"}},
                "changes": {"refund": {"expr": "x == a.total and a.status == 'refunded'"}},
            }
        ]
    }
    assert score(canonical, initial, final).passed


def test_invariant_collections_may_be_written_as_state_keys() -> None:
    initial = inbox()
    final = act(initial, **{"e-201": {"starred": True}})
    for collection in ("state['emails']", "state.emails", "emails"):
        verdict = score({"invariant": [{"collection": collection}]}, initial, final)
        assert [n.kind for n in verdict.negative_checks] == ["invariant"]
