"""A tiny synthetic study whose every reported number is worked out by hand in test_compare.py.

Five base tasks in four (env, difficulty) cells:
  T1 shop/easy grounding   T2 shop/hard grounding
  T3 mail/easy verification   T5 mail/easy verification   T4 mail/hard verification
Primary annotators A1-A3 (clean and intervention of a task by different people), duplicate D1.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from humantrace.exports.bundle import BundleWriter

TASKS = {
    "T1": ("shop", "easy", "grounding"),
    "T2": ("shop", "hard", "grounding"),
    "T3": ("mail", "easy", "verification"),
    "T4": ("mail", "hard", "verification"),
    "T5": ("mail", "easy", "verification"),
}

# task, condition, phase, annotator, passed, wall_clock_s, raw_events, clean_steps, outcome
PRIMARY = [
    ("T1", "clean", "cold", "A1", True, 30, 20, 10, "evaluated"),
    ("T1", "clean", "warm", "A1", True, 20, 16, 8, "evaluated"),
    ("T1", "intervention", "cold", "A2", False, 50, 40, 20, "evaluated"),
    ("T1", "intervention", "warm", "A2", True, 30, 24, 12, "evaluated"),
    ("T2", "clean", "cold", "A2", True, 60, 50, 25, "evaluated"),
    ("T2", "clean", "warm", "A2", True, 40, 30, 15, "evaluated"),
    ("T2", "intervention", "cold", "A1", True, 70, 60, 30, "evaluated"),
    ("T2", "intervention", "warm", "A1", True, 44, 36, 18, "evaluated"),
    ("T3", "clean", "cold", "A1", False, 90, 80, 40, "abandoned"),
    ("T3", "clean", "warm", "A1", True, 50, 40, 20, "evaluated"),
    ("T3", "intervention", "cold", "A3", False, 100, 90, 45, "timed_out"),
    ("T3", "intervention", "warm", "A3", False, 80, 70, 35, "evaluated"),
    ("T4", "clean", "cold", "A3", True, 40, 30, 15, "evaluated"),
    ("T4", "clean", "warm", "A3", True, 24, 20, 10, "evaluated"),
    ("T4", "intervention", "cold", "A1", True, 48, 36, 18, "evaluated"),
    ("T4", "intervention", "warm", "A1", True, 36, 30, 16, "evaluated"),
    ("T5", "clean", "cold", "A2", True, 36, 26, 13, "evaluated"),
    ("T5", "clean", "warm", "A2", True, 30, 22, 11, "evaluated"),
    ("T5", "intervention", "cold", "A3", False, 66, 50, 25, "evaluated"),
    ("T5", "intervention", "warm", "A3", True, 42, 32, 14, "evaluated"),
]
DUPLICATE = [
    ("T2", "intervention", "cold", "D1", False, 100, 80, 40, "evaluated"),
    ("T2", "intervention", "warm", "D1", True, 55, 45, 22, "evaluated"),
    ("T3", "clean", "cold", "D1", True, 60, 40, 20, "evaluated"),
    ("T3", "clean", "warm", "D1", True, 50, 44, 22, "evaluated"),
]
# A rolled-back try by A3 at T1 clean: it must change nothing (A3 would show a clean-cold failure).
ROLLED_BACK = [("T1", "clean", "cold", "A3", False, 500, 400, 200, "abandoned")]


def attempt_rows() -> list[dict]:
    """Every attempt of the synthetic study as bundle rows (cold and warm share an assignment)."""
    plan = [(r, "primary", False) for r in PRIMARY]
    plan += [(r, "duplicate", False) for r in DUPLICATE]
    plan += [(r, "primary", True) for r in ROLLED_BACK]
    assignments: dict[tuple, int] = {}
    rows = []
    for attempt_id, (
        (task, cond, phase, annot, passed, wall, raw, clean, outcome),
        tier,
        rolled,
    ) in enumerate(plan, 1):
        env, difficulty, primitive = TASKS[task]
        assignment = assignments.setdefault((task, cond, annot, tier, rolled), len(assignments) + 1)
        start = pd.Timestamp("2026-03-02T09:00:00Z") + pd.Timedelta(minutes=10 * attempt_id)
        rows.append(
            {
                "attempt_id": attempt_id,
                "annotator": annot,
                "env_id": env,
                "task_id": task,
                "difficulty": difficulty,
                "primitives": [primitive, "planning"],
                "target_primitive": primitive if cond == "intervention" else None,
                "condition": cond,
                "seed": 42,
                "variant_id": f"{task}_v1" if cond == "intervention" else None,
                "phase": phase,
                "tier": tier,
                "assignment_id": assignment,
                "viewport_w": 1366,
                "viewport_h": 768,
                "user_agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/126",
                "started_at": start,
                "ended_at": start + pd.Timedelta(seconds=wall),
                "wall_clock_s": float(wall),
                "raw_events": raw,
                "clean_steps": clean,
                "score": 1.0 if passed else 0.4,
                "passed": passed,
                "outcome": outcome,
                "rolled_back": rolled,
                "event_match_score": EMS.get(attempt_id),
                "clarity": 4 if phase == "warm" else None,
                "realism": 5 if phase == "warm" else None,
            }
        )
    return rows


def verdict_rows(attempts: list[dict]) -> list[dict]:
    """One positive check per attempt (failed on failed attempts) plus one invariant; T3's warm
    intervention attempt meets its obligation but breaks the invariant (an overreach)."""
    rows = []
    for a in attempts:
        overreach = a["task_id"] == "T3" and a["condition"] == "intervention" and a["phase"] == "warm"
        positive_ok = a["passed"] or overreach
        rows.append(
            {
                "attempt_id": a["attempt_id"],
                "kind": "update",
                "polarity": "positive",
                "index": 0,
                "name": "update[0]",
                "desc": "the target changed",
                "passed": positive_ok,
                "credit": 1.0 if positive_ok else 0.0,
                "weight": 1.0,
                "diagnosis": "" if positive_ok else "missing update",
            }
        )
        rows.append(
            {
                "attempt_id": a["attempt_id"],
                "kind": "invariant",
                "polarity": "negative",
                "index": 0,
                "name": "invariant[0]",
                "desc": "nothing else changed",
                "passed": not overreach,
                "severity": "medium",
                "penalty": 0.15 if overreach else 0.0,
                "diagnosis": "collateral edit" if overreach else "",
            }
        )
    return rows


def raw_events(attempt_id: int, n: int, t0: int = 1_772_441_000_000) -> pd.DataFrame:
    kinds = ["click", "keydown", "input", "scroll", "mousemove", "dom_change"]
    rows = []
    for seq in range(n):
        kind = kinds[seq % len(kinds)]
        rows.append(
            {
                "attempt_id": attempt_id,
                "seq": seq,
                "t_ms": t0 + 150 * seq,
                "type": kind,
                "xpath": "/html/body/main/form/input[1]" if kind in ("keydown", "input") else "/html",
                "url": "http://127.0.0.1/env/shop/",
                "x": 10.0 + seq if kind in ("click", "mousemove") else None,
                "y": 20.0 if kind in ("click", "mousemove") else None,
                "key": "a" if kind == "keydown" else None,
                "value": "a" * (seq % 4) if kind == "input" else None,
                "dy": 120.0 if kind == "scroll" else None,
                "added": 1 if kind == "dom_change" else None,
            }
        )
    return pd.DataFrame(rows)


# Event-Match Score of the primary T1/T2 attempts (ids 1-8); other tasks declare no event conditions.
# Attempt 3 (T1 intervention cold) failed the canonical diff but its events matched; attempt 4
# (T1 intervention warm) passed the diff but its events did not.
EMS = {1: 1.0, 2: 1.0, 3: 1.0, 4: 0.0, 5: 1.0, 6: 1.0, 7: 1.0, 8: 1.0}


def session_rows() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """semantic_events of attempt 1, backend_audit of attempt 3 (a 503 an intervention fired),
    and one event condition per T1 attempt (ids 1-4)."""
    t0 = 1_772_441_000_000
    semantic = pd.DataFrame(
        [
            {
                "attempt_id": 1,
                "seq": 0,
                "t_ms": t0,
                "event": "cart_add",
                "params": '{"product_id": "p1", "quantity": 1}',
            },
            {"attempt_id": 1, "seq": 1, "t_ms": t0 + 900, "event": "checkout", "params": "{}"},
        ]
    )
    start = pd.Timestamp("2026-03-02T09:30:00Z")
    audit = pd.DataFrame(
        [
            {
                "attempt_id": 3,
                "seq": 0,
                "t": start,
                "method": "GET",
                "path": "/api/env/shop/products",
                "status": 200,
                "intervention": None,
                "intervention_fired": False,
                "duration_ms": 12,
            },
            {
                "attempt_id": 3,
                "seq": 1,
                "t": start + pd.Timedelta(seconds=5),
                "method": "POST",
                "path": "/api/env/shop/cart",
                "status": 503,
                "intervention": "error_then_success",
                "intervention_fired": True,
                "duration_ms": 3,
            },
            {
                "attempt_id": 3,
                "seq": 2,
                "t": start + pd.Timedelta(seconds=9),
                "method": "POST",
                "path": "/api/env/shop/cart",
                "status": 201,
                "intervention": None,
                "intervention_fired": False,
                "duration_ms": 15,
            },
        ]
    )
    checks = pd.DataFrame(
        [
            {
                "attempt_id": i,
                "index": 0,
                "event": "cart_add",
                "params": '{"product_id": "p1"}',
                "match": None,
                "passed": EMS[i] == 1.0,
                "matched_event": 0 if EMS[i] == 1.0 else None,
                "diagnosis": "cart_add p1",
            }
            for i in (1, 2, 3, 4)
        ]
    )
    return semantic, audit, checks


STUDY_SETTINGS = {"k_per_cell": 1, "seed": 42, "show_pass_fail": False}
CLEANING_CONFIG = {"scroll_window_ms": 400, "rules": ["fill_merge", "scroll_collapse", "idle_move_drop"]}


def write_study_bundle(out: Path, *, formats=("parquet", "csv")) -> Path:
    """Write the synthetic study through BundleWriter, in several chunks per table."""
    attempts = attempt_rows()
    with BundleWriter(out, formats=formats) as writer:
        writer.append("attempts", pd.DataFrame(attempts[:10]))
        writer.append("attempts", pd.DataFrame(attempts[10:]))
        for attempt_id in (1, 2, 3):
            writer.append("events_raw", raw_events(attempt_id, 7))
        three = raw_events(1, 3)
        clean = three.assign(step=[0, 1, 2], source_seqs=pd.Series([[0], [1, 2], [3]], index=three.index))
        writer.append("events_clean", clean)
        writer.append("verdicts", pd.DataFrame(verdict_rows(attempts)))
        semantic, audit, checks = session_rows()
        writer.append("semantic_events", semantic)
        writer.append("backend_audit", audit)
        writer.append("event_checks", checks)
        writer.append(
            "ratings",
            pd.DataFrame(
                [
                    {
                        "assignment_id": 1,
                        "annotator": "A1",
                        "task_id": "T1",
                        "condition": "clean",
                        "clarity": 4,
                        "realism": 5,
                        "suspected_bug": False,
                    }
                ]
            ),
        )
        writer.close(study_settings=STUDY_SETTINGS, cleaning_config=CLEANING_CONFIG)
    return out


# model, task, condition, score, steps, terminal_verb, max_repeat_run, failed_positive, failed_negative, final_thought
M1 = [
    ("T1", "clean", 1.0, 6, "finish", 1, 0, 0, "Done."),
    ("T1", "intervention", 0.4, 5, "finish", 1, 1, 0, "Order placed successfully!"),
    ("T2", "clean", 1.0, 8, "finish", 1, 0, 0, "Done."),
    ("T2", "intervention", 1.0, 9, "finish", 1, 0, 0, "Done."),
    ("T3", "clean", 1.0, 7, "finish", 1, 0, 0, "Done."),
    ("T3", "intervention", 0.0, 40, "scroll", 7, 1, 0, "Still waiting for the page."),
    ("T4", "clean", 0.5, 10, None, None, None, None, None),
    ("T4", "intervention", 0.5, 11, "finish", 2, 1, 0, "Closing out."),
    ("T5", "clean", 1.0, 6, "finish", 1, 0, 0, "Done."),
    ("T5", "intervention", 0.2, 3, "click", 1, 1, 0, "Let me look."),
    ("T9", "clean", 1.0, 6, "finish", 1, 0, 0, "Done."),
    ("T9", "intervention", 0.0, 12, "click", 2, 1, 0, "Trying again."),
]
# M1's Event-Match Scores on T1/T2 (its T2 intervention run passed the diff, its events did not match).
M1_EMS = {
    ("T1", "clean"): 1.0,
    ("T1", "intervention"): 0.0,
    ("T2", "clean"): 1.0,
    ("T2", "intervention"): 0.0,
}
M2 = [
    ("T1", "clean", 1.0),
    ("T1", "intervention", 1.0),
    ("T2", "clean", 1.0),
    ("T2", "intervention", 0.7),
    ("T3", "clean", 0.0),
    ("T3", "intervention", 0.0),
    ("T4", "clean", 1.0),
    ("T4", "intervention", 1.0),
    ("T5", "clean", 1.0),
    ("T5", "intervention", 1.0),
]


def _env(task: str) -> tuple[str, str]:
    return TASKS[task][:2] if task in TASKS else ("shop", "medium")


def write_agent_files(folder: Path) -> list[Path]:
    """M1 as CSV (with features), M2 as JSONL (features only on its T2 overreach run)."""
    folder.mkdir(parents=True, exist_ok=True)
    m1 = []
    for i, (task, cond, score, steps, verb, repeat, pos, neg, thought) in enumerate(M1, 1):
        env, difficulty = _env(task)
        m1.append(
            {
                "run_id": f"m1-{i}",
                "model": "M1",
                "task": task,
                "env": env,
                "difficulty": difficulty,
                "condition": cond,
                "score": score,
                "steps": steps,
                "elapsed_s": 60.0 + i,
                "source_variant": f"{task}_v1" if cond == "intervention" else "",
                "terminal_verb": verb,
                "max_repeat_run": repeat,
                "action_error_count": 0 if verb else None,
                "failed_positive_checks": pos,
                "failed_negative_checks": neg,
                "final_thought": thought,
                "event_match_score": M1_EMS.get((task, cond)),
            }
        )
    m1_path = folder / "m1.csv"
    pd.DataFrame(m1).to_csv(m1_path, index=False)
    m2_path = folder / "m2.jsonl"
    with m2_path.open("w") as fh:
        for i, (task, cond, score) in enumerate(M2, 1):
            env, difficulty = _env(task)
            run = {
                "run_id": f"m2-{i}",
                "model": "M2",
                "task": task,
                "env": env,
                "difficulty": difficulty,
                "condition": cond,
                "score": score,
                "steps": 9,
                "elapsed_s": 100.0,
                "source_variant": f"{task}_v1" if cond == "intervention" else None,
            }
            if task == "T2" and cond == "intervention":
                run.update(
                    terminal_verb="finish",
                    max_repeat_run=1,
                    action_error_count=0,
                    failed_positive_checks=0,
                    failed_negative_checks=1,
                    final_thought="Saved.",
                )
            fh.write(json.dumps(run) + "\n")
    return [m1_path, m2_path]


TASK_COUNTS = pd.DataFrame(
    [
        ("shop", "easy", 10),
        ("shop", "hard", 20),
        ("mail", "easy", 30),
        ("mail", "hard", 40),
        ("mail", "expert", 5),
    ],
    columns=["env", "difficulty", "n_tasks"],
)


@pytest.fixture
def study_bundle(tmp_path: Path) -> Path:
    return write_study_bundle(tmp_path / "bundle")


@pytest.fixture
def agent_files(tmp_path: Path) -> list[Path]:
    return write_agent_files(tmp_path / "agents")


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    """compare() run once per test module on the synthetic study (bootstrap 2000, seed 0)."""
    from humantrace.exports.compare import compare

    root = tmp_path_factory.mktemp("compared")
    bundle = write_study_bundle(root / "bundle")
    files = write_agent_files(root / "agents")
    counts = root / "task_counts.csv"
    TASK_COUNTS.to_csv(counts, index=False)
    messages: list[str] = []
    result = compare(
        bundle, files, root / "out", task_counts=counts, bootstrap=2000, seed=0, progress=messages.append
    )
    result.progress_messages = messages
    return result


@pytest.fixture
def make_study_bundle():
    """The bundle writer of the synthetic study, for tests that need other formats."""
    return write_study_bundle


@pytest.fixture
def study_rows():
    """The synthetic study's attempt rows and verdict rows (as written to the bundle)."""
    attempts = attempt_rows()
    return attempts, verdict_rows(attempts)
