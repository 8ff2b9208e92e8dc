"""How much one busy CPU slows another on this machine: read the other benchmarks' figures with it.

Times a fixed single-threaded Python workload alone, then while N - 1 other processes spin (one
per remaining CPU). On dedicated cores the ratio is about 1.0; on a VM whose vCPUs share physical
cores (hyperthread siblings, or an oversubscribed host) it is well above 1, and then anything that
runs beside a benchmark (the load generator, Chromium bots, PostgreSQL) slows the server itself,
not only by taking turns on a core. Alternates the two conditions `--repeats` times and reports
medians. Ends with one JSON line: `alone_ms, contended_ms, slowdown, cpus`.

    .venv/bin/python benchmarks/cpu_contention.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import statistics
import time


def workload() -> float:
    """Milliseconds of wall time for a fixed mix of dict, string and arithmetic work."""
    start = time.perf_counter()
    total = 0
    table: dict[str, int] = {}
    for i in range(400_000):
        key = f"k{i % 5000}"
        table[key] = table.get(key, 0) + i
        total += len(key) * (i & 7)
    assert total > 0
    return (time.perf_counter() - start) * 1000


def spin(stop) -> None:
    while not stop.is_set():
        sum(range(10_000))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--repeats", type=int, default=5, help="alternations of alone / contended (default 5)"
    )
    args = parser.parse_args()
    cpus = os.cpu_count() or 1
    ctx = mp.get_context("spawn")
    workload()  # warm up
    alone: list[float] = []
    contended: list[float] = []
    for _ in range(args.repeats):
        alone.append(workload())
        stop = ctx.Event()
        spinners = [ctx.Process(target=spin, args=(stop,), daemon=True) for _ in range(max(cpus - 1, 1))]
        for proc in spinners:
            proc.start()
        time.sleep(0.5)  # let them reach their loops
        contended.append(workload())
        stop.set()
        for proc in spinners:
            proc.join()
    result = {
        "alone_ms": round(statistics.median(alone), 1),
        "contended_ms": round(statistics.median(contended), 1),
        "slowdown": round(statistics.median(contended) / statistics.median(alone), 2),
        "cpus": cpus,
    }
    print(
        f"one thread alone: {result['alone_ms']} ms; with {max(cpus - 1, 1)} other CPU(s) busy: "
        f"{result['contended_ms']} ms (x{result['slowdown']})"
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
