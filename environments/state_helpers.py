"""State helpers: pure functions a site declares on its state model for task expressions.

A site marks a method of its state model (an ``EnvState`` subclass) with :func:`state_helper`::

    class BrokerState(EnvState):
        holdings: list[Holding] = []

        @state_helper
        def get_stock(self, symbol: str) -> int:
            \"\"\"Shares held of ``symbol`` (0 when none).\"\"\"
            return sum(h.shares for h in self.holdings if h.symbol == symbol)

and a canonical diff may then write ``state.get_stock(v) == 0`` or ``initial.get_stock('ACME')``.
Expressions may call those helpers and no other method of the model. A helper must be pure: it
reads the state it is given and returns a value (a scalar, a list, a dict or an entity), never
changes anything and never looks at the clock or anything outside the state. The evaluator calls
it on a copy of the state rebuilt from the evaluated data, so a helper cannot change what is
scored, and turns what it returns into plain data (entities become read-only views).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

MARK = "__state_helper__"
RESERVED = frozenset({"get", "keys", "values", "items"})  # the view methods every state already has
_NAMES: set[str] = set()  # every helper name declared by any state model (checked at parse time)


class StateHelperError(TypeError):
    """A helper is declared wrongly (a private name, a reserved name, no docstring)."""


def state_helper(func: F) -> F:
    """Declare ``func`` (a method of a state model) callable from task expressions."""
    name = func.__name__
    if name.startswith("_") or name in RESERVED:
        raise StateHelperError(
            f"state helper {name!r}: the name must not start with '_' or be one of {sorted(RESERVED)}"
        )
    if not (func.__doc__ or "").strip():
        raise StateHelperError(f"state helper {name!r} needs a docstring (task authors read it)")
    setattr(func, MARK, True)
    _NAMES.add(name)
    return func


def helper_names() -> frozenset[str]:
    """Every helper name any loaded state model declares."""
    return frozenset(_NAMES)


def helpers_of(model: type | None) -> dict[str, Callable[..., Any]]:
    """The helpers ``model`` declares (inherited ones included), by name."""
    if model is None:
        return {}
    found: dict[str, Callable[..., Any]] = {}
    for klass in reversed(model.__mro__):
        for name, member in vars(klass).items():
            if getattr(member, MARK, False):
                found[name] = member
    return found


def describe_helpers(model: type | None) -> dict[str, str]:
    """Helper name -> the first line of its docstring (for docs and error messages)."""
    return {name: (func.__doc__ or "").strip().splitlines()[0] for name, func in helpers_of(model).items()}


def to_plain(value: Any) -> Any:
    """A helper's result as plain JSON-shaped data (pydantic models dumped in JSON mode)."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, Mapping):
        return {k: to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_plain(v) for v in value]
    return value
