"""Benchmark env sessions: create, reset and evaluate, for every task and condition of every site.

    .venv/bin/python benchmarks/env_sessions.py [--rounds 5] [--database-url sqlite:///...] [--only shop]

Each round creates one session per (task, condition) with a new seed (`create`: the seed builders
run), creates it once more with the same seed (`create_again`: a second annotator starting the same
task-condition reuses the process's built state), changes its live state to a stored final
state (the first create of the round's state with one entity's field touched, so the evaluator has
a diff to score), evaluates it, and resets it. Times are wall-clock per call on the chosen database
(default: a fresh SQLite file in a temporary folder, with the app's engine settings). Prints p50/p95 per operation, then one JSON
line. Targets on SQLite: create and reset p50 < 30 ms, evaluate p50 < 5 ms.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

_HERE = Path(__file__).resolve().parent
# Run as a script, this file's folder comes first on sys.path; the repository root must instead.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from sqlmodel import Session, SQLModel  # noqa: E402

import humantrace.environments.models  # noqa: E402, F401
from humantrace.core.db import make_engine  # noqa: E402  (the app's engine: WAL, synchronous=NORMAL)
from humantrace.environments import catalog, sessions, sites  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of `values` by linear interpolation."""
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def touched(state: dict) -> dict:
    """`state` with one field of the first entity of the first non-empty collection changed."""
    result = {name: list(items) for name, items in state.items()}
    for items in result.values():
        if items:
            first = dict(items[0])
            key = next((k for k, v in first.items() if isinstance(v, str) and k != "id"), None)
            if key:
                first[key] = first[key] + " (edited)"
                items[0] = first
                return result
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--only", default=None, help="comma-separated site names (default: every site)")
    args = parser.parse_args()
    if args.only:
        sites.SITES = [name.strip() for name in args.only.split(",") if name.strip()]

    tmp = tempfile.TemporaryDirectory()
    url = args.database_url or f"sqlite:///{Path(tmp.name) / 'bench.db'}"
    engine = make_engine(url)
    SQLModel.metadata.create_all(engine)

    pairs = []
    for summary in catalog.list_tasks():
        pairs.append((summary.task_id, "clean"))
        if summary.variant_id:
            pairs.append((summary.task_id, "intervention"))
    if not pairs:
        raise SystemExit("no tasks registered")

    # create: a new seed every round, so the builders run; create_again: the same (task, condition,
    # seed) once more, as when a second annotator starts it (the process keeps the built state).
    timings: dict[str, list[float]] = {"create": [], "create_again": [], "reset": [], "evaluate": []}
    passed = 0
    for round_index in range(args.rounds):
        for task_id, condition in pairs:
            with Session(engine) as db:
                started = time.perf_counter()
                session_id = sessions.create(db, task_id=task_id, condition=condition, seed=42 + round_index)
                db.commit()
                timings["create"].append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                sessions.create(db, task_id=task_id, condition=condition, seed=42 + round_index)
                db.commit()
                timings["create_again"].append((time.perf_counter() - started) * 1000)

                row = sessions.get_session(db, session_id=session_id)
                row.state = touched(row.state)
                db.add(row)
                db.commit()

                started = time.perf_counter()
                verdict = sessions.evaluate_session(db, session_id=session_id)
                timings["evaluate"].append((time.perf_counter() - started) * 1000)
                passed += bool(verdict.passed)

                started = time.perf_counter()
                sessions.reset(db, session_id=session_id)
                db.commit()
                timings["reset"].append((time.perf_counter() - started) * 1000)

    print(f"{len(pairs)} task-conditions x {args.rounds} rounds on {url.split(':')[0]}")
    result: dict[str, float | int | str] = {
        "task_conditions": len(pairs),
        "rounds": args.rounds,
        "database": url.split(":")[0],
    }
    for name, values in timings.items():
        p50, p95 = percentile(values, 0.5), percentile(values, 0.95)
        print(f"{name:9s} p50 {p50:7.2f} ms   p95 {p95:7.2f} ms   mean {statistics.fmean(values):7.2f} ms")
        result[f"{name}_p50_ms"] = round(p50, 3)
        result[f"{name}_p95_ms"] = round(p95, 3)
    result["touched_states_passing"] = passed
    engine.dispose()
    tmp.cleanup()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
