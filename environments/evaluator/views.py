"""Read-only wrappers that expressions see: entities, states and targets.

Inside an ``expr`` the only objects whose attributes can be read are these wrappers; a field reads
both as an attribute and as a key (``a.product_id``, ``a['product_id']``, ``state.emails``,
``state['emails']``). Mappings reached through a wrapper are wrapped again and lists become lists
of wrapped items, so ``e.id for e in state.emails`` works at any depth.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


class ExprRuntimeError(Exception):
    """An expression did something allowed in form but impossible on this data."""


class MappingView:
    """A dict seen from an expression: fields as attributes or keys, never writable."""

    __slots__ = ("_data", "_label")

    def __init__(self, data: Mapping[str, Any], label: str = "entity") -> None:
        self._data = data
        self._label = label

    def field(self, name: str) -> Any:
        if name in self._data:
            return wrap(self._data[name])
        raise ExprRuntimeError(f"{self._label} has no field {name!r}")

    def __getitem__(self, key: Any) -> Any:
        if key in self._data:
            return wrap(self._data[key])
        raise ExprRuntimeError(f"{self._label} has no key {key!r}")

    def get(self, key: Any, default: Any = None) -> Any:
        return wrap(self._data[key]) if key in self._data else default

    def keys(self) -> list[Any]:
        return list(self._data)

    def values(self) -> list[Any]:
        return [wrap(v) for v in self._data.values()]

    def items(self) -> list[tuple[Any, Any]]:
        return [(k, wrap(v)) for k, v in self._data.items()]

    def __contains__(self, key: Any) -> bool:
        return key in self._data

    def __iter__(self) -> Iterator[Any]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __bool__(self) -> bool:
        return bool(self._data)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MappingView):
            return dict(self._data) == dict(other._data)
        if isinstance(other, Mapping):
            return dict(self._data) == dict(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # unhashable like the dict it wraps (it defines __eq__); typeshed types __hash__ as a method

    def __repr__(self) -> str:
        return f"{self._label}({dict(self._data)!r})"


class StateView(MappingView):
    """A whole state (initial or final); collections read as lists of entity views.

    With ``model`` (the site's state model class), the helpers it declares with
    ``environments.state_helpers.state_helper`` can be called: ``state.get_stock('ACME')``.
    """

    __slots__ = ("_cache", "_model", "_helpers", "_instance")

    def __init__(self, data: Mapping[str, Any], label: str = "state", model: type | None = None) -> None:
        super().__init__(data, label)
        self._cache: dict[Any, Any] = {}
        self._model = model
        self._helpers: dict[str, Any] | None = None
        self._instance: Any = None

    def helper_names(self) -> list[str]:
        from humantrace.environments.state_helpers import helpers_of

        if self._helpers is None:
            self._helpers = helpers_of(self._model)
        return list(self._helpers)

    def has_helper(self, name: str) -> bool:
        return name in self.helper_names()

    def call_helper(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Run a declared helper on a copy of this state rebuilt as the typed model."""
        from humantrace.environments.state_helpers import to_plain

        if self._instance is None:
            validate = getattr(self._model, "model_validate", None)
            self._instance = validate(dict(self._data)) if validate else self._model(self._data)  # type: ignore[misc]  # a state view with helpers always has its model (helper_names() found them on it)
        func = self._helpers[name]  # type: ignore[index]  # set by helper_names(), which callers go through (has_helper) before calling one
        return wrap(to_plain(func(self._instance, *_plain_args(args), **_plain_args(kwargs))))

    def _wrapped(self, key: Any) -> Any:
        if key not in self._cache:
            self._cache[key] = wrap(self._data[key])
        return self._cache[key]

    def field(self, name: str) -> Any:
        if name in self._data:
            return self._wrapped(name)
        raise ExprRuntimeError(f"{self._label} has no collection or field {name!r}")

    def __getitem__(self, key: Any) -> Any:
        if key in self._data:
            return self._wrapped(key)
        raise ExprRuntimeError(f"{self._label} has no collection or field {key!r}")


_SCALARS = frozenset({str, int, float, bool})


def wrap(value: Any) -> Any:
    """Wrap mappings as views and lists as lists of wrapped items; scalars pass through."""
    kind = type(value)
    if kind is dict:
        return MappingView(value)
    if kind is list:
        return [wrap(item) for item in value]
    if kind in _SCALARS or value is None or isinstance(value, MappingView):
        return value
    if isinstance(value, Mapping):
        return MappingView(value)
    if isinstance(value, (list, tuple)):
        return [wrap(item) for item in value]
    return value


def _plain_args(args: Any) -> Any:
    if isinstance(args, dict):
        return {k: unwrap(v) for k, v in args.items()}
    return [unwrap(a) for a in args]


def unwrap(value: Any) -> Any:
    """Turn views back into plain dicts/lists (for diagnoses and comparisons)."""
    if isinstance(value, MappingView):
        return {k: unwrap(v) for k, v in value._data.items()}
    if isinstance(value, list):
        return [unwrap(item) for item in value]
    if isinstance(value, tuple):
        return tuple(unwrap(item) for item in value)
    return value


def is_view(value: Any) -> bool:
    """True for the wrapper types whose attributes an expression may read."""
    return isinstance(value, MappingView)
