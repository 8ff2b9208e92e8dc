"""Agent bundle import: row-by-row validation with line numbers, and the Appendix I classifier."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from humantrace.exports.agents import import_agent_runs
from humantrace.exports.failure_modes import classify_failure, classify_failures

HEADER = "run_id,model,task,env,difficulty,condition,score,steps,elapsed_s,source_variant"


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_csv_errors_carry_line_and_reason(tmp_path: Path):
    path = _write(
        tmp_path / "runs.csv",
        "\n".join(
            [
                HEADER,  # line 1
                "r1,gpt,t1,shop,easy,clean,1.0,5,10.5,",  # line 2: good
                "r2,gpt,t1,shop,easy,intervention,abc,5,10,t1_v1",  # line 3: non-numeric score
                "r3,gpt,t1,shop,easy,interventoin,0.5,5,10,t1_v1",  # line 4: unknown condition
                "r1,gpt,t2,shop,easy,clean,1.0,5,10,",  # line 5: duplicate run id
                "r5,gpt,t2,shop,easy,intervention,1.5,5,10,t2_v1",  # line 6: score outside [0, 1]
                "r6,gpt,t2,shop,impossible,clean,0.5,5,10,",  # line 7: unknown difficulty
                'r7,gpt,t3,shop,hard,clean,0.25,4,9,"a',  # lines 8-9: one record over two lines
                'b"',
                "r8,gpt,t3,shop,hard,intervention,0.0,4,9,t3_v1",  # line 10: good
            ]
        )
        + "\n",
    )
    result = import_agent_runs([path], human_tasks=["t1", "t2"])
    found = [(e.file, e.line, e.reason) for e in result.errors]
    assert found == [
        ("runs.csv", 3, "score 'abc' is not a number"),
        ("runs.csv", 4, "unknown condition 'interventoin' (expected clean or intervention)"),
        ("runs.csv", 5, "duplicate run_id 'r1' (first at runs.csv:line 2)"),
        ("runs.csv", 6, "score 1.5 is outside [0, 1]"),
        (
            "runs.csv",
            7,
            "unknown difficulty 'impossible' (expected one of easy, medium, hard, expert, frontier)",
        ),
    ]
    assert result.runs["run_id"].tolist() == ["r1", "r7", "r8"]
    assert result.runs["source_line"].tolist() == [2, 8, 10]
    assert result.unmatched_tasks == ["t3"]
    assert str(result.errors[0]) == "runs.csv:line 3: score 'abc' is not a number"


def test_missing_column_is_one_file_level_error(tmp_path: Path):
    path = _write(
        tmp_path / "noscore.csv",
        "model,task,env,difficulty,condition,steps,elapsed_s,source_variant\n"
        "gpt,t1,shop,easy,clean,5,10,\ngpt,t2,shop,easy,clean,5,10,\n",
    )
    result = import_agent_runs(path)
    assert [(e.file, e.line, e.reason) for e in result.errors] == [
        ("noscore.csv", None, "missing required column 'score'")
    ]
    assert result.runs.empty


def test_jsonl_and_parquet_formats_and_duplicates_across_files(tmp_path: Path):
    good = {
        "model": "m",
        "task": "t1",
        "env": "shop",
        "difficulty": "easy",
        "condition": "clean",
        "score": 1,
        "steps": 3,
        "elapsed_s": 4.0,
        "source_variant": None,
    }
    jsonl = tmp_path / "runs.jsonl"
    jsonl.write_text(
        json.dumps({**good, "run_id": "a"})
        + "\n"  # line 1
        + "\n"  # line 2: blank, skipped
        + "{not json\n"  # line 3
        + json.dumps({**good, "run_id": "b", "score": "x"})
        + "\n"  # line 4
    )
    parquet = tmp_path / "runs.parquet"
    pd.DataFrame([{**good, "run_id": "c", "task": "t2"}, {**good, "run_id": "a"}]).to_parquet(parquet)
    result = import_agent_runs([jsonl, parquet], human_tasks=[("t1", "clean")])
    assert [(e.file, e.unit, e.line) for e in result.errors] == [
        ("runs.jsonl", "line", 3),
        ("runs.jsonl", "line", 4),
        ("runs.parquet", "row", 2),
    ]
    assert result.errors[2].reason == "duplicate run_id 'a' (first at runs.jsonl:line 1)"
    assert result.runs["run_id"].tolist() == ["a", "c"]
    assert result.unmatched_tasks == ["t2"]


def test_conditions_the_human_study_lacks_are_listed(tmp_path: Path):
    path = _write(
        tmp_path / "r.csv",
        HEADER + "\nr1,m,t1,shop,easy,clean,1,1,1,\nr2,m,t1,shop,easy,intervention,0,1,1,v\n",
    )
    result = import_agent_runs(path, human_tasks=[("t1", "clean")])
    assert result.unmatched_tasks == []
    assert result.unmatched_task_conditions == [("t1", "intervention")]
    assert len(result.runs) == 2  # listed, not dropped


def test_pass_is_score_one_unless_given(tmp_path: Path):
    path = _write(
        tmp_path / "r.csv",
        HEADER + ",passed\nr1,m,t1,shop,easy,clean,1,1,1,,\n"
        "r2,m,t2,shop,easy,clean,0.99,1,1,,\nr3,m,t3,shop,easy,clean,0.99,1,1,,true\n",
    )
    assert import_agent_runs(path).runs["passed"].tolist() == [True, False, True]


def _run(**features) -> dict:
    base = {
        "score": 0.3,
        "steps": 12,
        "terminal_verb": "finish",
        "max_repeat_run": 1,
        "action_error_count": 0,
        "failed_positive_checks": 1,
        "failed_negative_checks": 0,
        "final_thought": "Closing out.",
    }
    base.update(features)
    return base


@pytest.mark.parametrize(
    ("run", "mode"),
    [
        # I.3 worked examples
        (
            _run(final_thought="Order placed successfully! Premium Silicone Kitchen Mat"),
            "misleading_success_taken",
        ),
        (
            _run(terminal_verb="send_msg_to_user", final_thought="I have submitted the form"),
            "misleading_success_taken",
        ),
        (_run(final_thought="Closing out."), "premature_done"),
        (_run(final_thought="I have finished this task"), "premature_done"),
        (
            _run(
                failed_positive_checks=0,
                failed_negative_checks=1,
                final_thought="Marked the five emails as read.",
            ),
            "silent_overreach",
        ),
        (_run(terminal_verb="click", max_repeat_run=7, steps=40), "retry_loop"),
        (_run(terminal_verb="scroll", max_repeat_run=3, steps=3), "plan_collapse"),
        (_run(terminal_verb="report_infeasible", steps=9, final_thought="I succeeded"), "abandoned_run"),
        (_run(failed_positive_checks=0, action_error_count=3), "selector_hallucination"),
        # order: a belief failure with many repeats and errors is still a belief failure
        (_run(max_repeat_run=9, action_error_count=5, final_thought="saved"), "misleading_success_taken"),
        # passed runs and runs without features get no label
        (_run(score=1.0, failed_positive_checks=0), None),
        (_run(terminal_verb=None), None),
    ],
)
def test_classifier_follows_appendix_i(run, mode):
    assert classify_failure(run) == mode


def test_vectorised_column_matches_the_scalar_rule():
    runs = pd.DataFrame(
        [
            _run(final_thought="success"),
            _run(),
            _run(terminal_verb="click", max_repeat_run=5),
            _run(terminal_verb="click", steps=5),
            _run(terminal_verb="click"),
            _run(failed_positive_checks=0, failed_negative_checks=2),
            _run(score=1.0),
        ]
    )
    column = classify_failures(runs)
    assert column.tolist() == [
        "misleading_success_taken",
        "premature_done",
        "retry_loop",
        "plan_collapse",
        "abandoned_run",
        "silent_overreach",
        None,
    ]
    assert column.tolist() == [classify_failure(r) for r in runs.to_dict("records")]
