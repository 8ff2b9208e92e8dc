"""The agent bundle format without a browser: written table by table, read back by `compare`'s
importer as a directory, refused when a file changed, and the replay share computed from it."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from humantrace.exports.agent_bundle import (
    AGENT_TABLES,
    AgentBundleError,
    read_agent_bundle,
    write_manifest,
    write_table,
)
from humantrace.exports.agents import import_agent_runs
from humantrace.exports.replay_tables import replay_reproduce


def _episode(attempt_id: int, task_id: str, passed: bool, **extra) -> dict:
    return {
        "attempt_id": attempt_id,
        "run_id": f"replay/{task_id}.clean.42.h{attempt_id}",
        "model": "replay",
        "env_id": "shop",
        "task_id": task_id,
        "difficulty": "easy",
        "condition": "clean",
        "seed": 42,
        "elapsed_s": 12.5,
        "steps": 7,
        "raw_events": 30,
        "clean_steps": 9,
        "score": 1.0 if passed else 0.4,
        "passed": passed,
        "ended_by": "pass" if passed else "message",
        "terminal_verb": "send_message_to_user",
        "failed_positive_checks": 0 if passed else 1,
        "failed_negative_checks": 0,
        **extra,
    }


def write_bundle(path, episodes: list[dict]) -> None:
    path.mkdir()
    counts = {}
    for name, spec in AGENT_TABLES.items():
        frame = pd.DataFrame(episodes if name == "episodes" else [], columns=[c.name for c in spec.columns])
        counts[name] = write_table(path / f"{name}.csv", name, frame)
    write_manifest(path, row_counts=counts, settings={"agent": "replay"})


@pytest.fixture
def bundle(tmp_path):
    path = tmp_path / "replay"
    write_bundle(
        path,
        [
            _episode(1, "shop-001", True, replayed_attempt_id=11),
            _episode(2, "shop-001", False, replayed_attempt_id=12, replay_failure="xpath_unresolved"),
            _episode(3, "shop-002", True, replayed_attempt_id=13),
        ],
    )
    return path


def test_compare_imports_an_agent_bundle_directory(bundle):
    result = import_agent_runs([bundle], human_tasks={("shop-001", "clean")})
    assert result.errors == []
    runs = result.runs.sort_values("run_id")
    assert runs["task"].tolist() == ["shop-001", "shop-001", "shop-002"]  # task_id read as task
    assert runs["env"].unique().tolist() == ["shop"] and runs["passed"].tolist() == [True, False, True]
    assert runs["seed"].tolist() == [42, 42, 42]
    assert result.unmatched_tasks == ["shop-002"]
    # Features come from the bundle: the failed run has a failure mode without hand-made columns.
    assert runs["failure_mode"].notna().tolist() == [False, True, False]


def test_a_changed_file_is_refused(bundle):
    episodes = bundle / "episodes.csv"
    episodes.write_text(episodes.read_text().replace("0.4", "1.0"))
    with pytest.raises(AgentBundleError, match="sha256"):
        read_agent_bundle(bundle)
    assert "sha256" in str(import_agent_runs([bundle]).errors[0])


def test_a_table_that_breaks_the_schema_is_refused(tmp_path):
    with pytest.raises(AgentBundleError, match="ended_by"):
        write_table(
            tmp_path / "episodes.csv",
            "episodes",
            pd.DataFrame([_episode(1, "shop-001", True, ended_by="gave_up")]),
        )
    with pytest.raises(AgentBundleError, match="required"):
        write_table(tmp_path / "episodes.csv", "episodes", pd.DataFrame([{"attempt_id": 1}]))


def test_replay_share_per_task_and_site(bundle):
    table = replay_reproduce([bundle])
    by_task = table[table["level"] == "task"].set_index("task_id")
    assert by_task.loc["shop-001", ["replays", "reproduced", "share", "xpath_unresolved"]].tolist() == [
        2,
        1,
        0.5,
        1,
    ]
    assert by_task.loc["shop-002", "share"] == 1.0
    site = table[table["level"] == "site"].iloc[0]
    assert (site["env_id"], site["replays"], site["reproduced"]) == ("shop", 3, 2)


def test_a_hidden_element_is_its_own_replay_failure(tmp_path):
    path = tmp_path / "replay"
    write_bundle(
        path,
        [
            _episode(1, "shop-003", False, replayed_attempt_id=21, replay_failure="element_not_visible"),
            _episode(2, "shop-003", False, replayed_attempt_id=22, replay_failure="xpath_unresolved"),
            _episode(3, "shop-003", True, replayed_attempt_id=23),
        ],
    )
    row = replay_reproduce([path]).set_index("level").loc["task"]
    assert (row["replays"], row["reproduced"], row["element_not_visible"], row["xpath_unresolved"]) == (
        3,
        1,
        1,
        1,
    )


def test_task_seed_is_kept_and_a_1_2_bundle_reads_it_as_null(tmp_path):
    new = tmp_path / "new"
    write_bundle(new, [_episode(1, "shop-001", True, task_seed=7)])
    assert read_agent_bundle(new)["episodes"]["task_seed"].tolist() == [7]
    # A 1.2 bundle: written before the column existed.
    old = tmp_path / "old"
    old.mkdir()
    counts = {}
    for name, spec in AGENT_TABLES.items():
        columns = [c.name for c in spec.columns if c.name != "task_seed"]
        rows = [_episode(1, "shop-001", True)] if name == "episodes" else []
        frame = pd.DataFrame(rows, columns=columns)
        frame.to_csv(old / f"{name}.csv", index=False)
        counts[name] = len(frame)
    write_manifest(old, row_counts=counts, settings={"agent": "replay"})
    manifest = json.loads((old / "manifest.json").read_text())
    (old / "manifest.json").write_text(json.dumps({**manifest, "schema_version": "1.2"}))
    episodes = read_agent_bundle(old)["episodes"]
    assert episodes["task_seed"].isna().all() and episodes["seed"].tolist() == [42]
