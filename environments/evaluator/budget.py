"""The in-process budget of one ``expr`` evaluation: steps, items and the size of every value.

Expressions run in worker threads, where no signal or timer can stop them, so the sandbox stops
them itself. The rewritten expression (``sandbox._Rewriter``) calls the guards below around every
operation whose cost depends on the data: each comprehension item, each arithmetic operation, each
comparison, each call's arguments and result, each slice and each f-string. A guard that sees the
budget run out raises :class:`ExprBudgetExceeded` *before* the expensive operation runs whenever
the size of its result can be known in advance (``'x' * 10**9``, ``10**10**6``,
``s.replace('', s)``, ``'{}'.center(10**9)``), and right after it otherwise (where the result is
bounded by inputs that were themselves checked).

What is built is counted as the value it really is, not as its outer container: a list repeated
or collected by a comprehension counts the elements and characters of every item each time it
appears (``['x' * 99999] * 99999`` is ten billion characters, though Python builds it from one
string and 99,999 references), because whatever reads the result later (a bijection's matching,
the verdict's JSON, a diagnosis) reads it item by item. Entity and state views count one element
each: they refer to the state, which the expression did not build.

A step is calibrated to cost roughly the same CPU time whatever the expression; for the few
operations whose cost varies most (``datetime.strptime`` compiles a pattern for each new format)
the step charge says so, and the thread's CPU time is checked as well, every few dozen guard
calls, as a backstop for whatever a step count misjudges.
"""

from __future__ import annotations

import math
import operator
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from .views import ExprRuntimeError, MappingView

MAX_STEPS = 1_000_000  # weighted AST nodes (a comprehension body once per item) + elements read
MAX_ITEMS = 100_000  # loop iterations and comprehension items, over the whole evaluation
MAX_LENGTH = 100_000  # elements of one string, list, tuple, set or dict
MAX_INT_BITS = 4_096  # bits of one integer (about 1,233 decimal digits)
MAX_CELLS = 2_000_000  # elements and characters of everything one evaluation builds, counted deep
# This thread's CPU seconds for one evaluation: a backstop above the 100 ms the step limit is
# calibrated to, so that it stops only what steps cannot foresee, and not an expression near the
# step limit on a slower or busier machine (which would make a verdict depend on the machine).
MAX_CPU_S = 0.25
# datetime.strptime is Python code (~6 us a call, 60 steps) and compiles a pattern for each new
# format (~270 us, 3,000 steps); a step is worth ~0.1 us.
STEPS_PER_STRPTIME = 60
STEPS_PER_NEW_FORMAT = 3_000
_CLOCK_EVERY = 32  # guard calls between two reads of the thread's CPU clock (a read costs ~0.6 us)
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
    started: float = field(default_factory=time.thread_time)
    formats: set[str] = field(default_factory=set)
    _calls: int = 0

    def charge(self, steps: int) -> None:
        self.steps += steps
        if self.steps > MAX_STEPS:
            raise ExprBudgetExceeded(
                f"the expression took more than {MAX_STEPS:,} steps (the step limit); "
                "narrow the collections it walks or avoid nested loops"
            )
        self._calls += 1
        if self._calls % _CLOCK_EVERY == 0:
            self.check_clock()

    def check_clock(self) -> None:
        """Stop the evaluation once this thread has spent MAX_CPU_S of CPU time on it."""
        used = time.thread_time() - self.started
        if used > MAX_CPU_S:
            raise ExprBudgetExceeded(
                f"the expression used more than {MAX_CPU_S * 1000:.0f} ms of CPU time (the CPU limit; "
                f"{used * 1000:.0f} ms); make it do less work per item"
            )

    def parse_format(self, fmt: Any) -> None:
        """``datetime.strptime`` with ``fmt``: a format new to this evaluation compiles a pattern."""
        steps = STEPS_PER_STRPTIME
        if isinstance(fmt, str) and fmt not in self.formats:
            self.formats.add(fmt)
            steps += STEPS_PER_NEW_FORMAT + len(fmt)
        self.charge(steps)

    def item(self, weight: int) -> None:
        self.items += 1
        if self.items > MAX_ITEMS:
            raise ExprBudgetExceeded(
                f"the expression went through more than {MAX_ITEMS:,} loop or comprehension items "
                "(the items limit)"
            )
        self.charge(weight)

    def build(self, size: int, what: str, *, length: int | None = None) -> None:
        """Account for a value about to be built, of ``size`` elements and characters counted
        deep (see :func:`deep_size`) and ``length`` elements of its own (``size`` when not given);
        raises first if either is too big."""
        length = size if length is None else length
        if length > MAX_LENGTH:
            raise ExprBudgetExceeded(
                f"{what} would have {length:,} elements (the length limit, {MAX_LENGTH:,})"
            )
        self.cells += size
        if self.cells > MAX_CELLS:
            raise ExprBudgetExceeded(
                f"the expression built more than {MAX_CELLS:,} elements and characters in all "
                f"(the built limit; {what} came to {size:,})"
            )
        self.charge(size // TEXT_PER_STEP)


_CURRENT: ContextVar[Budget] = ContextVar("expr_budget")


def current() -> Budget:
    """The budget of the evaluation running in this thread."""
    try:
        return _CURRENT.get()
    except LookupError:  # a guard reached outside run_expr (a leaked generator): refuse it
        raise ExprBudgetExceeded("expression code ran outside its evaluation") from None


_OVERRUNS: ContextVar[list[str] | None] = ContextVar("expr_overruns", default=None)


@contextmanager
def overruns() -> Iterator[list[str]]:
    """Collect what every evaluation past a limit inside the block said, wherever the evaluator
    caught it (``humantrace tasks check`` runs a task's expressions under this)."""
    found: list[str] = []
    token = _OVERRUNS.set(found)
    try:
        yield found
    finally:
        _OVERRUNS.reset(token)


def note_overrun(message: str) -> None:
    """Record an evaluation past a limit for :func:`overruns` (nothing when none is listening)."""
    found = _OVERRUNS.get()
    if found is not None and message not in found:
        found.append(message)


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


def deep_size(value: Any, limit: int = MAX_CELLS, *, charge: bool = True) -> int:
    """Elements and characters of ``value`` counted through every list, tuple, set and dict in
    it, each time an item appears (a list holding one string twice counts it twice); a string
    counts its characters, an entity or state view one, anything else nothing. Stops counting
    once past ``limit``; walking charges a step per container element visited (unless not
    ``charge``, outside an evaluation), so that the counting itself stays within the budget."""
    total = 0
    visited = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (str, range)):
            total += len(item)
        elif isinstance(item, (list, tuple, set, frozenset, dict)):
            total += len(item)
            if total > limit:
                break
            if isinstance(item, dict):
                visited += 2 * len(item)
                stack.extend(v for kv in item.items() for v in kv if isinstance(v, _DEEP))
                continue
            visited += len(item)
            # Fast paths, run in C: items of which none holds more (numbers, views), or only text.
            kinds = set(map(type, item))
            if kinds.isdisjoint(_DEEP):
                continue
            if kinds == {str}:
                total += sum(map(len, item))
            else:
                stack.extend(v for v in item if isinstance(v, _DEEP))
        if total > limit:
            break
    if visited and charge:
        current().charge(visited)
    return total


_DEEP = (str, list, tuple, set, frozenset, dict, range)


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
    if isinstance(value, _SIZED):
        current().build(deep_size(value), "a slice or f-string", length=size_of(value))
    return value


def guard_element(value: Any) -> Any:
    """An item a comprehension adds to its result: its place and everything in it count."""
    budget = current()
    budget.build(
        1 + (deep_size(value) if isinstance(value, _DEEP) else 0), "an item of a comprehension", length=1
    )
    return value


def build_result(value: Any, what: str) -> None:
    """Count a container or string that a call has just built, deep (see :func:`deep_size`)."""
    if isinstance(value, _SIZED):
        current().build(deep_size(value), what, length=size_of(value))


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
                times = max(count, 0)
                # A repeated list holds its items `times` times over: count them all, deep.
                each = len(seq) if isinstance(seq, str) else deep_size(seq, MAX_CELLS // max(times, 1) + 1)
                budget.build(each * times, f"repeating a {type(seq).__name__}", length=len(seq) * times)
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
            budget.build(deep_size(left) + deep_size(right), "a concatenation", length=len(left) + len(right))
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
    if not counted:
        build_result(result, f"the result of {op}")
    return result
