"""Several human bundles, --filter, reading a schema-1.0 bundle, and the CLI glue
(`compare --human ... --filter ...`, `tasks list --json`)."""

from __future__ import annotations

import csv
import hashlib
import json
import shutil

import pyarrow.csv as pacsv
import pytest
from typer.testing import CliRunner

from humantrace.dashboard.cli import app
from humantrace.exports.bundle import read_bundle, verify_bundle
from humantrace.exports.compare import compare
from humantrace.exports.inputs import parse_filters

runner = CliRunner()


def test_two_studies_stack_with_their_own_annotators(tmp_path, make_study_bundle, agent_files):
    one = make_study_bundle(tmp_path / "study1", formats=("csv",))
    two = make_study_bundle(tmp_path / "study2", formats=("parquet",))
    result = compare([one, two], agent_files, tmp_path / "out", bootstrap=50)
    annotators = set(result.tables["annotators"]["annotator"])
    assert {"study1/A1", "study2/A1"} <= annotators and "A1" not in annotators
    # every primary attempt twice: humans cold over T1..T5 has two attempts per cell, same rates
    summary = result.tables["panel_summary"].set_index(["condition", "phase"])
    assert (
        summary.loc[("clean", "cold"), "n_attempts"] == 10
        and summary.loc[("clean", "cold"), "pass_rate"] == 0.8
    )
    fpr = result.tables["false_positive_completion"].set_index(["population", "condition"])
    assert fpr.loc[("humans cold", "intervention"), ["n_claimed", "n_claimed_failed"]].tolist() == [8, 4]
    assert fpr.loc[("humans cold", "intervention"), "ci_note"] == ""  # n = 8: an interval now


def test_filter_keeps_matching_attempts_and_runs(tmp_path, study_bundle, agent_files):
    result = compare(
        study_bundle, agent_files, tmp_path / "out", filters="env=shop,difficulty=easy", bootstrap=50
    )
    # only T1 is shop/easy
    assert set(result.tables["panel_summary"]["n_tasks"]) == {1}
    assert set(result.agent_import.runs["task"]) == {"T1"}
    assert any("filter" in w and "4 of 20" not in w for w in result.warnings)
    assert any("human attempts kept" in w for w in result.warnings)
    both = compare(
        study_bundle, agent_files, tmp_path / "out2", filters=["env=shop,env=mail", "task=T3"], bootstrap=50
    )
    assert set(both.tables["failure_features"]["task_id"]) == {"T3"}


@pytest.mark.parametrize(
    "spec, message",
    [("envshop", "not key=value"), ("model=M1", "unknown filter key"), ("env=", "not key=value")],
)
def test_a_bad_filter_is_a_clear_error(spec, message):
    with pytest.raises(ValueError, match=message):
        parse_filters(spec)


def _as_version_1(bundle):
    """Turn a 2.0 CSV bundle into the 1.0 layout: no new tables, no new attempts columns."""
    manifest = json.loads((bundle / "manifest.json").read_text())
    for table in ("semantic_events", "backend_audit", "event_checks"):
        (bundle / f"{table}.csv").unlink()
        del manifest["files"][f"{table}.csv"], manifest["row_counts"][table], manifest["tables"][table]
    path = bundle / "attempts.csv"
    with path.open(newline="") as fh:
        rows = list(csv.reader(fh))
    keep = [i for i, name in enumerate(rows[0]) if name not in ("seed", "variant_id", "event_match_score")]
    with path.open("w", newline="") as fh:
        csv.writer(fh, lineterminator="\n").writerows([[row[i] for i in keep] for row in rows])
    manifest["files"]["attempts.csv"].update(
        bytes=path.stat().st_size, sha256=hashlib.sha256(path.read_bytes()).hexdigest()
    )
    manifest["schema_version"] = "1.0"
    (bundle / "manifest.json").write_text(json.dumps(manifest))


def test_a_schema_1_bundle_still_reads_and_compares(tmp_path, make_study_bundle, agent_files):
    bundle = make_study_bundle(tmp_path / "old", formats=("csv",))
    _as_version_1(bundle)
    assert verify_bundle(bundle) == []
    old = read_bundle(bundle, verify=True)
    assert old.schema_version == "1.0" and old.attempts["event_match_score"].isna().all()
    assert old.backend_audit.empty and list(old.semantic_events.columns)[:3] == ["attempt_id", "seq", "t_ms"]
    result = compare(bundle, agent_files, tmp_path / "out", bootstrap=50)
    humans = result.tables["verification_gap"]
    assert not humans["population"].str.startswith("humans").any()  # no human EMS in a 1.0 bundle


def test_cli_compare_several_bundles_with_a_filter(tmp_path, make_study_bundle, agent_files):
    one = make_study_bundle(tmp_path / "a", formats=("csv",))
    two = tmp_path / "b"
    shutil.copytree(one, two)
    out = tmp_path / "out"
    agents = [item for path in agent_files for item in ("--agents", str(path))]
    args = ["compare", "--human", str(one), "--human", str(two), *agents, "--bootstrap", "50"]
    done = runner.invoke(app, [*args, "--out", str(out), "--filter", "env=mail"])
    assert done.exit_code == 0, done.output
    assert (out / "report.html").is_file() and (out / "fig_model_primitive.svg").is_file()
    tasks = set(pacsv.read_csv(out / "model_primitive.csv").column("population").to_pylist())
    assert "humans warm" in tasks
    bad = runner.invoke(app, [*args, "--filter", "colour=red", "--out", str(tmp_path / "o2")])
    assert bad.exit_code != 0 and "unknown filter key" in bad.output


def test_tasks_list_json_is_one_document():
    done = runner.invoke(app, ["tasks", "list", "--json"])
    assert done.exit_code == 0, done.output
    tasks = json.loads(done.stdout)
    assert isinstance(tasks, list) and len(tasks) > 10
    assert {"task_id", "env_id", "difficulty"} <= set(tasks[0])
