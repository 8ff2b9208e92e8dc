"""The end protocol of agent bundles: stated in the manifest and on every episode, read from older
bundles as first_pass, and `compare` refusing (with one line saying why) to set bundles of the two
protocols side by side unless `--mix-protocols` is given."""

from __future__ import annotations

import hashlib
import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from humantrace.dashboard.cli import app
from humantrace.exports.agent_bundle import (
    AGENT_TABLES,
    bundle_protocol,
    read_agent_bundle,
    write_manifest,
    write_table,
)
from humantrace.exports.agents import ProtocolMixError, check_protocols, import_agent_runs

runner = CliRunner()


def _episode(
    attempt_id: int, task_id: str, condition: str, passed: bool, model: str = "bot", **extra
) -> dict:
    return {
        "attempt_id": attempt_id,
        "run_id": f"{model}/{task_id}.{condition}.42",
        "model": model,
        "env_id": "shop",
        "task_id": task_id,
        "difficulty": "easy" if task_id == "T1" else "hard",
        "condition": condition,
        "source_variant": f"{task_id}_v1" if condition == "intervention" else None,
        "seed": 42,
        "elapsed_s": 12.5,
        "steps": 7,
        "raw_events": 30,
        "score": 1.0 if passed else 0.4,
        "passed": passed,
        "terminal_verb": "send_msg_to_user",
        "failed_positive_checks": 0 if passed else 1,
        "failed_negative_checks": 0,
        **extra,
    }


def _bundle(path, episodes: list[dict], **manifest) -> None:
    path.mkdir(parents=True)
    counts = {}
    for name, spec in AGENT_TABLES.items():
        frame = pd.DataFrame(episodes if name == "episodes" else [], columns=[c.name for c in spec.columns])
        counts[name] = write_table(path / f"{name}.csv", name, frame)
    write_manifest(path, row_counts=counts, settings={"agent": "bot"}, **manifest)


def _final_state_bundle(path):
    # T1 clean: reached the goal at step 2, then undid it: failed, passed_midway; T2 clean passed.
    _bundle(
        path,
        [
            _episode(
                1,
                "T1",
                "clean",
                False,
                ended_by="message",
                protocol="final_state",
                passed_midway=True,
                passed_midway_step=2,
            ),
            _episode(2, "T2", "clean", True, ended_by="message", protocol="final_state", passed_midway=False),
        ],
        protocol="final_state",
    )


def _as_schema_1_1(path) -> None:
    """What `agents run` wrote before protocols: no protocol in the manifest, no new columns."""
    frame = pd.read_csv(path / "episodes.csv")
    frame.drop(columns=["protocol", "passed_midway", "passed_midway_step"]).to_csv(
        path / "episodes.csv", index=False
    )
    manifest = json.loads((path / "manifest.json").read_text())
    del manifest["protocol"]
    manifest["schema_version"] = "1.1"
    manifest["files"]["episodes.csv"]["sha256"] = hashlib.sha256(
        (path / "episodes.csv").read_bytes()
    ).hexdigest()
    (path / "manifest.json").write_text(json.dumps(manifest))


def _first_pass_bundle_of_schema_1_1(path):
    _bundle(
        path,
        [
            _episode(3, "T1", "clean", True, model="old-bot", ended_by="pass"),
            _episode(4, "T2", "clean", True, model="old-bot", ended_by="pass"),
        ],
        protocol="first_pass",
    )
    _as_schema_1_1(path)


def test_the_protocol_is_in_the_manifest_and_on_every_episode_and_old_bundles_read_as_first_pass(tmp_path):
    new, old = tmp_path / "final", tmp_path / "old"
    _final_state_bundle(new)
    _first_pass_bundle_of_schema_1_1(old)
    assert json.loads((new / "manifest.json").read_text())["protocol"] == "final_state"
    assert (bundle_protocol(new), bundle_protocol(old)) == ("final_state", "first_pass")
    episodes = read_agent_bundle(new)["episodes"].set_index("task_id")
    assert episodes["protocol"].tolist() == ["final_state", "final_state"]
    assert episodes.loc["T1", ["passed", "passed_midway", "passed_midway_step"]].tolist() == [False, True, 2]
    assert bool(episodes.loc["T2", "passed_midway"]) is False and pd.isna(
        episodes.loc["T2", "passed_midway_step"]
    )
    before = read_agent_bundle(old)["episodes"]
    assert before["protocol"].tolist() == ["first_pass", "first_pass"]
    assert before["passed_midway"].isna().all()  # not recorded before 1.2: unknown, not False
    runs = import_agent_runs([new, old]).runs.set_index("run_id")
    assert runs["protocol"].tolist() == ["final_state", "final_state", "first_pass", "first_pass"]


def test_a_run_file_may_state_its_protocol_and_a_wrong_one_is_a_row_error(tmp_path):
    path = tmp_path / "runs.csv"
    base = "model,task,env,difficulty,condition,score,steps,elapsed_s,source_variant,protocol\n"
    path.write_text(
        base + "m,T1,shop,easy,clean,1,3,2.0,,first_pass\nm,T2,shop,hard,clean,1,3,2.0,,at_once\n"
    )
    result = import_agent_runs([path])
    assert result.runs["protocol"].tolist() == ["first_pass"]
    assert [str(e) for e in result.errors] == [
        "runs.csv:line 3: unknown protocol 'at_once' (expected final_state or first_pass)"
    ]
    # A file without the column states no protocol and is never judged.
    unstated = pd.DataFrame({"protocol": [None, "final_state"], "source_file": ["a.csv", "b"]})
    assert check_protocols(unstated) == []


def test_compare_refuses_to_mix_protocols_without_the_flag(tmp_path, study_bundle):
    final, old = tmp_path / "final", tmp_path / "old"
    _final_state_bundle(final)
    _first_pass_bundle_of_schema_1_1(old)
    runs = import_agent_runs([final, old]).runs
    with pytest.raises(ProtocolMixError):
        check_protocols(runs)

    args = ["compare", "--human", str(study_bundle), "--agents", str(final), "--agents", str(old)]
    refused = runner.invoke(app, [*args, "--out", str(tmp_path / "out"), "--bootstrap", "50"])
    assert refused.exit_code == 1
    errors = [line for line in refused.output.splitlines() if line.startswith("Error:")]
    assert errors == [
        "Error: agent bundles of two end protocols: final final_state (the humans' protocol) and old "
        "first_pass (stopped at the first pass); a first_pass run that reached the goal and then undid "
        "it counts as a pass, so their pass rates are not comparable; add --mix-protocols to compare "
        "them anyway"
    ], refused.output
    assert not (tmp_path / "out" / "report.html").exists()

    mixed = runner.invoke(
        app, [*args, "--out", str(tmp_path / "out"), "--bootstrap", "50", "--mix-protocols"]
    )
    assert mixed.exit_code == 0, mixed.output
    report = (tmp_path / "out" / "report.html").read_text()
    assert "both end protocols are compared (--mix-protocols)" in report
    assert "stopped at the first pass" in report

    # One protocol alone is compared; a first_pass bundle is still said to be one.
    assert check_protocols(import_agent_runs([final]).runs) == []
    assert check_protocols(import_agent_runs([old]).runs) == [
        "2 agent run(s) in old stopped at the first pass (first_pass protocol): a state that passed "
        "at any step counts there, while a person's attempt is scored on its final state"
    ]
