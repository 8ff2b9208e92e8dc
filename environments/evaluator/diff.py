"""The state diff: what changed between an env session's initial snapshot and its final state.

A state is a mapping of collection name -> list of entity dicts, each with a unique ``id``. A
top-level mapping (a singleton such as ``settings``) is diffed as one entity whose id is the
collection name, so a changed setting shows up like any other change. Top-level scalars and lists
of non-entities are not part of the diff (constraints can still read them through ``state``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict


class _DiffRecord(BaseModel):
    """Base of the three diff records; accepts its fields positionally as well as by name."""

    model_config = ConfigDict(frozen=True)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        names = [name for name in type(self).model_fields if name != "kind"]
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__} takes at most {len(names)} positional arguments")
        kwargs.update(zip(names, args))
        super().__init__(**kwargs)

    @property
    def ref(self) -> str:
        """``collection/id``, the way diagnoses name a diff entry."""
        return f"{self.entity}/{self.entity_id}"  # type: ignore[attr-defined]  # every subclass declares entity and entity_id


class Create(_DiffRecord):
    """An entity present in the final state but not in the initial one."""

    kind: Literal["create"] = "create"
    entity: str
    entity_id: Any
    fields: dict[str, Any]

    if TYPE_CHECKING:  # the positional form `_DiffRecord.__init__` accepts, for the type checker

        def __init__(self, entity: str, entity_id: Any, fields: dict[str, Any]) -> None: ...

    def describe(self) -> str:
        return f"create {self.ref}"


class Update(_DiffRecord):
    """An entity present in both states with at least one (non-ignored) field changed."""

    kind: Literal["update"] = "update"
    entity: str
    entity_id: Any
    field_changes: dict[str, tuple[Any, Any]]

    if TYPE_CHECKING:

        def __init__(
            self, entity: str, entity_id: Any, field_changes: dict[str, tuple[Any, Any]]
        ) -> None: ...

    def describe(self) -> str:
        changes = ", ".join(f"{k}: {b!r} -> {a!r}" for k, (b, a) in self.field_changes.items())
        return f"update {self.ref} ({_clip(changes)})"


class Delete(_DiffRecord):
    """An entity present in the initial state but gone from the final one."""

    kind: Literal["delete"] = "delete"
    entity: str
    entity_id: Any
    last_fields: dict[str, Any]

    if TYPE_CHECKING:

        def __init__(self, entity: str, entity_id: Any, last_fields: dict[str, Any]) -> None: ...

    def describe(self) -> str:
        return f"delete {self.ref}"


DiffEntry = Create | Update | Delete


class StateShapeError(ValueError):
    """A state collection holds an entity without an ``id`` or two entities with the same id."""


def _clip(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _id_key(entity_id: Any) -> tuple[int, Any]:
    # Numbers sort numerically, everything else by its text, so ids 9 < 10 and "e-1" < "e-2".
    if isinstance(entity_id, (int, float)) and not isinstance(entity_id, bool):
        return (0, entity_id)
    return (1, str(entity_id))


def entries_sort_key(entry: DiffEntry) -> tuple[str, tuple[int, Any]]:
    """Sort key of diff records: (collection, id)."""
    return (entry.entity, _id_key(entry.entity_id))


def index_collection(name: str, value: Any) -> dict[Any, Mapping[str, Any]] | None:
    """Index one top-level value as id -> entity; None when it is not an entity collection."""
    if isinstance(value, Mapping):
        return {name: value}
    if not isinstance(value, (list, tuple)) or not all(
        type(e) is dict or isinstance(e, Mapping)
        for e in value  # the type check is the fast path
    ):
        return None
    by_id: dict[Any, Mapping[str, Any]] = {}
    for position, entity in enumerate(value):
        if "id" not in entity:
            raise StateShapeError(f"state.{name}[{position}] has no 'id' field")
        entity_id = entity["id"]
        if entity_id in by_id:
            raise StateShapeError(f"state.{name} holds two entities with id {entity_id!r}")
        by_id[entity_id] = entity
    return by_id


def entity_collections(state: Mapping[str, Any]) -> dict[str, dict[Any, Mapping[str, Any]]]:
    """Index a state as collection -> id -> entity (not copied; see the module docstring)."""
    indexed = {}
    for name, value in state.items():
        by_id = index_collection(name, value)
        if by_id is not None:
            indexed[name] = by_id
    return indexed


def _ignored(ignore_fields: Mapping[str, Iterable[str]] | None, collection: str) -> frozenset[str]:
    if not ignore_fields:
        return frozenset()
    return frozenset(ignore_fields.get(collection, ())) | frozenset(ignore_fields.get("*", ()))


def compute_diff(
    initial: Mapping[str, Any],
    final: Mapping[str, Any],
    *,
    ignore_fields: Mapping[str, Iterable[str]] | None = None,
) -> list[DiffEntry]:
    """Return the Create/Update/Delete records turning ``initial`` into ``final``.

    ``ignore_fields`` maps a collection name (or ``"*"`` for every collection) to fields whose
    changes are not differences (e.g. ``updated_at``); an update that only touches ignored fields
    is no update. Records are sorted by (collection, id).
    """
    before_all = entity_collections(initial)
    after_all = entity_collections(final)
    entries: list[DiffEntry] = []
    for collection in sorted(set(before_all) | set(after_all)):
        before = before_all.get(collection, {})
        after = after_all.get(collection, {})
        ignored = _ignored(ignore_fields, collection)
        for entity_id, fields in after.items():
            if entity_id not in before:
                entries.append(Create(collection, entity_id, dict(fields)))
                continue
            old = before[entity_id]
            if old == fields:  # most entities are untouched: one C-level comparison
                continue
            changes = {
                name: (old.get(name), fields.get(name))
                for name in list(old) + [n for n in fields if n not in old]
                if name not in ignored and old.get(name) != fields.get(name)
            }
            if changes:
                entries.append(Update(collection, entity_id, changes))
        for entity_id, fields in before.items():
            if entity_id not in after:
                entries.append(Delete(collection, entity_id, dict(fields)))
    entries.sort(key=entries_sort_key)
    return entries
