"""`check_plan`: re-verify a plan against every rule, independently of how it was made.

Each rule has a stable code; a violation names it, says what is wrong and carries the offending
rows. The checker trusts nothing in the plan except its rows and panel: the scope it checks is the
plan's own `envs` x `difficulties`, and `per_cell`/`duplicates_per_cell` come from the caller.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence

from annotators.planning.schemas import (
    CONDITIONS,
    Plan,
    PlanAnnotator,
    PlannedAssignment,
    PlanTask,
    Violation,
)

# add(rule, message, rows): how the rule helpers report a violation.
Report = Callable[..., None]

RULES = (
    "unknown_task",
    "no_variant",
    "unknown_annotator",
    "duplicate_row",
    "cell_size",
    "designer_exclusion",
    "condition_split",
    "both_conditions",
    "primary_balance",
    "difficulty_balance",
    "duplicate_audit",
    "duplicate_independence",
    "order",
)


def _label(row: PlannedAssignment) -> str:
    return f"{row.annotator} {row.task_id}/{row.condition} ({row.tier})"


def check_plan(
    plan: Plan,
    *,
    tasks: Sequence[PlanTask],
    annotators: Sequence[PlanAnnotator],
    per_cell: int,
    duplicates_per_cell: int = 1,
    difficulty_tolerance: int = 0,
) -> list[Violation]:
    """Every rule the plan breaks, in the order of `RULES`; an empty list means the plan is valid.

    `difficulty_tolerance` allows per-difficulty primary loads that far outside floor/ceil (pass
    `plan.summary.difficulty_excess` to accept a plan the planner flagged as the best possible).
    """
    out: list[Violation] = []
    task_by_id = {t.task_id: t for t in tasks}
    who = {a.code: a for a in annotators}
    rows = plan.assignments
    panel_ids = plan.panel_task_ids()
    in_panel = set(panel_ids)

    def add(rule: str, message: str, bad: Sequence[PlannedAssignment] = ()) -> None:
        out.append(Violation(rule=rule, message=message, rows=tuple(bad)))

    # unknown_task / no_variant: every row and panel entry refers to a real task with a variant.
    for row in rows:
        task = task_by_id.get(row.task_id)
        if task is None:
            add("unknown_task", f"{_label(row)}: no such task", [row])
        elif (task.env_id, task.difficulty) != (row.env_id, row.difficulty):
            add(
                "unknown_task",
                f"{_label(row)}: row says ({row.env_id}, {row.difficulty}), task is ({task.env_id}, {task.difficulty})",
                [row],
            )
        elif row.task_id not in in_panel:
            add("unknown_task", f"{_label(row)}: task is not in the panel", [row])
    for task_id in sorted(in_panel):
        task = task_by_id.get(task_id)
        if task is None:
            add("unknown_task", f"panel task {task_id}: no such task")
        elif not task.has_variant:
            add(
                "no_variant", f"panel task {task_id} has no variant: it cannot be recorded under intervention"
            )

    # unknown_annotator: active, known, and the row's tier is the annotator's tier.
    for row in rows:
        annotator = who.get(row.annotator)
        if annotator is None or not annotator.active:
            add("unknown_annotator", f"{_label(row)}: {row.annotator} is not an active annotator", [row])
        elif annotator.tier != row.tier:
            add("unknown_annotator", f"{_label(row)}: {row.annotator} is {annotator.tier}-tier", [row])

    # duplicate_row: one row per (annotator, task-condition); one primary and at most one duplicate
    # recording per task-condition.
    groups: dict[tuple, list[PlannedAssignment]] = defaultdict(list)
    for row in rows:
        groups["same", row.annotator, row.task_id, row.condition, row.tier].append(row)
        groups[row.tier, row.task_id, row.condition].append(row)
    for key, group in groups.items():
        # Two rows of one person on one task-condition are already "the same row".
        if len(group) > 1 and (key[0] == "same" or len({r.annotator for r in group}) > 1):
            what = (
                "the same row"
                if key[0] == "same"
                else f"{len(group)} {key[0]} recordings of {key[1]}/{key[2]}"
            )
            add("duplicate_row", f"{what}: {'; '.join(map(_label, group))}", group)

    # cell_size: exactly per_cell distinct base tasks in every cell of the plan's scope, and none elsewhere.
    scope = {(e, d) for e in plan.envs for d in plan.difficulties}
    seen_cells = Counter((c.env_id, c.difficulty) for c in plan.panel)
    for task_id, n in Counter(panel_ids).items():
        if n > 1:
            add("cell_size", f"panel lists {task_id} {n} times")
    for cell in plan.panel:
        if (cell.env_id, cell.difficulty) not in scope:
            add(
                "cell_size",
                f"cell ({cell.env_id}, {cell.difficulty}) is outside the plan's envs and difficulties",
            )
        home = (cell.env_id, cell.difficulty)
        misplaced = [
            t
            for t in cell.task_ids
            if t in task_by_id and (task_by_id[t].env_id, task_by_id[t].difficulty) != home
        ]
        if misplaced:
            add(
                "cell_size",
                f"cell ({cell.env_id}, {cell.difficulty}) lists tasks of other cells: {', '.join(misplaced)}",
            )
    for env_id, difficulty in sorted(scope):
        size = sum(
            len(set(c.task_ids)) for c in plan.panel if (c.env_id, c.difficulty) == (env_id, difficulty)
        )
        if size != per_cell or seen_cells[env_id, difficulty] > 1:
            add("cell_size", f"cell ({env_id}, {difficulty}) has {size} base tasks; per_cell is {per_cell}")

    # designer_exclusion: nobody records an environment they designed.
    for row in rows:
        annotator = who.get(row.annotator)
        if annotator is not None and row.env_id in annotator.designed:
            add("designer_exclusion", f"{_label(row)}: {row.annotator} designed {row.env_id}", [row])

    # condition_split: nobody holds both conditions of one base task.
    by_person_task: dict[tuple[str, str], list[PlannedAssignment]] = defaultdict(list)
    for row in rows:
        by_person_task[row.annotator, row.task_id].append(row)
    for (code, task_id), group in sorted(by_person_task.items()):
        if {r.condition for r in group} == set(CONDITIONS):
            add("condition_split", f"{code} holds both conditions of {task_id}", group)

    primary_of: dict[tuple[str, str], list[PlannedAssignment]] = defaultdict(list)
    for row in rows:
        if row.tier == "primary":
            primary_of[row.task_id, row.condition].append(row)
    # both_conditions: every panel task has a primary recording in each condition.
    for task_id in panel_ids:
        missing = [c for c in CONDITIONS if not primary_of.get((task_id, c))]
        if missing:
            add(
                "both_conditions",
                f"panel task {task_id} has no primary recording in: {', '.join(missing)}",
                [r for c in CONDITIONS for r in primary_of.get((task_id, c), [])],
            )

    _check_balance(plan, who, per_cell, difficulty_tolerance, add)
    _check_audit(plan, primary_of, duplicates_per_cell, add)

    # order: each annotator's queue is numbered 1..n without gaps or repeats.
    queues: dict[str, list[PlannedAssignment]] = defaultdict(list)
    for row in rows:
        queues[row.annotator].append(row)
    for code, group in sorted(queues.items()):
        numbers = Counter(r.order for r in group)
        expected = range(1, len(group) + 1)
        if sorted(numbers) != list(expected):
            problems = [f"{n} used {k} times" for n, k in sorted(numbers.items()) if k > 1]
            problems += [f"{n} missing" for n in expected if n not in numbers]
            problems += [f"{n} out of range" for n in sorted(numbers) if n not in expected]
            add(
                "order",
                f"{code}'s {len(group)} assignments must be numbered 1..{len(group)}: {', '.join(problems)}",
                group,
            )

    rank = {rule: i for i, rule in enumerate(RULES)}
    return sorted(out, key=lambda v: rank[v.rule])


def _check_balance(
    plan: Plan, who: dict[str, PlanAnnotator], per_cell: int, tolerance: int, add: Report
) -> None:
    """primary_balance (floor/ceil in total) and difficulty_balance (floor/ceil per difficulty)."""
    primaries = sorted(code for code, a in who.items() if a.active and a.tier == "primary")
    if not primaries:
        add("primary_balance", "no active primary annotators")
        return
    count = len(primaries)
    rows = [r for r in plan.assignments if r.tier == "primary"]
    total = 2 * per_cell * len(plan.envs) * len(plan.difficulties)
    for code in primaries:
        mine = [r for r in rows if r.annotator == code]
        if not total // count <= len(mine) <= -(-total // count):
            add(
                "primary_balance",
                f"{code} records {len(mine)} primary task-conditions; a balanced load of {total} over {count} "
                f"is {total // count}-{-(-total // count)}",
                mine,
            )
        for difficulty in plan.difficulties:
            d_total = 2 * per_cell * len(plan.envs)
            d_mine = [r for r in mine if r.difficulty == difficulty]
            low, high = d_total // count - tolerance, -(-d_total // count) + tolerance
            if not low <= len(d_mine) <= high:
                add(
                    "difficulty_balance",
                    f"{code} records {len(d_mine)} {difficulty} task-conditions; allowed {low}-{high}",
                    d_mine,
                )


def _check_audit(
    plan: Plan,
    primary_of: dict[tuple[str, str], list[PlannedAssignment]],
    duplicates_per_cell: int,
    add: Report,
) -> None:
    """duplicate_audit (the right number of duplicated task-conditions per cell) and
    duplicate_independence (the duplicate recorder is not the primary recorder)."""
    dups = [r for r in plan.assignments if r.tier == "duplicate"]
    for cell in plan.panel:
        here = [r for r in dups if (r.env_id, r.difficulty) == (cell.env_id, cell.difficulty)]
        duplicated = {(r.task_id, r.condition) for r in here}
        if len(duplicated) != duplicates_per_cell:
            add(
                "duplicate_audit",
                f"cell ({cell.env_id}, {cell.difficulty}) has {len(duplicated)} duplicated task-conditions; "
                f"the audit needs {duplicates_per_cell}",
                here,
            )
        orphans = [r for r in here if not primary_of.get((r.task_id, r.condition))]
        if orphans:
            add(
                "duplicate_audit",
                f"duplicated without a primary recording: {'; '.join(map(_label, orphans))}",
                orphans,
            )
    for row in dups:
        same = [p for p in primary_of.get((row.task_id, row.condition), []) if p.annotator == row.annotator]
        if same:
            add(
                "duplicate_independence",
                f"{_label(row)}: {row.annotator} is also the primary recorder",
                [row, *same],
            )
