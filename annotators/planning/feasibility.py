"""Pre-checks that refuse impossible requests with a sentence naming the rule that cannot hold.

They run before the solver, so a lead reads "env mail: every primary annotator designed it" rather
than "INFEASIBLE". Each check is a necessary condition; the solver's relaxation diagnosis
(`solver.diagnose`) covers whatever slips through.
"""

from __future__ import annotations

from itertools import combinations

from humantrace.annotators.planning.errors import PlanInfeasible
from humantrace.annotators.planning.problem import PlanningProblem, may_record
from humantrace.annotators.planning.schemas import PlanAnnotator

# Subsets of environments are enumerated for the Hall-type capacity check; beyond this many
# environments the check is skipped (2^12 subsets is still instant) and the solver diagnoses.
MAX_ENVS_FOR_SUBSET_CHECK = 12


def _codes(annotators: list[PlanAnnotator] | tuple[PlanAnnotator, ...]) -> str:
    return ", ".join(a.code for a in annotators)


def check_primary(problem: PlanningProblem) -> None:
    """Raise `PlanInfeasible` when the primary recordings cannot be assigned under the rules."""
    primaries = problem.primaries
    if not primaries:
        raise PlanInfeasible(
            "no_primary_annotators",
            "no primary annotators: the panel needs at least two active primary-tier annotators "
            "(the clean and intervention conditions of a base task go to different people)",
        )
    by_env = problem.base_tasks_by_env()
    for env_id, task_ids in by_env.items():
        eligible = [a for a in primaries if may_record(a, env_id)]
        if not eligible:
            raise PlanInfeasible(
                "designer_exclusion",
                f"env {env_id}: every primary annotator designed it ({_codes(primaries)}): nobody may record it",
            )
        needed = problem.rows_per_task(env_id)
        if len(eligible) < needed:
            profiles = problem.profiles_of(env_id)
            why = (
                "clean and intervention go to different people"
                if len(profiles) == 1
                else f"both conditions under each of the profiles {', '.join(profiles)}, each to a different person"
            )
            raise PlanInfeasible(
                "condition_split" if len(profiles) == 1 else "profile_split",
                f"base task {task_ids[0]} needs {_count(needed)} different annotators who did not design {env_id} "
                f"({why}); only {_codes(eligible)} {'is' if len(eligible) == 1 else 'are'} eligible",
            )
    low, high = problem.load_bounds(problem.primary_total)
    for annotator in primaries:
        capacity = sum(len(ids) for env, ids in by_env.items() if may_record(annotator, env))
        if capacity < low:
            designed = ", ".join(sorted(annotator.designed & by_env.keys()))
            raise PlanInfeasible(
                "primary_balance",
                f"primary balance: {annotator.code} designed {designed} and may record at most {capacity} "
                f"task-conditions (one row of each base task in the other envs), but the balanced "
                f"load is {_load_text(low, high)} per annotator",
            )
    _check_env_groups(problem, by_env, low, high)


def _count(n: int) -> str:
    return {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}.get(n, str(n))


def _load_text(low: int, high: int) -> str:
    return str(low) if low == high else f"{low}-{high}"


def _check_env_groups(problem: PlanningProblem, by_env: dict[str, list[str]], low: int, high: int) -> None:
    """Hall-type conditions on every group of envs: its task-conditions must fit the annotators
    allowed to record it (upper loads), and the annotators confined to it must find enough work
    there (lower loads)."""
    envs = sorted(by_env)
    if len(envs) > MAX_ENVS_FOR_SUBSET_CHECK:
        return
    for size in range(1, len(envs) + 1):
        for group in combinations(envs, size):
            demand = sum(problem.rows_per_task(env) * len(by_env[env]) for env in group)
            helpers = [a for a in problem.primaries if any(may_record(a, env) for env in group)]
            supply = sum(
                min(high, sum(len(by_env[env]) for env in group if may_record(a, env))) for a in helpers
            )
            if demand > supply:
                raise PlanInfeasible(
                    "primary_balance",
                    f"env{'s' if size > 1 else ''} {', '.join(group)} need{'' if size > 1 else 's'} "
                    f"{demand} primary task-conditions, but the annotators who may record them "
                    f"({_codes(helpers)}) can take at most {supply}: each records at most one row "
                    f"of a base task and at most {high} task-conditions in all (the balanced load)",
                )
            confined = [
                a for a in problem.primaries if all(not may_record(a, env) or env in group for env in by_env)
            ]
            if len(confined) * low > demand:
                raise PlanInfeasible(
                    "primary_balance",
                    f"primary balance: {_codes(confined)} may record only {', '.join(group)} (they designed "
                    f"every other env) and need at least {low} task-conditions each (the balanced load), "
                    f"{len(confined) * low} in all, but {'those envs have' if size > 1 else 'it has'} only {demand}",
                )


def check_duplicates(problem: PlanningProblem, *, per_cell: int) -> None:
    """Raise `PlanInfeasible` when the duplicate audit cannot be staffed."""
    wanted = problem.duplicates_per_cell
    if wanted == 0:
        return
    if not problem.duplicates:
        raise PlanInfeasible(
            "duplicate_audit",
            "duplicate audit needs an active duplicate-tier annotator; none "
            "(plan with duplicates_per_cell=0 to skip the audit)",
        )
    for env_id in sorted(problem.base_tasks_by_env()):
        eligible = [a for a in problem.duplicates if may_record(a, env_id)]
        if not eligible:
            raise PlanInfeasible(
                "duplicate_audit",
                f"duplicate audit needs a duplicate-tier annotator who did not design {env_id}; none "
                f"({_codes(problem.duplicates)} designed it)",
            )
        if len(eligible) == 1 and wanted > per_cell:
            raise PlanInfeasible(
                "condition_split",
                f"duplicate audit of env {env_id} needs {wanted} task-conditions per cell from "
                f"{per_cell} base task(s), so both conditions of some base task, which must go to "
                f"different people; only {eligible[0].code} may record {env_id}",
            )
