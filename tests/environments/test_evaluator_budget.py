"""CPU and memory bombs: every one is refused by the sandbox's in-process budget.

Expressions run in worker threads, where no signal can stop them, so the budget is the only
brake. Each bomb must be refused (ExprBudgetExceeded at run time, or UnsafeExpression when read)
using at most 50 MB (traced allocations; without the budget most of these would allocate gigabytes)
and well under a second of this thread's CPU time (the target is 100 ms; the bound here has a wide
margin because the machine is shared; `benchmarks/sandbox_bombs.py` prints the actual figures).
"""

from __future__ import annotations

import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor

import pytest

from humantrace.environments.evaluator import match
from humantrace.environments.evaluator.budget import MAX_ITEMS, ExprBudgetExceeded
from humantrace.environments.evaluator.sandbox import UnsafeExpression, compile_expr, run_expr
from humantrace.environments.evaluator.views import MappingView, StateView

MEMORY_LIMIT = 50 * 1024 * 1024
CPU_BOUND_S = 1.0

S = "s" * 1_000  # x: a plausible field value, e.g. an email body
BOMBS = [
    "x.replace('', x)",
    "'x' * 10**9",
    "10**10**6",
    "[x] * 10**9",
    "2**4000 * 2**4000",
    "x.center(10**9)",
    "x.zfill(10**9)",
    "'-'.join(x for i in range(10**5))",
    "str([x] * 100000)",
    "f'{[x] * 100000}'",
    "sum(1 for a in range(10**5) for b in range(10**5))",
    "[[b for b in range(1000)] for a in range(1000)]",
    "{i: x for i in range(10**5 + 1)}",
    "list(range(10**9))",
    "next(i for i in range(10**9) if i < 0)",
    "[x * 100 for i in range(1000)]",
    "[c in x * 100 for c in x * 100]",
    "sorted(state.rows, key=lambda r: x * 100)",
    "[x + str(i) + x for i in range(10**5)]",
    "len(str(state.rows) * 100)",
    "max(len(r.text.replace('', r.text)) for r in state.rows)",
    "[sum(range(10**5)) for i in range(1000)]",
]
PARSE_BOMBS = ["(" * 300 + "1" + ")" * 300, "-" * 3000 + "1", "x" + " + x" * 2000]


def _state() -> StateView:
    return StateView({"rows": [{"id": f"r{i}", "text": S} for i in range(500)]})


def _measure(source: str) -> tuple[BaseException | None, float, int]:
    """(what was raised, CPU seconds of this thread, peak traced bytes)."""
    names = {"x": S, "state": _state()}
    tracemalloc.start()
    started = time.thread_time()
    raised = None
    try:
        run_expr(compile_expr(source), names)
    except (ExprBudgetExceeded, UnsafeExpression) as exc:
        raised = exc
    elapsed = time.thread_time() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return raised, elapsed, peak


@pytest.mark.parametrize("source", BOMBS)
def test_cpu_and_memory_bombs_are_refused_within_bounds(source: str) -> None:
    raised, elapsed, peak = _measure(source)
    assert isinstance(raised, ExprBudgetExceeded), f"{source!r} was not refused"
    assert peak < MEMORY_LIMIT, f"{source!r} peaked at {peak / 2**20:.1f} MB"
    assert elapsed < CPU_BOUND_S, f"{source!r} took {elapsed:.2f} s of CPU"


@pytest.mark.parametrize("source", PARSE_BOMBS)
def test_parser_bombs_are_refused_when_read(source: str) -> None:
    with pytest.raises(UnsafeExpression):
        compile_expr(source)


def test_refusal_messages_say_what_ran_out() -> None:
    cases = {
        "x.replace('', x)": "str.replace() would have 1,002,000 elements (the length limit, 100,000)",
        "10**10**6": "a power would be an integer of about 3,321,929 bits (limit 4,096)",
        "sum(1 for a in range(10**5) for b in range(10**5))": f"more than {MAX_ITEMS:,} loop or comprehension items",
        "[x * 100 for i in range(1000)]": "built more than 2,000,000 elements and characters in all",
    }
    for source, message in cases.items():
        # Not under tracemalloc, which slows allocation enough to reach the CPU backstop first.
        with pytest.raises(ExprBudgetExceeded) as raised:
            run_expr(compile_expr(source), {"x": S, "state": _state()})
        assert message in str(raised.value), (source, raised.value)


def test_a_bomb_is_refused_in_a_worker_thread_and_the_next_evaluation_starts_afresh() -> None:
    def work(source: str) -> object:
        try:
            return run_expr(compile_expr(source), {"x": S})
        except ExprBudgetExceeded as exc:
            return exc

    with ThreadPoolExecutor(max_workers=2) as pool:
        bombs = list(
            pool.map(work, ["'x' * 10**9", "sum(1 for a in range(10**5) for b in range(10**5))"] * 2)
        )
        fine = list(pool.map(work, ["len(x) + sum(i for i in range(90000))"] * 4))
    assert all(isinstance(r, ExprBudgetExceeded) for r in bombs)
    assert fine == [1000 + sum(range(90000))] * 4  # budgets are per evaluation, not per thread


def test_sum_adds_numbers_only_so_concatenating_many_lists_cannot_go_quadratic() -> None:
    lists = "[[0] * 100 for i in range(5000)]"
    with pytest.raises(Exception, match="sum\\(\\) adds numbers"):
        run_expr(compile_expr(f"len(sum({lists}, []))"), {})
    assert run_expr(compile_expr("sum([1, 2, Decimal('1.5')], Decimal(0))"), {}) == 4.5


def test_a_bomb_in_a_canonical_diff_fails_its_check_and_scoring_goes_on() -> None:
    initial = {"notes": [{"id": "n1", "body": "a"}]}
    final = {"notes": [{"id": "n1", "body": "b"}]}
    from humantrace.environments.evaluator import compute_diff

    verdict = match(
        compute_diff(initial, final),
        {
            "update": [
                {"entity": "notes", "where": {"id": "n1"}, "changes": {"body": {"expr": "x * 10**9 == 'b'"}}}
            ],
            "constraints": [{"desc": "bounded", "expr": "len(str(10**10**6)) > 0", "severity": "low"}],
        },
        initial=initial,
        final=final,
    )
    assert verdict.score == 0.0 and not verdict.passed
    assert "ExprBudgetExceeded" in verdict.positive_checks[0].diagnosis
    assert "ExprBudgetExceeded" in verdict.negative_checks[0].diagnosis


def test_ordinary_expressions_over_a_shop_sized_state_stay_within_budget() -> None:
    state = StateView(
        {
            "products": [{"id": f"p{i}", "price": i % 50, "name": f"Product {i}"} for i in range(600)],
            "orders": [{"id": f"o{i}", "product_id": f"p{i * 7 % 600}"} for i in range(300)],
        }
    )
    target = MappingView({"ids": [f"p{i}" for i in range(0, 600, 3)]})
    sources = [
        "sorted(p.id for p in state.products if p.price < 10 and p.name.lower().startswith('product'))",
        "sum(1 for o in state.orders if o.product_id in target['ids'])",
        "all(any(o.product_id == p for o in state.orders) or True for p in target.ids)",
        "min(state.products, key=lambda p: (p.price, p.id)).id",
    ]
    for source in sources:
        run_expr(compile_expr(source), {"state": state, "target": target})
