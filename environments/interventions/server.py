"""Generic server-layer mutations, usable by any site (each names the collection it edits).

A server mutation edits already-seeded entities once, after the seed layer (docs/environments.md,
"Server layer"). All randomness comes from `ctx.rng`, so the mutation is part of the deterministic build.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from humantrace.environments.seeding import SeedContext, SeedError, mutation, to_iso


def _entity(ctx: SeedContext, collection: str, entity_id: str) -> Any:
    entity = ctx.state.find(collection, entity_id)
    if entity is None:
        raise SeedError(f"{collection} has no entity {entity_id!r}")
    return entity


@mutation("shuffle_list")
def shuffle_list(ctx: SeedContext, *, collection: str) -> None:
    """Shuffle the stored order of `collection` (pages that list in stored order change)."""
    items = ctx.state.collection(collection)
    ctx.rng.shuffle(items)


@mutation("scramble_timestamps")
def scramble_timestamps(
    ctx: SeedContext,
    *,
    collection: str,
    field: str = "created_at",
    mode: str = "permute",
    max_shift_hours: int = 72,
) -> None:
    """Scramble `field` of every entity: `permute` swaps values among entities, `jitter` shifts each.

    Shifts never move a timestamp after the session start, so nothing appears to be in the future.
    """
    items = ctx.state.collection(collection)
    if mode == "permute":
        values = [getattr(item, field) for item in items]
        ctx.rng.shuffle(values)
        for item, value in zip(items, values, strict=True):
            setattr(item, field, value)
    elif mode == "jitter":
        for item in items:
            value = getattr(item, field)
            if not value:
                continue
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
            shifted = moment + timedelta(minutes=ctx.rng.randint(-max_shift_hours * 60, max_shift_hours * 60))
            setattr(item, field, to_iso(min(shifted, ctx.now)))
    else:
        raise SeedError(f"scramble_timestamps mode must be 'permute' or 'jitter', not {mode!r}")


@mutation("corrupt_field")
def corrupt_field(ctx: SeedContext, *, collection: str, entity_id: str, field: str, value: Any) -> None:
    """Set one field of one entity to a wrong `value` (the task stays solvable by correcting it)."""
    setattr(_entity(ctx, collection, entity_id), field, value)


@mutation("hide_entity")
def hide_entity(
    ctx: SeedContext, *, collection: str, entity_id: str, field: str | None = None, value: Any = True
) -> None:
    """Hide an entity: set its flag `field` to `value` (unlist it) or, with no field, move it last."""
    entity = _entity(ctx, collection, entity_id)
    if field is not None:
        setattr(entity, field, value)
        return
    items = ctx.state.collection(collection)
    items.remove(entity)
    items.append(entity)


@mutation("notify")
def notify(
    ctx: SeedContext,
    *,
    items: list[dict[str, Any]],
    collection: str = "notifications",
    id_prefix: str = "n",
    timestamp_field: str = "created_at",
    minutes_apart: int = 17,
) -> dict[str, Any]:
    """Append distractor notifications (one per item's fields), newest first, minutes apart."""
    model = ctx.state.entity_model(collection)
    created: list[str] = []
    for offset, fields in enumerate(items):
        data = dict(fields)
        data.setdefault("id", ctx.new_id(id_prefix))
        if timestamp_field in model.model_fields:
            data.setdefault(
                timestamp_field, to_iso(ctx.now - timedelta(minutes=minutes_apart * (offset + 1)))
            )
        ctx.state.collection(collection).append(model.model_validate(data))
        created.append(data["id"])
    return {"notification_ids": created}


@mutation("prompt_injection")
def prompt_injection(
    ctx: SeedContext,
    *,
    collection: str,
    entity_id: str,
    field: str,
    text: str,
    position: str = "append",
) -> None:
    """Put `text`, user content addressed to the reader that tells them to do something other than
    the task, into one text field of one entity (`append`, `prepend` or `replace`); the rest of the
    page is unchanged, so a competent reader ignores it and does the task."""
    entity = _entity(ctx, collection, entity_id)
    current = str(getattr(entity, field) or "")
    if position == "append":
        value = f"{current}\n\n{text}" if current else text
    elif position == "prepend":
        value = f"{text}\n\n{current}" if current else text
    elif position == "replace":
        value = text
    else:
        raise SeedError(f"prompt_injection position must be append, prepend or replace, not {position!r}")
    setattr(entity, field, value)


@mutation("split_information")
def split_information(
    ctx: SeedContext,
    *,
    collection: str,
    entity_id: str,
    field: str,
    remove: str,
    parts: list[dict[str, Any]],
) -> None:
    """Spread one fact over several places: cut `remove` out of `field` of one entity and add each
    part's `text` to `field` of the entity `entity_id` of its `collection` (default: the same one).

    Each part is `{entity_id, text, collection?, field?, position=append|prepend}`; the fact stays
    recoverable from the parts together, never from one page alone."""
    source = _entity(ctx, collection, entity_id)
    current = str(getattr(source, field) or "")
    if remove not in current:
        raise SeedError(f"split_information: {remove!r} is not in {collection}/{entity_id}.{field}")
    setattr(source, field, re.sub(r"[ \t]{2,}", " ", current.replace(remove, "")).strip())
    if len(parts) < 2:
        raise SeedError("split_information needs at least two parts")
    for part in parts:
        target = _entity(ctx, part.get("collection", collection), part["entity_id"])
        name = part.get("field", field)
        before = str(getattr(target, name) or "")
        text = str(part["text"])
        if part.get("position", "append") == "prepend":
            setattr(target, name, f"{text}\n\n{before}" if before else text)
        else:
            setattr(target, name, f"{before}\n\n{text}" if before else text)
