"""Both conditions of a task start from the same instance: the env seed is the study's seed.

The paired clean-intervention drop must measure the variant's layers and nothing else, so the two
initial states of a task may differ only by what the variant's seed and server layers change.
"""

from __future__ import annotations

import pytest
from sqlmodel import select

from humantrace.dashboard.flow import service as flow
from humantrace.dashboard.studies.models import Assignment
from humantrace.dashboard.studies.planning import session_seed
from humantrace.environments import catalog, sessions
from humantrace.environments.seeding import build_session_state
from humantrace.environments.state import canonical_json

STATE_LAYERS = {"seed", "server"}


def _variants():
    for summary in catalog.list_tasks():
        variant = catalog.variant_for(summary.task_id)
        if variant is not None:
            yield pytest.param(summary.task_id, id=summary.task_id)


@pytest.mark.parametrize("task_id", list(_variants()))
def test_the_two_initial_states_differ_only_by_the_variants_state_layers(task_id):
    task, variant = catalog.get_task(task_id), catalog.variant_for(task_id)
    seed = session_seed(42)
    clean = canonical_json(build_session_state(task, "clean", seed).state)
    intervention = canonical_json(build_session_state(task, "intervention", seed).state)
    layers = {i.layer for i in variant.injections}
    if not layers & STATE_LAYERS:
        assert clean == intervention, (
            f"{task_id}: a variant without seed or server layer must not change the initial state"
        )
        return
    # The clean pipeline followed by only the variant's state layers gives exactly the intervention state.
    state_only = variant.model_copy(
        update={"injections": [i for i in variant.injections if i.layer in STATE_LAYERS]}
    )
    assert (
        canonical_json(build_session_state(task, "intervention", seed, variant=state_only).state)
        == intervention
    )
    assert clean != intervention, f"{task_id}: its seed/server layers change nothing"


def test_every_assignment_and_attempt_uses_the_study_seed(client, db, study, make_assignment, person):
    ids = {
        condition: make_assignment(code, condition=condition)
        for code, condition in (("A1", "clean"), ("A2", "intervention"))
    }
    rows = {c: db.get(Assignment, i) for c, i in ids.items()}
    assert {row.seed for row in rows.values()} == {study.seed}
    built = {}
    for code, condition in (("A1", "clean"), ("A2", "intervention")):
        cold = flow.start_assignment(db, assignment_id=ids[condition], annotator=person(code))
        env = sessions.get_session(db, session_id=cold.env_session_id)
        assert env.seed == study.seed
        built[condition] = env
    # lab-001's variant adds decoys and shuffles: the states differ, by exactly those layers.
    task, variant = catalog.get_task("lab-001"), catalog.variant_for("lab-001")
    state_only = variant.model_copy(
        update={"injections": [i for i in variant.injections if i.layer in STATE_LAYERS]}
    )
    expected = build_session_state(task, "intervention", study.seed, variant=state_only)
    from humantrace.environments.state import state_sha256

    assert built["intervention"].initial_sha256 == state_sha256(expected.state)
    assert built["clean"].initial_sha256 == state_sha256(build_session_state(task, "clean", study.seed).state)


def test_a_written_plan_gives_both_conditions_and_the_duplicate_the_study_seed(client, db, study):
    from types import SimpleNamespace

    from humantrace.annotators.planning.schemas import PlannedAssignment
    from humantrace.dashboard.studies import planning
    from humantrace.dashboard.studies.models import Study

    rows = [
        PlannedAssignment(
            annotator=code,
            task_id="lab-001",
            env_id="lab",
            difficulty="easy",
            condition=condition,
            tier=tier,
            order=1,
        )
        for code, condition, tier in (
            ("A1", "clean", "primary"),
            ("A2", "intervention", "primary"),
            ("D1", "clean", "duplicate"),
        )
    ]
    assert planning.write_plan(db, study=db.get(Study, study.id), plan=SimpleNamespace(assignments=rows)) == 3
    assert list(db.exec(select(Assignment.seed))) == [study.seed] * 3
