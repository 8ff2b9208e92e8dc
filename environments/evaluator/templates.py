"""``{target.path}`` templates inside predicate values, resolved against the session's targets.

A string that is exactly one template becomes the target value itself (a list stays a list, a
number stays a number); a template inside a longer string is replaced by the value's text. Paths
are dotted and may index lists: ``{target.orders.0.id}``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_TEMPLATE = re.compile(r"\{target\.([^{}]+)\}")


class TemplateError(LookupError):
    """A template names a target path that does not exist."""


def resolve_path(targets: Any, path: str) -> Any:
    """Follow a dotted ``path`` through nested mappings and lists of ``targets``."""
    value = targets
    walked = "target"
    for part in path.split("."):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, (list, tuple)) and _is_index(part, len(value)):
            value = value[int(part)]
        elif hasattr(value, "model_dump") and part in type(value).model_fields:
            value = getattr(value, part)
        else:
            raise TemplateError(f"{{target.{path}}}: {walked} has no {part!r}")
        walked += f".{part}"
    return value


def _is_index(part: str, length: int) -> bool:
    return part.lstrip("-").isdigit() and -length <= int(part) < length


def resolve_templates(value: Any, targets: Any) -> Any:
    """Return ``value`` with every ``{target.path}`` template replaced (recursing into containers)."""
    if isinstance(value, str):
        if "{target." not in value:
            return value
        whole = _TEMPLATE.fullmatch(value)
        if whole:
            return resolve_path(targets, whole.group(1))
        return _TEMPLATE.sub(lambda m: str(resolve_path(targets, m.group(1))), value)
    if isinstance(value, Mapping):
        return {k: resolve_templates(v, targets) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve_templates(v, targets) for v in value]
    return value
