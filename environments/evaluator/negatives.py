"""Negative checks (steps 5-9): benign reads, invariants, constraints, the collateral sweep and
``create[i]`` surplus checks. Each failed check carries the penalty of its severity."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .budget import ExprBudgetExceeded
from .diff import DiffEntry, Update
from .positives import Context, Ledger
from .sandbox import compile_expr, run_expr
from .spec import SEVERITY_PENALTY, Block, InvariantSpec
from .verdict import NegativeCheck

READ_FLAGS = frozenset({"is_read", "is_seen", "read", "seen", "viewed", "is_viewed", "opened"})
ACCESS_TIMESTAMPS = frozenset(
    {
        "last_accessed",
        "last_accessed_at",
        "last_viewed",
        "last_viewed_at",
        "viewed_at",
        "read_at",
        "opened_at",
        "last_seen_at",
    }
)
_LISTED = 5  # diff entries spelled out in one diagnosis


def is_benign(entry: DiffEntry, benign_fields: Mapping[str, Iterable[str]] | None = None) -> bool:
    """Step 5: an Update whose every change is a read receipt (false/null -> true) or an
    access-timestamp touch. Fields a model declares in ``benign_fields`` (collection -> fields,
    ``"*"`` for all) count as benign whatever their change."""
    if not isinstance(entry, Update):
        return False
    declared: set[str] = set()
    if benign_fields:
        declared = set(benign_fields.get(entry.entity, ())) | set(benign_fields.get("*", ()))
    for name, (before, after) in entry.field_changes.items():
        if name in declared or name in ACCESS_TIMESTAMPS:
            continue
        if name in READ_FLAGS and before in (False, None) and after is True:
            continue
        return False
    return True


def _penalty(severity: str, passed: bool) -> float:
    return 0.0 if passed else SEVERITY_PENALTY[severity]


def _listing(ctx: Context, indices: list[int]) -> str:
    shown = [ctx.diff[i].describe() for i in indices[:_LISTED]]
    more = f" and {len(indices) - _LISTED} more" if len(indices) > _LISTED else ""
    return "; ".join(shown) + more


class FilterCache:
    """Invariant filters evaluated once per (invariant, diff entry); errors mean no match."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.results: dict[tuple[int, int], bool] = {}
        self.errors: dict[tuple[int, int], str] = {}
        self.over_budget: dict[tuple[int, int], str] = {}

    def matches(self, inv: InvariantSpec, i: int) -> bool:
        if inv.filter is None:
            return True
        key = (inv.index, i)
        if key not in self.results:
            scope = self.ctx.scope.bind(slot=None, slot_name="v", entity=self.ctx.after(self.ctx.diff[i]))
            try:
                self.results[key] = bool(run_expr(compile_expr(inv.filter), scope.names(None)))
            except ExprBudgetExceeded as exc:
                # A filter over its budget cannot say the change is allowed: the invariant fails.
                self.results[key] = True
                self.over_budget[key] = f"{type(exc).__name__}: {exc}"
            except Exception as exc:  # a filter error counts as "does not match", shown in the diagnosis
                self.results[key] = False
                self.errors[key] = f"{type(exc).__name__}: {exc}"
        return self.results[key]


def _open(ctx: Context, ledger: Ledger) -> list[int]:
    """Diff entries the negative checks may charge: not used, not near misses, not benign."""
    skip = ledger.used | ledger.near_miss | ledger.benign
    return [i for i in range(len(ctx.diff)) if i not in skip]


def invariant_checks(block: Block, ctx: Context, ledger: Ledger, filters: FilterCache) -> list[NegativeCheck]:
    """Step 6: one check per invariant, failed by any open diff entry its filter matches."""
    checks = []
    open_entries = _open(ctx, ledger)
    for inv in block.invariants:
        broken = [i for i in open_entries if ctx.diff[i].entity == inv.collection and filters.matches(inv, i)]
        errors = [filters.errors[(inv.index, i)] for i in open_entries if (inv.index, i) in filters.errors]
        label = f"invariant[{inv.index}] {inv.name!r} (state.{inv.collection}" + (
            f", filter {inv.filter!r})" if inv.filter else ")"
        )
        if broken:
            diagnosis = f"{label}: {len(broken)} change(s) it forbids: {_listing(ctx, broken)}"
        else:
            diagnosis = f"{label}: holds"
        if errors:
            diagnosis += f"; filter errors (counted as no match): {errors[:2]}"
        over = [
            filters.over_budget[(inv.index, i)] for i in open_entries if (inv.index, i) in filters.over_budget
        ]
        if over:
            diagnosis += f"; filter over its budget (counted as a match): {over[0]}"
        checks.append(
            NegativeCheck(
                kind="invariant",
                index=inv.index,
                name=inv.name,
                severity=inv.severity,
                passed=not broken,
                penalty=_penalty(inv.severity, not broken),
                entries=[ctx.diff[i].ref for i in broken],
                diagnosis=diagnosis,
            )
        )
    return checks


def constraint_checks(block: Block, ctx: Context) -> list[NegativeCheck]:
    """Step 7: each constraint ``expr`` is a check with its own severity."""
    checks = []
    for con in block.constraints:
        try:
            ok = bool(run_expr(compile_expr(con.expr), ctx.scope.names(None)))
            why = "holds" if ok else f"expr {con.expr!r} is false"
        except Exception as exc:  # an expression error fails the constraint, never the evaluator
            ok, why = False, f"expr {con.expr!r} raised {type(exc).__name__}: {exc}"
        checks.append(
            NegativeCheck(
                kind="constraint",
                index=con.index,
                name=con.name,
                severity=con.severity,
                passed=ok,
                penalty=_penalty(con.severity, ok),
                diagnosis=f"constraint[{con.index}] {con.name!r}: {why}",
            )
        )
    return checks


def sweep_checks(
    block: Block, ctx: Context, ledger: Ledger, filters: FilterCache, named_collections: set[str]
) -> list[NegativeCheck]:
    """Step 8: charge every open diff entry no invariant already covers."""
    if block.constraints and not block.positives:
        return []
    checks = []
    for i in _open(ctx, ledger):
        entry = ctx.diff[i]
        covering = [inv for inv in block.invariants if inv.collection == entry.entity]
        if any(inv.filter is None or inv.comprehensive or filters.matches(inv, i) for inv in covering):
            continue
        named = entry.entity in named_collections
        severity = "medium" if named else "high"
        word = "Unaccounted" if named else "Unexpected"
        name = f"{word} {entry.kind} in {entry.entity} (id={entry.entity_id})"
        why = (
            "a positive entry names this collection but none used this change"
            if named
            else "no positive entry names this collection"
        )
        checks.append(
            NegativeCheck(
                kind="collateral",
                name=name,
                severity=severity,
                passed=False,
                penalty=SEVERITY_PENALTY[severity],
                entries=[entry.ref],
                diagnosis=f"{name}: {entry.describe()}; {why}",
            )
        )
    return checks


def surplus_checks(block: Block, ctx: Context, ledger: Ledger) -> list[NegativeCheck]:
    """Step 9: a ``create[i]`` named invariant fails when more candidates qualified than slots."""
    checks = []
    for spec in block.surplus:
        eligible = ledger.eligible.get(spec.create_index, 0)
        slots = ledger.slots.get(spec.create_index, 0)
        extra = [ctx.diff[i].ref for i in ledger.surplus.get(spec.create_index, [])]
        ok = eligible <= slots
        diagnosis = (
            f"create[{spec.create_index}] {spec.name!r}: {eligible} eligible candidate(s) for {slots} slot(s)"
        )
        if not ok:
            diagnosis += f"; surplus: {extra}"
        checks.append(
            NegativeCheck(
                kind="surplus",
                index=spec.create_index,
                name=spec.name,
                severity=spec.severity,
                passed=ok,
                penalty=_penalty(spec.severity, ok),
                entries=[] if ok else extra,
                diagnosis=diagnosis,
            )
        )
    return checks
