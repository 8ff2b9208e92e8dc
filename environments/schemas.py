"""Task and variant files: Pydantic models and a YAML loader whose errors name file, field and fix.

Formats: docs/environments.md ("Writing a task", "Writing a variant"); unknown keys are errors. A failed load
raises `SpecError` whose lines read like
`environments/shop/tasks/shop-003.yaml: canonical_diff.update[0].bijection: extra key 'ovr' is not
allowed (expected one of: over, variable)`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    field_validator,
    model_validator,
)

from humantrace.environments.interventions.specs import ClientParams, NetworkParams

Difficulty = Literal["easy", "medium", "hard", "expert", "frontier"]
Primitive = Literal[
    "grounding", "planning", "state_tracking", "backtracking", "patience", "exploration", "verification"
]
Severity = Literal["critical", "high", "medium", "low"]
Condition = Literal["clean", "intervention"]
M = TypeVar("M", bound=BaseModel)

PREDICATE_VERBS = (
    "any", "eq", "in", "between", "expr", "set_eq", "subset", "superset", "contains", "length",
    "substring", "substring_all", "substring_any", "regex", "matches_semantic", "fields", "not",
    "all_of", "any_of",
)  # fmt: skip


class SpecModel(BaseModel):
    """Base of every file model: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")


def check_predicate(value: Any, where: str = "predicate") -> None:
    """Raise ValueError unless `value` is a predicate: a bare value (`eq` shorthand) or a
    single-key mapping of a known verb, checked recursively."""
    if not isinstance(value, dict):
        return
    if len(value) != 1:
        raise ValueError(
            f"{where} must be a mapping with exactly one verb (one of: {', '.join(PREDICATE_VERBS)}), got {value!r}"
        )
    ((verb, arg),) = value.items()
    if verb not in PREDICATE_VERBS:
        raise ValueError(f"{where}: unknown verb {verb!r} (expected one of: {', '.join(PREDICATE_VERBS)})")
    if verb in ("not", "length"):
        check_predicate(arg, f"{where}.{verb}")
    elif verb in ("all_of", "any_of"):
        if not isinstance(arg, list) or not arg:
            raise ValueError(f"{where}.{verb} must be a non-empty list of predicates")
        for i, inner in enumerate(arg):
            check_predicate(inner, f"{where}.{verb}[{i}]")
    elif verb == "fields":
        if not isinstance(arg, dict):
            raise ValueError(f"{where}.fields must map field names to predicates")
        for name, inner in arg.items():
            check_predicate(inner, f"{where}.fields.{name}")
    elif verb == "expr" and not isinstance(arg, str):
        raise ValueError(f"{where}.expr must be an expression string, got {arg!r}")


def _check_field_predicates(value: dict[str, Any]) -> dict[str, Any]:
    for name, predicate in value.items():
        check_predicate(predicate, name)
    return value


class Bijection(SpecModel):
    """Match every slot of `over` (an expression, a `{target.x}` template or a literal list) to one
    diff entry, the slot bound to `variable`."""

    over: Any
    variable: str = "v"


class _Positive(SpecModel):
    entity: str
    collection: str | None = None
    bijection: Bijection | None = None
    weight: float = Field(default=1.0, ge=0)
    desc: str = ""


class CreateEntry(_Positive):
    """An entity that must be created, with field predicates."""

    properties: dict[str, Any] = {}
    count: int | None = Field(default=None, ge=0)
    _check = field_validator("properties")(_check_field_predicates)


class UpdateEntry(_Positive):
    """An entity that must change: `where` on the before-state, `changes` on the after-state."""

    where: dict[str, Any] = {}
    changes: dict[str, Any] = {}
    count: int | None = Field(default=None, ge=0)
    _check = field_validator("where", "changes")(_check_field_predicates)


class DeleteEntry(_Positive):
    """An entity that must be deleted, chosen by `where` on its last fields."""

    where: dict[str, Any] = {}
    count: int | None = Field(default=None, ge=0)
    _check = field_validator("where")(_check_field_predicates)


class InvariantEntry(SpecModel):
    """Entities of `collection` (matching `filter`, an expression over `a`) must not change."""

    collection: str
    filter: str | None = None
    preserve: Literal["ALL"] = "ALL"
    comprehensive: bool = False
    desc: str = ""


class ConstraintEntry(SpecModel):
    """A boolean expression over the final state that must hold."""

    expr: str
    desc: str = ""
    severity: Severity = "medium"
    weight: float = Field(default=1.0, ge=0)


class NamedInvariant(SpecModel):
    """Renames (and re-grades) the check of one entry: `invariant[0]`, `create[2]`, ..."""

    name: str
    ref: str = Field(pattern=r"^(invariant|create|update|delete)\[\d+\]$")
    severity: Severity = "medium"


class DiffBlock(SpecModel):
    """One canonical diff: positive entries and negative checks."""

    create: list[CreateEntry] = []
    update: list[UpdateEntry] = []
    delete: list[DeleteEntry] = []
    invariant: list[InvariantEntry] = []
    constraints: list[ConstraintEntry] = []
    named_invariants: list[NamedInvariant] = []


class CanonicalDiff(DiffBlock):
    """The task's expected state change; `oneof` lists alternative blocks (best one counts)."""

    oneof: list[DiffBlock] = []


class EventCondition(SpecModel):
    """One event condition (WebPageBench) or an `any_of` group of them."""

    event: str | None = None
    params: dict[str, Any] = {}
    match: Literal["last", "any"] = "last"
    any_of: list[EventCondition] | None = None

    @model_validator(mode="after")
    def _one_form(self) -> EventCondition:
        if (self.event is None) == (self.any_of is None):
            raise ValueError(
                "an event condition has either 'event' (with params) or 'any_of' (a list), not both or neither"
            )
        return self


class SeedStep(SpecModel):
    """One call of a registered builder; `outputs` renames builder outputs (omitted: same names)."""

    use: str
    params: dict[str, Any] = {}
    outputs: dict[str, str] | None = None


class SeedSpec(SpecModel):
    """How a session's state is built from the integer seed."""

    distractors: list[Any] | dict[str, Any] = []
    actors: list[Any] | dict[str, Any] = []
    steps: list[SeedStep] = []
    targets: dict[str, Any] = {}


class TaskSpec(SpecModel):
    """A task file (`environments/<site>/tasks/<task_id>.yaml`)."""

    task_id: str = Field(pattern=r"^[a-z][a-z0-9_]*-[A-Za-z0-9_-]+$")
    env_id: str
    title: str
    instruction_template: str
    difficulty: Difficulty
    time_limit_seconds: int = Field(gt=0)
    expected_steps: int = Field(gt=0)
    primary_primitives: list[Primitive] = Field(min_length=1)
    start_path: str = Field(pattern=r"^/")
    seed: SeedSpec = SeedSpec()
    canonical_diff: CanonicalDiff
    event_conditions: list[EventCondition] | None = None

    def evaluator_view(self) -> dict[str, Any]:
        """The task as the evaluator reads it: the diff and event conditions exactly as written."""
        conditions = [item.model_dump(exclude_unset=True) for item in self.event_conditions or []]
        return {
            "task_id": self.task_id,
            "canonical_diff": self.canonical_diff.model_dump(exclude_unset=True),
            "event_conditions": conditions or None,
        }


class InjectionParams(BaseModel):
    """Seed/server-layer params: `action` names a builder or mutation; the rest are its arguments."""

    model_config = ConfigDict(extra="allow")

    action: str


class SeedInjection(SpecModel):
    layer: Literal["seed", "server"]
    params: InjectionParams


class NetworkInjection(SpecModel):
    layer: Literal["network"]
    params: NetworkParams


class ClientInjection(SpecModel):
    layer: Literal["client"]
    params: ClientParams


def _layer_tag(value: Any) -> str | None:
    layer = value.get("layer") if isinstance(value, dict) else getattr(value, "layer", None)
    return {"seed": "seed", "server": "seed", "network": "network", "client": "client"}.get(str(layer))


Injection = Annotated[
    Annotated[SeedInjection, Tag("seed")]
    | Annotated[NetworkInjection, Tag("network")]
    | Annotated[ClientInjection, Tag("client")],
    Discriminator(
        _layer_tag,
        custom_error_type="invalid_layer",
        custom_error_message="layer must be one of: seed, server, network, client",
    ),
]


class VariantSpec(SpecModel):
    """A variant file (`environments/<site>/variants/<variant_id>.yaml`)."""

    variant_id: str
    base_task_id: str
    target_primitive: Primitive
    description: str
    injections: list[Injection] = Field(min_length=1)

    def layers(self) -> list[str]:
        """The layer of every injection, in file order."""
        return [injection.layer for injection in self.injections]


class SpecError(ValueError):
    """A task or variant file is invalid; `problems` holds one line per error."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


def load_task(path: Path | str) -> TaskSpec:
    """Read and validate a task file."""
    return _load(Path(path), TaskSpec)


def load_variant(path: Path | str) -> VariantSpec:
    """Read and validate a variant file."""
    return _load(Path(path), VariantSpec)


def _load(path: Path, model: type[M]) -> M:
    label = display_path(path)
    try:
        # libyaml's loader when present: parsing every task file is most of a catalogue load.
        data = yaml.load(
            path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        )
    except OSError as exc:
        raise SpecError([f"{label}: cannot read ({exc.strerror})"]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise SpecError([f"{label}:{where} invalid YAML ({getattr(exc, 'problem', exc)})"]) from None
    if not isinstance(data, dict):
        raise SpecError(
            [f"{label}: expected a mapping of fields at the top level, got {type(data).__name__}"]
        )
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        from humantrace.environments.spec_errors import describe_errors

        raise SpecError([f"{label}: {line}" for line in describe_errors(exc, model)]) from None


def display_path(path: Path) -> str:
    """`path` relative to the working directory when it is inside it (shorter messages)."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
