"""Positive entries (steps 1-4): which diff entries each create/update/delete entry uses.

Singletons take the first satisfying candidate; ``count`` and ``bijection`` entries are scored by
a maximum bipartite matching (networkx Hopcroft-Karp) between slots and candidates.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .budget import MAX_CELLS, deep_size, note_overrun
from .diff import Create, DiffEntry, Update, index_collection
from .predicates import Outcome, Scope, check
from .sandbox import compile_expr, run_expr, template_path
from .spec import MAX_SLOTS, PositiveEntry
from .templates import resolve_path, resolve_templates
from .verdict import PositiveCheck
from .views import unwrap

MAX_PAIRS = 10_000  # (slot, candidate) pairs one bijection or count entry may check
_SHOWN = 300  # characters of the unmatched slots a diagnosis quotes


class SlotLimitError(ValueError):
    """A bijection's slots, or its slots times its candidates, are past the evaluator's limits."""


@dataclass
class Ledger:
    """Which diff entries (by position in the diff) are used, near misses or benign."""

    used: set[int] = field(default_factory=set)
    near_miss: set[int] = field(default_factory=set)
    benign: set[int] = field(default_factory=set)
    eligible: dict[int, int] = field(default_factory=dict)  # create index -> eligible count
    slots: dict[int, int] = field(default_factory=dict)  # create index -> slot count
    surplus: dict[int, list[int]] = field(default_factory=dict)  # create index -> surplus entries


@dataclass
class Context:
    """Everything a block is scored against."""

    diff: list[DiffEntry]
    initial: Mapping[str, Any]
    final: Mapping[str, Any]
    scope: Scope
    collections: set[str]
    _indexes: dict[tuple[str, str], dict[Any, Mapping[str, Any]]] = field(default_factory=dict)

    def entity(self, which: str, entry: DiffEntry) -> Mapping[str, Any]:
        """The entity of ``entry`` in the initial or final state (indexed lazily per collection)."""
        key = (which, entry.entity)
        if key not in self._indexes:
            state = self.initial if which == "initial" else self.final
            self._indexes[key] = index_collection(entry.entity, state.get(entry.entity)) or {}
        return self._indexes[key].get(entry.entity_id, {"id": entry.entity_id})

    def before(self, entry: DiffEntry) -> dict[str, Any]:
        """The entity before an Update: initial entity overlaid with the before-values."""
        base = self.entity("initial", entry)
        return {**base, **{k: b for k, (b, _) in entry.field_changes.items()}}  # type: ignore[union-attr]  # called for Update entries only

    def after(self, entry: DiffEntry) -> dict[str, Any]:
        """The entity as ``a`` sees it: Create fields, Delete last fields, Update after-state."""
        if isinstance(entry, Create):
            return entry.fields
        if isinstance(entry, Update):
            base = self.entity("final", entry)
            return {**base, **{k: a for k, (_, a) in entry.field_changes.items()}}
        return {"id": entry.entity_id, **entry.last_fields}


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def _plural(name: str) -> str:
    if name.endswith("y") and name[-2:-1] not in tuple("aeiou"):
        return name[:-1] + "ies"
    if name.endswith(("s", "x", "z", "ch", "sh")):
        return name + "es"
    return name + "s"


def resolve_collection(entry: PositiveEntry, known: set[str]) -> str:
    """The collection an entry names: ``collection`` if given, else derived from ``entity``.

    ``entity`` may be the collection itself (``emails``) or a class name (``Email``,
    ``OrderItem``); the first of entity, snake_case, plural that exists in the state wins, and
    the plural is the fallback.
    """
    if entry.collection:
        return entry.collection
    snake = _snake(entry.entity)
    for candidate in (entry.entity, snake, _plural(snake), _plural(entry.entity.lower())):
        if candidate in known:
            return candidate
    return _plural(snake)


def _check_fields(
    predicates: Mapping[str, Any], entity: Mapping[str, Any], scope: Scope, part: str
) -> Outcome:
    for name, predicate in predicates.items():
        outcome = check(predicate, entity.get(name), scope)
        if not outcome.ok:
            return Outcome(False, f"{part}.{name}: {outcome.reason}")
    return Outcome(True)


def _failures(predicates: Mapping[str, Any], entity: Mapping[str, Any], scope: Scope, part: str) -> list[str]:
    out = []
    for name, predicate in predicates.items():
        outcome = check(predicate, entity.get(name), scope)
        if not outcome.ok:
            out.append(f"{part}.{name}: {outcome.reason}")
    return out


def satisfies(
    entry: PositiveEntry, diff_entry: DiffEntry, ctx: Context, slot: Any, *, every: bool = False
) -> list[str]:
    """Failure reasons of ``diff_entry`` against ``entry`` with the slot bound (empty = satisfied).

    With ``every`` all failing predicates are listed (for diagnoses), else only the first.
    """
    slot_name = entry.bijection.variable if entry.bijection else "v"
    if entry.kind == "update":
        parts = [
            ("where", entry.where, ctx.before(diff_entry)),
            ("changes", entry.changes, ctx.after(diff_entry)),
        ]
    elif entry.kind == "create":
        parts = [("properties", entry.properties, ctx.after(diff_entry))]
    else:
        parts = [("where", entry.where, ctx.after(diff_entry))]
    reasons: list[str] = []
    for part, predicates, entity in parts:
        scope = ctx.scope.bind(slot=slot, slot_name=slot_name, entity=entity)
        if every:
            reasons += _failures(predicates, entity, scope, part)
        else:
            outcome = _check_fields(predicates, entity, scope, part)
            if not outcome.ok:
                return [outcome.reason]
    return reasons


def slot_values(entry: PositiveEntry, ctx: Context) -> list[Any]:
    """The bijection's slots: the value of ``over`` as a list (None -> no slots)."""
    assert entry.bijection is not None
    over = entry.bijection.over
    path = template_path(over)
    if path is not None:
        value = resolve_path(ctx.scope.targets, path)
    elif isinstance(over, str):
        value = unwrap(run_expr(compile_expr(over), ctx.scope.names(None)))
    else:
        value = resolve_templates(over, ctx.scope.targets)
    if value is None:
        return []
    if isinstance(value, Mapping):
        raise TypeError(f"bijection.over gave a mapping, expected a list: {_quote(value)}")
    slots = list(value) if isinstance(value, (list, tuple, set, frozenset)) else [value]
    why = ""
    if len(slots) > MAX_SLOTS:
        why = f"it gave {len(slots):,} slots (the slots limit, {MAX_SLOTS:,})"
    # Every slot is compared with every candidate and unmatched ones go into the verdict.
    elif deep_size(slots, MAX_CELLS, charge=False) > MAX_CELLS:
        why = f"its slots hold more than {MAX_CELLS:,} elements and characters (the built limit)"
    if why:
        note_overrun(f"bijection.over {_quote(over)}: {why}")
        raise SlotLimitError(why)
    return slots


def _quote(value: Any) -> str:
    """`value`'s repr, cut to a length a diagnosis can carry."""
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _label(entry: PositiveEntry) -> str:
    return f"{entry.kind}[{entry.index}] {entry.name!r}"


def _closest(entry: PositiveEntry, candidates: list[int], ctx: Context, slot: Any) -> str:
    if not candidates:
        return ""
    scored = [
        (len(r), i, r) for i in candidates if (r := satisfies(entry, ctx.diff[i], ctx, slot, every=True))
    ]
    if not scored:
        return ""
    _, best, reasons = min(scored, key=lambda t: (t[0], t[1]))
    return f"; closest {ctx.diff[best].ref}: " + "; ".join(reasons[:3])


def score_entry(entry: PositiveEntry, ctx: Context, ledger: Ledger) -> PositiveCheck:
    """Score one positive entry against the unused candidates and record what it uses."""
    collection = resolve_collection(entry, ctx.collections)
    candidates = [
        i
        for i, d in enumerate(ctx.diff)
        if d.kind == entry.kind and d.entity == collection and i not in ledger.used
    ]
    if entry.bijection is None and entry.count is None:
        return _score_singleton(entry, ctx, ledger, collection, candidates)
    return _score_slots(entry, ctx, ledger, collection, candidates)


def _common(entry: PositiveEntry, collection: str) -> dict[str, Any]:
    """The fields every `PositiveCheck` of `entry` carries."""
    return dict(kind=entry.kind, index=entry.index, name=entry.name, desc=entry.desc, collection=collection)


def _refs(ctx: Context, indexes: Iterable[int]) -> list[str]:
    """The refs of the diff entries at `indexes`, in diff order."""
    return [ctx.diff[i].ref for i in sorted(indexes)]


def _score_singleton(
    entry: PositiveEntry, ctx: Context, ledger: Ledger, collection: str, candidates: list[int]
) -> PositiveCheck:
    """An entry without `count` or `bijection`: the first satisfying candidate meets it."""
    passing = [i for i in candidates if not satisfies(entry, ctx.diff[i], ctx, None)]
    if entry.kind == "create":
        ledger.eligible[entry.index], ledger.slots[entry.index] = len(passing), 1
        ledger.surplus[entry.index] = passing[1:]
    if passing:
        ledger.used.add(passing[0])
        return PositiveCheck(
            **_common(entry, collection),
            weight=entry.weight,
            credit=1.0,
            earned=entry.weight,
            passed=True,
            used=_refs(ctx, [passing[0]]),
            eligible=len(passing),
            surplus=_refs(ctx, passing[1:]),
            diagnosis=f"{_label(entry)}: met by {ctx.diff[passing[0]].ref}",
        )
    what = (
        f"no {entry.kind} in {collection}"
        if not candidates
        else (f"none of {len(candidates)} candidate {entry.kind}(s) in {collection} satisfied it")
    )
    return _failed(
        entry, ctx, ledger, collection, candidates, f"{what}{_closest(entry, candidates, ctx, None)}"
    )


def _failed(
    entry: PositiveEntry, ctx: Context, ledger: Ledger, collection: str, candidates: list[int], why: str
) -> PositiveCheck:
    """The entry failed outright: no credit, every candidate a near miss, `why` in the diagnosis."""
    ledger.near_miss.update(candidates)
    return PositiveCheck(
        **_common(entry, collection),
        weight=entry.weight,
        credit=0.0,
        earned=0.0,
        passed=False,
        near_misses=_refs(ctx, candidates),
        diagnosis=f"{_label(entry)}: {why}",
    )


@dataclass
class _Matching:
    """How the slots of a `count` or `bijection` entry were paired with candidates."""

    used: list[int]  # the candidates paired with a slot
    with_edge: list[int]  # the candidates that could fill some slot
    without_edge: list[int]  # the candidates that could fill none
    unmatched: list[Any]  # the slots left without a candidate


def _match_slots(entry: PositiveEntry, ctx: Context, slots: list[Any], candidates: list[int]) -> _Matching:
    """A maximum matching between `slots` and the candidates that satisfy the entry for them."""
    # networkx takes a few tenths of a second to import; only tasks with a bijection or count pay for
    # it (serve processes import it at start-up: dashboard.app.preload_for_serving).
    from networkx import Graph
    from networkx.algorithms.bipartite import hopcroft_karp_matching

    graph = Graph()
    slot_nodes = [("slot", s) for s in range(len(slots))]
    graph.add_nodes_from(slot_nodes)
    graph.add_nodes_from(("cand", i) for i in candidates)
    if entry.bijection is None:  # count: every slot accepts every satisfying candidate
        passing = [i for i in candidates if not satisfies(entry, ctx.diff[i], ctx, None)]
        graph.add_edges_from((node, ("cand", i)) for node in slot_nodes for i in passing)
    else:
        graph.add_edges_from(
            (("slot", s), ("cand", i))
            for s, slot in enumerate(slots)
            for i in candidates
            if not satisfies(entry, ctx.diff[i], ctx, slot)
        )
    matching = hopcroft_karp_matching(graph, top_nodes=slot_nodes)
    paired = {node: matching[node][1] for node in slot_nodes if node in matching}
    return _Matching(
        used=sorted(paired.values()),
        with_edge=[i for i in candidates if graph.degree(("cand", i)) > 0],
        without_edge=[i for i in candidates if graph.degree(("cand", i)) == 0],
        unmatched=[slots[s] for (_, s) in slot_nodes if ("slot", s) not in paired],
    )


def _score_slots(
    entry: PositiveEntry, ctx: Context, ledger: Ledger, collection: str, candidates: list[int]
) -> PositiveCheck:
    """A `count` or `bijection` entry: its slots matched to candidates, credit per matched slot."""
    try:
        slots = slot_values(entry, ctx) if entry.bijection else [None] * entry.count  # type: ignore[operator]  # count is set whenever bijection is not (spec validation)
    except Exception as exc:  # `over` failing is the entry failing, shown in the diagnosis
        why = f"bijection.over failed: {type(exc).__name__}: {exc}"
        return _failed(entry, ctx, ledger, collection, candidates, why)
    if len(slots) * len(candidates) > MAX_PAIRS:
        why = (
            f"{len(slots):,} slots × {len(candidates):,} candidates are {len(slots) * len(candidates):,} "
            f"pairs to check (the pairs limit, {MAX_PAIRS:,})"
        )
        return _failed(entry, ctx, ledger, collection, candidates, why)
    if not slots:
        return PositiveCheck(
            **_common(entry, collection),
            applicable=False,
            weight=0.0,
            credit=1.0,
            earned=0.0,
            passed=True,
            slots=0,
            matched=0,
            diagnosis=f"{_label(entry)}: no slots, not applicable",
        )
    matched = _match_slots(entry, ctx, slots, candidates)
    used, unmatched = matched.used, matched.unmatched
    ledger.used.update(used)
    surplus = [i for i in matched.with_edge if i not in used]
    near = matched.without_edge if unmatched else []
    ledger.near_miss.update(near)
    if entry.kind == "create":
        ledger.eligible[entry.index], ledger.slots[entry.index] = len(matched.with_edge), len(slots)
        ledger.surplus[entry.index] = surplus
    credit = len(used) / len(slots)
    return PositiveCheck(
        **_common(entry, collection),
        weight=entry.weight,
        credit=credit,
        earned=entry.weight * credit,
        passed=not unmatched,
        slots=len(slots),
        matched=len(used),
        used=_refs(ctx, used),
        unmatched_slots=unwrap(unmatched) if entry.bijection else [],
        near_misses=_refs(ctx, near),
        surplus=_refs(ctx, surplus),
        eligible=len(matched.with_edge),
        diagnosis=_slots_diagnosis(entry, ctx, candidates, slots, matched, surplus),
    )


def _slots_diagnosis(
    entry: PositiveEntry,
    ctx: Context,
    candidates: list[int],
    slots: list[Any],
    matched: _Matching,
    surplus: list[int],
) -> str:
    """ "matched N of M slots", then what is missing (and the closest candidate) and the surplus."""
    used, unmatched = matched.used, matched.unmatched
    diagnosis = f"{_label(entry)}: matched {len(used)} of {len(slots)} slots"
    if unmatched and entry.bijection is None:
        diagnosis += f"; {len(unmatched)} more {entry.kind}(s) needed"
        diagnosis += _closest(entry, [i for i in candidates if i not in used], ctx, None)
    elif unmatched:
        diagnosis += f"; unmatched slots: {_quote(unwrap(unmatched))}"
        diagnosis += _closest(entry, [i for i in candidates if i not in used], ctx, unmatched[0])
    if surplus:
        diagnosis += f"; surplus candidates: {_refs(ctx, surplus)}"
    return diagnosis
