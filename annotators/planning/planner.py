"""`plan_panel`: choose the panel and assign every task-condition under the Human-140 rules."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from humantrace.annotators.planning.errors import PlanInfeasible
from humantrace.annotators.planning.feasibility import check_duplicates, check_primary
from humantrace.annotators.planning.ordering import order_rows
from humantrace.annotators.planning.panel import resolve_scope, select_panel
from humantrace.annotators.planning.problem import PlanningProblem
from humantrace.annotators.planning.schemas import (
    CONDITIONS,
    DEFAULT_PROFILE,
    DIFFICULTIES,
    AnnotatorLoad,
    Plan,
    PlanAnnotator,
    PlannedAssignment,
    PlanSummary,
    PlanTask,
)
from humantrace.annotators.planning.solver import solve


def plan_panel(
    *,
    tasks: Sequence[PlanTask],
    annotators: Sequence[PlanAnnotator],
    per_cell: int,
    seed: int,
    envs: Iterable[str] | None = None,
    duplicates_per_cell: int = 1,
    difficulties: Iterable[str] | None = None,
    profiles: Mapping[str, Sequence[str]] | Sequence[str] | None = None,
) -> Plan:
    """Choose `per_cell` base tasks per (environment, difficulty) cell and assign them.

    Every chosen base task is assigned in both conditions to two different primary annotators, none
    of whom designed its environment, with primary loads equal (floor/ceil) per annotator and as
    equal as possible per difficulty; `duplicates_per_cell` task-conditions per cell also go to a
    duplicate-tier annotator for the audit. `envs` and `difficulties` restrict the cells (default:
    every environment that has tasks, all five difficulties). `profiles` crosses the base tasks
    with UI profiles like conditions: every panel task is planned in both conditions under each
    profile of its env, each row to a different person; a list applies to every env, a mapping
    gives each env its own (`resolve_profiles` builds one from `--profiles`; default: the default
    profile only). Same inputs and seed give the same plan. Raises `PlanInfeasible` naming the rule
    that cannot be met.
    """
    _validate(tasks=tasks, annotators=annotators, per_cell=per_cell, duplicates_per_cell=duplicates_per_cell)
    scope_envs, scope_difficulties = resolve_scope(tasks=tasks, envs=envs, difficulties=difficulties)
    panel = select_panel(
        tasks=tasks, envs=scope_envs, difficulties=scope_difficulties, per_cell=per_cell, seed=seed
    )
    by_env = _profiles_by_env(profiles, scope_envs)
    active = sorted((a for a in annotators if a.active), key=lambda a: a.code)
    problem = PlanningProblem(
        panel=panel,
        primaries=tuple(a for a in active if a.tier == "primary"),
        duplicates=tuple(a for a in active if a.tier == "duplicate"),
        duplicates_per_cell=duplicates_per_cell,
        seed=seed,
        profiles=by_env,
    )
    check_primary(problem)
    check_duplicates(problem, per_cell=per_cell)
    solution = solve(problem)
    assignments = order_rows(solution.rows, seed=seed)
    notes: list[str] = []
    if solution.goals["difficulty_excess"]:
        notes.append(
            f"difficulty_balance: the designer exclusions allow no plan with every primary annotator "
            f"within floor/ceil per difficulty; the most balanced plan is off by {solution.goals['difficulty_excess']}"
        )
    if solution.goals["profile_excess"]:
        notes.append(
            f"profile_balance: the designer exclusions allow no plan with every primary annotator "
            f"within floor/ceil per UI profile; the most balanced plan is off by {solution.goals['profile_excess']}"
        )
    if solution.goals.get("duplicate_profile_excess"):
        notes.append(
            f"duplicate_audit: the audit could not duplicate each UI profile's task-conditions in "
            f"proportion to its share of the site; the most even audit is off by "
            f"{solution.goals['duplicate_profile_excess']}"
        )
    return Plan(
        seed=seed,
        per_cell=per_cell,
        duplicates_per_cell=duplicates_per_cell,
        envs=scope_envs,
        difficulties=scope_difficulties,
        panel=panel,
        assignments=assignments,
        summary=summarise(
            assignments=assignments,
            annotators=active,
            cells=len(panel),
            base_tasks=sum(len(cell.task_ids) for cell in panel),
            difficulties=scope_difficulties,
        ),
        notes=tuple(notes),
        profiles=by_env,
    )


def _profiles_by_env(
    profiles: Mapping[str, Sequence[str]] | Sequence[str] | None, envs: Sequence[str]
) -> dict[str, tuple[str, ...]]:
    """Each env's UI profiles, checked: at least one, none repeated, every named env in the plan."""
    if profiles is None:
        return {env: (DEFAULT_PROFILE,) for env in envs}
    if isinstance(profiles, Mapping):
        outside = sorted(set(profiles) - set(envs))
        if outside:
            raise PlanInfeasible(
                "unknown_profile",
                f"UI profiles given for {', '.join(outside)}, which the plan does not cover "
                f"(its envs: {', '.join(envs)})",
            )
        found = {env: tuple(profiles.get(env, ())) for env in envs}
    else:
        found = {env: tuple(profiles) for env in envs}
    for env, names in found.items():
        if not names:
            raise PlanInfeasible("unknown_profile", f"env {env} has no UI profile in the plan")
        repeated = sorted(k for k, n in Counter(names).items() if n > 1)
        if repeated or not all(names):
            raise PlanInfeasible(
                "unknown_profile", f"env {env}: UI profiles must be named once each, got {', '.join(names)}"
            )
    return found


def _validate(
    *, tasks: Sequence[PlanTask], annotators: Sequence[PlanAnnotator], per_cell: int, duplicates_per_cell: int
) -> None:
    if per_cell < 1:
        raise PlanInfeasible("invalid_request", f"--per-cell must be at least 1, got {per_cell}")
    if duplicates_per_cell < 0:
        raise PlanInfeasible(
            "invalid_request", f"duplicates_per_cell must be 0 or more, got {duplicates_per_cell}"
        )
    if duplicates_per_cell > 2 * per_cell:
        raise PlanInfeasible(
            "invalid_request",
            f"duplicates_per_cell {duplicates_per_cell} exceeds the {2 * per_cell} task-conditions of a cell "
            f"(--per-cell {per_cell})",
        )
    repeated_tasks = sorted(k for k, n in Counter(t.task_id for t in tasks).items() if n > 1)
    if repeated_tasks:
        raise PlanInfeasible("invalid_request", f"task_id given more than once: {', '.join(repeated_tasks)}")
    repeated_codes = sorted(k for k, n in Counter(a.code for a in annotators).items() if n > 1)
    if repeated_codes:
        raise PlanInfeasible(
            "invalid_request", f"annotator code given more than once: {', '.join(repeated_codes)}"
        )


def summarise(
    *,
    assignments: Sequence[PlannedAssignment],
    annotators: Sequence[PlanAnnotator],
    cells: int,
    base_tasks: int,
    difficulties: Sequence[str],
) -> PlanSummary:
    """Counts per tier and per annotator (annotators with no rows are listed with zeros), and how
    far the primary loads are from perfect balance per difficulty and per condition."""
    loads = []
    for annotator in annotators:
        rows = [r for r in assignments if r.annotator == annotator.code]
        loads.append(
            AnnotatorLoad(
                annotator=annotator.code,
                tier=annotator.tier,
                total=len(rows),
                by_difficulty={d: n for d in DIFFICULTIES if (n := sum(r.difficulty == d for r in rows))},
                by_condition={c: sum(r.condition == c for r in rows) for c in CONDITIONS},
                by_profile=dict(sorted(Counter(r.ui_profile for r in rows).items())),
            )
        )
    primary_loads = [load for load in loads if load.tier == "primary"]
    excess = 0
    for difficulty in difficulties:
        total = sum(load.by_difficulty.get(difficulty, 0) for load in primary_loads)
        low, high = total // len(primary_loads), -(-total // len(primary_loads))
        for load in primary_loads:
            n = load.by_difficulty.get(difficulty, 0)
            excess = max(excess, low - n, n - high)
    profile_totals = Counter(r.ui_profile for r in assignments if r.tier == "primary")
    profile_excess = 0
    if len(profile_totals) > 1:
        for profile, total in profile_totals.items():
            low, high = total // len(primary_loads), -(-total // len(primary_loads))
            for load in primary_loads:
                n = load.by_profile.get(profile, 0)
                profile_excess = max(profile_excess, low - n, n - high)
    primary = sum(r.tier == "primary" for r in assignments)
    duplicate = sum(r.tier == "duplicate" for r in assignments)
    return PlanSummary(
        cells=cells,
        base_tasks=base_tasks,
        primary_task_conditions=primary,
        primary_attempts=2 * primary,
        duplicate_task_conditions=duplicate,
        duplicate_attempts=2 * duplicate,
        loads=tuple(loads),
        difficulty_excess=excess,
        profile_excess=profile_excess,
        condition_imbalance=max(
            abs(load.by_condition["clean"] - load.by_condition["intervention"]) for load in primary_loads
        ),
    )
