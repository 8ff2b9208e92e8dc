"""`by_interaction_class`: humans and agents side by side per interaction class of the UI profiles
they ran on, matched by (task, condition, seed, UI profile), worked out by hand; and compare()
writing it (CSV and report) from a human bundle and an agent bundle directory, old and new."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from humantrace.exports.agent_bundle import AGENT_TABLES, read_agent_bundle, write_manifest, write_table
from humantrace.exports.compare import compare
from humantrace.exports.ui_tables import by_interaction_class
from tests.exports.conftest import write_study_bundle

approx = pytest.approx
CLASSES = {("shop", "custom-controls"): ("select", "confirmation"), ("shop", "pages"): ("list",)}


def classes_of(env_id: str, profile: str) -> tuple[str, ...]:
    if (env_id, profile) not in CLASSES:
        raise LookupError(f"{env_id} has no UI profile {profile!r}")
    return CLASSES[(env_id, profile)]


def _human(task, condition, profile, passed, time_s, steps, *, phase="cold", seed=42):
    return {
        "env_id": "shop",
        "task_id": task,
        "condition": condition,
        "ui_profile": profile,
        "seed": seed,
        "phase": phase,
        "passed": float(passed),
        "wall_clock_s": float(time_s),
        "clean_steps": float(steps),
    }


def _agent(task, condition, profile, passed, time_s, steps, *, seed=42, model="M"):
    return {
        "model": model,
        "env": "shop",
        "task": task,
        "condition": condition,
        "ui_profile": profile,
        "seed": seed,
        "passed": passed,
        "elapsed_s": float(time_s),
        "steps": steps,
    }


HUMANS = pd.DataFrame(
    [
        _human("T1", "clean", "default", True, 30, 10),
        _human("T2", "clean", "default", True, 40, 12),
        _human("T3", "clean", "default", False, 70, 25),
        _human("T4", "clean", "default", True, 20, 8),
        _human("T5", "clean", "default", True, 35, 11),
        _human("T1", "clean", "custom-controls", False, 60, 20),
        _human("T2", "clean", "custom-controls", True, 50, 16),
        _human("T1", "intervention", "pages", False, 90, 30),
        _human("T2", "clean", "gone", True, 45, 14),  # a profile no site declares now
        _human("T1", "clean", "custom-controls", True, 5, 2, phase="warm"),  # warm: not counted
    ]
)
RUNS = pd.DataFrame(
    [
        _agent("T1", "clean", "default", True, 20, 5),
        _agent("T1", "clean", "custom-controls", False, 40, 9),
        _agent("T2", "clean", "custom-controls", True, 30, 7, seed=7),  # another instance: unmatched
        _agent("T9", "clean", "default", True, 10, 3),  # no human ran T9: unmatched
    ]
)


def _row(table: pd.DataFrame, model: str, cls: str) -> pd.Series:
    hits = table[(table["model"] == model) & (table["interaction_class"] == cls)]
    assert len(hits) == 1, (model, cls, table[["model", "interaction_class"]])
    return hits.iloc[0]


def test_every_human_cold_attempt_by_class():
    table, notes = by_interaction_class(HUMANS, RUNS, classes_of=classes_of, n_boot=2000, seed=0)
    humans = table[~table["matched"]]
    assert humans["interaction_class"].tolist() == [
        "baseline",
        "confirmation",
        "list",
        "select",
        "unclassified",
    ]
    # baseline: T1-T5 default, 4 of 5 passed; times 20,30,35,40,70 -> 35; steps 8,10,11,12,25 -> 11.
    base = _row(table, "", "baseline")
    assert [base.human_n, base.human_pass_rate, base.human_median_time_s, base.human_median_steps] == [
        5,
        0.8,
        35,
        11,
    ]
    # Wilson 95% for 4/5: (0.8 + 1.92/5 ± 1.96 sqrt(0.032 + 0.0384)) / (1 + 3.84/5) = [0.376, 0.964].
    assert [base.human_pass_ci_low, base.human_pass_ci_high] == approx([0.3755, 0.9638], abs=1e-3)
    # A bootstrap median of five values is one of them, and the interval holds the estimate.
    assert 20 <= base.human_time_s_ci_low <= 35 <= base.human_time_s_ci_high <= 70
    # custom-controls counts toward both classes it changes: T1 F (60 s, 20), T2 P (50 s, 16).
    for cls in ("select", "confirmation"):
        row = _row(table, "", cls)
        assert [row.human_n, row.human_pass_rate, row.human_median_time_s, row.human_median_steps] == [
            2,
            0.5,
            55,
            18,
        ]
        assert row.profiles == "custom-controls" and row.task_conditions == 2
        # Below five the bootstrap interval is left blank; Wilson's for 1/2 is [0.095, 0.905].
        assert pd.isna(row.human_time_s_ci_low) and pd.isna(row.human_steps_ci_high)
        assert [row.human_pass_ci_low, row.human_pass_ci_high] == approx([0.0945, 0.9055], abs=1e-3)
    assert _row(table, "", "list").human_pass_rate == 0.0
    assert _row(table, "", "unclassified").profiles == "gone"
    assert humans["agent_n"].isna().all()
    assert any("shop/gone" in n and "unclassified" in n for n in notes)


def test_agents_are_matched_by_task_condition_seed_and_profile():
    table, notes = by_interaction_class(HUMANS, RUNS, classes_of=classes_of, n_boot=2000, seed=0)
    matched = table[table["matched"]]
    # Only T1 clean default and T1 clean custom-controls at seed 42 are run by both sides.
    assert matched["interaction_class"].tolist() == ["baseline", "confirmation", "select"]
    base = _row(matched, "M", "baseline")
    assert [base.human_n, base.human_pass_rate, base.human_median_time_s] == [1, 1.0, 30]
    assert [base.agent_n, base.agent_pass_rate, base.agent_median_time_s, base.agent_median_steps] == [
        1,
        1.0,
        20,
        5,
    ]
    select = _row(matched, "M", "select")
    assert [select.human_n, select.human_pass_rate, select.human_median_time_s] == [1, 0.0, 60]
    assert [
        select.agent_n,
        select.agent_pass_rate,
        select.agent_median_time_s,
        select.agent_median_steps,
    ] == [
        1,
        0.0,
        40,
        9,
    ]
    assert any(n.startswith("M: 2 of 4 run(s) match no human cold attempt") for n in notes)


def test_missing_profiles_and_seeds_are_the_default_and_any():
    humans = HUMANS.drop(columns="ui_profile").assign(seed=float("nan"))  # a bundle before profiles
    runs = RUNS.drop(columns="ui_profile")  # an agent file without the column
    table, _ = by_interaction_class(humans, runs, classes_of=None, n_boot=0, seed=0)
    assert set(table["interaction_class"]) == {"baseline"}
    matched = _row(table, "M", "baseline")
    # T1 and T2 clean: all their cold attempts (any seed) and every run on them.
    assert [matched.human_n, matched.agent_n] == [5, 3]


def _episode(attempt_id, task, profile, passed, elapsed):
    return {
        "attempt_id": attempt_id,
        "run_id": f"bot/{task}.clean.{profile}.42",
        "model": "bot",
        "env_id": "shop" if task in ("T1", "T2") else "mail",
        "task_id": task,
        "difficulty": "easy" if task == "T1" else "hard",
        "condition": "clean",
        "seed": 42,
        "ui_profile": profile,
        "elapsed_s": elapsed,
        "steps": 4,
        "raw_events": 10,
        "score": 1.0 if passed else 0.3,
        "passed": passed,
        "ended_by": "pass" if passed else "message",
    }


def _agent_bundle(path, episodes: list[dict]) -> None:
    path.mkdir()
    counts = {}
    for name, spec in AGENT_TABLES.items():
        frame = pd.DataFrame(episodes if name == "episodes" else [], columns=[c.name for c in spec.columns])
        counts[name] = write_table(path / f"{name}.csv", name, frame)
    write_manifest(path, row_counts=counts, settings={"agent": "bot"})


def test_compare_writes_the_table_and_reads_old_agent_bundles(tmp_path):
    human = write_study_bundle(tmp_path / "human", formats=("csv",))  # no ui_profile: all default
    new = tmp_path / "new"
    _agent_bundle(
        new, [_episode(1, "T1", "default", True, 30.0), _episode(2, "T1", "custom-controls", False, 50.0)]
    )
    result = compare(human, [new], tmp_path / "out", classes_of=classes_of, bootstrap=200)
    table = pd.read_csv(result.csv_paths["by_interaction_class"], keep_default_na=True)
    matched = table[table["matched"]]
    # The default episode matches the human T1 clean cold attempt; the profile one has no human.
    assert matched["interaction_class"].tolist() == ["baseline"]
    assert matched[["human_n", "human_pass_rate", "agent_n", "agent_pass_rate", "agent_median_time_s"]].iloc[
        0
    ].tolist() == [1, 1.0, 1, 1.0, 30.0]
    assert any("bot: 1 of 2 run(s) match no human" in w for w in result.warnings)
    assert (tmp_path / "out" / "by_interaction_class.csv").is_file()

    # An agent bundle of schema 1.0 (no ui_profile column) reads as the default profile.
    old = tmp_path / "old"
    _agent_bundle(old, [_episode(3, "T2", "default", False, 70.0)])
    episodes = pd.read_csv(old / "episodes.csv").drop(columns="ui_profile")
    episodes.to_csv(old / "episodes.csv", index=False)
    write_manifest(old, row_counts={n: int(n == "episodes") for n in AGENT_TABLES}, settings={"agent": "bot"})
    manifest = json.loads((old / "manifest.json").read_text())
    (old / "manifest.json").write_text(json.dumps({**manifest, "schema_version": "1.0"}))
    assert read_agent_bundle(old, tables=["episodes"])["episodes"]["ui_profile"].tolist() == ["default"]
    again = compare(human, [old], tmp_path / "out2", classes_of=classes_of, bootstrap=200)
    assert again.tables["by_interaction_class"].query("matched")["agent_n"].tolist() == [1]


def test_the_profile_filter_reads_a_missing_profile_as_default():
    from humantrace.exports.inputs import apply_filters, parse_filters

    chosen = parse_filters("profile=default")
    assert len(apply_filters(HUMANS, chosen, side="human")) == 5
    assert len(apply_filters(HUMANS.drop(columns="ui_profile"), chosen, side="human")) == len(HUMANS)
    assert apply_filters(RUNS, parse_filters("profile=custom-controls"), side="agent")["task"].tolist() == [
        "T1",
        "T2",
    ]
