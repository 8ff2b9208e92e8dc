"""How long and how much memory the expr sandbox takes to refuse CPU and memory bombs.

Run: ``.venv/bin/python benchmarks/sandbox_bombs.py``. For each bomb prints what stopped it, this
thread's CPU milliseconds (median of 5 runs) and the peak of traced allocations (one separate run
under tracemalloc, which slows execution, so time and memory are measured apart). The target is
every bomb refused within 100 ms and 50 MB. "Step bombs" are built to run as long as the budget
lets them (big comprehension bodies, membership tests over long lists), so they show the worst
case of the step cap. Ends with one JSON line.
"""

from __future__ import annotations

import json
import os
import statistics
import time
import tracemalloc
from typing import Any

from humantrace.environments.evaluator.sandbox import compile_expr, run_expr
from humantrace.environments.evaluator.views import StateView

TARGET_MS = 100.0
TARGET_MB = 50.0
X = "s" * 1_000
BOMBS = [
    "x.replace('', x)",
    "'x' * 10**9",
    "10**10**6",
    "[x] * 10**9",
    "x.center(10**9)",
    "'-'.join(x for i in range(10**5))",
    "str([x] * 100000)",
    "sum(1 for a in range(10**5) for b in range(10**5))",
    "[[b for b in range(1000)] for a in range(1000)]",
    "{i: x for i in range(10**5 + 1)}",
    "[x * 100 for i in range(1000)]",
    "[x + str(i) + x for i in range(10**5)]",
    "sorted(state.rows, key=lambda r: x * 100)",
    # issue #41: what is built counted through repetition and comprehension; strptime's real cost
    "['x' * 99999] * 99999",
    "[[0] * 99999] * 99999",
    "[s for s in ['x' * 99999] for i in range(99999)]",
    "[datetime.strptime(str(i) + '2020-01-02 10:11:12', str(i) + '%Y-%m-%d %H:%M:%S') for i in range(30000)]",
    # step bombs: as much work per item as an expression can ask for
    "[(i, i+1, i+2, i+3, i+4, i+5, i+6, i+7, i+8, i+9, i*2, i*3, i*4, i*5, i*6, i*7) for i in range(99999)]",
    "[r.id in ids for r in state.rows for ids in [[q.id for q in state.rows]]]",
    "[[r.id == q.id for q in state.rows] for r in state.rows]",
    "[len(str(state.rows)) for i in range(1000)]",
    "[sorted(state.rows, key=lambda r: r.id) for i in range(1000)]",
]


def _names() -> dict[str, object]:
    return {"x": X, "state": StateView({"rows": [{"id": f"r{i}", "text": X[:50]} for i in range(500)]})}


def refuse(source: str) -> str:
    try:
        run_expr(compile_expr(source), _names())
    except Exception as exc:  # what stopped it is what this benchmark reports
        return f"{type(exc).__name__}: {exc}"
    return "NOT REFUSED"


def main(runs: int = 5) -> None:
    rows: list[dict[str, Any]] = []
    for source in BOMBS:
        times = []
        for _ in range(runs):
            start = time.thread_time()
            outcome = refuse(source)
            times.append((time.thread_time() - start) * 1000)
        tracemalloc.start()
        refuse(source)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        cpu = statistics.median(times)
        rows.append(
            {"bomb": source, "cpu_ms": round(cpu, 1), "peak_mb": round(peak, 2), "outcome": outcome[:90]}
        )
        print(f"{cpu:7.1f} ms {peak:7.2f} MB  {source[:60]:60}  {outcome[:90]}")
    worst_ms = max(r["cpu_ms"] for r in rows)
    worst_mb = max(r["peak_mb"] for r in rows)
    refused = all(r["outcome"] != "NOT REFUSED" for r in rows)
    print(
        json.dumps(
            {
                "benchmark": "sandbox_bombs",
                "bombs": len(rows),
                "all_refused": refused,
                "worst_cpu_ms": worst_ms,
                "worst_peak_mb": worst_mb,
                "meets_target": refused and worst_ms < TARGET_MS and worst_mb < TARGET_MB,
                "load_average_1m": os.getloadavg()[0],
            }
        )
    )


if __name__ == "__main__":
    main()
