"""The registry of environments (websites) and their discovery.

Each site package `environments/<site>/__init__.py` defines `ENVIRONMENT = Environment(...)`.
Sites are discovered lazily, on the first call to `get` or `all_environments`, by importing every
name in `environments.sites.SITES` that exists; tests may `register` their own environment.
"""

from __future__ import annotations

import importlib
import importlib.util
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from humantrace.environments import sites

if TYPE_CHECKING:
    from fastapi import APIRouter

    from humantrace.environments.seeding import SeedContext
    from humantrace.environments.state import EnvState
    from humantrace.environments.ui import UIProfile


class UnknownEnvironment(LookupError):
    """No environment is registered under this id."""


@dataclass(frozen=True)
class Environment:
    """One website: its typed state, routers, default seed and where its files live."""

    env_id: str
    title: str
    state_model: type[EnvState]
    package: str
    api_router: APIRouter
    page_router: APIRouter
    build_default_state: Callable[[SeedContext], Any]
    ignore_fields: dict[str, set[str]] = field(default_factory=dict)
    benign_fields: dict[str, set[str]] = field(default_factory=dict)
    # CSS selectors of fields the recorder masks like passwords on this site's pages (dates of
    # birth, record numbers, card numbers): a site declares its sensitive fields here.
    mask_selectors: tuple[str, ...] = ()
    # Directory with tasks/, variants/, templates/, static/; None = the package's own directory.
    root: Path | None = None
    # The semantic events the site emits, name -> param names. None: the site's `api.EVENTS`
    # (every site declares them there); `humantrace tasks check` holds event conditions to them.
    events: dict[str, tuple[str, ...]] | None = None
    # Alternative builds of the site's controls (`environments.ui`); the default is implicit.
    ui_profiles: tuple[UIProfile, ...] = ()

    def declared_events(self) -> dict[str, tuple[str, ...]] | None:
        """The site's typed events (`events`, else `<package>.api.EVENTS`); None if it declares none."""
        if self.events is not None:
            return self.events
        try:
            api = importlib.import_module(f"{self.package}.api")
        except ImportError:
            return None
        declared = getattr(api, "EVENTS", None)
        return dict(declared) if isinstance(declared, dict) else None

    @property
    def directory(self) -> Path:
        """The directory holding this site's tasks/, variants/, templates/ and static/."""
        if self.root is not None:
            return Path(self.root)
        spec = importlib.util.find_spec(self.package)
        if spec is None or not spec.submodule_search_locations:
            raise UnknownEnvironment(
                f"package {self.package!r} of environment {self.env_id!r} is not importable"
            )
        return Path(next(iter(spec.submodule_search_locations)))


_lock = threading.RLock()
_registry: dict[str, Environment] = {}
_discovered = False


def register(env: Environment, *, replace: bool = False) -> None:
    """Add `env`; registering another environment under a taken id is an error unless `replace`."""
    with _lock:
        existing = _registry.get(env.env_id)
        if existing is not None and existing is not env and not replace:
            raise ValueError(f"environment {env.env_id!r} is already registered (from {existing.package})")
        _registry[env.env_id] = env
    _invalidate_catalog()


def unregister(env_id: str) -> None:
    """Remove an environment (tests that registered their own)."""
    with _lock:
        _registry.pop(env_id, None)
    _invalidate_catalog()


def discover() -> None:
    """Import every existing site package in `SITES` and register its `ENVIRONMENT` (once)."""
    global _discovered
    with _lock:
        if _discovered:
            return
        for name in sites.SITES:
            module_name = f"humantrace.environments.{name}"
            if importlib.util.find_spec(module_name) is None:
                continue
            module = importlib.import_module(module_name)
            env = getattr(module, "ENVIRONMENT", None)
            if env is None:
                continue
            if not isinstance(env, Environment):
                raise TypeError(f"{module_name}.ENVIRONMENT is {type(env).__name__}, not Environment")
            if _registry.get(env.env_id) is not env:
                register(env)
        _discovered = True


def forget_discovery() -> None:
    """Unregister every discovered site so the next lookup discovers again (tests that change
    `environments.sites.SITES`). Environments registered by hand stay."""
    global _discovered
    with _lock:
        for env_id in [
            key for key, env in _registry.items() if env.package.startswith("humantrace.environments.")
        ]:
            del _registry[env_id]
        _discovered = False
    _invalidate_catalog()


def get(env_id: str) -> Environment:
    """The environment registered as `env_id`."""
    discover()
    try:
        return _registry[env_id]
    except KeyError:
        known = ", ".join(sorted(_registry)) or "none"
        raise UnknownEnvironment(f"no environment {env_id!r} (registered: {known})") from None


def all_environments() -> list[Environment]:
    """Every registered environment, sorted by id."""
    discover()
    with _lock:
        return [_registry[key] for key in sorted(_registry)]


def _invalidate_catalog() -> None:
    # The catalog caches tasks per registered site; a registry change makes it stale.
    from humantrace.environments import catalog

    catalog.clear_cache()
