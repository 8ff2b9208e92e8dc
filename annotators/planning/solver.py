"""CP-SAT formulation of the assignment: hard rules, lexicographic balance goals, seeded ties.

Variables: x[a, tc] = 1 when primary annotator a records task-condition tc; y[d, tc] = 1 when
duplicate-tier annotator d records tc again for the audit. Hard rule groups (each can be dropped
by `diagnose` to find the one that makes a request impossible):

- coverage: every task-condition has exactly one primary annotator;
- designer_exclusion: no variable exists for an env the annotator designed;
- condition_split: nobody holds one base task twice (both conditions, or two UI profiles; either
  tier);
- primary_balance: each primary load is floor or ceil of total / primary annotators;
- duplicate_audit: each cell has exactly `duplicates_per_cell` duplicated task-conditions, each
  recorded by one duplicate-tier annotator.

Soft goals are minimised lexicographically, in this priority: the per-difficulty excess of primary
loads beyond floor/ceil, the per-UI-profile excess likewise, the clean/intervention imbalance per primary annotator, the duplicate
loads beyond floor/ceil, the clean/intervention imbalance of the audit, and the audit's spread over
each site's UI profiles (in proportion to each profile's task-conditions). Their optimum is then fixed
and a seeded random weight per variable is minimised, so the seed breaks the remaining ties. One
worker, a fixed random seed and deterministic-time limits (not wall-clock) make the result the same
on every machine with the same OR-Tools version.
"""

from __future__ import annotations

from dataclasses import dataclass

from ortools.sat.python import cp_model

from humantrace.annotators.planning.errors import PlanInfeasible
from humantrace.annotators.planning.panel import seeded_rng
from humantrace.annotators.planning.problem import PlanningProblem, TaskCondition, may_record
from humantrace.annotators.planning.schemas import Tier

# In the order a diagnosis names them: the rules a lead can most easily change come first (balance
# and the audit are targets; who designed what and the condition split are fixed facts).
RULE_GROUPS = ("primary_balance", "duplicate_audit", "condition_split", "designer_exclusion")
# Deterministic time (CP-SAT's machine-independent work measure, roughly seconds on a fast core)
# allowed per stage. The balance stages finish far below it; the seeded tie-break stage only needs
# to move the solution away from the solver's default, not prove it optimal, so it gets a short
# budget and keeps the best solution found (still deterministic: the budget is not wall-clock).
STAGE_DETERMINISTIC_TIME = 20.0
TIE_BREAK_DETERMINISTIC_TIME = 0.3
TIE_WEIGHT_RANGE = 1000


@dataclass(frozen=True)
class SolvedRow:
    """One solver decision, before ordering."""

    annotator: str
    tc: TaskCondition
    tier: Tier


@dataclass(frozen=True)
class Solution:
    """The chosen rows and the value reached for each soft goal, by name."""

    rows: tuple[SolvedRow, ...]
    goals: dict[str, int]


class _Model:
    """The CP-SAT model for one problem, with some rule groups optionally left out."""

    def __init__(self, problem: PlanningProblem, relax: frozenset[str] = frozenset()) -> None:
        self.problem = problem
        self.model = cp_model.CpModel()
        m = self.model
        tcs = problem.task_conditions
        self.x: dict[tuple[str, int], cp_model.IntVar] = {}
        self.y: dict[tuple[str, int], cp_model.IntVar] = {}
        keep_all = "designer_exclusion" in relax
        for i, tc in enumerate(tcs):
            for a in problem.primaries:
                if keep_all or may_record(a, tc.env_id):
                    self.x[a.code, i] = m.new_bool_var(f"x[{a.code},{i}]")
            for d in problem.duplicates:
                if keep_all or may_record(d, tc.env_id):
                    self.y[d.code, i] = m.new_bool_var(f"y[{d.code},{i}]")
        for i in range(len(tcs)):
            m.add_exactly_one(self._x_of_tc(i))
        if "condition_split" not in relax:
            # The task-conditions of one base task (both conditions under each UI profile).
            of_task: dict[str, list[int]] = {}
            for i, tc in enumerate(tcs):
                of_task.setdefault(tc.task_id, []).append(i)
            for indexes in of_task.values():
                for code in [a.code for a in problem.primaries] + [d.code for d in problem.duplicates]:
                    keys = [(code, i) for i in indexes]
                    mine = [v for key in keys for v in (self.x.get(key), self.y.get(key)) if v is not None]
                    # Two or more: one person never holds a base task twice (both conditions, two
                    # profiles), nor a primary and a duplicate recording of one task-condition.
                    if len(mine) >= 2:
                        m.add_at_most_one(mine)
        self.loads = {
            a.code: sum(v for (code, _), v in self.x.items() if code == a.code) for a in problem.primaries
        }
        if "primary_balance" not in relax:
            low, high = problem.load_bounds(problem.primary_total)
            for load in self.loads.values():
                m.add_linear_constraint(load, low, high)
        self.audit_on = "duplicate_audit" not in relax and problem.duplicates_per_cell > 0
        if self.audit_on:
            for i in range(len(tcs)):
                m.add_at_most_one(self._y_of_tc(i))
            cells: dict[tuple[str, str], list[int]] = {}
            for i, tc in enumerate(tcs):
                cells.setdefault((tc.env_id, tc.difficulty), []).append(i)
            for indexes in cells.values():
                m.add(sum(v for i in indexes for v in self._y_of_tc(i)) == problem.duplicates_per_cell)
        else:
            for v in self.y.values():
                m.add(v == 0)

    def _x_of_tc(self, i: int) -> list[cp_model.IntVar]:
        return [self.x[a.code, i] for a in self.problem.primaries if (a.code, i) in self.x]

    def _y_of_tc(self, i: int) -> list[cp_model.IntVar]:
        return [self.y[d.code, i] for d in self.problem.duplicates if (d.code, i) in self.y]

    def soft_goals(self) -> tuple[list[tuple[str, cp_model.IntVar]], cp_model.LinearExprT]:
        """The balance goals as (name, variable) in priority order, and the seeded tie-break sum.

        Each balance goal is stated as an excess beyond the best conceivable value (floor/ceil for
        counts, a difference of at most 1 for clean vs intervention), so its lower bound is 0 and
        the solver proves optimality as soon as it finds a perfectly balanced plan; a goal written
        as max - min would make it prove parity facts by search.
        """
        m, problem = self.model, self.problem
        tcs = problem.task_conditions
        totals = problem.difficulty_totals()
        count = len(problem.primaries)
        excess = m.new_int_var(0, problem.primary_total, "difficulty_excess")
        profile_excess = m.new_int_var(0, problem.primary_total, "profile_excess")
        imbalance = m.new_int_var(0, problem.primary_total, "condition_excess")
        profile_totals = problem.profile_totals()
        for a in problem.primaries:
            mine = [(i, v) for (code, i), v in self.x.items() if code == a.code]
            for difficulty, total in totals.items():
                load = sum(v for i, v in mine if tcs[i].difficulty == difficulty)
                m.add(load <= -(-total // count) + excess)
                m.add(load >= total // count - excess)
            if len(profile_totals) > 1:
                for profile, total in profile_totals.items():
                    load = sum(v for i, v in mine if tcs[i].ui_profile == profile)
                    m.add(load <= -(-total // count) + profile_excess)
                    m.add(load >= total // count - profile_excess)
            clean = sum(v for i, v in mine if tcs[i].condition == "clean")
            m.add(2 * clean - self.loads[a.code] <= 1 + 2 * imbalance)
            m.add(self.loads[a.code] - 2 * clean <= 1 + 2 * imbalance)
        goals: list[tuple[str, cp_model.IntVar]] = [
            ("difficulty_excess", excess),
            ("profile_excess", profile_excess),
            ("condition_excess", imbalance),
        ]
        if self.audit_on:
            dup_total = problem.duplicates_per_cell * len(problem.panel)
            share = len(problem.duplicates)
            spread = m.new_int_var(0, dup_total, "duplicate_load_excess")
            for d in problem.duplicates:
                load = sum(v for (code, _), v in self.y.items() if code == d.code)
                m.add(load <= -(-dup_total // share) + spread)
                m.add(load >= dup_total // share - spread)
            clean_dups = sum(v for (_, i), v in self.y.items() if tcs[i].condition == "clean")
            dup_imbalance = m.new_int_var(0, dup_total, "duplicate_condition_excess")
            m.add(2 * clean_dups - dup_total <= 1 + 2 * dup_imbalance)
            m.add(dup_total - 2 * clean_dups <= 1 + 2 * dup_imbalance)
            goals += [("duplicate_load_excess", spread), ("duplicate_condition_excess", dup_imbalance)]
            goals += self._audit_profile_goal(dup_total)
        rng = seeded_rng(problem.seed, "tie-break")
        ties = sum(
            rng.randrange(TIE_WEIGHT_RANGE) * v for _, v in sorted(self.x.items()) + sorted(self.y.items())
        )
        return goals, ties

    def _audit_profile_goal(self, dup_total: int) -> list[tuple[str, cp_model.IntVar]]:
        """duplicate_profile_excess: in each env with several UI profiles, the audit duplicates each
        profile's task-conditions in proportion to that profile's share of the env's task-conditions
        (floor or ceil of it), so every build of a site gets its recordings checked, not only one."""
        m, tcs = self.model, self.problem.task_conditions
        by_env: dict[str, dict[str, list[int]]] = {}
        for i, tc in enumerate(tcs):
            by_env.setdefault(tc.env_id, {}).setdefault(tc.ui_profile, []).append(i)
        profiled = {env: groups for env, groups in by_env.items() if len(groups) > 1}
        if not profiled:
            return []
        excess = m.new_int_var(0, dup_total, "duplicate_profile_excess")
        for groups in profiled.values():
            env_total = sum(len(indexes) for indexes in groups.values())
            env_dups = sum(v for indexes in groups.values() for i in indexes for v in self._y_of_tc(i))
            for indexes in groups.values():
                count = sum(v for i in indexes for v in self._y_of_tc(i))
                # floor(env_dups * share) - excess <= count <= ceil(env_dups * share) + excess,
                # multiplied through by env_total so the bounds stay linear in the solver's variables.
                m.add(count * env_total >= env_dups * len(indexes) - (env_total - 1) - env_total * excess)
                m.add(count * env_total <= env_dups * len(indexes) + (env_total - 1) + env_total * excess)
        return [("duplicate_profile_excess", excess)]


def _solver(seed: int) -> cp_model.CpSolver:
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = seed % (2**31)
    solver.parameters.max_deterministic_time = STAGE_DETERMINISTIC_TIME
    return solver


def _feasible(problem: PlanningProblem, relax: frozenset[str]) -> bool:
    built = _Model(problem, relax)
    status = _solver(problem.seed).solve(built.model)
    return status in (cp_model.OPTIMAL, cp_model.FEASIBLE)


def solve(problem: PlanningProblem) -> Solution:
    """Solve the hard rules and the balance goals, then break ties by the seed.

    Stage 1 minimises the balance goals lexicographically through one weighted sum (each weight
    exceeds the largest possible value of everything after it), which CP-SAT proves optimal at once
    when a perfectly balanced plan exists. Stage 2 fixes every goal at its optimum and minimises
    the seeded weights. Raises `PlanInfeasible` (diagnosed) when the hard rules admit no plan.
    """
    built = _Model(problem)
    m = built.model
    balance, ties = built.soft_goals()
    base = problem.primary_total + 1
    m.minimize(sum(base ** (len(balance) - 1 - j) * var for j, (_, var) in enumerate(balance)))
    solver = _solver(problem.seed)
    status = solver.solve(m)
    if status == cp_model.INFEASIBLE:
        raise diagnose(problem)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise PlanInfeasible(
            "solver_budget",
            f"the solver found no plan within its work budget ({STAGE_DETERMINISTIC_TIME:g} deterministic "
            f"seconds) but did not prove that none exists; try fewer cells or annotators per request",
        )
    values = {name: solver.value(var) for name, var in balance}
    for name, var in balance:
        m.add(var <= values[name])
    # Start the tie-break from this solution so it only ever improves on it.
    for var in list(built.x.values()) + list(built.y.values()):
        m.add_hint(var, solver.boolean_value(var))
    m.minimize(ties)
    solver.parameters.max_deterministic_time = TIE_BREAK_DETERMINISTIC_TIME
    status = solver.solve(m)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise PlanInfeasible(
            "solver", "the solver lost the plan it had found while breaking ties; please report this"
        )
    tcs = problem.task_conditions
    rows = [SolvedRow(code, tcs[i], "primary") for (code, i), v in built.x.items() if solver.boolean_value(v)]
    rows += [
        SolvedRow(code, tcs[i], "duplicate") for (code, i), v in built.y.items() if solver.boolean_value(v)
    ]
    return Solution(rows=tuple(rows), goals=values)


def diagnose(problem: PlanningProblem) -> PlanInfeasible:
    """Name the rule group whose removal alone makes the request feasible (re-solving each time)."""
    culprits = [group for group in RULE_GROUPS if _feasible(problem, frozenset({group}))]

    def who(people: tuple) -> str:
        return (
            "; ".join(f"{p.code} designed {', '.join(sorted(p.designed)) or 'nothing'}" for p in people)
            or "none"
        )

    inputs = (
        f"{len(problem.panel)} cells x {len(problem.panel[0].task_ids)} base tasks; primary annotators "
        f"{who(problem.primaries)}; duplicate-tier annotators {who(problem.duplicates)}"
    )
    if culprits:
        others = f" (or without {', '.join(culprits[1:])})" if culprits[1:] else ""
        return PlanInfeasible(
            culprits[0],
            f"no plan meets every rule; {culprits[0]} cannot be met together with the others: without "
            f"it{others} a plan exists ({inputs})",
        )
    return PlanInfeasible(
        "combined",
        f"no plan meets the rules {', '.join(RULE_GROUPS)} together, and no single one of them is the "
        f"sole obstacle ({inputs})",
    )
