"""Every site's oracle solves its task in Chromium through a real server, clean and under the
variant's intervention (passed, score 1.0), on the site's UI profiles, and every WRONG solution fails.

Cases are collected from the registry at collection time (`oracle_case` in conftest.py), so a new
site with tasks, variants and `oracles.py` joins without any change here.
"""

from __future__ import annotations

import json

import pytest

from humantrace.environments import catalog, registry
from humantrace.environments.oracles import OracleContext, load_oracles

pytestmark = [pytest.mark.browser, pytest.mark.all_sites]


def test_oracle(oracle_case, lab_server, context):
    kind, env_id, task_id, condition, profile = oracle_case
    found = load_oracles(registry.get(env_id))
    solutions = found.oracles if kind == "oracle" else found.wrong
    assert task_id in solutions, f"{env_id} has no {kind} solution for {task_id}"
    info = lab_server.create(task_id, condition, 42, ui_profile=profile)
    assert info["ui_profile"] == profile
    task = catalog.get_task(task_id)
    page = context.new_page()
    page.goto(lab_server.base_url + info["enter_url"])
    page.wait_for_load_state("load")
    ctx = OracleContext(
        targets=info["targets"],
        condition=condition,
        instruction=info["instruction"],
        base_url=lab_server.base_url,
        task_id=task_id,
    )
    assert page.url.endswith(f"/env/{env_id}{task.start_path}")
    assert page.locator("html").get_attribute("data-ui-profile") == profile
    solutions[task_id](page, ctx)
    with lab_server.control() as control:
        verdict = control.post(f"/control/sessions/{info['session_id']}/evaluate").json()
    # the whole verdict, criterion by criterion, when it fails (pytest would cut a dict short)
    shown = json.dumps(verdict, indent=1, default=str)
    if kind == "oracle":
        assert verdict["passed"] is True and verdict["score"] == 1.0, shown
    else:
        assert verdict["passed"] is False, shown


def test_every_task_has_an_oracle(lab):
    missing = []
    for env in registry.all_environments():
        found = load_oracles(env)
        for task in catalog.load_catalog().tasks.values():
            if task.env_id == env.env_id and task.task_id not in found.oracles:
                missing.append(task.task_id)
    assert missing == []
