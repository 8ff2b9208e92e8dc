"""Benchmark the agent runner: episodes per minute of the oracle agent with 1 and 2 workers, and the
peak memory of one worker (its Python process, its humantrace server, both Chromiums that
BrowserGym launches per episode: the agent's and the chat window).

    .venv/bin/python benchmarks/agents.py [--tasks 'shop-00[1-4]'] [--workers 1,2]

Each setting runs `humantrace agents run --agent oracle --conditions clean` as a subprocess into a
fresh folder (so it starts its own servers, as a user's run does) and samples the resident memory
of every process below each worker from /proc every 0.2 s. Episodes per minute count the whole
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


def _subtree_kib(root: int, procs: dict[int, tuple[int, int]]) -> int:
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += procs.get(pid, (0, 0))[1]
        stack.extend(children.get(pid, []))
    return total


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
    cmd = [sys.executable, "-m", "dashboard.cli", "agents", "run", "--agent", "oracle", "--conditions", "clean",
           "--tasks", tasks, "--workers", str(workers), "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    peak: dict[int, int] = {}
    while proc.poll() is None:
        procs = _processes()
        for pid in _workers(proc.pid, procs, workers):
            peak[pid] = max(peak.get(pid, 0), _subtree_kib(pid, procs))
        time.sleep(0.2)
    elapsed = time.monotonic() - start
    log = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
    if proc.returncode != 0:
        raise SystemExit(f"agents run failed ({proc.returncode}):\n{log[-3000:]}")
    import csv

    with open(out / "episodes.csv", encoding="utf-8") as fh:
        episodes = list(csv.DictReader(fh))
    return {
        "workers": workers,
        "episodes": len(episodes),
        "passed": sum(e["passed"] == "true" for e in episodes),
        "seconds": round(elapsed, 1),
        "episodes_per_min": round(len(episodes) / elapsed * 60, 2),
        "peak_mib_per_worker": round(max(peak.values(), default=0) / 1024, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="shop-00[1-4]", help="task id glob (clean condition)")
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    args = parser.parse_args()
    results = []
    for n in (int(w) for w in args.workers.split(",")):
        result = run(args.tasks, n)
        results.append(result)
        print(f"workers={n}: {result['episodes']} episodes ({result['passed']} passed) in {result['seconds']} s = "
              f"{result['episodes_per_min']} episodes/min; peak {result['peak_mib_per_worker']} MiB per worker", flush=True)
    print(json.dumps({"benchmark": "agents", "tasks": args.tasks, "results": results}))


if __name__ == "__main__":
    main()
