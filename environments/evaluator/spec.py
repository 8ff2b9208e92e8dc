"""Reading a ``canonical_diff`` (mapping or pydantic model) into checked, typed blocks.

Every malformed piece raises :class:`CanonicalDiffError` naming its path, e.g.
``canonical_diff.update[1].where.id.expr: unsafe expression ...``. ``oneof`` alternatives are
merged with the top-level lists (top-level entries first), so each alternative is one complete
block; ``named_invariants`` are applied here (step 9 of the scoring).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .predicates import CanonicalDiffError, check_predicate
from .sandbox import UnsafeExpression, compile_expr, template_path

Severity = Literal["critical", "high", "medium", "low"]
SEVERITY_PENALTY: dict[str, float] = {"critical": 0.30, "high": 0.20, "medium": 0.15, "low": 0.10}
DEFAULT_SEVERITY: Severity = "medium"
Kind = Literal["create", "update", "delete"]

MAX_SLOTS = 1_000
"""Slots of one bijection (the length of its ``over``) or ``count``: each is matched against every
candidate and an unmatched one is quoted in the verdict."""
_BLOCK_KEYS = {"create", "update", "delete", "invariant", "constraints", "named_invariants", "oneof"}
_ENTRY_KEYS: dict[str, set[str]] = {
    "create": {"entity", "collection", "properties", "count", "bijection", "weight", "desc"},
    "update": {"entity", "collection", "where", "changes", "count", "bijection", "weight", "desc"},
    "delete": {"entity", "collection", "where", "count", "bijection", "weight", "desc"},
}
_INVARIANT_KEYS = {"collection", "filter", "preserve", "comprehensive", "desc", "weight"}
_CONSTRAINT_KEYS = {"desc", "expr", "severity", "weight"}
_NAMED_KEYS = {"name", "ref", "severity"}
_REF = re.compile(r"^(create|update|delete|invariant)\[(\d+)\]$")
_STATE_KEY = re.compile(r"""^state\[['"]([^'"]+)['"]\]$""")


@dataclass(frozen=True)
class Bijection:
    """Slots come from ``over`` (an expression, a template or a literal list)."""

    over: Any
    variable: str = "v"


@dataclass
class PositiveEntry:
    kind: Kind
    index: int
    entity: str
    collection: str | None
    desc: str
    name: str
    weight: float = 1.0
    properties: dict[str, Any] = field(default_factory=dict)
    where: dict[str, Any] = field(default_factory=dict)
    changes: dict[str, Any] = field(default_factory=dict)
    count: int | None = None
    bijection: Bijection | None = None


@dataclass
class InvariantSpec:
    index: int
    collection: str
    filter: str | None
    comprehensive: bool
    name: str
    severity: Severity = DEFAULT_SEVERITY


@dataclass
class ConstraintSpec:
    index: int
    desc: str
    expr: str
    severity: Severity
    weight: float
    name: str


@dataclass
class SurplusSpec:
    """A ``create[i]`` named invariant: fails when the entry had more eligible candidates than slots."""

    create_index: int
    name: str
    severity: Severity


@dataclass
class Block:
    creates: list[PositiveEntry] = field(default_factory=list)
    updates: list[PositiveEntry] = field(default_factory=list)
    deletes: list[PositiveEntry] = field(default_factory=list)
    invariants: list[InvariantSpec] = field(default_factory=list)
    constraints: list[ConstraintSpec] = field(default_factory=list)
    surplus: list[SurplusSpec] = field(default_factory=list)

    @property
    def positives(self) -> list[PositiveEntry]:
        return [*self.creates, *self.updates, *self.deletes]


def _present(raw: Mapping[str, Any]) -> dict[str, Any]:
    # Optional fields of a pydantic model dump as None; None means "not given".
    return {k: v for k, v in raw.items() if v is not None}


def _mapping(value: Any, where: str) -> dict[str, Any]:
    if hasattr(value, "model_dump"):
        value = value.model_dump(by_alias=True)
    if not isinstance(value, Mapping):
        raise CanonicalDiffError(f"{where}: expected a mapping, got {type(value).__name__}")
    return dict(value)


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise CanonicalDiffError(f"{where}: expected a list, got {type(value).__name__}")
    return value


def _unknown(raw: Mapping[str, Any], allowed: set[str], where: str) -> None:
    extra = sorted(set(raw) - allowed)
    if extra:
        raise CanonicalDiffError(f"{where}: unknown key(s) {extra}; allowed: {sorted(allowed)}")


def _severity(value: Any, where: str, default: Severity = DEFAULT_SEVERITY) -> Severity:
    if value is None:
        return default
    if value not in SEVERITY_PENALTY:
        raise CanonicalDiffError(f"{where}: severity {value!r} is not one of {list(SEVERITY_PENALTY)}")
    return value


def _expr(source: Any, where: str, extra: Iterable[str] = ()) -> str:
    try:
        compile_expr(source, frozenset(extra))
    except UnsafeExpression as exc:
        raise CanonicalDiffError(f"{where}: {exc}") from exc
    return source


def strip_state(collection: str) -> str:
    """``state.emails`` / ``state['emails']`` / ``emails`` -> ``emails``."""
    text = collection.strip()
    match = _STATE_KEY.match(text)
    if match:
        return match.group(1)
    return text[len("state.") :] if text.startswith("state.") else text


def _weight(value: Any, where: str) -> float:
    if value is None:
        return 1.0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise CanonicalDiffError(f"{where}: weight must be a number >= 0, got {value!r}")
    return float(value)


def _positive(kind: Kind, index: int, raw: Any, where: str) -> PositiveEntry:
    entry = _present(_mapping(raw, where))
    _unknown(entry, _ENTRY_KEYS[kind], where)
    if not isinstance(entry.get("entity"), str) or not entry["entity"]:
        raise CanonicalDiffError(f"{where}: 'entity' (a name) is required")
    bijection = None
    extra: tuple[str, ...] = ()
    if "bijection" in entry:
        raw_b = _present(_mapping(entry["bijection"], f"{where}.bijection"))
        _unknown(raw_b, {"over", "variable"}, f"{where}.bijection")
        if "over" not in raw_b:
            raise CanonicalDiffError(f"{where}.bijection: 'over' is required")
        variable = raw_b.get("variable", "v")
        if not isinstance(variable, str) or not variable.isidentifier() or variable.startswith("_"):
            raise CanonicalDiffError(f"{where}.bijection.variable: {variable!r} is not a plain name")
        if isinstance(raw_b["over"], str) and template_path(raw_b["over"]) is None:
            _expr(raw_b["over"], f"{where}.bijection.over")
        bijection = Bijection(over=raw_b["over"], variable=variable)
        extra = (variable,)
    count = entry.get("count")
    if count is not None:
        if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_SLOTS:
            raise CanonicalDiffError(
                f"{where}.count: must be an integer from 0 to {MAX_SLOTS:,}, got {count!r}"
            )
        if bijection is not None:
            count = None  # as in the public format: the bijection's slots decide how many are needed
    parts = {"properties": "properties"} if kind == "create" else {"where": "where"}
    if kind == "update":
        parts["changes"] = "changes"
    for part in parts:
        predicates = _mapping(entry.get(part, {}), f"{where}.{part}")
        for field_name, predicate in predicates.items():
            check_predicate(predicate, f"{where}.{part}.{field_name}", frozenset(extra))
        entry[part] = predicates
    collection = entry.get("collection")
    desc = entry.get("desc") or f"{kind} {entry['entity']}"
    return PositiveEntry(
        kind=kind,
        index=index,
        entity=entry["entity"],
        collection=strip_state(collection) if collection else None,
        desc=desc,
        name=desc,
        weight=_weight(entry.get("weight"), f"{where}.weight"),
        properties=entry.get("properties", {}),
        where=entry.get("where", {}),
        changes=entry.get("changes", {}),
        count=count,
        bijection=bijection,
    )


def _invariant(index: int, raw: Any, where: str) -> InvariantSpec:
    entry = _present(_mapping(raw, where))
    _unknown(entry, _INVARIANT_KEYS, where)
    if not isinstance(entry.get("collection"), str):
        raise CanonicalDiffError(f"{where}: 'collection' (e.g. state.emails) is required")
    if entry.get("preserve", "ALL") != "ALL":
        raise CanonicalDiffError(f"{where}.preserve: only ALL is supported, got {entry['preserve']!r}")
    # A weight is accepted and ignored, as the public format's evaluator does: an invariant is a
    # negative check whose penalty comes from its severity, never a share of the raw score.
    _weight(entry.get("weight"), f"{where}.weight")
    filter_expr = entry.get("filter")
    if filter_expr is not None:
        filter_expr = _expr(str(filter_expr), f"{where}.filter")
    collection = strip_state(entry["collection"])
    name = entry.get("desc") or f"invariant on state.{collection}"
    return InvariantSpec(
        index=index,
        collection=collection,
        filter=filter_expr,
        comprehensive=bool(entry.get("comprehensive", False)),
        name=name,
    )


def _constraint(index: int, raw: Any, where: str) -> ConstraintSpec:
    entry = _present(_mapping(raw, where))
    _unknown(entry, _CONSTRAINT_KEYS, where)
    if "expr" not in entry:
        raise CanonicalDiffError(f"{where}: 'expr' is required")
    expr = _expr(entry["expr"], f"{where}.expr")
    desc = entry.get("desc") or expr
    return ConstraintSpec(
        index=index,
        desc=desc,
        expr=expr,
        name=desc,
        severity=_severity(entry.get("severity"), f"{where}.severity"),
        weight=_weight(entry.get("weight"), f"{where}.weight"),
    )


def _block(raw: Mapping[str, Any], where: str, *, allow_oneof: bool) -> Block:
    _unknown(raw, _BLOCK_KEYS if allow_oneof else _BLOCK_KEYS - {"oneof"}, where)
    block = Block()
    kinds: tuple[tuple[Kind, list[PositiveEntry]], ...] = (
        ("create", block.creates),
        ("update", block.updates),
        ("delete", block.deletes),
    )
    for kind, target in kinds:
        for i, item in enumerate(_list(raw.get(kind), f"{where}.{kind}")):
            target.append(_positive(kind, i, item, f"{where}.{kind}[{i}]"))
    for i, item in enumerate(_list(raw.get("invariant"), f"{where}.invariant")):
        block.invariants.append(_invariant(i, item, f"{where}.invariant[{i}]"))
    for i, item in enumerate(_list(raw.get("constraints"), f"{where}.constraints")):
        block.constraints.append(_constraint(i, item, f"{where}.constraints[{i}]"))
    return block


def _apply_named(block: Block, named: list[Any], where: str, offsets: Mapping[str, int]) -> None:
    lists: dict[str, list[Any]] = {
        "create": block.creates,
        "update": block.updates,
        "delete": block.deletes,
        "invariant": block.invariants,
    }
    for i, raw in enumerate(named):
        here = f"{where}.named_invariants[{i}]"
        entry = _present(_mapping(raw, here))
        _unknown(entry, _NAMED_KEYS, here)
        match = _REF.match(str(entry.get("ref", "")))
        if not match:
            raise CanonicalDiffError(
                f"{here}.ref: {entry.get('ref')!r} is not like invariant[0] or create[2]"
            )
        kind, position = match.group(1), int(match.group(2)) + offsets.get(match.group(1), 0)
        if position >= len(lists[kind]):
            raise CanonicalDiffError(f"{here}.ref: {entry['ref']} does not exist in this block")
        name = entry.get("name")
        target = lists[kind][position]
        if name:
            target.name = name
        if kind == "invariant":
            target.severity = _severity(entry.get("severity"), f"{here}.severity", target.severity)
        elif kind == "create":
            block.surplus.append(
                SurplusSpec(
                    create_index=position,
                    name=target.name,
                    severity=_severity(entry.get("severity"), f"{here}.severity"),
                )
            )


def parse_canonical_diff(canonical_diff: Any) -> list[Block]:
    """Return the block(s) to score: one, or one per ``oneof`` alternative."""
    top = _mapping(canonical_diff, "canonical_diff")
    base = _block(top, "canonical_diff", allow_oneof=True)
    top_named = _list(top.get("named_invariants"), "canonical_diff.named_invariants")
    alternatives = _list(top.get("oneof"), "canonical_diff.oneof")
    if not alternatives:
        _apply_named(base, top_named, "canonical_diff", {})
        return [base]
    blocks = []
    for n, raw_alt in enumerate(alternatives):
        where = f"canonical_diff.oneof[{n}]"
        alt_raw = _mapping(raw_alt, where)
        alt = _block(alt_raw, where, allow_oneof=False)
        merged = _block(top, "canonical_diff", allow_oneof=True)
        offsets = {
            "create": len(merged.creates),
            "update": len(merged.updates),
            "delete": len(merged.deletes),
            "invariant": len(merged.invariants),
        }
        for kind, attr in (("create", "creates"), ("update", "updates"), ("delete", "deletes")):
            for entry in getattr(alt, attr):
                entry.index += offsets[kind]
            getattr(merged, attr).extend(getattr(alt, attr))
        for inv in alt.invariants:
            inv.index += offsets["invariant"]
        merged.invariants.extend(alt.invariants)
        for con in alt.constraints:
            con.index += len(merged.constraints)
        merged.constraints.extend(alt.constraints)
        _apply_named(merged, top_named, "canonical_diff", {})
        _apply_named(
            merged, _list(alt_raw.get("named_invariants"), f"{where}.named_invariants"), where, offsets
        )
        blocks.append(merged)
    return blocks
