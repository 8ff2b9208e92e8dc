"""What an ``expr`` may call and read: pure builtins, methods by type, attributes by type.

Everything here is side-effect free and deterministic (no clock: ``datetime.now`` is not here).
Builtins are wrapped so that each charges the evaluation's budget for the elements it reads and
checks what it returns; methods are dispatched by the runtime type of the object, so ``x.lower()``
works on a string and fails, naming the allowed methods, on a number.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from . import budget as b
from .views import ExprRuntimeError, MappingView, StateView


def to_datetime(value: Any) -> datetime | None:
    """Parse an ISO-8601 string (or pass a date/datetime) into an aware UTC datetime."""
    if value is None:
        return None
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, date):
        parsed = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    else:
        raise ExprRuntimeError(f"dt() needs an ISO date string, got {type(value).__name__}")
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _text(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    def apply(value: Any, *args: Any) -> Any:
        if not isinstance(value, str):
            raise ExprRuntimeError(f"{name}() needs a string, got {type(value).__name__}")
        return func(value, *args)

    apply.__name__ = name
    return apply


def _metered(name: str, func: Callable[..., Any], *, text: bool = False) -> Callable[..., Any]:
    """``func`` charging the budget for the elements of its arguments and checking its result."""

    def call(*args: Any, **kwargs: Any) -> Any:
        budget = b.current()
        budget.charge(1 + sum(b.cost_of(a) for a in args))
        if text:
            for arg in args:
                b.guard_text(arg)
        result = func(*args, **kwargs)
        b.check_value(result, f"{name}()")
        b.build_result(result, f"{name}()")
        return result

    call.__name__ = name
    return call


def _sum(values: Iterable[Any], start: Any = 0) -> Any:
    # Summing lists or tuples copies the running total at every step (quadratic): numbers only.
    if not isinstance(start, (int, float, Decimal)):
        raise ExprRuntimeError("sum() adds numbers; to join lists write [y for x in xs for y in x]")
    return sum(values, start)


def _range(*args: int) -> range:
    span = range(*args)
    b.check_value(span, "range()")  # lazy, so it builds nothing; its items are counted when walked
    return span


_PURE: dict[str, Callable[..., Any]] = {
    "len": len,
    "min": min,
    "max": max,
    "sum": _sum,
    "any": any,
    "all": all,
    "abs": abs,
    "round": round,
    "sorted": sorted,
    "set": set,
    "frozenset": frozenset,
    "list": list,
    "tuple": tuple,
    "dict": dict,
    "int": int,
    "float": float,
    "bool": bool,
    "next": next,
    "enumerate": enumerate,
    "zip": zip,
    "reversed": reversed,
    "divmod": divmod,
    "lower": _text("lower", str.lower),
    "upper": _text("upper", str.upper),
    "strip": _text("strip", str.strip),
    "startswith": _text("startswith", str.startswith),
    "endswith": _text("endswith", str.endswith),
    "dt": to_datetime,
    "isclose": lambda a, c: math.isclose(float(a), float(c), abs_tol=0.01),
}
# Constructors that cannot grow: called directly, and their class methods are allow-listed below.
CLASSES: dict[str, type] = {"Decimal": Decimal, "date": date, "datetime": datetime, "timedelta": timedelta}

BUILTINS: dict[str, Any] = {
    **{name: _metered(name, func) for name, func in _PURE.items()},
    "str": _metered("str", str, text=True),
    "repr": _metered("repr", repr, text=True),
    "range": _range,
    **CLASSES,
}
"""Every function an expression can call by name."""

KEYWORDS = frozenset(
    {
        "default",
        "reverse",
        "start",
        "key",
        "maxsplit",
        "sep",
        "keepends",
        "ndigits",
        "strict",
        "year",
        "month",
        "day",
        "hour",
        "minute",
        "second",
        "microsecond",
        "weeks",
        "days",
        "hours",
        "minutes",
        "seconds",
        "milliseconds",
        "microseconds",
        "exp",
        "rounding",
    }
)
"""Keyword arguments an expression may pass (``**mapping`` never)."""

_STR_METHODS = frozenset(
    {
        "lower",
        "upper",
        "strip",
        "lstrip",
        "rstrip",
        "split",
        "rsplit",
        "splitlines",
        "startswith",
        "endswith",
        "replace",
        "find",
        "rfind",
        "index",
        "rindex",
        "count",
        "join",
        "isdigit",
        "isalpha",
        "isalnum",
        "isnumeric",
        "isdecimal",
        "isspace",
        "islower",
        "isupper",
        "istitle",
        "title",
        "capitalize",
        "casefold",
        "swapcase",
        "partition",
        "rpartition",
        "zfill",
        "ljust",
        "rjust",
        "center",
        "removeprefix",
        "removesuffix",
    }
)
_DATE_METHODS = frozenset(
    {"isoformat", "weekday", "isoweekday", "strftime", "replace", "toordinal", "isocalendar"}
)
METHODS: dict[str, frozenset[str]] = {
    "str": _STR_METHODS,
    "int": frozenset({"bit_length"}),
    "float": frozenset({"is_integer"}),
    "Decimal": frozenset(
        {
            "quantize",
            "normalize",
            "is_zero",
            "is_signed",
            "is_nan",
            "is_finite",
            "to_integral_value",
            "copy_abs",
            "compare",
            "adjusted",
        }
    ),
    "date": _DATE_METHODS,
    "datetime": _DATE_METHODS | {"date", "timestamp"},
    "timedelta": frozenset({"total_seconds"}),
    "list/tuple": frozenset({"index", "count"}),
    "dict and entity/state views": frozenset({"get", "keys", "values", "items"}),
    "set": frozenset(
        {
            "union",
            "intersection",
            "difference",
            "symmetric_difference",
            "issubset",
            "issuperset",
            "isdisjoint",
        }
    ),
}
"""Methods an expression may call, by the type of the value they are called on."""

CLASS_METHODS: dict[type, frozenset[str]] = {
    datetime: frozenset({"fromisoformat", "strptime", "combine", "fromordinal"}),
    date: frozenset({"fromisoformat", "fromordinal"}),
}
ATTRIBUTES: dict[type, frozenset[str]] = {
    datetime: frozenset({"year", "month", "day", "hour", "minute", "second", "microsecond"}),
    date: frozenset({"year", "month", "day"}),
    timedelta: frozenset({"days", "seconds", "microseconds"}),
    time: frozenset({"hour", "minute", "second", "microsecond"}),
}
"""Attributes an expression may read on values that are not entity or state views."""

METHOD_NAMES = frozenset().union(*METHODS.values(), *CLASS_METHODS.values())


def _methods_of(obj: Any) -> tuple[str, frozenset[str]]:
    for kind, label in (
        (str, "str"),
        (bool, "int"),
        (int, "int"),
        (float, "float"),
        (Decimal, "Decimal"),
        (datetime, "datetime"),
        (date, "date"),
        (timedelta, "timedelta"),
        (list, "list/tuple"),
        (tuple, "list/tuple"),
        (dict, "dict and entity/state views"),
        (set, "set"),
        (frozenset, "set"),
    ):
        if isinstance(obj, kind):
            return label, METHODS[label]
    return type(obj).__name__, frozenset()


def _predict_str(text: str, name: str, args: tuple[Any, ...]) -> None:
    """Refuse a string method whose result would be too long, before running it."""
    budget = b.current()
    if name == "replace" and len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        old, new = args[0], args[1]
        hits = len(text) + 1 if old == "" else text.count(old)
        if len(args) > 2 and isinstance(args[2], int) and args[2] >= 0:
            hits = min(hits, args[2])
        budget.build(len(text) + hits * max(len(new) - len(old), 0), "str.replace()")
    elif name in {"zfill", "ljust", "rjust", "center"} and args and isinstance(args[0], int):
        budget.build(max(args[0], len(text)), f"str.{name}()")


def _join(text: str, parts: Iterable[Any]) -> str:
    items = list(parts)
    size = sum(len(p) for p in items if isinstance(p, str)) + len(text) * max(len(items) - 1, 0)
    b.current().build(size, "str.join()")
    return text.join(items)


def call_method(obj: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    """``obj.name(*args, **kwargs)`` if ``name`` is allowed on ``obj``'s type (or a state helper)."""
    budget = b.current()
    budget.charge(1 + b.cost_of(obj) + sum(b.cost_of(a) for a in args))
    if isinstance(obj, StateView) and obj.has_helper(name):
        result = obj.call_helper(name, *args, **kwargs)
        b.check_value(result, f"{name}()")
        b.build_result(result, f"the helper {name}()")
        return result
    if isinstance(obj, MappingView):
        if name in {"get", "keys", "values", "items"}:
            return getattr(obj, name)(*args, **kwargs)
        extra = (
            f"; the state helpers of this site: {sorted(obj.helper_names())}"
            if isinstance(obj, StateView)
            else ""
        )
        raise ExprRuntimeError(
            f"{obj._label} has no method .{name}(); entity and state views have "
            f"get, keys, values, items{extra}"
        )
    if isinstance(obj, type):
        allowed = CLASS_METHODS.get(obj, frozenset())
        if name not in allowed:
            raise ExprRuntimeError(
                f"{obj.__name__}.{name}() is not allowed; allowed: "
                f"{', '.join(f'{obj.__name__}.{m}()' for m in sorted(allowed)) or 'none'}"
            )
        if name == "strptime" and len(args) >= 2:
            budget.parse_format(args[1])
        return getattr(obj, name)(*args, **kwargs)
    label, allowed = _methods_of(obj)
    if name not in allowed:
        raise ExprRuntimeError(
            f"{label} values have no allowed method .{name}(); allowed: "
            f"{', '.join(sorted(allowed)) or 'none'}"
        )
    if isinstance(obj, str):
        if name == "join":
            return _join(obj, args[0]) if len(args) == 1 and not kwargs else obj.join(*args)
        _predict_str(obj, name, args)
    result = getattr(obj, name)(*args, **kwargs)
    b.check_value(result, f".{name}()")
    b.build_result(result, f".{name}()")
    return result


def read_attribute(obj: Any, name: str) -> Any:
    """``obj.name``: a field of an entity/state/target view, or an allow-listed attribute."""
    if isinstance(obj, MappingView):
        return obj.field(name)
    for kind, allowed in ATTRIBUTES.items():
        if isinstance(obj, kind) and name in allowed:
            return getattr(obj, name)
    raise ExprRuntimeError(
        f"attribute access is only allowed on entities, states and targets (a.field) and on dates "
        f"(.year, .month, .day, ...), not on {type(obj).__name__} (.{name})"
    )
