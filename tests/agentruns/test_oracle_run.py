"""`humantrace agents run --agent oracle`: every clean task-condition of one site passes through
the runner, the bundle's traces follow the human trace schema, and a rerun resumes."""

from __future__ import annotations

import fnmatch
import json

import pandas as pd
import pytest

from humantrace.exports.agent_bundle import read_agent_bundle
from humantrace.exports.bundle import BundleWriter
from tests.agentruns.helpers import SITE, cli

pytestmark = pytest.mark.browser


def _human_schema_check(tables: dict[str, pd.DataFrame], tmp_path) -> None:
    """The episode traces go through the human bundle writer unchanged: same tables, same columns."""
    with BundleWriter(tmp_path / "as-human", formats=("csv",)) as writer:
        for name in ("events_raw", "events_clean", "verdicts"):
            frame = tables[name]
            assert writer.append(name, frame) == len(frame)


# The suite runs a fixed sample, the brokerage's first three tasks (its 20 take
# over 5 min on the shared machine, as shop's did: 5:44 at load 8); `./dev test --full` runs shop's 20.
@pytest.mark.timeout(2400)
@pytest.mark.parametrize(
    "site, tasks",
    [("brokerage", "brokerage-00[1-3]"), pytest.param(SITE, f"{SITE}-*", marks=pytest.mark.full)],
)
def test_oracle_passes_every_clean_task_of_one_site(tmp_path, site, tasks):
    out = tmp_path / "oracle"
    done = cli(
        "agents",
        "run",
        "--agent",
        "oracle",
        "--tasks",
        tasks,
        "--conditions",
        "clean",
        "--out",
        str(out),
    )
    tables = read_agent_bundle(out)
    episodes = tables["episodes"]
    from humantrace.environments import catalog

    expected = sorted(t.task_id for t in catalog.list_tasks() if fnmatch.fnmatch(t.task_id, tasks))
    assert expected and all(t.startswith(site) for t in expected)
    assert sorted(episodes["task_id"]) == expected
    failed = episodes[~episodes["passed"].astype(bool)]
    assert failed.empty, failed[["task_id", "score", "ended_by", "error"]].to_dict(orient="records")
    # The humans' protocol: after the cheat the oracle says it is done, and the final state passes.
    assert set(episodes["ended_by"]) == {"message"} and (episodes["score"] == 1.0).all()
    assert set(episodes["protocol"]) == {"final_state"} and not episodes["passed_midway"].astype(bool).any()
    assert (episodes["seed"] == 42).all() and set(episodes["condition"]) == {"clean"}
    assert (episodes["raw_events"] > 0).all() and (episodes["clean_steps"] > 0).all()
    assert f"{len(expected)} passed, 0 failed this run" in done.stdout

    # Every table has the episode's rows: actions, trace, audit, semantic events, verdict checks.
    for name in ("actions", "events_raw", "events_clean", "verdicts", "backend_audit", "semantic_events"):
        assert set(tables[name]["attempt_id"]) == set(episodes["attempt_id"]), name
    assert (tables["backend_audit"]["status"] < 500).all()
    # Same recorder as people: the raw and cleaned traces pass the human bundle's schema.
    _human_schema_check(tables, tmp_path)
    # BrowserGym's marking of the page before each observation is not a DOM change.
    raw = tables["events_raw"]
    assert raw[raw["type"] == "dom_change"]["attributes"].fillna(0).max() < 200

    # Features are computed from the episode, not supplied by hand.
    assert set(episodes["terminal_verb"]) == {"send_msg_to_user"}
    assert (episodes["failed_positive_checks"] == 0).all() and (episodes["action_error_count"] == 0).all()

    # A rerun with the same arguments finds every episode finished and runs none.
    manifest = json.loads((out / "manifest.json").read_text())
    again = cli(
        "agents",
        "run",
        "--agent",
        "oracle",
        "--tasks",
        tasks,
        "--conditions",
        "clean",
        "--out",
        str(out),
    )
    assert "0 passed, 0 failed this run" in again.stdout
    assert json.loads((out / "manifest.json").read_text())["files"] == manifest["files"]


@pytest.mark.full
@pytest.mark.timeout(4 * 3600)
def test_oracle_on_the_whole_catalogue(tmp_path):
    """Every clean task-condition of every site passes; intervention results are reported."""
    out = tmp_path / "oracle-all"
    cli("agents", "run", "--agent", "oracle", "--out", str(out), "--workers", "2", timeout=4 * 3600)
    episodes = read_agent_bundle(out, tables=["episodes"])["episodes"]
    clean = episodes[episodes["condition"] == "clean"]
    failed = clean[~clean["passed"].astype(bool)]
    assert failed.empty, failed[["task_id", "score", "ended_by", "error"]].to_dict(orient="records")
    intervention = episodes[episodes["condition"] == "intervention"]
    print(f"oracle under intervention: {int(intervention['passed'].sum())}/{len(intervention)} passed")
    assert len(intervention) > 0
