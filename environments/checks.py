"""`humantrace tasks check`: validate every task and variant of every registered site.

Checks, per file: the schema (errors name file, field and expectation), every builder and
mutation name and its parameters, every template, the instruction's placeholders, the canonical
diff as the evaluator reads it, determinism (each task and condition built twice with the
same seed gives the same sha256), and every expression of the canonical diff evaluated on the
task's seeded initial state under the evaluator's own budget (:func:`_check_expressions`): an
``over``, filter, constraint or predicate past a limit there would fail every attempt.
"""

from __future__ import annotations

from dataclasses import dataclass

from humantrace.environments import catalog, registry, ui
from humantrace.environments.schemas import display_path
from humantrace.environments.seeding import SeedError, build_session_state
from humantrace.environments.state import state_sha256

CHECK_SEEDS = (42, 7)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one file."""

    file: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.message}" if self.file else self.message


def check_all(*, seeds: tuple[int, ...] = CHECK_SEEDS) -> list[Problem]:
    """Every problem in every site's tasks and variants (an empty list means all is well)."""
    envs = registry.all_environments()
    loaded, load_problems = catalog.build_catalog(envs)
    problems = [_split(line) for line in load_problems]
    for env in envs:
        problems.extend(Problem("", line) for line in ui.check_profiles(env))
    for task_id, task in sorted(loaded.tasks.items()):
        label = display_path(loaded.files[task_id])
        stem = loaded.files[task_id].stem
        if stem != task_id:
            problems.append(Problem(label, f"file name should be {task_id}.yaml (the task_id)"))
        variant_id = loaded.variant_of_task.get(task_id)
        variant = loaded.variants.get(variant_id) if variant_id else None
        conditions = ["clean"] + (["intervention"] if variant else [])
        for condition in conditions:
            where = (
                display_path(loaded.files[variant_id])
                if condition == "intervention" and variant_id
                else label
            )
            problems.extend(_check_build(task, condition, variant, seeds, where))
        diff_problems = _check_canonical_diff(task, label)
        problems.extend(diff_problems)
        if not diff_problems:
            for condition in conditions:
                problems.extend(_check_expressions(task, condition, variant, seeds[0], label))
        problems.extend(_check_event_names(task, registry.get(task.env_id), label))
    return problems


def _split(line: str) -> Problem:
    file, _, message = line.partition(": ")
    return Problem(file, message) if message else Problem("", line)


def _check_build(task, condition, variant, seeds, where) -> list[Problem]:
    found: list[Problem] = []
    for seed in seeds:
        try:
            first = build_session_state(task, condition, seed, variant)
            second = build_session_state(task, condition, seed, variant)
        except SeedError as exc:
            return [Problem(where, f"{condition} seed {seed}: {exc}")]
        except Exception as exc:  # a builder crashed: report it like any other problem
            return [Problem(where, f"{condition} seed {seed}: {type(exc).__name__}: {exc}")]
        if state_sha256(first.state) != state_sha256(second.state) or first.targets != second.targets:
            found.append(Problem(where, f"{condition} seed {seed}: two builds differ (not deterministic)"))
        try:
            catalog.render_instruction(task, first.targets)
        except catalog.InstructionError as exc:
            found.append(Problem(where, str(exc)))
    return found


def _check_event_names(task, env, label) -> list[Problem]:
    """Every event a task's conditions name is one its site emits, with params the event carries
    (a misspelled name would otherwise never match, and fail every attempt without a word)."""
    conditions = task.event_conditions or []
    if not conditions:
        return []
    declared = env.declared_events()
    if declared is None:
        return [Problem(label, f"event_conditions: site {env.env_id!r} declares no events (api.EVENTS)")]
    found: list[Problem] = []

    def visit(items: list, where: str) -> None:
        for i, item in enumerate(items):
            condition = item if isinstance(item, dict) else item.model_dump(exclude_unset=True)
            here = f"{where}[{i}]"
            if "any_of" in condition:
                visit(condition["any_of"], f"{here}.any_of")
                continue
            name = condition.get("event")
            if name not in declared:
                known = ", ".join(sorted(declared))
                found.append(
                    Problem(label, f"{here}.event: {env.env_id} emits no event {name!r} (it emits: {known})")
                )
                continue
            for param in condition.get("params") or {}:
                if param not in declared[name]:
                    fields = ", ".join(declared[name]) or "no params"
                    found.append(
                        Problem(
                            label, f"{here}.params.{param}: event {name!r} carries no {param!r} ({fields})"
                        )
                    )

    visit(list(conditions), "event_conditions")
    return found


def _check_canonical_diff(task, label) -> list[Problem]:
    try:
        from humantrace.environments.evaluator import CanonicalDiffError, parse_canonical_diff
    except ImportError:  # the evaluator is optional for loading tasks
        return []
    try:
        parse_canonical_diff(task.evaluator_view()["canonical_diff"])
    except CanonicalDiffError as exc:
        return [Problem(label, str(exc))]
    return []


SAMPLE = 25  # entities per collection the expression check stands in as changes


def _check_expressions(task, condition, variant, seed, label) -> list[Problem]:
    """Run every expression of the task's canonical diff on its seeded initial state, under the
    same budget an Evaluate runs them with, and report each one past a limit.

    The evaluator is given the initial state as both states and a stand-in diff in which up to
    `SAMPLE` entities of every collection the canonical diff names are created, updated and
    deleted, so that each `over`, constraint, invariant filter and predicate expression runs on
    real entities of the site (other errors on stand-in changes are expected and not reported).
    """
    from humantrace.environments.evaluator import Create, Delete, Update, match, parse_canonical_diff
    from humantrace.environments.evaluator.budget import overruns
    from humantrace.environments.evaluator.positives import resolve_collection

    try:
        built = build_session_state(task, condition, seed, variant if condition == "intervention" else None)
    except Exception:  # already reported by _check_build
        return []
    state = built.state.to_collections()
    canonical = task.evaluator_view()["canonical_diff"]
    named: set[str] = set()
    for block in parse_canonical_diff(canonical):
        named.update(resolve_collection(entry, set(state)) for entry in block.positives)
        named.update(inv.collection for inv in block.invariants)
    diff: list = []
    for collection in sorted(named):
        entities = [e for e in (state.get(collection) or []) if isinstance(e, dict) and "id" in e]
        for entity in entities[:SAMPLE]:
            rest = {k: v for k, v in entity.items() if k != "id"}
            field = next(iter(rest), "id")
            diff.append(Create(collection, f"{entity['id']}~check", dict(entity)))
            diff.append(Update(collection, entity["id"], {field: (entity.get(field), entity.get(field))}))
            diff.append(Delete(collection, entity["id"], rest))
    env = registry.get(task.env_id)
    with overruns() as found:
        try:
            match(
                diff,
                canonical,
                targets=built.targets,
                initial=state,
                final=state,
                session_start=built.session_start,
                benign_fields=dict(env.benign_fields),
                state_model=env.state_model,
            )
        except Exception as exc:  # the evaluator itself failed: that is a problem of this task
            return [
                Problem(label, f"{condition} seed {seed}: evaluating failed: {type(exc).__name__}: {exc}")
            ]
    return [
        Problem(label, f"{condition} seed {seed}: an expression is over the evaluator's budget: {message}")
        for message in found
    ]
