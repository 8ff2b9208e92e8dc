"""compute_diff: Create/Update/Delete records between two states."""

from __future__ import annotations

from typing import Any

import pytest

from humantrace.environments.evaluator import Create, Delete, StateShapeError, Update, compute_diff


def test_diff_reports_creates_updates_and_deletes_sorted_by_collection_and_id() -> None:
    initial = {
        "orders": [{"id": "o-2", "status": "open"}, {"id": "o-1", "status": "open"}],
        "carts": [{"id": 10, "total": 5.0}, {"id": 9, "total": 1.0}],
    }
    final = {
        "orders": [{"id": "o-1", "status": "shipped"}, {"id": "o-3", "status": "open"}],
        "carts": [{"id": 10, "total": 5.0}, {"id": 9, "total": 2.0}],
    }
    diff = compute_diff(initial, final)
    assert diff == [
        Update("carts", 9, {"total": (1.0, 2.0)}),
        Update("orders", "o-1", {"status": ("open", "shipped")}),
        Delete("orders", "o-2", {"id": "o-2", "status": "open"}),
        Create("orders", "o-3", {"id": "o-3", "status": "open"}),
    ]


def test_numeric_ids_sort_numerically_not_as_text() -> None:
    initial: dict[str, Any] = {"items": []}
    final = {"items": [{"id": 10}, {"id": 9}, {"id": 100}]}
    assert [e.entity_id for e in compute_diff(initial, final)] == [9, 10, 100]


def test_ignored_fields_do_not_make_an_update_but_stay_in_created_fields() -> None:
    initial = {"emails": [{"id": "e1", "starred": False, "updated_at": "t0"}]}
    final = {
        "emails": [
            {"id": "e1", "starred": False, "updated_at": "t1"},
            {"id": "e2", "starred": True, "updated_at": "t1"},
        ]
    }
    diff = compute_diff(initial, final, ignore_fields={"emails": ["updated_at"]})
    assert diff == [Create("emails", "e2", {"id": "e2", "starred": True, "updated_at": "t1"})]
    everywhere = compute_diff(initial, final, ignore_fields={"*": ["updated_at"]})
    assert [e.kind for e in everywhere] == ["create"]


def test_added_and_removed_fields_are_field_changes() -> None:
    initial = {"users": [{"id": 1, "nick": "a"}]}
    final = {"users": [{"id": 1, "bio": "hi"}]}
    (update,) = compute_diff(initial, final)
    assert isinstance(update, Update)
    assert update.field_changes == {"nick": ("a", None), "bio": (None, "hi")}


def test_singleton_mapping_is_diffed_as_one_entity_named_after_it() -> None:
    initial = {"settings": {"theme": "light", "lang": "en"}, "owner": "alex"}
    final = {"settings": {"theme": "dark", "lang": "en"}, "owner": "sam"}
    assert compute_diff(initial, final) == [Update("settings", "settings", {"theme": ("light", "dark")})]


def test_a_whole_new_collection_is_creates() -> None:
    diff = compute_diff({}, {"notes": [{"id": "n1", "text": "x"}]})
    assert diff == [Create("notes", "n1", {"id": "n1", "text": "x"})]


def test_entity_without_id_or_duplicate_id_is_a_clear_error() -> None:
    with pytest.raises(StateShapeError, match=r"state.notes\[0\] has no 'id'"):
        compute_diff({"notes": [{"text": "x"}]}, {"notes": []})
    with pytest.raises(StateShapeError, match="two entities with id 'n1'"):
        compute_diff({"notes": [{"id": "n1"}, {"id": "n1"}]}, {"notes": []})


def test_records_accept_keywords_and_dump_to_json() -> None:
    record = Update(entity="emails", entity_id="e1", field_changes={"is_read": (False, True)})
    assert record == Update("emails", "e1", {"is_read": (False, True)})
    assert record.model_dump(mode="json") == {
        "kind": "update",
        "entity": "emails",
        "entity_id": "e1",
        "field_changes": {"is_read": [False, True]},
    }
    assert record.ref == "emails/e1"


def test_a_diff_dumped_to_json_scores_like_the_original() -> None:
    from humantrace.environments.evaluator import match

    initial = {"emails": [{"id": "e1", "is_read": False}, {"id": "e2", "is_read": False}]}
    final = {"emails": [{"id": "e1", "is_read": True}]}
    diff = compute_diff(initial, final)
    dumped = [entry.model_dump(mode="json") for entry in diff]
    canonical = {"update": [{"entity": "emails", "changes": {"is_read": True}}]}
    original = match(diff, canonical, initial=initial, final=final)
    reloaded = match(dumped, canonical, initial=initial, final=final)
    assert reloaded == original and not original.passed  # the delete of e2 is collateral
