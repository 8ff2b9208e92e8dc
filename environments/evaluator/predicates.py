"""The 19 predicate verbs of the canonical-diff grammar.

A predicate is a single-key mapping ``{verb: argument}``; a bare scalar or list means ``eq``.
Predicates are pure data except ``expr``, which runs in the sandbox. Evaluation never raises:
every failure, including an ``expr`` error or an unresolved template, is a false outcome whose
``reason`` says why. Malformed predicates are caught earlier by :func:`check_predicate`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from functools import lru_cache
from typing import Any

from .sandbox import UnsafeExpression, compile_expr, run_expr, to_datetime
from .templates import TemplateError, resolve_templates
from .views import MappingView, StateView, wrap

VERBS = (
    "any",
    "eq",
    "in",
    "between",
    "expr",
    "set_eq",
    "subset",
    "superset",
    "contains",
    "length",
    "substring",
    "substring_all",
    "substring_any",
    "regex",
    "matches_semantic",
    "fields",
    "not",
    "all_of",
    "any_of",
)
EQ_TOLERANCE = 0.01
SEMANTIC_THRESHOLD = 0.8
_NUMERIC = re.compile(r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$")


class CanonicalDiffError(ValueError):
    """The canonical diff itself is malformed (an authoring error, not the attempt's fault)."""


@dataclass
class Scope:
    """What predicates and expressions can see while one entry is being checked."""

    targets: Mapping[str, Any]
    target: MappingView
    initial: StateView
    state: StateView
    session_start: datetime | None
    slot: Any = None
    slot_name: str = "v"
    entity: Mapping[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def bind(self, *, slot: Any, slot_name: str, entity: Mapping[str, Any] | None) -> Scope:
        """A copy with the slot and entity bound (cheaper than dataclasses.replace)."""
        return Scope(
            self.targets,
            self.target,
            self.initial,
            self.state,
            self.session_start,
            slot,
            slot_name,
            entity,
            self.extra,
        )

    def names(self, x: Any) -> dict[str, Any]:
        bound = {
            "x": wrap(x),
            "v": wrap(self.slot),
            "target": self.target,
            "initial": self.initial,
            "state": self.state,
            "final": self.state,
            "session_start": self.session_start,
            "a": wrap(self.entity) if self.entity is not None else None,
        }
        if self.slot_name != "v":
            bound[self.slot_name] = bound["v"]
        bound.update(self.extra)
        return bound


@dataclass(frozen=True)
class Outcome:
    """A predicate's result; ``reason`` explains a false one."""

    ok: bool
    reason: str = ""


TRUE = Outcome(True)


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def as_number(value: Any) -> float | None:
    """A number, or a numeric string read as one; None for anything else (bools included)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float, Decimal)):
        return float(value)
    if isinstance(value, str) and _NUMERIC.match(value):
        return float(value)
    return None


def values_equal(actual: Any, expected: Any) -> bool:
    """``eq``: strings exactly, numbers (or numeric strings vs numbers) within 0.01, else ==."""
    if isinstance(actual, str) and isinstance(expected, str):
        return actual == expected
    if isinstance(actual, bool) or isinstance(expected, bool):
        return isinstance(actual, bool) and isinstance(expected, bool) and actual == expected
    left, right = as_number(actual), as_number(expected)
    if left is not None and right is not None:
        return abs(left - right) <= EQ_TOLERANCE + 1e-9
    if isinstance(actual, (datetime, date)) or isinstance(expected, (datetime, date)):
        try:
            return to_datetime(actual) == to_datetime(expected)
        except (ValueError, TypeError):
            return False
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        return len(actual) == len(expected) and all(map(values_equal, actual, expected))
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        return actual.keys() == expected.keys() and all(values_equal(actual[k], expected[k]) for k in actual)
    return actual == expected


def _has(items: Any, wanted: Any) -> bool:
    return any(values_equal(item, wanted) for item in items)


def _split(predicate: Any) -> tuple[str, Any]:
    if isinstance(predicate, Mapping):
        if len(predicate) == 1:
            verb, argument = next(iter(predicate.items()))
            if verb in VERBS:
                return verb, argument
        return "?", predicate
    return "eq", predicate


def _text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if as_number(value) is not None:
        return str(value)
    return None


def _normalise(text: str) -> str:
    return " ".join(text.lower().split())


@lru_cache(maxsize=1024)
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _collection(value: Any) -> list[Any] | None:
    if isinstance(value, (list, tuple, set, frozenset)):
        return list(value)
    return None


def check(predicate: Any, value: Any, scope: Scope) -> Outcome:
    """Evaluate ``predicate`` on ``value``; never raises."""
    verb, argument = _split(predicate)
    if verb == "?":
        return Outcome(False, f"malformed predicate {_short(predicate)}")
    if verb not in _NESTED and verb != "expr":
        try:
            argument = resolve_templates(argument, scope.targets)
        except TemplateError as exc:
            return Outcome(False, f"{verb}: {exc}")
    try:
        return _VERB_FUNCS[verb](argument, value, scope)
    except Exception as exc:  # a predicate is data; any surprise is a false outcome, not a crash
        return Outcome(False, f"{verb} {_short(argument)}: {type(exc).__name__}: {exc}")


def _any(arg: Any, value: Any, scope: Scope) -> Outcome:
    return TRUE


def _eq(arg: Any, value: Any, scope: Scope) -> Outcome:
    return TRUE if values_equal(value, arg) else Outcome(False, f"eq {_short(arg)}: got {_short(value)}")


def _in(arg: Any, value: Any, scope: Scope) -> Outcome:
    options = _collection(arg)
    if options is None:
        options = [arg]
    return TRUE if _has(options, value) else Outcome(False, f"in {_short(options)}: got {_short(value)}")


def _between(arg: Any, value: Any, scope: Scope) -> Outcome:
    low, high = arg
    number = as_number(value)
    if number is not None:
        low_n = None if low is None else as_number(low)
        high_n = None if high is None else as_number(high)
        inside = (low_n is None or number >= low_n - 1e-9) and (high_n is None or number <= high_n + 1e-9)
    elif isinstance(value, str):
        inside = (low is None or value >= str(low)) and (high is None or value <= str(high))
    else:
        inside = False
    return TRUE if inside else Outcome(False, f"between {_short(arg)}: got {_short(value)}")


def _expr(arg: Any, value: Any, scope: Scope) -> Outcome:
    compiled = compile_expr(arg, frozenset({scope.slot_name}))
    try:
        result = run_expr(compiled, scope.names(value))
    except Exception as exc:  # an expression error counts as false, with the error shown
        return Outcome(False, f"expr {arg!r} raised {type(exc).__name__}: {exc}")
    return TRUE if result else Outcome(False, f"expr {arg!r} is false for x={_short(value)}")


def _set_verb(name: str, test: Callable[[list[Any], list[Any]], bool]) -> Callable[..., Outcome]:
    def run(arg: Any, value: Any, scope: Scope) -> Outcome:
        actual, expected = _collection(value), _collection(arg)
        if actual is None or expected is None:
            return Outcome(False, f"{name}: needs lists, got {_short(value)}")
        if test(actual, expected):
            return TRUE
        return Outcome(False, f"{name} {_short(expected)}: got {_short(actual)}")

    return run


def _contains(arg: Any, value: Any, scope: Scope) -> Outcome:
    if isinstance(value, str):
        found = isinstance(arg, str) and arg in value
    elif isinstance(value, Mapping):
        found = arg in value
    elif _collection(value) is not None:
        found = _has(value, arg)
    else:
        found = False
    return TRUE if found else Outcome(False, f"contains {_short(arg)}: got {_short(value)}")


def _length(arg: Any, value: Any, scope: Scope) -> Outcome:
    if not isinstance(value, (str, list, tuple, set, frozenset, Mapping)):
        return Outcome(False, f"length: {_short(value)} has no length")
    inner = check(arg, len(value), scope)
    return TRUE if inner.ok else Outcome(False, f"length {len(value)}: {inner.reason}")


def _substring_verb(name: str, need_all: bool | None) -> Callable[..., Outcome]:
    def run(arg: Any, value: Any, scope: Scope) -> Outcome:
        text = _text(value)
        needles = [arg] if need_all is None else list(arg)
        if text is None:
            return Outcome(False, f"{name} {_short(arg)}: {_short(value)} is not text")
        hits = [str(n).lower() in text.lower() for n in needles]
        ok = any(hits) if need_all is False else all(hits)
        return TRUE if ok else Outcome(False, f"{name} {_short(arg)}: not in {_short(value)}")

    return run


def _regex_verb(arg: Any, value: Any, scope: Scope) -> Outcome:
    text = _text(value)
    if text is not None and _regex(arg).search(text):
        return TRUE
    return Outcome(False, f"regex {arg!r}: no match in {_short(value)}")


def _semantic(arg: Any, value: Any, scope: Scope) -> Outcome:
    if isinstance(arg, Mapping):
        wanted, threshold = arg["value"], float(arg.get("threshold", SEMANTIC_THRESHOLD))
    else:
        wanted, threshold = arg, SEMANTIC_THRESHOLD
    text = _text(value)
    if text is None:
        return Outcome(False, f"matches_semantic: {_short(value)} is not text")
    ratio = difflib.SequenceMatcher(None, _normalise(text), _normalise(str(wanted))).ratio()
    if ratio >= threshold:
        return TRUE
    return Outcome(False, f"matches_semantic {_short(wanted)}: ratio {ratio:.2f} < {threshold}")


def _fields(arg: Any, value: Any, scope: Scope) -> Outcome:
    if not isinstance(value, Mapping):
        return Outcome(False, f"fields: {_short(value)} is not an object")
    for name, inner in arg.items():
        outcome = check(inner, value.get(name), scope)
        if not outcome.ok:
            return Outcome(False, f"fields.{name}: {outcome.reason}")
    return TRUE


def _not(arg: Any, value: Any, scope: Scope) -> Outcome:
    if check(arg, value, scope).ok:
        return Outcome(False, f"not {_short(arg)}: it holds for {_short(value)}")
    return TRUE


def _all_of(arg: Any, value: Any, scope: Scope) -> Outcome:
    for position, inner in enumerate(arg):
        outcome = check(inner, value, scope)
        if not outcome.ok:
            return Outcome(False, f"all_of[{position}]: {outcome.reason}")
    return TRUE


def _any_of(arg: Any, value: Any, scope: Scope) -> Outcome:
    reasons = []
    for inner in arg:
        outcome = check(inner, value, scope)
        if outcome.ok:
            return TRUE
        reasons.append(outcome.reason)
    return Outcome(False, "any_of: none holds (" + "; ".join(reasons) + ")")


_NESTED = frozenset({"length", "fields", "not", "all_of", "any_of"})
_VERB_FUNCS: dict[str, Callable[[Any, Any, Scope], Outcome]] = {
    "any": _any,
    "eq": _eq,
    "in": _in,
    "between": _between,
    "expr": _expr,
    "set_eq": _set_verb("set_eq", lambda a, e: all(_has(e, i) for i in a) and all(_has(a, i) for i in e)),
    "subset": _set_verb("subset", lambda a, e: all(_has(e, i) for i in a)),
    "superset": _set_verb("superset", lambda a, e: all(_has(a, i) for i in e)),
    "contains": _contains,
    "length": _length,
    "substring": _substring_verb("substring", None),
    "substring_all": _substring_verb("substring_all", True),
    "substring_any": _substring_verb("substring_any", False),
    "regex": _regex_verb,
    "matches_semantic": _semantic,
    "fields": _fields,
    "not": _not,
    "all_of": _all_of,
    "any_of": _any_of,
}


def check_predicate(predicate: Any, where: str, extra_names: frozenset[str] = frozenset()) -> None:
    """Raise :class:`CanonicalDiffError` naming ``where`` if ``predicate`` is malformed."""
    verb, argument = _split(predicate)
    if verb == "?":
        raise CanonicalDiffError(
            f"{where}: {_short(predicate)} is not a predicate (a single-key mapping with one of "
            f"{', '.join(VERBS)}, or a bare value meaning eq)"
        )
    here = f"{where}.{verb}"
    if verb == "expr":
        try:
            compile_expr(argument, extra_names)
        except UnsafeExpression as exc:
            raise CanonicalDiffError(f"{here}: {exc}") from exc
    elif verb in {"length", "not"}:
        check_predicate(argument, here, extra_names)
    elif verb in {"all_of", "any_of"}:
        if not isinstance(argument, list) or not argument:
            raise CanonicalDiffError(f"{here}: needs a non-empty list of predicates")
        for position, inner in enumerate(argument):
            check_predicate(inner, f"{here}[{position}]", extra_names)
    elif verb == "fields":
        if not isinstance(argument, Mapping):
            raise CanonicalDiffError(f"{here}: needs a mapping of field -> predicate")
        for name, inner in argument.items():
            check_predicate(inner, f"{here}.{name}", extra_names)
    elif verb == "between":
        if not isinstance(argument, (list, str)) or (isinstance(argument, list) and len(argument) != 2):
            raise CanonicalDiffError(f"{here}: needs [low, high]")
    elif verb in {"substring_all", "substring_any", "set_eq", "subset", "superset"}:
        if not isinstance(argument, (list, str)):
            raise CanonicalDiffError(f"{here}: needs a list")
    elif verb == "regex":
        try:
            re.compile(argument)
        except (re.error, TypeError) as exc:
            raise CanonicalDiffError(f"{here}: invalid regular expression ({exc})") from exc
    elif verb == "matches_semantic" and isinstance(argument, Mapping):
        if "value" not in argument or not set(argument) <= {"value", "threshold"}:
            raise CanonicalDiffError(f"{here}: needs {{value, threshold?}}")
