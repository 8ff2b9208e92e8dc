"""Turn a Pydantic `ValidationError` on a task or variant file into lines an author can act on.

Each line names the field path as the YAML reads (`canonical_diff.update[0].bijection`), what is
wrong, and what was expected (the allowed keys, the allowed values).
"""

from __future__ import annotations

import types
import typing
from typing import Any

from pydantic import BaseModel, ValidationError


def describe_errors(exc: ValidationError, model: type[BaseModel]) -> list[str]:
    """One line per error of `exc`, raised while validating `model`."""
    return [_describe(error, model) for error in exc.errors(include_url=False)]


def _describe(error: Any, model: type[BaseModel]) -> str:
    loc = tuple(error["loc"])
    kind = error["type"]
    if kind in ("extra_forbidden", "missing"):
        parent_path, parent = _walk(model, loc[:-1])
        key = loc[-1]
        if kind == "extra_forbidden":
            expected = ", ".join(parent.model_fields) if _is_model(parent) else "no extra keys"
            return f"{parent_path or '(top level)'}: extra key {key!r} is not allowed (expected one of: {expected})"
        return f"{parent_path or '(top level)'}: missing required field {key!r}"
    path, _ = _walk(model, loc)
    return f"{path or '(top level)'}: {_message(error)}"


def _message(error: Any) -> str:
    kind = error["type"]
    ctx = error.get("ctx") or {}
    got = _short(error.get("input"))
    if kind == "literal_error":
        expected = ctx.get("expected", "").replace("'", "").replace(" or ", ", ")
        return f"got {got}, expected one of: {expected}"
    if kind == "value_error":
        return str(ctx.get("error", error["msg"]))
    if kind == "invalid_layer":
        return error["msg"]
    if kind == "string_pattern_mismatch":
        return f"got {got}, expected text matching {ctx.get('pattern')}"
    return f"{error['msg'][0].lower()}{error['msg'][1:]} (got {got})"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _walk(model: type[BaseModel], loc: tuple[Any, ...]) -> tuple[str, Any]:
    """The printable path of `loc` and the type found at its end."""
    path = ""
    current: Any = model
    for part in loc:
        current = _unwrap(current)
        if isinstance(part, int):
            path += f"[{part}]"
            current = _element(current)
            continue
        if _is_model(current) and part in current.model_fields:
            path += f".{part}" if path else part
            current = current.model_fields[part].annotation
            continue
        member = _union_member(current, part)
        if member is not None:
            # A discriminator tag or union member name: not part of the YAML path.
            current = member
            continue
        if typing.get_origin(current) is dict:
            path += f".{part}" if path else str(part)
            current = typing.get_args(current)[1] if typing.get_args(current) else Any
            continue
        path += f".{part}" if path else str(part)
        current = Any
    return path, _unwrap(current)


def _is_model(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, BaseModel)


def _unwrap(annotation: Any) -> Any:
    """Strip Annotated and Optional; a union of one model plus None becomes that model."""
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        members = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        if len(members) == 1:
            return _unwrap(members[0])
    return annotation


def _element(annotation: Any) -> Any:
    if typing.get_origin(annotation) in (list, tuple):
        args = typing.get_args(annotation)
        return args[0] if args else Any
    return Any


def _union_member(annotation: Any, part: str) -> Any | None:
    if typing.get_origin(annotation) not in (typing.Union, types.UnionType):
        return None
    for member in typing.get_args(annotation):
        tags = [meta.tag for meta in getattr(member, "__metadata__", ()) if hasattr(meta, "tag")]
        inner = _unwrap(member)
        if part in tags or (isinstance(inner, type) and inner.__name__ == part):
            return inner
    return None
