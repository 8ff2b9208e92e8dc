"""Benchmark the agent runner: episodes per minute of the oracle agent with 1 and 2 workers, and the
peak memory of one worker (its Python process, its humantrace server, both Chromiums that
BrowserGym launches per episode: the agent's and the chat window).

    .venv/bin/python benchmarks/agents.py [--tasks 'shop-00[1-4]'] [--workers 1,2]

Each setting runs `humantrace agents run --agent oracle --conditions clean` as a subprocess into a
fresh folder (so it starts its own servers, as a user's run does) and samples the resident memory
of every process below each worker from /proc every 0.2 s (PSS, which splits the pages the
Chromium processes share, and the plain RSS sum, which counts them once per process). Episodes per minute count the whole
run, the servers' start included. Prints one line per setting, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _processes() -> dict[int, tuple[int, int]]:
    """pid -> (parent pid, resident KiB) of every process now."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", encoding="utf-8") as fh:
                fields = dict(line.split(":", 1) for line in fh if ":" in line)
            out[int(entry)] = (int(fields["PPid"].strip()), int(fields.get("VmRSS", "0 kB").split()[0]))
        except (OSError, KeyError, ValueError):
            continue
    return out


def _subtree(root: int, procs: dict[int, tuple[int, int]]) -> list[int]:
    """`root` and every process below it."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    out, stack = [], [root]
    while stack:
        pid = stack.pop()
        if pid in procs:
            out.append(pid)
        stack.extend(children.get(pid, []))
    return out


def _pss_kib(pid: int) -> int:
    """Proportional set size: the process's private pages plus its share of pages it shares (the
    Chromium processes of one browser share most of theirs, so RSS sums count those many times)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _workers(cli_pid: int, procs: dict[int, tuple[int, int]], n: int) -> list[int]:
    """The worker roots: the CLI itself with one worker, else its spawned Python children."""
    if n == 1:
        return [cli_pid]
    kids = [pid for pid, (ppid, _) in procs.items() if ppid == cli_pid]
    workers = []
    for pid in kids:
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"multiprocessing" in cmd and b"resource_tracker" not in cmd:
            workers.append(pid)
    return workers


def run(tasks: str, workers: int) -> dict:
    out = Path(tempfile.mkdtemp(prefix="bench-agents-")) / "bundle"
    cmd = [
        sys.executable,
        "-m",
        "humantrace.dashboard.cli",
        "agents",
        "run",
        "--agent",
        "oracle",
        "--conditions",
        "clean",
        "--tasks",
        tasks,
        "--workers",
        str(workers),
        "--out",
        str(out),
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    start = time.monotonic()
    log_path = out.parent / "run.log"
    with open(
        log_path, "wb"
    ) as log_file:  # a file, not a pipe: a pipe nobody reads can fill and block the run
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log_file, stderr=subprocess.STDOUT)
        peak_rss: dict[int, int] = {}
        peak_pss: dict[int, int] = {}
        while proc.poll() is None:
            procs = _processes()
            for pid in _workers(proc.pid, procs, workers):
                below = _subtree(pid, procs)
                peak_rss[pid] = max(peak_rss.get(pid, 0), sum(procs[p][1] for p in below))
                peak_pss[pid] = max(peak_pss.get(pid, 0), sum(_pss_kib(p) for p in below))
            time.sleep(0.2)
    elapsed = time.monotonic() - start
    log = log_path.read_text(errors="replace")
    if proc.returncode != 0:
        raise SystemExit(f"agents run failed ({proc.returncode}):\n{log[-3000:]}")
    import csv

    with open(out / "episodes.csv", encoding="utf-8") as fh:
        episodes = list(csv.DictReader(fh))
    started = min(e["started_at"] for e in episodes) if episodes else None
    ended = max(e["ended_at"] for e in episodes) if episodes else None
    span = (
        (datetime.fromisoformat(ended) - datetime.fromisoformat(started)).total_seconds()
        if started and ended
        else 0.0
    )
    return {
        "workers": workers,
        "episodes": len(episodes),
        "passed": sum(e["passed"] == "true" for e in episodes),
        "seconds": round(elapsed, 1),
        "episodes_per_min": round(len(episodes) / elapsed * 60, 2),
        # From the first episode's start to the last one's end: without start-up (imports, the
        # servers' `db upgrade` and start), which a long run pays once per worker.
        "episodes_per_min_running": round(len(episodes) / span * 60, 2) if span > 0 else None,
        # The largest worker's peak: proportional (shared pages split) and the plain RSS sum.
        "peak_pss_mib_per_worker": round(max(peak_pss.values(), default=0) / 1024, 1),
        "peak_rss_sum_mib_per_worker": round(max(peak_rss.values(), default=0) / 1024, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--tasks",
        default="shop-00[1-4]",
        help="task id glob(s), comma-separated (clean condition); the default is a small fixed sample, "
        "'shop-*' or '*' for more",
    )
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    args = parser.parse_args()
    results = []
    load_before = [round(x, 2) for x in os.getloadavg()]
    print(
        f"{os.cpu_count()} cores; load average before: {load_before[0]} (1 min), {load_before[1]} (5 min)",
        flush=True,
    )
    for n in (int(w) for w in args.workers.split(",")):
        result = run(args.tasks, n)
        result["load_after_1min"] = round(os.getloadavg()[0], 2)
        results.append(result)
        print(
            f"workers={n}: {result['episodes']} episodes ({result['passed']} passed) in {result['seconds']} s = "
            f"{result['episodes_per_min']} episodes/min ({result['episodes_per_min_running']} once started); peak per worker {result['peak_pss_mib_per_worker']} MiB PSS "
            f"({result['peak_rss_sum_mib_per_worker']} MiB RSS summed) "
            f"(load average after: {result['load_after_1min']})",
            flush=True,
        )
    print(
        json.dumps(
            {
                "benchmark": "agents",
                "tasks": args.tasks,
                "cores": os.cpu_count(),
                "load_before": load_before,
                "results": results,
            }
        )
    )


if __name__ == "__main__":
    main()
