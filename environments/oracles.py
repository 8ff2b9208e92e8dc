"""What an oracle (a scripted competent person) gets, and where a site's oracles are found.

A site's `oracles.py` defines `ORACLES` and `WRONG`: task id -> `fn(page, ctx)`, where `page` is a
Playwright sync Page already on the task's start page. Oracles act through the UI only (clicks and
typing) and recover from the variant's intervention; WRONG solutions must fail the task.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from environments.registry import Environment


@dataclass(frozen=True)
class OracleContext:
    """The task as the person sees it (instruction) plus the resolved targets (to act on)."""

    targets: dict[str, Any]
    condition: str
    instruction: str
    base_url: str
    task_id: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


OracleFn = Callable[[Any, OracleContext], None]


@dataclass(frozen=True)
class SiteOracles:
    """A site's oracle and wrong solutions by task id."""

    oracles: dict[str, OracleFn]
    wrong: dict[str, OracleFn]


def load_oracles(env: Environment) -> SiteOracles:
    """`ORACLES` and `WRONG` of `env` (from `<package>.oracles`, else the package itself)."""
    module_name = f"{env.package}.oracles"
    try:
        found = importlib.util.find_spec(module_name) is not None
    except ModuleNotFoundError:
        found = False
    module = importlib.import_module(module_name if found else env.package)
    return SiteOracles(oracles=dict(getattr(module, "ORACLES", {})), wrong=dict(getattr(module, "WRONG", {})))
