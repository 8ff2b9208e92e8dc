"""The in-process budget of one ``expr`` evaluation: steps, items and the size of every value.

Expressions run in worker threads, where no signal or timer can stop them, so the sandbox stops
them itself. The rewritten expression (``sandbox._Rewriter``) calls the guards below around every
operation whose cost depends on the data: each comprehension item, each arithmetic operation, each
comparison, each call's arguments and result, each slice and each f-string. A guard that sees the
budget run out raises :class:`ExprBudgetExceeded` *before* the expensive operation runs whenever
the size of its result can be known in advance (``'x' * 10**9``, ``10**10**6``,
``s.replace('', s)``, ``'{}'.center(10**9)``), and right after it otherwise (where the result is
bounded by inputs that were themselves checked).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from .views import ExprRuntimeError, MappingView

MAX_STEPS = 1_000_000  # weighted AST nodes (a comprehension body once per item) + elements read
MAX_ITEMS = 100_000  # loop iterations and comprehension items, over the whole evaluation
MAX_LENGTH = 100_000  # elements of one string, list, tuple, set or dict
MAX_INT_BITS = 4_096  # bits of one integer (about 1,233 decimal digits)
MAX_CELLS = 2_000_000  # elements of all the strings and containers one evaluation builds
# Copying or comparing characters runs at memory speed, so it costs a step per this many; an
# element of a list, set or dict costs a step each (a Python-level comparison or reference).
TEXT_PER_STEP = 16


class ExprBudgetExceeded(ExprRuntimeError):
    """An expression would exceed its budget; it is stopped before (or right after) the step."""


@dataclass
class Budget:
    """What one evaluation has used so far."""

    steps: int = 0
    items: int = 0
    cells: int = 0

    def charge(self, steps: int) -> None:
        self.steps += steps
        if self.steps > MAX_STEPS:
            raise ExprBudgetExceeded(
                f"the expression took more than {MAX_STEPS:,} steps; "
                "narrow the collections it walks or avoid nested loops"
            )

    def item(self, weight: int) -> None:
        self.items += 1
        if self.items > MAX_ITEMS:
            raise ExprBudgetExceeded(
                f"the expression went through more than {MAX_ITEMS:,} loop or comprehension items"
            )
        self.charge(weight)

    def build(self, size: int, what: str) -> None:
        """Account for a value of ``size`` elements about to be built (raises first if too big)."""
        if size > MAX_LENGTH:
            raise ExprBudgetExceeded(f"{what} would have {size:,} elements (limit {MAX_LENGTH:,})")
        self.cells += size
        if self.cells > MAX_CELLS:
            raise ExprBudgetExceeded(
                f"the expression built more than {MAX_CELLS:,} string or list elements in all"
            )
        self.charge(size // TEXT_PER_STEP)


_CURRENT: ContextVar[Budget] = ContextVar("expr_budget")


def current() -> Budget:
    """The budget of the evaluation running in this thread."""
    try:
        return _CURRENT.get()
    except LookupError:  # a guard reached outside run_expr (a leaked generator): refuse it
        raise ExprBudgetExceeded("expression code ran outside its evaluation") from None


def start() -> Any:
    """Begin an evaluation with a fresh budget; returns the token for :func:`finish`."""
    return _CURRENT.set(Budget())


def finish(token: Any) -> None:
    _CURRENT.reset(token)


_SIZED = (str, list, tuple, set, frozenset, dict, MappingView, range)


def size_of(value: Any) -> int:
    """Elements of a string or container; 0 for anything else."""
    return len(value) if isinstance(value, _SIZED) else 0


def cost_of(value: Any) -> int:
    """Steps to read every element of ``value`` (see TEXT_PER_STEP)."""
    if isinstance(value, str):
        return len(value) // TEXT_PER_STEP
    return len(value) if isinstance(value, _SIZED) else 0


def check_value(value: Any, what: str = "a value") -> Any:
    """Refuse an integer past MAX_INT_BITS or a container past MAX_LENGTH; returns the value."""
    if type(value) is int and value.bit_length() > MAX_INT_BITS:
        raise ExprBudgetExceeded(
            f"{what} would be an integer of {value.bit_length():,} bits (limit {MAX_INT_BITS:,})"
        )
    if isinstance(value, _SIZED) and len(value) > MAX_LENGTH:
        raise ExprBudgetExceeded(f"{what} would have {len(value):,} elements (limit {MAX_LENGTH:,})")
    return value


def text_size(value: Any, limit: int = MAX_LENGTH) -> int:
    """An upper bound of ``len(str(value))``, cut short once past ``limit``."""
    if isinstance(value, str):
        return len(value) + 2
    if value is None or isinstance(value, (bool, float, Decimal)):
        return 40 if not isinstance(value, Decimal) else len(value.as_tuple().digits) + 40
    if isinstance(value, int):
        return value.bit_length() // 3 + 2
    items: Iterable[Any]
    if isinstance(value, MappingView):
        items = (v for kv in value._data.items() for v in kv)
    elif isinstance(value, Mapping):
        items = (v for kv in value.items() for v in kv)
    elif isinstance(value, (list, tuple, set, frozenset)):
        items = value
    else:
        return 80  # dates, generators and other small reprs
    total = 2
    for item in items:
        total += text_size(item, limit - total) + 2
        if total > limit:
            break
    return total


# ---- guards the rewritten expression calls (named __ht_* in its scope)


def guard_iter(iterable: Any, weight: int) -> Iterator[Any]:
    """A comprehension's iterable: each item costs one item and the body's weight in steps."""
    budget = current()
    for item in iterable:
        budget.item(weight)
        yield item


def guard_tick(weight: int, value: Any) -> Any:
    """A lambda body (``key=``) ran once more."""
    current().charge(weight)
    return value


def guard_sized(value: Any) -> Any:
    """An operand of a comparison: comparing reads every element."""
    if isinstance(value, _SIZED):
        current().charge(cost_of(value))
    return value


def guard_built(value: Any) -> Any:
    """A slice or f-string result: count what was built."""
    current().build(size_of(value), "a slice or f-string")
    return value


def guard_text(value: Any) -> Any:
    """A value about to be formatted into text (an f-string field, ``str()``): refuse huge text."""
    size = text_size(value)
    if size > MAX_LENGTH:
        raise ExprBudgetExceeded(f"the text of a value would be more than {MAX_LENGTH:,} characters")
    current().charge(size)  # converting values to text runs far slower than copying text
    return value


def _predict(op: str, left: Any, right: Any) -> bool:
    """Refuse a binary operation whose result would be too big, before computing it; True when
    the result's elements were already counted as built."""
    budget = current()
    if op == "*":
        for seq, count in ((left, right), (right, left)):
            if isinstance(seq, (str, list, tuple)) and isinstance(count, int) and not isinstance(count, bool):
                budget.build(len(seq) * max(count, 0), f"repeating a {type(seq).__name__}")
                return True
        if isinstance(left, int) and isinstance(right, int):
            _int_bits(left.bit_length() + right.bit_length(), "a product")
    elif op == "**":
        # Floats overflow quickly and Decimal is bounded by its context's precision; only an
        # integer power can grow without bound.
        if type(left) is int and type(right) is int and right > 0 and abs(left) > 1:
            _int_bits(int(right * math.log2(abs(left))) + 1, "a power")
    elif op in {"+", "-"}:
        if isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple)):
            budget.build(len(left) + len(right), "a concatenation")
            return True
    elif op == "%" and isinstance(left, str):
        raise ExprRuntimeError(
            "%-formatting of text is not allowed; use an f-string without a format spec, or round(x, 2)"
        )
    return False


def _int_bits(bits: int, what: str) -> None:
    if bits > MAX_INT_BITS:
        raise ExprBudgetExceeded(
            f"{what} would be an integer of about {bits:,} bits (limit {MAX_INT_BITS:,})"
        )


_NUMBERS = frozenset({(int, int), (int, float), (float, int), (float, float)})
BINARY_OPS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
    "|": operator.or_,
    "&": operator.and_,
    "^": operator.xor,
}


def guard_binop(op: str, left: Any, right: Any) -> Any:
    """``left op right`` after predicting its size; sets and dicts combine within their bound."""
    kinds = (type(left), type(right))
    if kinds in _NUMBERS and op != "**":  # the common case, kept cheap: plain arithmetic
        if op == "*" and kinds == (int, int):
            _int_bits(left.bit_length() + right.bit_length(), "a product")
        result = BINARY_OPS[op](left, right)
        if type(result) is int and result.bit_length() > MAX_INT_BITS:
            _int_bits(result.bit_length(), f"the result of {op}")
        return result
    counted = _predict(op, left, right)
    result = BINARY_OPS[op](left, right)
    check_value(result, f"the result of {op}")
    if isinstance(result, _SIZED) and not counted:
        current().build(len(result), f"the result of {op}")
    return result
