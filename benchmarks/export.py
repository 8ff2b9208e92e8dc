"""Benchmark: export a study of 1,000 attempts x 500 raw events from the database, then compare.

Builds a SQLite study directly in the tables (assignments, attempts with verdicts and cleaned
traces, recordings with raw events), runs `dashboard.exports.bundle.export_bundle` (the code behind
`humantrace export bundle`) and then `exports.compare.compare` on the bundle with a synthetic agent
file. Prints times and peak memory (resident set, whole process) and ends with one JSON line.
Targets: export under 20 s, peak memory under 1 GB.

    .venv/bin/python benchmarks/export.py [--attempts 1000] [--events 500] [--database-url URL]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import insert  # noqa: E402
from sqlmodel import Session, col, select  # noqa: E402

from humantrace.annotators.models import Annotator  # noqa: E402
from humantrace.core import migrate  # noqa: E402
from humantrace.core.db import make_engine  # noqa: E402
from humantrace.dashboard.exports.bundle import export_bundle  # noqa: E402
from humantrace.dashboard.studies.models import Assignment, Attempt, Study, StudyStatus  # noqa: E402
from humantrace.exports.compare import compare  # noqa: E402
from humantrace.recorder.models import RawEvent, Recording  # noqa: E402

TYPES = ["click", "keydown", "input", "scroll", "mousemove", "dom_change", "focus", "navigation"]
DIFFICULTIES = ["easy", "medium", "hard", "expert", "frontier"]


def difficulty_of(task: int) -> str:
    return DIFFICULTIES[task % 5]


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def build_study(url: str, attempts: int, events: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    migrate.upgrade(url)
    engine = make_engine(url)
    start = datetime(2026, 3, 2, 9, tzinfo=UTC)
    with Session(engine) as db:
        study = Study(name="benchmark", seed=seed, status=StudyStatus.open)
        db.add(study)
        people = [Annotator(code=f"A{i}") for i in range(1, 5)]
        db.add_all(people)
        db.commit()
        assignments = attempts // 2
        rows = []
        for i in range(assignments):
            task = i // 2  # every base task in both conditions, with different annotators
            rows.append(
                dict(
                    study_id=study.id,
                    annotator_id=people[(i + task) % 4].id,
                    task_id=f"bench-{task:03d}",
                    env_id="bench",
                    difficulty=difficulty_of(task),
                    condition="clean" if i % 2 else "intervention",
                    tier="primary",
                    order_index=i,
                    seed=i,
                    state="completed",
                    version=5,
                    created_at=start,
                    started_at=start,
                    completed_at=start,
                )
            )
        db.execute(insert(Assignment), rows)
        db.commit()
        ids = list(db.exec(select(Assignment.id).order_by(col(Assignment.id))))
        db.execute(
            insert(Recording),
            [
                dict(
                    kind="attempt",
                    status="ended",
                    created_at=start,
                    mask_all_text=False,
                    mousemove_sample_ms=100,
                    acked_seq=events - 1,
                )
                for _ in range(attempts)
            ],
        )
        db.commit()
        recordings = list(db.exec(select(Recording.id).order_by(col(Recording.id))))
        verdict = {
            "score": 1.0,
            "passed": True,
            "positive_checks": [
                {
                    "kind": "update",
                    "index": 0,
                    "name": "x",
                    "desc": "x",
                    "passed": True,
                    "credit": 1.0,
                    "weight": 1.0,
                    "diagnosis": "met",
                }
            ],
            "negative_checks": [],
        }
        attempt_rows = []
        for n in range(attempts):
            passed = rng.random() < 0.7
            attempt_rows.append(
                dict(
                    assignment_id=ids[n // 2],
                    phase="cold" if n % 2 == 0 else "warm",
                    status="ended",
                    outcome="evaluated",
                    env_session_id=f"s{n}",
                    recording_id=recordings[n],
                    created_at=start,
                    recording_started_at=start,
                    ended_at=start + timedelta(seconds=60),
                    wall_clock_ms=rng.randint(20_000, 300_000),
                    score=1.0 if passed else 0.4,
                    passed=passed,
                    verdict=verdict,
                    raw_events=events,
                    clean_steps=events // 4,
                    excluded=False,
                    clean_trace=[
                        {
                            "seq": s,
                            "t_ms": s * 100,
                            "type": "click",
                            "xpath": "/html/body",
                            "source_seqs": [s],
                        }
                        for s in range(events // 4)
                    ],
                    cleaning_config={"scroll_window_ms": 400},
                )
            )
        db.execute(insert(Attempt), attempt_rows)
        db.commit()
        t0 = int(start.timestamp() * 1000)
        for n, recording_id in enumerate(recordings):
            db.execute(
                insert(RawEvent),
                [
                    dict(
                        recording_id=recording_id,
                        seq=s,
                        t_ms=t0 + 100 * s,
                        type=TYPES[(s + n) % len(TYPES)],
                        xpath="/html/body/div[2]/button[1]",
                        url="http://127.0.0.1/env/bench/",
                        x=10.0,
                        y=20.0,
                    )
                    for s in range(events)
                ],
            )
            if n % 100 == 99:
                db.commit()
        db.commit()
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=1000)
    parser.add_argument("--events", type=int, default=500)
    parser.add_argument("--database-url", default="")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ht-export-bench-"))
    url = args.database_url or f"sqlite:///{work / 'bench.db'}"
    t = time.perf_counter()
    build_study(url, args.attempts, args.events)
    print(f"built study: {args.attempts} attempts x {args.events} events in {time.perf_counter() - t:.1f} s")
    engine = make_engine(url)
    t = time.perf_counter()
    export_bundle(engine, work / "bundle", formats=("parquet",))
    export_s = time.perf_counter() - t
    print(f"export: {export_s:.2f} s, peak RSS so far {peak_mb():.0f} MB")
    agents = work / "agents.csv"
    with agents.open("w") as fh:
        fh.write("model,task,env,difficulty,condition,score,steps,elapsed_s,source_variant\n")
        for i in range(args.attempts // 4):
            for condition in ("clean", "intervention"):
                fh.write(
                    f"m1,bench-{i:03d},bench,{difficulty_of(i)},{condition},{1 if condition == 'clean' else 0.5},10,60,\n"
                )
    t = time.perf_counter()
    compare(work / "bundle", [agents], work / "report", bootstrap=500)
    compare_s = time.perf_counter() - t
    print(f"compare: {compare_s:.2f} s")
    print(
        json.dumps(
            {
                "attempts": args.attempts,
                "events": args.attempts * args.events,
                "export_s": round(export_s, 2),
                "compare_s": round(compare_s, 2),
                "peak_mb": round(peak_mb(), 1),
            }
        )
    )


if __name__ == "__main__":
    main()
