"""Expressions that build far more than their outer container shows, each scored in a subprocess
capped at 1 GiB of address space, so that a regression fails this test instead of the machine.

Before the budget counted items deep, `['x' * 99999] * 99999` as a bijection's `over` passed the
2,000,000-element limit (only its outer list was counted) and one Evaluate took 25-93 s of CPU and
5-6 GB; `list(range(99999))` as `over` took 16.7 s, and a `strptime` loop 3.5 s. Each must now fail
its check within a fraction of a second, with a diagnosis that names the limit, and scoring goes on.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MEMORY_CAP = 1 << 30  # bytes of address space for the child
CPU_BOUND_S = 1.0  # the target is 100 ms; the margin is for the shared machine

CHILD = textwrap.dedent(
    """
    import json, resource, sys, time
    resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
    from humantrace.environments.evaluator import compute_diff, match
    import networkx  # imported before the clock starts: serve processes preload it

    canonical = json.loads(sys.argv[1])
    initial = {{"notes": [{{"id": "n1", "body": "a"}}, {{"id": "n2", "body": "b"}}]}}
    final = {{"notes": [{{"id": "n1", "body": "changed"}}, {{"id": "n3", "body": "new"}}]}}
    started = time.thread_time()
    verdict = match(compute_diff(initial, final), canonical, initial=initial, final=final)
    cpu = time.thread_time() - started
    checks = [*verdict.positive_checks, *verdict.negative_checks]
    print(json.dumps({{
        "cpu": cpu,
        "passed": verdict.passed,
        "checks": [{{"passed": c.passed, "diagnosis": c.diagnosis}} for c in checks],
        "size": len(verdict.model_dump_json()),
    }}))
    """
).format(cap=MEMORY_CAP)

CREATE = {"entity": "notes", "properties": {"body": {"eq": "new"}}}
STRPTIME = (
    "len([datetime.strptime(str(i) + '2020-01-02 10:11:12', str(i) + '%Y-%m-%d %H:%M:%S') "
    "for i in range(30000)]) > 0"
)
BOMBS: dict[str, tuple[dict, str]] = {
    "repeated strings as over": (
        {"create": [{**CREATE, "bijection": {"over": "['x' * 99999] * 99999", "variable": "v"}}]},
        "the built limit",
    ),
    "repeated lists as over": (
        {"create": [{**CREATE, "bijection": {"over": "[[0] * 99999] * 99999", "variable": "v"}}]},
        "the built limit",
    ),
    "a comprehension of one long string as over": (
        {"create": [{**CREATE, "bijection": {"over": "[s for s in ['x' * 99999] for i in range(99999)]"}}]},
        "the built limit",
    ),
    "list(range(99999)) as over": (
        {"create": [{**CREATE, "bijection": {"over": "list(range(99999))", "variable": "v"}}]},
        "the slots limit",
    ),
    "f-strings of a long string in a predicate": (
        {
            "create": [
                {
                    "entity": "notes",
                    "properties": {
                        "body": {"expr": "len([f'{x}{s}' for s in ['y' * 50000] for i in range(99)]) > 0"}
                    },
                }
            ]
        },
        r"the (built|step) limit",  # formatting text costs steps too: either limit may come first
    ),
    "a strptime loop as a constraint": (
        {"create": [CREATE], "constraints": [{"desc": "dates", "expr": STRPTIME, "severity": "low"}]},
        r"the (CPU|step) limit",
    ),
    "a strptime loop as an invariant filter": (
        {"create": [CREATE], "invariant": [{"collection": "notes", "filter": STRPTIME}]},
        r"over its budget.*the (CPU|step) limit",
    ),
}


def _score_in_a_capped_child(canonical: dict) -> dict:
    ran = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(canonical)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    return json.loads(ran.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", list(BOMBS))
def test_a_bomb_fails_its_check_fast_with_the_limit_named(name: str) -> None:
    canonical, limit = BOMBS[name]
    result = _score_in_a_capped_child(canonical)
    failed = [c["diagnosis"] for c in result["checks"] if not c["passed"]]
    assert not result["passed"] and failed, result
    assert any(re.search(limit, d) for d in failed), failed
    assert result["cpu"] < CPU_BOUND_S, f"{name}: {result['cpu']:.2f} s of CPU"
    assert result["size"] < 100_000, f"{name}: a verdict of {result['size']:,} bytes"


def test_a_bijection_too_big_to_match_fails_with_the_pairs_limit() -> None:
    """1,000 slots are allowed, but not 1,000 slots times 20 candidates (20,000 predicate checks)."""
    from humantrace.environments.evaluator import compute_diff, match

    initial: dict = {"notes": []}
    final = {"notes": [{"id": f"n{i}", "body": f"b{i}"} for i in range(20)]}
    canonical = {"create": [{**CREATE, "bijection": {"over": "[str(i) for i in range(1000)]"}}]}
    verdict = match(compute_diff(initial, final), canonical, initial=initial, final=final)
    check = verdict.positive_checks[0]
    assert not check.passed
    assert "20,000 pairs to check (the pairs limit, 10,000)" in check.diagnosis


def test_count_is_bounded_when_the_task_is_read() -> None:
    from humantrace.environments.evaluator import CanonicalDiffError, parse_canonical_diff

    with pytest.raises(CanonicalDiffError, match="count: must be an integer from 0 to 1,000"):
        parse_canonical_diff({"create": [{**CREATE, "count": 10**9}]})
