"""`check_plan`: re-verify a plan against every rule, independently of how it was made.

Each rule has a stable code; a violation names it, says what is wrong and carries the offending
rows. The checker trusts nothing in the plan except its rows and panel: the scope it checks is the
plan's own `envs` x `difficulties`, and `per_cell`/`duplicates_per_cell` come from the caller.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property

from humantrace.annotators.planning.schemas import (
    CONDITIONS,
    DEFAULT_PROFILE,
    Plan,
    PlanAnnotator,
    PlannedAssignment,
    PlanTask,
    Violation,
)


class Rule(StrEnum):
    """The planning rules, in the order `check_plan` reports them; each value is a stable code."""

    unknown_task = "unknown_task"
    no_variant = "no_variant"
    unknown_profile = "unknown_profile"
    unknown_annotator = "unknown_annotator"
    duplicate_row = "duplicate_row"
    cell_size = "cell_size"
    designer_exclusion = "designer_exclusion"
    condition_split = "condition_split"
    profile_split = "profile_split"
    both_conditions = "both_conditions"
    primary_balance = "primary_balance"
    difficulty_balance = "difficulty_balance"
    profile_balance = "profile_balance"
    duplicate_audit = "duplicate_audit"
    duplicate_independence = "duplicate_independence"
    order = "order"


RULES = tuple(rule.value for rule in Rule)
"""The rule codes in report order (kept for callers that list them)."""


def _label(row: PlannedAssignment) -> str:
    return f"{row.annotator} {_tc_label(row)} ({row.tier})"


def _tc_label(row: PlannedAssignment) -> str:
    """task/condition, with @profile when it is not the default."""
    on = "" if row.ui_profile == DEFAULT_PROFILE else f"@{row.ui_profile}"
    return f"{row.task_id}/{row.condition}{on}"


def _tc(row: PlannedAssignment) -> tuple[str, str, str]:
    """The task-condition a row records: (task, condition, UI profile)."""
    return row.task_id, row.condition, row.ui_profile


@dataclass
class _Check:
    """What every rule function reads (the plan, the roster, the catalogue) and where it reports."""

    plan: Plan
    task_by_id: dict[str, PlanTask]
    who: dict[str, PlanAnnotator]
    per_cell: int
    duplicates_per_cell: int
    tolerance: int
    profile_tolerance: int
    declared: Mapping[str, Sequence[str]] | None
    out: list[Violation] = field(default_factory=list)

    @property
    def rows(self) -> tuple[PlannedAssignment, ...]:
        return self.plan.assignments

    @cached_property
    def panel_ids(self) -> list[str]:
        return list(self.plan.panel_task_ids())

    @cached_property
    def primary_of(self) -> dict[tuple[str, str, str], list[PlannedAssignment]]:
        found: dict[tuple[str, str, str], list[PlannedAssignment]] = defaultdict(list)
        for row in self.rows:
            if row.tier == "primary":
                found[_tc(row)].append(row)
        return found

    def add(self, rule: Rule, message: str, bad: Sequence[PlannedAssignment] = ()) -> None:
        self.out.append(Violation(rule=rule.value, message=message, rows=tuple(bad)))


def check_plan(
    plan: Plan,
    *,
    tasks: Sequence[PlanTask],
    annotators: Sequence[PlanAnnotator],
    per_cell: int,
    duplicates_per_cell: int = 1,
    difficulty_tolerance: int = 0,
    profile_tolerance: int = 0,
    declared_profiles: Mapping[str, Sequence[str]] | None = None,
) -> list[Violation]:
    """Every rule the plan breaks, in the order of `Rule`; an empty list means the plan is valid.

    `difficulty_tolerance` allows per-difficulty primary loads that far outside floor/ceil (pass
    `plan.summary.difficulty_excess` to accept a plan the planner flagged as the best possible);
    `profile_tolerance` likewise per UI profile (`plan.summary.profile_excess`).
    `declared_profiles` (env -> the site's profile names) also checks the plan's profiles exist.
    """
    check = _Check(
        plan=plan,
        task_by_id={t.task_id: t for t in tasks},
        who={a.code: a for a in annotators},
        per_cell=per_cell,
        duplicates_per_cell=duplicates_per_cell,
        tolerance=difficulty_tolerance,
        profile_tolerance=profile_tolerance,
        declared=declared_profiles,
    )
    for rule_check in _CHECKS:
        rule_check(check)
    rank = {rule.value: i for i, rule in enumerate(Rule)}
    return sorted(check.out, key=lambda v: rank[v.rule])


def _known_tasks(c: _Check) -> None:
    """unknown_task / no_variant: every row and panel entry refers to a real task with a variant."""
    in_panel = set(c.panel_ids)
    for row in c.rows:
        task = c.task_by_id.get(row.task_id)
        if task is None:
            c.add(Rule.unknown_task, f"{_label(row)}: no such task", [row])
        elif (task.env_id, task.difficulty) != (row.env_id, row.difficulty):
            c.add(
                Rule.unknown_task,
                f"{_label(row)}: row says ({row.env_id}, {row.difficulty}), task is ({task.env_id}, {task.difficulty})",
                [row],
            )
        elif row.task_id not in in_panel:
            c.add(Rule.unknown_task, f"{_label(row)}: task is not in the panel", [row])
    for task_id in sorted(in_panel):
        task = c.task_by_id.get(task_id)
        if task is None:
            c.add(Rule.unknown_task, f"panel task {task_id}: no such task")
        elif not task.has_variant:
            c.add(
                Rule.no_variant,
                f"panel task {task_id} has no variant: it cannot be recorded under intervention",
            )


def _known_annotators(c: _Check) -> None:
    """unknown_annotator: active, known, and the row's tier is the annotator's tier."""
    for row in c.rows:
        annotator = c.who.get(row.annotator)
        if annotator is None or not annotator.active:
            c.add(Rule.unknown_annotator, f"{_label(row)}: {row.annotator} is not an active annotator", [row])
        elif annotator.tier != row.tier:
            c.add(Rule.unknown_annotator, f"{_label(row)}: {row.annotator} is {annotator.tier}-tier", [row])


def _unique_rows(c: _Check) -> None:
    """duplicate_row: one row per (annotator, task-condition); one primary and at most one
    duplicate recording per task-condition."""
    groups: dict[tuple, list[PlannedAssignment]] = defaultdict(list)
    for row in c.rows:
        groups["same", row.annotator, *_tc(row), row.tier].append(row)
        groups[row.tier, *_tc(row)].append(row)
    for key, group in groups.items():
        # Two rows of one person on one task-condition are already "the same row".
        if len(group) > 1 and (key[0] == "same" or len({r.annotator for r in group}) > 1):
            what = (
                "the same row"
                if key[0] == "same"
                else f"{len(group)} {key[0]} recordings of {_tc_label(group[0])}"
            )
            c.add(Rule.duplicate_row, f"{what}: {'; '.join(map(_label, group))}", group)


def _cell_sizes(c: _Check) -> None:
    """cell_size: exactly per_cell distinct base tasks in every cell of the plan's scope, none elsewhere."""
    plan = c.plan
    scope = {(e, d) for e in plan.envs for d in plan.difficulties}
    seen_cells = Counter((cell.env_id, cell.difficulty) for cell in plan.panel)
    for task_id, n in Counter(c.panel_ids).items():
        if n > 1:
            c.add(Rule.cell_size, f"panel lists {task_id} {n} times")
    for cell in plan.panel:
        home = (cell.env_id, cell.difficulty)
        if home not in scope:
            c.add(
                Rule.cell_size,
                f"cell ({cell.env_id}, {cell.difficulty}) is outside the plan's envs and difficulties",
            )
        misplaced = [
            t
            for t in cell.task_ids
            if t in c.task_by_id and (c.task_by_id[t].env_id, c.task_by_id[t].difficulty) != home
        ]
        if misplaced:
            c.add(
                Rule.cell_size,
                f"cell ({cell.env_id}, {cell.difficulty}) lists tasks of other cells: {', '.join(misplaced)}",
            )
    for env_id, difficulty in sorted(scope):
        size = sum(
            len(set(x.task_ids)) for x in plan.panel if (x.env_id, x.difficulty) == (env_id, difficulty)
        )
        if size != c.per_cell or seen_cells[env_id, difficulty] > 1:
            c.add(
                Rule.cell_size,
                f"cell ({env_id}, {difficulty}) has {size} base tasks; per_cell is {c.per_cell}",
            )


def _designers(c: _Check) -> None:
    """designer_exclusion: nobody records an environment they designed."""
    for row in c.rows:
        annotator = c.who.get(row.annotator)
        if annotator is not None and row.env_id in annotator.designed:
            c.add(Rule.designer_exclusion, f"{_label(row)}: {row.annotator} designed {row.env_id}", [row])


def _condition_split(c: _Check) -> None:
    """condition_split: nobody holds both conditions of one base task."""
    by_person_task: dict[tuple[str, str], list[PlannedAssignment]] = defaultdict(list)
    for row in c.rows:
        by_person_task[row.annotator, row.task_id].append(row)
    for (code, task_id), group in sorted(by_person_task.items()):
        if {r.condition for r in group} == set(CONDITIONS):
            c.add(Rule.condition_split, f"{code} holds both conditions of {task_id}", group)


def _profile_split(c: _Check) -> None:
    """profile_split: nobody holds one base task under two UI profiles."""
    by_person_task: dict[tuple[str, str], list[PlannedAssignment]] = defaultdict(list)
    for row in c.rows:
        by_person_task[row.annotator, row.task_id].append(row)
    for (code, task_id), group in sorted(by_person_task.items()):
        profiles = sorted({r.ui_profile for r in group})
        if len(profiles) > 1:
            c.add(Rule.profile_split, f"{code} holds {task_id} under profiles {', '.join(profiles)}", group)


def _known_profiles(c: _Check) -> None:
    """unknown_profile: every row's UI profile is one its env is planned under, and (when the
    sites' declarations are given) every planned profile exists on its site."""
    for row in c.rows:
        allowed = c.plan.profiles_of(row.env_id)
        if row.ui_profile not in allowed:
            c.add(
                Rule.unknown_profile,
                f"{_label(row)}: {row.env_id} is planned under {', '.join(allowed)}, not {row.ui_profile!r}",
                [row],
            )
    if c.declared is None:
        return
    for env_id in c.plan.envs:
        declared = list(c.declared.get(env_id, (DEFAULT_PROFILE,)))
        unknown = [p for p in c.plan.profiles_of(env_id) if p not in declared]
        if unknown:
            c.add(
                Rule.unknown_profile,
                f"{env_id} has no UI profile {', '.join(map(repr, unknown))} (it has: {', '.join(declared)})",
                [r for r in c.rows if r.env_id == env_id and r.ui_profile in unknown],
            )


def _both_conditions(c: _Check) -> None:
    """both_conditions: every panel task has a primary recording in each condition under each UI
    profile of its env."""
    env_of = {t: cell.env_id for cell in c.plan.panel for t in cell.task_ids}
    for task_id in c.panel_ids:
        for profile in c.plan.profiles_of(env_of[task_id]):
            missing = [cond for cond in CONDITIONS if not c.primary_of.get((task_id, cond, profile))]
            if missing:
                on = "" if profile == DEFAULT_PROFILE else f" under profile {profile}"
                c.add(
                    Rule.both_conditions,
                    f"panel task {task_id} has no primary recording{on} in: {', '.join(missing)}",
                    [r for cond in CONDITIONS for r in c.primary_of.get((task_id, cond, profile), [])],
                )


def _order(c: _Check) -> None:
    """order: each annotator's queue is numbered 1..n without gaps or repeats."""
    queues: dict[str, list[PlannedAssignment]] = defaultdict(list)
    for row in c.rows:
        queues[row.annotator].append(row)
    for code, group in sorted(queues.items()):
        numbers = Counter(r.order for r in group)
        expected = range(1, len(group) + 1)
        if sorted(numbers) != list(expected):
            problems = [f"{n} used {k} times" for n, k in sorted(numbers.items()) if k > 1]
            problems += [f"{n} missing" for n in expected if n not in numbers]
            problems += [f"{n} out of range" for n in sorted(numbers) if n not in expected]
            c.add(
                Rule.order,
                f"{code}'s {len(group)} assignments must be numbered 1..{len(group)}: {', '.join(problems)}",
                group,
            )


def _balance(c: _Check) -> None:
    """primary_balance (floor/ceil in total) and difficulty_balance (floor/ceil per difficulty)."""
    plan, who, per_cell, tolerance, add = c.plan, c.who, c.per_cell, c.tolerance, c.add
    primaries = sorted(code for code, a in who.items() if a.active and a.tier == "primary")
    if not primaries:
        add(Rule.primary_balance, "no active primary annotators")
        return
    count = len(primaries)
    rows = [r for r in plan.assignments if r.tier == "primary"]
    # Each base task is planned in both conditions under each profile of its env.
    per_difficulty = sum(len(CONDITIONS) * per_cell * len(plan.profiles_of(e)) for e in plan.envs)
    total = per_difficulty * len(plan.difficulties)
    for code in primaries:
        mine = [r for r in rows if r.annotator == code]
        if not total // count <= len(mine) <= -(-total // count):
            add(
                Rule.primary_balance,
                f"{code} records {len(mine)} primary task-conditions; a balanced load of {total} over {count} "
                f"is {total // count}-{-(-total // count)}",
                mine,
            )
        for difficulty in plan.difficulties:
            d_total = per_difficulty
            d_mine = [r for r in mine if r.difficulty == difficulty]
            low, high = d_total // count - tolerance, -(-d_total // count) + tolerance
            if not low <= len(d_mine) <= high:
                add(
                    Rule.difficulty_balance,
                    f"{code} records {len(d_mine)} {difficulty} task-conditions; allowed {low}-{high}",
                    d_mine,
                )
    _profile_balance(c, primaries, rows)


def _profile_balance(c: _Check, primaries: list[str], rows: list[PlannedAssignment]) -> None:
    """profile_balance: each primary annotator records floor or ceil of (a profile's task-conditions
    / primary annotators) under each UI profile, give or take `profile_tolerance`."""
    plan = c.plan
    totals: Counter[str] = Counter()
    for env_id in plan.envs:
        for profile in plan.profiles_of(env_id):
            totals[profile] += len(CONDITIONS) * c.per_cell * len(plan.difficulties)
    if len(totals) < 2:
        return
    count = len(primaries)
    for code in primaries:
        for profile, p_total in sorted(totals.items()):
            p_mine = [r for r in rows if r.annotator == code and r.ui_profile == profile]
            low = p_total // count - c.profile_tolerance
            high = -(-p_total // count) + c.profile_tolerance
            if not low <= len(p_mine) <= high:
                c.add(
                    Rule.profile_balance,
                    f"{code} records {len(p_mine)} task-conditions under profile {profile}; allowed {low}-{high}",
                    p_mine,
                )


def _audit(c: _Check) -> None:
    """duplicate_audit (the right number of duplicated task-conditions per cell) and
    duplicate_independence (the duplicate recorder is not the primary recorder)."""
    plan, primary_of, duplicates_per_cell, add = c.plan, c.primary_of, c.duplicates_per_cell, c.add
    dups = [r for r in plan.assignments if r.tier == "duplicate"]
    for cell in plan.panel:
        here = [r for r in dups if (r.env_id, r.difficulty) == (cell.env_id, cell.difficulty)]
        duplicated = {_tc(r) for r in here}
        if len(duplicated) != duplicates_per_cell:
            add(
                Rule.duplicate_audit,
                f"cell ({cell.env_id}, {cell.difficulty}) has {len(duplicated)} duplicated task-conditions; "
                f"the audit needs {duplicates_per_cell}",
                here,
            )
        orphans = [r for r in here if not primary_of.get(_tc(r))]
        if orphans:
            add(
                Rule.duplicate_audit,
                f"duplicated without a primary recording: {'; '.join(map(_label, orphans))}",
                orphans,
            )
    for row in dups:
        same = [p for p in primary_of.get(_tc(row), []) if p.annotator == row.annotator]
        if same:
            add(
                Rule.duplicate_independence,
                f"{_label(row)}: {row.annotator} is also the primary recorder",
                [row, *same],
            )


_CHECKS: tuple[Callable[[_Check], None], ...] = (
    _known_tasks,
    _known_profiles,
    _known_annotators,
    _unique_rows,
    _cell_sizes,
    _designers,
    _condition_split,
    _profile_split,
    _both_conditions,
    _balance,
    _audit,
    _order,
)
"""Every rule, one function each; `check_plan` runs them all and sorts what they report by `Rule`."""
