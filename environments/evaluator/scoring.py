"""``match`` (steps 1-11 of the canonical-diff scoring) and ``evaluate`` (diff + match + events)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from pydantic import TypeAdapter

from ..event_conditions import check_event_conditions
from .diff import Create, Delete, DiffEntry, Update, compute_diff, entries_sort_key
from .negatives import (
    FilterCache,
    constraint_checks,
    invariant_checks,
    is_benign,
    surplus_checks,
    sweep_checks,
)
from .positives import Context, Ledger, resolve_collection, score_entry
from .predicates import Scope
from .sandbox import to_datetime
from .spec import Block, parse_canonical_diff
from .templates import resolve_templates
from .verdict import AlternativeResult, Verdict
from .views import MappingView, StateView

_DIFF_ADAPTER: TypeAdapter[list[DiffEntry]] = TypeAdapter(list[DiffEntry])


def _plain(value: Any) -> Any:
    """A pydantic model becomes its JSON-shaped dump; mappings and None pass through."""
    if value is None:
        return {}
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    return value


def _context(
    diff: Sequence[Any],
    targets: Any,
    initial: Any,
    final: Any,
    session_start: Any,
    state_model: type | None = None,
) -> Context:
    entries = list(diff)
    if entries and not all(isinstance(e, (Create, Update, Delete)) for e in entries):
        entries = _DIFF_ADAPTER.validate_python(
            [e if isinstance(e, Mapping) else e.model_dump() for e in entries]
        )
    entries.sort(key=entries_sort_key)  # "first candidate" must not depend on the caller's order
    initial, final, targets = _plain(initial), _plain(final), _plain(targets)
    scope = Scope(
        targets=targets,
        target=MappingView(targets, "target"),
        initial=StateView(initial, "initial", model=state_model),
        state=StateView(final, "state", model=state_model),
        session_start=to_datetime(session_start) if session_start not in (None, "") else None,
    )
    collections = set(initial) | set(final) | {e.entity for e in entries}
    return Context(diff=entries, initial=initial, final=final, scope=scope, collections=collections)


def _score_block(block: Block, ctx: Context, benign_fields: Mapping[str, Iterable[str]] | None) -> Verdict:
    ledger = Ledger(benign={i for i, e in enumerate(ctx.diff) if is_benign(e, benign_fields)})
    positive = [score_entry(entry, ctx, ledger) for entry in block.positives]
    named = {resolve_collection(entry, ctx.collections) for entry in block.positives}
    filters = FilterCache(ctx)
    negative = (
        invariant_checks(block, ctx, ledger, filters)
        + constraint_checks(block, ctx)
        + sweep_checks(block, ctx, ledger, filters, named)
        + surplus_checks(block, ctx, ledger)
    )
    total = sum(c.weight for c in positive)
    earned = sum(c.earned for c in positive)
    if block.positives:
        raw = earned / total if total > 0 else 1.0
        charged = negative
    elif block.constraints:
        weights = sum(c.weight for c in block.constraints)
        results = [n for n in negative if n.kind == "constraint"]
        kept = sum(c.weight for c, r in zip(block.constraints, results) if r.passed)
        raw = kept / weights if weights > 0 else 1.0
        charged = [n for n in negative if n.kind != "constraint"]
    else:
        raw = 1.0
        charged = negative
    penalty = sum(n.penalty for n in charged)
    return Verdict(
        score=round(min(1.0, max(0.0, raw - penalty)), 6),
        passed=all(c.passed for c in positive) and all(n.passed for n in negative),
        raw_score=round(raw, 6),
        penalty=round(penalty, 6),
        earned_weight=round(earned, 6),
        total_weight=round(total, 6),
        positive_checks=positive,
        negative_checks=negative,
        diff_size=len(ctx.diff),
        benign=[ctx.diff[i].ref for i in sorted(ledger.benign)],
    )


def _critical_ok(verdict: Verdict) -> bool:
    return all(
        n.passed for n in verdict.negative_checks if n.kind == "constraint" and n.severity == "critical"
    )


def match(
    diff: Sequence[DiffEntry] | Sequence[Mapping[str, Any]],
    canonical_diff: Any,
    *,
    targets: Mapping[str, Any] | None = None,
    initial: Mapping[str, Any] | None = None,
    final: Mapping[str, Any] | None = None,
    session_start: datetime | str | None = None,
    benign_fields: Mapping[str, Iterable[str]] | None = None,
    state_model: type | None = None,
) -> Verdict:
    """Score ``diff`` (entries, or entries as JSON) against ``canonical_diff`` (a mapping as in the
    task YAML, or a model).

    ``targets`` are the session's latent targets (``target`` in expressions, ``{target.x}`` in
    predicate values); ``initial``/``final`` are the states (``initial``/``state``), needed for
    ``where`` on updates and for expressions that read the state; ``state_model`` (the site's
    state model class) makes its declared state helpers callable. Raises ``CanonicalDiffError``
    only for a malformed canonical diff; attempt data never makes it raise.
    """
    blocks = parse_canonical_diff(canonical_diff)
    ctx = _context(diff, targets, initial, final, session_start, state_model)
    verdicts = [_score_block(block, ctx, benign_fields) for block in blocks]
    if len(verdicts) == 1:
        return verdicts[0]
    summaries = [
        AlternativeResult(
            index=n, score=v.score, passed=v.passed, failures=v.failures, critical_ok=_critical_ok(v)
        )
        for n, v in enumerate(verdicts)
    ]
    pool = [s for s in summaries if s.critical_ok] or summaries
    best = max(pool, key=lambda s: (s.score, s.passed, -s.failures, -s.index))
    return verdicts[best.index].model_copy(update={"alternative": best.index, "alternatives": summaries})


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def evaluate(task: Any, session: Any, *, ignore_fields: Mapping[str, Iterable[str]] | None = None) -> Verdict:
    """Diff the session's initial and final states, match the task's canonical diff, and report
    the task's event conditions (if any) beside the score without changing it.

    ``task`` needs ``canonical_diff`` and may have ``event_conditions``; ``session`` needs
    ``initial_state``, ``state``, ``targets`` and ``session_start`` and may have ``events``,
    ``ignore_fields``, ``benign_fields`` and ``state_model`` (whose state helpers expressions call).
    """
    initial = _plain(_get(session, "initial_state"))
    final = _plain(_get(session, "state"))
    ignore = ignore_fields if ignore_fields is not None else _get(session, "ignore_fields")
    diff = compute_diff(initial, final, ignore_fields=ignore)
    verdict = match(
        diff,
        _get(task, "canonical_diff"),
        targets=_get(session, "targets"),
        initial=initial,
        final=final,
        session_start=_get(session, "session_start"),
        benign_fields=_get(session, "benign_fields"),
        state_model=_get(session, "state_model"),
    )
    conditions = _get(task, "event_conditions")
    if conditions:
        # Conditions name targets the way canonical diffs do ('{target.note_id}'): resolve them first.
        plain = [c.model_dump(exclude_none=True) if hasattr(c, "model_dump") else c for c in conditions]
        resolved = resolve_templates(plain, _get(session, "targets") or {})
        result = check_event_conditions(resolved, _get(session, "events") or [])
        verdict = verdict.model_copy(
            update={"event_match_score": result.score, "event_checks": result.conditions}
        )
    return verdict
