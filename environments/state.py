"""The typed state of an environment and its canonical serialisation.

A state is a Pydantic model whose every field is a list of entities (one list per collection).
The evaluator and the session tables see it as plain collections: `{collection: [entity dict]}`.
`canonical_json` is the one byte-exact form of a state; `state_sha256` hashes it, so two builds of
the same (task, condition, seed) can be compared in any process.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

# Sites declare pure helpers on their state model with it (docs/evaluator.md, "State helpers").
from humantrace.environments.state_helpers import state_helper

__all__ = ["Collections", "Entity", "EnvState", "canonical_json", "state_helper", "state_sha256"]

Collections = dict[str, list[dict[str, Any]]]


class Entity(BaseModel):
    """One record of a collection. Subclasses add typed fields; unknown fields are errors."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    id: str


class EnvState(BaseModel):
    """A whole environment state: one `list[EntitySubclass]` field per collection."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    def to_collections(self) -> Collections:
        """The state as JSON-able collections, in list order (the diff matches by id)."""
        return self.model_dump(mode="json")

    def collection(self, name: str) -> list[Any]:
        """The live list of collection `name` (mutating it mutates the state)."""
        if name not in type(self).model_fields:
            known = ", ".join(sorted(type(self).model_fields))
            raise KeyError(f"{type(self).__name__} has no collection {name!r} (known: {known})")
        return getattr(self, name)

    def find(self, collection: str, entity_id: str) -> Any | None:
        """The entity with `entity_id` in `collection`, or None."""
        for entity in self.collection(collection):
            if entity.id == entity_id:
                return entity
        return None

    def entity_model(self, collection: str) -> type[Entity]:
        """The entity class of `collection` (from the field annotation `list[Model]`)."""
        annotation = type(self).model_fields[collection].annotation
        args = getattr(annotation, "__args__", ())
        if not args or not isinstance(args[0], type) or not issubclass(args[0], Entity):
            raise TypeError(f"{type(self).__name__}.{collection} is not a list of Entity")
        return args[0]


def canonical_json(collections: Mapping[str, Any] | EnvState) -> str:
    """The byte-exact JSON of a state: sorted keys, no spaces, UTF-8 text (not escaped)."""
    if isinstance(collections, EnvState):
        collections = collections.to_collections()
    return json.dumps(collections, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def state_sha256(collections: Mapping[str, Any] | EnvState) -> str:
    """Hex sha256 of `canonical_json(collections)`."""
    return hashlib.sha256(canonical_json(collections).encode("utf-8")).hexdigest()
