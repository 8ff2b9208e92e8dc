"""The seed pipeline: (task, condition, seed) -> a byte-identical initial state.

Order (docs/architecture.md, "Building a session"): per-environment defaults, the task's `seed.steps` (registered
builders, named outputs), `seed.targets` (templates over the outputs), then for the intervention
condition the variant's seed layer and server layer. Network and client injections are resolved
here too (their `{target.x}` templates) and handed to the session, which applies them at run time.

Everything random draws from one `random.Random(seed)` in a fixed order; nothing reads the wall
clock, `hash()` of a string or a set's iteration order, so any process builds the same bytes.
"""

from __future__ import annotations

import inspect
import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from humantrace.environments import registry
from humantrace.environments.state import EnvState

if TYPE_CHECKING:
    from humantrace.environments.schemas import TaskSpec, VariantSpec

# The virtual clock of every session starts here plus a whole number of days derived from the seed.
EPOCH = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)
EPOCH_SPREAD_DAYS = 28

SeedFunction = Callable[..., Mapping[str, Any] | None]

_builders: dict[str, SeedFunction] = {}
_mutations: dict[str, SeedFunction] = {}


class SeedError(Exception):
    """A task or variant cannot be seeded: unknown builder, bad params, unresolved template."""


def builder(name: str) -> Callable[[SeedFunction], SeedFunction]:
    """Register a seed builder `fn(ctx, **params) -> outputs dict | None` as `name` ("shop.products")."""
    return _register(_builders, "builder", name)


def mutation(name: str) -> Callable[[SeedFunction], SeedFunction]:
    """Register a server-layer mutation `fn(ctx, **params)` as `name` ("shop.shuffle_orders")."""
    return _register(_mutations, "mutation", name)


def _register(table: dict[str, SeedFunction], kind: str, name: str) -> Callable[[SeedFunction], SeedFunction]:
    def decorate(fn: SeedFunction) -> SeedFunction:
        existing = table.get(name)
        if existing is not None and _qualname(existing) != _qualname(fn):
            raise ValueError(f"{kind} {name!r} is already registered by {_qualname(existing)}")
        table[name] = fn
        return fn

    return decorate


def _qualname(fn: Callable[..., Any]) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


def _load_generic_mutations() -> None:
    # Importing registers the framework's generic server mutations (shuffle_list, ...).
    import humantrace.environments.interventions.server  # noqa: F401


def find_builder(env_id: str, name: str) -> SeedFunction:
    """The builder `name`, also accepted without its `<env_id>.` prefix."""
    registry.get(env_id)  # imports the site package, which registers its builders
    return _lookup(_builders, "builder", env_id, name)


def find_mutation(env_id: str, name: str) -> SeedFunction:
    """The server mutation `name`: a site's (`<env_id>.name` or bare) or a generic one."""
    registry.get(env_id)
    _load_generic_mutations()
    return _lookup(_mutations, "mutation", env_id, name)


def _lookup(table: dict[str, SeedFunction], kind: str, env_id: str, name: str) -> SeedFunction:
    for candidate in (name, f"{env_id}.{name}"):
        if candidate in table:
            return table[candidate]
    mine = sorted(key for key in table if key.startswith(f"{env_id}.") or "." not in key)
    raise SeedError(f"unknown {kind} {name!r} (registered for {env_id}: {', '.join(mine) or 'none'})")


def registered_mutations() -> list[str]:
    """Names of every registered server mutation, generic ones included."""
    registry.all_environments()
    _load_generic_mutations()
    return sorted(_mutations)


StateT = TypeVar("StateT", bound=EnvState)


@dataclass
class SeedContext(Generic[StateT]):
    """What a builder sees: the live state, the one RNG, the virtual now and earlier outputs.

    A site names its own: `ShopContext = SeedContext[ShopState]`, so `ctx.state` is typed.
    """

    state: StateT
    rng: random.Random
    now: datetime
    env_id: str
    outputs: dict[str, Any] = field(default_factory=dict)
    distractors: Any = field(default_factory=list)
    actors: Any = field(default_factory=list)
    _counters: dict[str, int] = field(default_factory=dict, repr=False)

    def new_id(self, prefix: str) -> str:
        """A fresh id `<prefix>-NNNN`, one above the highest such id already in the state.

        The state is scanned once per prefix; later ids come from the counter, so builders should
        make every `<prefix>-N` id through `new_id` (the build rejects duplicate ids anyway).
        """
        if prefix not in self._counters:
            self._counters[prefix] = highest_id_number(self.state, prefix)
        self._counters[prefix] += 1
        return f"{prefix}-{self._counters[prefix]:04d}"

    def iso(self, moment: datetime) -> str:
        """`moment` as the ISO-8601 UTC text that states store."""
        return to_iso(moment)

    def ago(self, **delta: float) -> str:
        """ISO text of `now - timedelta(**delta)` (e.g. `ctx.ago(days=3)`)."""
        return to_iso(self.now - timedelta(**delta))


def to_iso(moment: datetime) -> str:
    """ISO-8601 in UTC with a `Z`, second precision: the one date format of every state."""
    return moment.astimezone(UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def highest_id_number(state: EnvState, prefix: str) -> int:
    """The largest N among ids `<prefix>-N` in any collection of `state` (0 when none)."""
    start = prefix + "-"
    best = 0
    for name in type(state).model_fields:
        for entity in getattr(state, name):
            entity_id = entity.id
            if entity_id.startswith(start) and entity_id[len(start) :].isdigit():
                best = max(best, int(entity_id[len(start) :]))
    return best


def check_built_state(state: EnvState, what: str) -> None:
    """Every item is an entity of its collection's model and ids are unique per collection.

    (Cheaper than re-validating the whole state: entities were validated when constructed and on
    every field assignment.)"""
    for name in type(state).model_fields:
        model = state.entity_model(name)
        seen: set[str] = set()
        for item in getattr(state, name):
            if not isinstance(item, model):
                raise SeedError(f"{what}: {name} holds a {type(item).__name__}, expected {model.__name__}")
            if item.id in seen:
                raise SeedError(f"{what}: {name} has two entities with id {item.id!r}")
            seen.add(item.id)


def session_start_for(seed: int) -> datetime:
    """The virtual start of every session built with `seed`."""
    return EPOCH + timedelta(days=seed % EPOCH_SPREAD_DAYS)


@dataclass
class BuiltSession:
    """The result of seeding: state plus everything the session applies at run time."""

    state: EnvState
    targets: dict[str, Any]
    session_start: datetime
    outputs: dict[str, Any]
    client_dispatches: list[dict[str, Any]]
    network_rules: list[dict[str, Any]]


_TEMPLATE = re.compile(r"\{(output|target)\.([^{}]+)\}")


def resolve_templates(
    value: Any, *, outputs: Mapping[str, Any], targets: Mapping[str, Any] | None = None
) -> Any:
    """Replace `{output.path}` / `{target.path}` in `value` (recursively).

    A string that is exactly one template becomes the referenced value with its type; a template
    inside longer text is replaced by the value's text. Paths are dotted and may index lists.
    """
    if isinstance(value, str):
        whole = _TEMPLATE.fullmatch(value)
        if whole:
            return _lookup_path(whole.group(1), whole.group(2), outputs, targets)
        return _TEMPLATE.sub(lambda m: str(_lookup_path(m.group(1), m.group(2), outputs, targets)), value)
    if isinstance(value, Mapping):
        return {key: resolve_templates(item, outputs=outputs, targets=targets) for key, item in value.items()}
    if isinstance(value, list):
        return [resolve_templates(item, outputs=outputs, targets=targets) for item in value]
    return value


def _lookup_path(root: str, path: str, outputs: Mapping[str, Any], targets: Mapping[str, Any] | None) -> Any:
    source = outputs if root == "output" else targets
    if source is None:
        raise SeedError(f"{{{root}.{path}}}: targets are not available here (only {{output.*}})")
    value: Any = source
    walked = root
    for part in path.split("."):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.lstrip("-").isdigit() and -len(value) <= int(part) < len(value):
            value = value[int(part)]
        else:
            known = ", ".join(sorted(map(str, value))) if isinstance(value, Mapping) else type(value).__name__
            raise SeedError(f"{{{root}.{path}}}: {walked} has no {part!r} (has: {known or 'nothing'})")
        walked += f".{part}"
    return value


def call_seed_function(
    fn: SeedFunction, ctx: SeedContext, params: Mapping[str, Any], what: str
) -> dict[str, Any]:
    """Call `fn(ctx, **params)`, turning a parameter mismatch into a `SeedError` naming `what`."""
    try:
        inspect.signature(fn).bind(ctx, **params)
    except TypeError as exc:
        raise SeedError(f"{what}: {exc} (signature: {fn.__name__}{inspect.signature(fn)})") from None
    result = fn(ctx, **params)
    if result is None:
        return {}
    if not isinstance(result, Mapping):
        raise SeedError(f"{what}: {fn.__name__} returned {type(result).__name__}, expected a dict of outputs")
    return dict(result)


def build_session_state(
    task: TaskSpec, condition: str, seed: int, variant: VariantSpec | None = None
) -> BuiltSession:
    """Build the initial state of a session of `task` in `condition` with the integer `seed`.

    For `intervention`, `variant` is the task's variant (looked up in the catalog when omitted).
    """
    if condition not in ("clean", "intervention"):
        raise SeedError(f"condition must be 'clean' or 'intervention', not {condition!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise SeedError(f"seed must be an integer, not {seed!r}")
    env = registry.get(task.env_id)
    if condition == "intervention" and variant is None:
        from humantrace.environments.catalog import variant_for

        variant = variant_for(task.task_id)
        if variant is None:
            raise SeedError(f"{task.task_id} has no variant, so it has no intervention condition")

    session_start = session_start_for(seed)
    ctx = SeedContext(
        state=env.state_model(),
        rng=random.Random(seed),
        now=session_start,
        env_id=env.env_id,
        distractors=task.seed.distractors,
        actors=task.seed.actors,
    )
    env.build_default_state(ctx)
    for index, step in enumerate(task.seed.steps):
        what = f"{task.task_id} seed.steps[{index}] ({step.use})"
        fn = _with_context(what, lambda: find_builder(env.env_id, step.use))
        params = _with_context(what, lambda: resolve_templates(step.params, outputs=ctx.outputs))
        produced = call_seed_function(fn, ctx, params, what)
        _record_outputs(ctx, produced, step.outputs, what)
    targets = _with_context(
        f"{task.task_id} seed.targets",
        lambda: resolve_templates(dict(task.seed.targets), outputs=ctx.outputs),
    )

    client: list[dict[str, Any]] = []
    network: list[dict[str, Any]] = []
    if condition == "intervention" and variant is not None:
        _apply_variant(ctx, variant, targets, client, network)
    check_built_state(ctx.state, f"{task.task_id} ({condition}, seed {seed})")
    return BuiltSession(
        state=ctx.state,
        targets=targets,
        session_start=session_start,
        outputs=dict(ctx.outputs),
        client_dispatches=client,
        network_rules=network,
    )


def _apply_variant(
    ctx: SeedContext,
    variant: VariantSpec,
    targets: dict[str, Any],
    client: list[dict[str, Any]],
    network: list[dict[str, Any]],
) -> None:
    # Seed-layer injections run before server-layer ones whatever their order in the file.
    ordered = sorted(enumerate(variant.injections), key=lambda item: item[1].layer != "seed")
    for index, injection in ordered:
        what = f"{variant.variant_id} injections[{index}] ({injection.layer}: {injection.params.action})"
        params = _with_context(
            what,
            lambda: resolve_templates(
                injection.params.model_dump(exclude_none=True), outputs=ctx.outputs, targets=targets
            ),
        )
        action = params.pop("action")
        if injection.layer == "seed":
            fn = _with_context(what, lambda: find_builder(ctx.env_id, action))
            _record_outputs(ctx, call_seed_function(fn, ctx, params, what), None, what)
        elif injection.layer == "server":
            fn = _with_context(what, lambda: find_mutation(ctx.env_id, action))
            call_seed_function(fn, ctx, params, what)
        elif injection.layer == "network":
            network.append({"index": index, "action": action, **params})
        else:
            client.append({"index": index, "action": action, **params})


def _record_outputs(
    ctx: SeedContext, produced: dict[str, Any], mapping: Mapping[str, str] | None, what: str
) -> None:
    # Keys the mapping does not rename keep their own name.
    mapping = mapping or {}
    for key in mapping:
        if key not in produced:
            raise SeedError(
                f"{what}: outputs names {key!r}, but the builder returned only {sorted(produced)}"
            )
    for key, value in produced.items():
        ctx.outputs[mapping.get(key, key)] = value


def _with_context(what: str, thunk: Callable[[], Any]) -> Any:
    try:
        return thunk()
    except SeedError as exc:
        if str(exc).startswith(what):
            raise
        raise SeedError(f"{what}: {exc}") from None
