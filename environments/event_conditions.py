"""The WebPageBench event-condition verifier: does the semantic event log satisfy a task's
``event_conditions``?

A condition ``{event, params {name: value}, match: last|any}`` holds when an event of that name
carries the required params; ``{any_of: [condition, ...]}`` holds when any member does. A value
matches exactly, through ``*`` wildcards (strings), or by comparison (``{">=": 2}``; several
operators in one mapping must all hold). A condition with a quantity-like param (see
:data:`QUANTITY_NAMES`) is checked against the *last* event of that name for each item (the item is
told by the identity params, :data:`IDENTITY_WORDS`), so adding two units and then a third fails a
condition asking for two, unless the condition says ``match: any``. As in WebPageBench only
quantities are last-state: ``match: last`` on a condition without one changes nothing. The
Event-Match Score is 1 only when every condition holds; conditions are independent and unordered.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, Field

QUANTITY_NAMES = frozenset({"quantity", "qty", "count", "amount", "number"})
"""Param names (after splitting snake_case/camelCase, compared lowercase) that carry a resulting
quantity: exactly one of these names, or a name whose last word is ``count``, ``quantity`` or
``qty`` (``guestsCount``, ``rooms_count``, ``item_quantity``)."""
QUANTITY_SUFFIXES = frozenset({"count", "quantity", "qty"})
IDENTITY_WORDS = frozenset({"id", "sku", "slug"})
"""A param whose last word is one of these identifies the item (``product_id``, ``cityId``)."""
COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
    "==": operator.eq,
    "!=": operator.ne,
}
_CONDITION_KEYS = {"event", "params", "match"}
_NUMERIC = re.compile(r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$")
_MISSING = object()


class EventConditionError(ValueError):
    """An event condition is malformed (an authoring error in the task)."""


class LoggedEvent(BaseModel):
    """One semantic event as the verifier reads it."""

    position: int
    name: str
    params: dict[str, Any] = Field(default_factory=dict)


class ConditionResult(BaseModel):
    """Whether one condition (or any_of group) held, and why."""

    index: int
    event: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    match: Literal["last", "any"] | None = None
    passed: bool
    matched_event: int | None = Field(None, description="position in the event log of the event that held")
    diagnosis: str
    members: list[ConditionResult] = Field(default_factory=list, description="any_of members")


class EventMatch(BaseModel):
    """The Event-Match Score (1 or 0) and every condition's result."""

    score: float
    passed: bool
    conditions: list[ConditionResult]


def _words(name: str) -> list[str]:
    spaced = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    return [w for w in re.split(r"[_\W]+", spaced.lower()) if w]


def is_quantity_param(name: str) -> bool:
    """True for quantity-like param names (see :data:`QUANTITY_NAMES`)."""
    words = _words(name)
    return bool(words) and (
        "".join(words) in QUANTITY_NAMES or (len(words) > 1 and words[-1] in QUANTITY_SUFFIXES)
    )


def is_identity_param(name: str) -> bool:
    """True for params that identify the item an event is about (see :data:`IDENTITY_WORDS`)."""
    words = _words(name)
    return bool(words) and words[-1] in IDENTITY_WORDS


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and _NUMERIC.match(value):
        return float(value)
    return None


@lru_cache(maxsize=512)
def _glob(pattern: str) -> re.Pattern[str]:
    return re.compile(
        "".join(".*" if part == "*" else re.escape(part) for part in re.split(r"(\*)", pattern)), re.S
    )


def _is_comparison(expected: Any) -> bool:
    return isinstance(expected, Mapping) and bool(expected) and all(k in COMPARISONS for k in expected)


def _as_text(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    return None


def value_matches(expected: Any, actual: Any) -> str | None:
    """None when ``actual`` satisfies ``expected``, else the reason it does not."""
    if actual is _MISSING:
        return "absent"
    if _is_comparison(expected):
        for op, bound in expected.items():
            left, right = _number(actual), _number(bound)
            if left is None or right is None:
                ok = op in ("==", "!=") and COMPARISONS[op](actual, bound)
            else:
                ok = COMPARISONS[op](left, right)
            if not ok:
                return f"{actual!r} is not {op} {bound!r}"
        return None
    if isinstance(expected, str) and "*" in expected:
        text = _as_text(actual)
        return (
            None
            if text is not None and _glob(expected).fullmatch(text)
            else f"{actual!r} does not match {expected!r}"
        )
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return f"{actual!r} is not an object"
        for key, inner in expected.items():
            why = value_matches(inner, actual.get(key, _MISSING))
            if why:
                return f"{key}: {why}"
        return None
    if isinstance(expected, str) and isinstance(actual, str):
        return None if expected == actual else f"{actual!r} != {expected!r}"
    if isinstance(expected, bool) or isinstance(actual, bool):
        return (
            None if type(expected) is type(actual) and expected == actual else f"{actual!r} != {expected!r}"
        )
    left, right = _number(actual), _number(expected)
    if left is not None and right is not None:
        return None if left == right else f"{actual!r} != {expected!r}"
    return None if actual == expected else f"{actual!r} != {expected!r}"


def _param(params: Mapping[str, Any], name: str) -> Any:
    if name in params:
        return params[name]
    value: Any = params
    for part in name.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return _MISSING
        value = value[part]
    return value


def _failures(condition_params: Mapping[str, Any], event: LoggedEvent) -> list[str]:
    reasons = []
    for name, expected in condition_params.items():
        why = value_matches(expected, _param(event.params, name))
        if why:
            reasons.append(f"{name}: {why}")
    return reasons


def _item_key(event: LoggedEvent) -> tuple[tuple[str, str], ...]:
    return tuple(
        sorted(
            (k, repr(v)) for k, v in event.params.items() if is_identity_param(k) and not is_quantity_param(k)
        )
    )


def _normalise_events(events: Sequence[Any]) -> list[LoggedEvent]:
    out = []
    for position, raw in enumerate(events):
        if not isinstance(raw, Mapping):
            raw = raw.model_dump() if hasattr(raw, "model_dump") else vars(raw)
        name = raw.get("event") or raw.get("name") or raw.get("type")
        params = raw.get("params")
        if params is None:
            params = {
                k: v for k, v in raw.items() if k not in {"event", "name", "type", "t_ms", "ts", "params"}
            }
        out.append(LoggedEvent(position=position, name=str(name), params=dict(params)))
    return out


def _describe(event: LoggedEvent) -> str:
    return f"#{event.position} {event.name} {event.params}"


def _check_one(index: int, condition: Mapping[str, Any], events: list[LoggedEvent]) -> ConditionResult:
    name, params = condition["event"], dict(condition.get("params") or {})
    # Only quantities are last-state (WebPageBench); `match: any` turns that off per condition.
    has_quantity = any(is_quantity_param(p) for p in params)
    mode = "last" if has_quantity and condition.get("match") != "any" else "any"
    base = dict(index=index, event=name, params=params, match=mode)
    label = f"{name} {params}" if params else name
    named = [e for e in events if e.name == name]
    if not named:
        return ConditionResult(**base, passed=False, diagnosis=f"{label}: no {name} event in the log")
    if mode == "last":
        latest: dict[tuple[tuple[str, str], ...], LoggedEvent] = {}
        for event in named:
            latest[_item_key(event)] = event
        pool = sorted(latest.values(), key=lambda e: e.position)
    else:
        pool = named
    for event in pool:
        if not _failures(params, event):
            how = "last event for its item" if mode == "last" else "event"
            return ConditionResult(
                **base,
                passed=True,
                matched_event=event.position,
                diagnosis=f"{label}: held by {how} {_describe(event)}",
            )
    scored = sorted(pool, key=lambda e: (len(_failures(params, e)), -e.position))
    closest = scored[0]
    diagnosis = (
        f"{label}: no match; closest {'latest ' if mode == 'last' else ''}{_describe(closest)}: "
        + "; ".join(_failures(params, closest))
    )
    if mode == "last":
        earlier = next((e for e in named if not _failures(params, e)), None)
        if earlier is not None:
            diagnosis += (
                f" (earlier event #{earlier.position} matched, but quantities are compared with the "
                "last event for the item; use match: any to accept it)"
            )
    return ConditionResult(**base, passed=False, diagnosis=diagnosis)


def validate_event_conditions(conditions: Any, where: str = "event_conditions") -> None:
    """Raise :class:`EventConditionError` naming the first malformed condition."""
    if not isinstance(conditions, list):
        raise EventConditionError(f"{where}: expected a list of conditions")
    for i, condition in enumerate(conditions):
        here = f"{where}[{i}]"
        condition = _plain(condition)
        if not isinstance(condition, Mapping):
            raise EventConditionError(f"{here}: expected a mapping")
        if "any_of" in condition:
            if (
                set(condition) != {"any_of"}
                or not isinstance(condition["any_of"], list)
                or not condition["any_of"]
            ):
                raise EventConditionError(f"{here}: any_of must be the only key and hold a non-empty list")
            validate_event_conditions(condition["any_of"], f"{here}.any_of")
            continue
        extra = set(condition) - _CONDITION_KEYS
        if extra:
            raise EventConditionError(
                f"{here}: unknown key(s) {sorted(extra)}; allowed: {sorted(_CONDITION_KEYS)}"
            )
        if not isinstance(condition.get("event"), str) or not condition["event"]:
            raise EventConditionError(f"{here}: 'event' (an event name) is required")
        if condition.get("match") not in (None, "last", "any"):
            raise EventConditionError(f"{here}.match: must be last or any, got {condition['match']!r}")
        if not isinstance(condition.get("params") or {}, Mapping):
            raise EventConditionError(f"{here}.params: expected a mapping of param -> value")


def _plain(condition: Any) -> Mapping[str, Any]:
    if hasattr(condition, "model_dump"):
        return condition.model_dump(exclude_none=True, exclude_unset=True)
    return condition


def check_condition(index: int, condition: Any, events: list[LoggedEvent]) -> ConditionResult:
    """Check one condition or any_of group against normalised events."""
    condition = _plain(condition)
    if "any_of" in condition:
        members = [check_condition(n, member, events) for n, member in enumerate(condition["any_of"])]
        held = next((m for m in members if m.passed), None)
        diagnosis = (
            f"any_of: member {held.index} held ({held.diagnosis})"
            if held
            else "any_of: no member held: " + " | ".join(m.diagnosis for m in members)
        )
        return ConditionResult(
            index=index,
            passed=held is not None,
            diagnosis=diagnosis,
            members=members,
            matched_event=held.matched_event if held else None,
        )
    return _check_one(index, condition, events)


def check_event_conditions(conditions: Sequence[Any], events: Sequence[Any]) -> EventMatch:
    """Check every condition against the event log; the score is 1 only if all hold."""
    conditions = [_plain(c) for c in conditions]
    validate_event_conditions(conditions)
    log = _normalise_events(events)
    results = [check_condition(i, condition, log) for i, condition in enumerate(conditions)]
    passed = all(r.passed for r in results)
    return EventMatch(score=1.0 if passed else 0.0, passed=passed, conditions=results)
