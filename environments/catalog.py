"""Every task and variant of every registered site, loaded once and cached.

`load_catalog()` raises `SpecError` listing every broken file (a study never starts on a partial
catalog); `environments.checks.check_all()` reports the same problems without raising.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from humantrace.environments import registry
from humantrace.environments.schemas import (
    SpecError,
    TaskSpec,
    VariantSpec,
    display_path,
    load_task,
    load_variant,
)


class UnknownTask(LookupError):
    """No task with this id in any registered site."""


@dataclass
class Catalog:
    """Tasks and variants by id, and where each came from."""

    tasks: dict[str, TaskSpec] = field(default_factory=dict)
    variants: dict[str, VariantSpec] = field(default_factory=dict)
    variant_of_task: dict[str, str] = field(default_factory=dict)
    files: dict[str, Path] = field(default_factory=dict)


@dataclass(frozen=True)
class TaskSummary:
    """One line of `humantrace tasks list`."""

    task_id: str
    env_id: str
    title: str
    difficulty: str
    primary_primitives: list[str]
    expected_steps: int
    time_limit_seconds: int
    variant_id: str | None
    variant_primitive: str | None
    variant_layers: list[str]
    # Each injection of the variant as `layer:action` (the intervention families it uses).
    variant_families: list[str] = field(default_factory=list)


_lock = threading.Lock()
_cache: Catalog | None = None
# Bumped by every clear, so caches derived from the catalog (built session states) can key on it.
generation = 0


def clear_cache() -> None:
    """Forget the loaded catalog (after registering a site or editing files)."""
    global _cache, generation
    with _lock:
        _cache = None
        generation += 1


def task_files(env: registry.Environment) -> list[Path]:
    """The task YAML files of `env`, sorted by name."""
    return _yaml_files(env.directory / "tasks")


def variant_files(env: registry.Environment) -> list[Path]:
    """The variant YAML files of `env`, sorted by name."""
    return _yaml_files(env.directory / "variants")


def _yaml_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")])


def load_catalog() -> Catalog:
    """The catalog of every registered site (cached; raises `SpecError` naming every bad file)."""
    global _cache
    envs = registry.all_environments()
    with _lock:
        if _cache is not None:
            return _cache
        catalog, problems = build_catalog(envs)
        if problems:
            raise SpecError(problems)
        _cache = catalog
        return catalog


def build_catalog(envs: list[registry.Environment]) -> tuple[Catalog, list[str]]:
    """Load every file of `envs`; returns what loaded and one line per problem (no raising)."""
    catalog = Catalog()
    problems: list[str] = []
    for env in envs:
        for path in task_files(env):
            try:
                task = load_task(path)
            except SpecError as exc:
                problems.extend(exc.problems)
                continue
            label = display_path(path)
            if task.env_id != env.env_id:
                problems.append(
                    f"{label}: env_id: got {task.env_id!r}, expected {env.env_id!r} (the site it lives in)"
                )
            elif task.task_id in catalog.tasks:
                problems.append(
                    f"{label}: task_id {task.task_id!r} is also defined in {display_path(catalog.files[task.task_id])}"
                )
            else:
                catalog.tasks[task.task_id] = task
                catalog.files[task.task_id] = path
        for path in variant_files(env):
            try:
                variant = load_variant(path)
            except SpecError as exc:
                problems.extend(exc.problems)
                continue
            label = display_path(path)
            base = catalog.tasks.get(variant.base_task_id)
            if variant.variant_id in catalog.variants:
                problems.append(f"{label}: variant_id {variant.variant_id!r} is defined twice")
            elif base is None or base.env_id != env.env_id:
                problems.append(f"{label}: base_task_id: no task {variant.base_task_id!r} in {env.env_id}")
            elif variant.base_task_id in catalog.variant_of_task:
                other = catalog.variant_of_task[variant.base_task_id]
                problems.append(
                    f"{label}: {variant.base_task_id} already has variant {other} (one variant per base task)"
                )
            else:
                catalog.variants[variant.variant_id] = variant
                catalog.variant_of_task[variant.base_task_id] = variant.variant_id
                catalog.files[variant.variant_id] = path
    return catalog, problems


def get_task(task_id: str) -> TaskSpec:
    """The task `task_id` from any registered site."""
    catalog = load_catalog()
    try:
        return catalog.tasks[task_id]
    except KeyError:
        raise UnknownTask(f"no task {task_id!r} (known: {len(catalog.tasks)} tasks)") from None


def variant_for(task_id: str) -> VariantSpec | None:
    """The variant whose base task is `task_id`, or None when the task has none."""
    catalog = load_catalog()
    variant_id = catalog.variant_of_task.get(task_id)
    return catalog.variants[variant_id] if variant_id else None


def list_tasks() -> list[TaskSummary]:
    """Every task of every site, sorted by task id (for `humantrace tasks list`)."""
    catalog = load_catalog()
    rows = []
    for task_id in sorted(catalog.tasks):
        task = catalog.tasks[task_id]
        variant = variant_for(task_id)
        rows.append(
            TaskSummary(
                task_id=task_id,
                env_id=task.env_id,
                title=task.title,
                difficulty=task.difficulty,
                primary_primitives=list(task.primary_primitives),
                expected_steps=task.expected_steps,
                time_limit_seconds=task.time_limit_seconds,
                variant_id=variant.variant_id if variant else None,
                variant_primitive=variant.target_primitive if variant else None,
                variant_layers=variant.layers() if variant else [],
                variant_families=[f"{i.layer}:{i.params.action}" for i in variant.injections]
                if variant
                else [],
            )
        )
    return rows


DIFFICULTIES = ("easy", "medium", "hard", "expert", "frontier")
PRIMITIVES = (
    "grounding",
    "planning",
    "state_tracking",
    "backtracking",
    "patience",
    "exploration",
    "verification",
)


@dataclass(frozen=True)
class CatalogueSummary:
    """The catalogue as the papers' tables show it (`humantrace tasks summary`).

    `by_difficulty[env][difficulty]`: tasks; `by_primitive[env][primitive]`: tasks that list the
    primitive among their primary ones; `variant_primitives[env][primitive]`: variants targeting it;
    `families[layer:action]`: variants using that intervention; `empty`: every empty cell, named."""

    envs: list[str]
    by_difficulty: dict[str, dict[str, int]]
    by_primitive: dict[str, dict[str, int]]
    variant_primitives: dict[str, dict[str, int]]
    families: dict[str, int]
    empty: list[str]
    # Shared families (network and client dispatches, site-independent server mutations) no variant uses.
    unused_families: list[str] = field(default_factory=list)


def shared_families() -> list[str]:
    """Every intervention family any site may use, as `layer:action`: the network and client
    dispatches and the server mutations that belong to no site (no dot in their name)."""
    from typing import get_args

    from humantrace.environments.interventions import server  # noqa: F401  (registers the shared mutations)
    from humantrace.environments.interventions.specs import ClientAction, NetworkAction
    from humantrace.environments.seeding import _mutations

    return [
        *(f"network:{a}" for a in get_args(NetworkAction)),
        *(f"client:{a}" for a in get_args(ClientAction)),
        *(f"server:{name}" for name in sorted(_mutations) if "." not in name),
    ]


def summarise_catalogue(rows: list[TaskSummary] | None = None) -> CatalogueSummary:
    """Count the catalogue's tasks by environment x difficulty and x primitive, and its families."""
    rows = list_tasks() if rows is None else rows
    envs = sorted({row.env_id for row in rows})
    by_difficulty = {env: dict.fromkeys(DIFFICULTIES, 0) for env in envs}
    by_primitive = {env: dict.fromkeys(PRIMITIVES, 0) for env in envs}
    targeted = {env: dict.fromkeys(PRIMITIVES, 0) for env in envs}
    families: dict[str, int] = {}
    for row in rows:
        by_difficulty[row.env_id][row.difficulty] += 1
        for primitive in row.primary_primitives:
            by_primitive[row.env_id][primitive] += 1
        if row.variant_primitive:
            targeted[row.env_id][row.variant_primitive] += 1
        for family in dict.fromkeys(row.variant_families):
            families[family] = families.get(family, 0) + 1
    empty = [f"{env} x {d}: no task" for env in envs for d in DIFFICULTIES if not by_difficulty[env][d]]
    empty += [f"{env} x {p}: no task" for env in envs for p in PRIMITIVES if not by_primitive[env][p]]
    return CatalogueSummary(
        unused_families=[f for f in shared_families() if f not in families],
        envs=envs,
        by_difficulty=by_difficulty,
        by_primitive=by_primitive,
        variant_primitives=targeted,
        families=dict(sorted(families.items(), key=lambda kv: (-kv[1], kv[0]))),
        empty=empty,
    )


_PLACEHOLDER = re.compile(r"\{target\.([^{}]+)\}")


class InstructionError(LookupError):
    """An instruction placeholder names a target that does not exist."""


def render_instruction(task: TaskSpec, targets: Mapping[str, Any]) -> str:
    """The instruction with every `{target.path}` replaced by the target's text.

    Lists read as "a, b and c"; money and ids are shown as stored.
    """

    def replace(match: re.Match[str]) -> str:
        value: Any = targets
        for part in match.group(1).split("."):
            if isinstance(value, Mapping) and part in value:
                value = value[part]
            elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
                value = value[int(part)]
            else:
                raise InstructionError(
                    f"{task.task_id}: instruction names {match.group(0)}, which the targets lack"
                )
        return _as_text(value)

    return _PLACEHOLDER.sub(replace, task.instruction_template)


def _as_text(value: Any) -> str:
    if isinstance(value, list):
        parts = [_as_text(item) for item in value]
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1] if parts else ""
    return str(value)
