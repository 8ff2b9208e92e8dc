"""Panel planning against the database: catalogue tasks and people in, assignments out.

The rules and the solver live in `annotators.planning` (pure); this module feeds them the tasks of
every registered environment and the study's active annotators, re-checks the plan against every
rule, and writes one `Assignment` per planned row in a single transaction.
"""

from __future__ import annotations

from sqlalchemy import delete, func
from sqlmodel import Session, col, select

from humantrace.annotators import membership
from humantrace.annotators.models import Annotator
from humantrace.annotators.planning import (
    Plan,
    PlanAnnotator,
    PlanInfeasible,
    PlanTask,
    check_plan,
    plan_panel,
    resolve_profiles,
)
from humantrace.dashboard.studies.models import Assignment, AssignmentState, Study
from humantrace.dashboard.studies.service import stored_id


class PlanRefused(ValueError):
    """The plan cannot be written (the message says why and what to do)."""


def catalogue_tasks() -> list[PlanTask]:
    from humantrace.environments import catalog

    return [
        PlanTask(
            task_id=t.task_id,
            env_id=t.env_id,
            difficulty=str(t.difficulty),
            has_variant=catalog.variant_for(t.task_id) is not None,
        )
        for t in (catalog.get_task(s.task_id) for s in catalog.list_tasks())
    ]


def roster(db: Session, *, study: Study) -> list[PlanAnnotator]:
    """The study's annotators with their tier and designed environments in this study."""
    return [
        PlanAnnotator(
            code=m.person.code,
            tier=str(m.membership.tier),
            designed=frozenset(m.membership.designed),
            active=m.active,
        )
        for m in membership.members(db, study_id=stored_id(study))
        if m.membership is not None  # always set: leads (who have none) are not asked for
    ]


def complete_environments(*, per_cell: int) -> list[str]:
    """Environments with at least `per_cell` tasks with a variant at every difficulty."""
    from humantrace.annotators.planning import DIFFICULTIES

    counts: dict[tuple[str, str], int] = {}
    for task in catalogue_tasks():
        if task.has_variant:
            counts[(task.env_id, str(task.difficulty))] = (
                counts.get((task.env_id, str(task.difficulty)), 0) + 1
            )
    envs = sorted({env for env, _ in counts})
    return [env for env in envs if all(counts.get((env, str(d)), 0) >= per_cell for d in DIFFICULTIES)]


def declared_profiles(envs: list[str] | None = None) -> dict[str, list[str]]:
    """Each registered site's UI profile names (the default first), for `envs` or every site."""
    from humantrace.environments import registry, ui

    return {
        env.env_id: ui.profile_names(env.env_id)
        for env in registry.all_environments()
        if not envs or env.env_id in envs
    }


def profiles_help(envs: list[str] | None = None) -> list[tuple[str, list[str]]]:
    """(site, its profiles) for the sites of a plan, for the lead's Plan page."""
    return sorted(declared_profiles(envs).items())


def session_seed(study_seed: int) -> int:
    """The env seed of every assignment of a study: the study's seed, as it is.

    Not derived from the task or the condition: the clean and intervention sessions of a task, its
    cold and warm attempts, the duplicate and every agent run must start from the same instance,
    so that a paired difference measures the variant's layers and nothing else (the paper records
    every task under both conditions at seed 42).
    """
    return study_seed


def make_plan(
    db: Session,
    *,
    study: Study,
    per_cell: int,
    seed: int | None = None,
    envs: list[str] | None = None,
    duplicates_per_cell: int = 1,
    profiles: list[str] | None = None,
    difficulties: list[str] | None = None,
) -> Plan:
    """A plan for the current catalogue and the study's people (raises `PlanInfeasible` naming the rule).

    `envs` defaults to the study's environments (all when the study names none); `seed` to the study's.
    `profiles` is the `--profiles` list (`annotators.planning.resolve_profiles`: a bare name for every
    site, `env:name` for one site); default: every site on its default interface only. `difficulties`
    restricts the cells to some levels (default: all five)."""
    tasks = catalogue_tasks()
    people = roster(db, study=study)
    envs = envs or list(study.envs) or None
    seed = study.seed if seed is None else seed
    scope = envs or sorted({t.env_id for t in tasks})
    declared = declared_profiles(scope)
    by_env = resolve_profiles(profiles, envs=scope, declared=declared)
    plan = plan_panel(
        tasks=tasks,
        annotators=people,
        per_cell=per_cell,
        seed=seed,
        envs=envs,
        duplicates_per_cell=duplicates_per_cell,
        difficulties=difficulties or None,
        profiles={env: names for env, names in by_env.items() if env in {t.env_id for t in tasks}},
    )
    violations = check_plan(
        plan,
        tasks=tasks,
        annotators=people,
        per_cell=per_cell,
        duplicates_per_cell=duplicates_per_cell,
        difficulty_tolerance=plan.summary.difficulty_excess,
        profile_tolerance=plan.summary.profile_excess,
        declared_profiles=declared,
    )
    if violations:
        raise PlanInfeasible(
            violations[0].rule,
            "the solver's plan broke a rule (please report this): " + "; ".join(str(v) for v in violations),
        )
    return plan


def write_plan(db: Session, *, study: Study, plan: Plan, replace: bool = False) -> int:
    """Store `plan` as assignments of `study`; returns how many were written.

    A study that already has assignments is refused unless `replace`, which removes only
    assignments nobody has started; started or finished work is never discarded.
    """
    existing = db.exec(
        select(func.count()).select_from(Assignment).where(Assignment.study_id == study.id)
    ).one()
    if existing and not replace:
        raise PlanRefused(
            f"study {study.name!r} already has {existing} assignments; pass --replace to swap the ones not started yet."
        )
    if existing:
        touched = db.exec(
            select(func.count())
            .select_from(Assignment)
            .where(Assignment.study_id == study.id, Assignment.state != AssignmentState.not_started)
        ).one()
        if touched:
            raise PlanRefused(
                f"{touched} assignments of this study have been started; a new plan cannot replace them."
            )
        db.execute(delete(Assignment).where(col(Assignment.study_id) == study.id))
    people = {p.code: p for p in db.exec(select(Annotator))}
    if study.status not in ("draft", "open"):
        raise PlanRefused(f"study {study.name!r} is {study.status}; plan a draft or open study.")
    study_id = stored_id(study)
    for row in plan.assignments:
        annotator_id = people[row.annotator].id
        assert annotator_id is not None  # read from the database
        db.add(
            Assignment(
                study_id=study_id,
                annotator_id=annotator_id,
                task_id=row.task_id,
                env_id=row.env_id,
                difficulty=str(row.difficulty),
                condition=str(row.condition),
                tier=str(row.tier),
                ui_profile=row.ui_profile,
                order_index=row.order,
                seed=session_seed(study.seed),
            )
        )
    db.commit()
    return len(plan.assignments)
