"""How long panel planning takes at the demo and at Human-140 size, and whether it is repeatable.

Run: .venv/bin/python benchmarks/planner.py
Prints one line per case (wall seconds, counts, sha256 of the plan JSON) and ends with one JSON line.
Run it twice: the hashes must match across processes.
"""

from __future__ import annotations

import hashlib
import json
import time

from humantrace.annotators.planning import check_plan, examples, plan_panel


def _case(name: str, *, tasks, annotators, per_cell: int, seed: int) -> dict:
    start = time.perf_counter()
    plan = plan_panel(tasks=tasks, annotators=annotators, per_cell=per_cell, seed=seed)
    seconds = time.perf_counter() - start
    violations = check_plan(plan, tasks=tasks, annotators=annotators, per_cell=per_cell)
    digest = hashlib.sha256(plan.model_dump_json().encode()).hexdigest()[:16]
    row = {
        "case": name,
        "seed": seed,
        "seconds": round(seconds, 3),
        "base_tasks": plan.summary.base_tasks,
        "primary_task_conditions": plan.summary.primary_task_conditions,
        "duplicate_task_conditions": plan.summary.duplicate_task_conditions,
        "violations": len(violations),
        "plan_sha256_16": digest,
    }
    print(
        f"{name:9s} seed={seed:<3d} {seconds:6.2f}s  base={row['base_tasks']} primary={row['primary_task_conditions']} "
        f"duplicate={row['duplicate_task_conditions']} violations={len(violations)} sha={digest}"
    )
    return row


def main() -> None:
    rows = []
    for seed in (1, 2, 3):
        rows.append(
            _case(
                "demo", tasks=examples.demo_tasks(), annotators=examples.demo_roster(), per_cell=1, seed=seed
            )
        )
    for seed in (42, 43):
        rows.append(
            _case(
                "human140",
                tasks=examples.paper_tasks(),
                annotators=examples.paper_roster(),
                per_cell=4,
                seed=seed,
            )
        )
    # The same panel over the real catalogue, once every site has four tasks with a variant per cell.
    from humantrace.dashboard.studies.planning import catalogue_tasks

    real = catalogue_tasks()
    counts: dict[tuple[str, str], int] = {}
    for task in real:
        if task.has_variant:
            counts[task.env_id, task.difficulty] = counts.get((task.env_id, task.difficulty), 0) + 1
    short = [
        f"{env} {d} ({counts.get((env, d), 0)})"
        for env in examples.PAPER_ENVS
        for d in ("easy", "medium", "hard", "expert", "frontier")
        if counts.get((env, d), 0) < 4
    ]
    if short:
        print(f"human140 on the real catalogue: not yet, cells short of 4 tasks: {', '.join(short)}")
    else:
        rows.append(_case("real140", tasks=real, annotators=examples.paper_roster(), per_cell=4, seed=42))
    summary = {
        "benchmark": "planner",
        "demo_max_seconds": max(r["seconds"] for r in rows if r["case"] == "demo"),
        "human140_max_seconds": max(r["seconds"] for r in rows if r["case"] == "human140"),
        "real140_seconds": next((r["seconds"] for r in rows if r["case"] == "real140"), None),
        "violations": sum(r["violations"] for r in rows),
        "hashes": {f"{r['case']}:{r['seed']}": r["plan_sha256_16"] for r in rows},
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
