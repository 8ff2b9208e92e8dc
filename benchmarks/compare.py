"""Benchmark: write a synthetic bundle (1,000 attempts x 500 raw events) through BundleWriter,
verify it, then run compare() against three synthetic agents. Prints times and peak memory and
ends with one JSON line.

    .venv/bin/python benchmarks/compare.py [--attempts 1000] [--events 500] [--formats parquet,csv]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from humantrace.exports.bundle import BundleWriter, verify_bundle  # noqa: E402
from humantrace.exports.compare import compare  # noqa: E402

ENVS = ("shop", "mail", "bank", "forum", "travel")
DIFFICULTIES = ("easy", "medium", "hard", "expert", "frontier")
PRIMITIVES = (
    "grounding",
    "planning",
    "state_tracking",
    "backtracking",
    "patience",
    "exploration",
    "verification",
)
TYPES = np.array(["click", "keydown", "input", "scroll", "mousemove", "dom_change", "focus", "navigation"])


def _tasks(n_tasks: int) -> pd.DataFrame:
    ids = np.arange(n_tasks)
    return pd.DataFrame(
        {
            "task_id": [f"task_{i:04d}" for i in ids],
            "env_id": [ENVS[i % len(ENVS)] for i in ids],
            "difficulty": [DIFFICULTIES[(i // len(ENVS)) % len(DIFFICULTIES)] for i in ids],
            "primitive": [PRIMITIVES[i % len(PRIMITIVES)] for i in ids],
        }
    )


def _attempts(tasks: pd.DataFrame, rng: np.random.Generator, n_events: int) -> pd.DataFrame:
    rows = []
    attempt_id = 0
    for t_index, t in enumerate(tasks.itertuples()):  # `tasks` has the default index: position = label
        for c_index, condition in enumerate(("clean", "intervention")):
            annotator = f"A{(t_index + c_index) % 4 + 1}"
            for phase in ("cold", "warm"):
                attempt_id += 1
                p_pass = (0.8 if condition == "clean" else 0.68) + (0.05 if phase == "warm" else 0.0)
                passed = bool(rng.random() < p_pass)
                wall = float(rng.lognormal(4.0 if phase == "cold" else 3.4, 0.5))
                rows.append(
                    {
                        "attempt_id": attempt_id,
                        "annotator": annotator,
                        "env_id": t.env_id,
                        "task_id": t.task_id,
                        "difficulty": t.difficulty,
                        "primitives": t.primitive,
                        "target_primitive": t.primitive if condition == "intervention" else None,
                        "condition": condition,
                        "phase": phase,
                        "tier": "primary",
                        "assignment_id": attempt_id if phase == "cold" else attempt_id - 1,
                        "viewport_w": 1366,
                        "viewport_h": 768,
                        "wall_clock_s": wall,
                        "raw_events": n_events,
                        "clean_steps": int(n_events * 0.3),
                        "score": 1.0 if passed else float(rng.uniform(0, 0.9)),
                        "passed": passed,
                        "outcome": "evaluated" if passed or rng.random() < 0.7 else "abandoned",
                        "rolled_back": False,
                    }
                )
    return pd.DataFrame(rows)


def _events(attempt_ids: np.ndarray, n_events: int, rng: np.random.Generator) -> pd.DataFrame:
    n = len(attempt_ids) * n_events
    kinds = TYPES[rng.integers(0, len(TYPES), size=n)]
    pointer = np.isin(kinds, ["click", "mousemove"])
    return pd.DataFrame(
        {
            "attempt_id": np.repeat(attempt_ids, n_events),
            "seq": np.tile(np.arange(n_events), len(attempt_ids)),
            "t_ms": 1_772_441_000_000 + np.tile(np.arange(n_events) * 120, len(attempt_ids)),
            "type": kinds,
            "xpath": np.where(kinds == "scroll", "/html", "/html/body/main/div[2]/button[1]"),
            "url": "http://127.0.0.1:8000/env/shop/products",
            "x": np.where(pointer, rng.uniform(0, 1366, size=n), np.nan),
            "y": np.where(pointer, rng.uniform(0, 768, size=n), np.nan),
            "dy": np.where(kinds == "scroll", 120.0, np.nan),
        }
    )


def _agents(tasks: pd.DataFrame, rng: np.random.Generator, folder: Path) -> list[Path]:
    paths = []
    for m, (model, clean_p, inter_p) in enumerate(
        (("model-a", 0.75, 0.45), ("model-b", 0.6, 0.35), ("model-c", 0.5, 0.3))
    ):
        rows = []
        for t in tasks.itertuples():
            for condition, p in (("clean", clean_p), ("intervention", inter_p)):
                passed = rng.random() < p
                rows.append(
                    {
                        "run_id": f"{model}-{t.task_id}-{condition}",
                        "model": model,
                        "task": t.task_id,
                        "env": t.env_id,
                        "difficulty": t.difficulty,
                        "condition": condition,
                        "score": 1.0 if passed else round(rng.uniform(0, 0.9), 3),
                        "steps": int(rng.integers(3, 40)),
                        "elapsed_s": float(rng.lognormal(5, 0.5)),
                        "source_variant": f"{t.task_id}_v1" if condition == "intervention" else "",
                        "terminal_verb": "finish" if rng.random() < 0.8 else "click",
                        "max_repeat_run": int(rng.integers(1, 8)),
                        "action_error_count": int(rng.integers(0, 4)),
                        "failed_positive_checks": 0 if passed else int(rng.integers(0, 2)),
                        "failed_negative_checks": 0 if passed else int(rng.integers(0, 2)),
                        "final_thought": "The order was placed successfully."
                        if rng.random() < 0.5
                        else "Done.",
                    }
                )
        path = folder / f"agent_{m}.csv"
        pd.DataFrame(rows).to_csv(path, index=False)
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=1000)
    parser.add_argument("--events", type=int, default=500)
    parser.add_argument("--formats", default="parquet,csv")
    parser.add_argument("--chunk-attempts", type=int, default=50, help="attempts per events chunk")
    parser.add_argument(
        "--keep", type=Path, help="write the bundle and the report here instead of a temporary directory"
    )
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    tasks = _tasks(max(1, args.attempts // 4))
    with tempfile.TemporaryDirectory(prefix="ht-bench-") as tmp:
        root = args.keep or Path(tmp)
        attempts = _attempts(tasks, rng, args.events)
        start = time.perf_counter()
        with BundleWriter(root / "bundle", formats=tuple(args.formats.split(","))) as writer:
            writer.append("attempts", attempts)
            ids = attempts["attempt_id"].to_numpy()
            for i in range(0, len(ids), args.chunk_attempts):
                writer.append("events_raw", _events(ids[i : i + args.chunk_attempts], args.events, rng))
            writer.close(study_settings={"synthetic": True}, cleaning_config={})
        write_s = time.perf_counter() - start
        size_mb = sum(p.stat().st_size for p in (root / "bundle").iterdir()) / 1e6

        start = time.perf_counter()
        problems = verify_bundle(root / "bundle")
        verify_s = time.perf_counter() - start
        assert problems == [], problems

        agent_files = _agents(tasks, rng, root)
        start = time.perf_counter()
        result = compare(root / "bundle", agent_files, root / "out", bootstrap=2000, seed=0)
        compare_s = time.perf_counter() - start
        report_kb = result.report_path.stat().st_size / 1e3

    peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    arrow_peak_mb = pa.default_memory_pool().max_memory() / 1e6
    n_events = len(attempts) * args.events
    print(
        f"attempts: {len(attempts)}, raw events: {n_events:,}, formats: {args.formats}, bundle size: {size_mb:.1f} MB"
    )
    print(f"write bundle: {write_s:.2f} s ({n_events / write_s:,.0f} events/s)")
    print(f"verify bundle: {verify_s:.2f} s")
    print(f"compare (3 agents, 2000 bootstrap resamples): {compare_s:.2f} s, report {report_kb:.0f} kB")
    print(f"peak RSS: {peak_rss_mb:.0f} MB, arrow pool peak: {arrow_peak_mb:.1f} MB")
    print(
        json.dumps(
            {
                "benchmark": "humantrace.exports.compare",
                "attempts": len(attempts),
                "raw_events": n_events,
                "formats": args.formats,
                "bundle_mb": round(size_mb, 2),
                "write_s": round(write_s, 3),
                "verify_s": round(verify_s, 3),
                "compare_s": round(compare_s, 3),
                "peak_rss_mb": round(peak_rss_mb, 1),
                "arrow_peak_mb": round(arrow_peak_mb, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
