"""Count the sleeps in the tests: `./dev lint` prints the count and fails when it grows.

Tests wait on conditions (what the page shows, `tests/waits.py`, a moved clock), never on time.
The sleeps that remain are counted here (`time.sleep`, `asyncio.sleep`, Playwright's
`wait_for_timeout`, a bare `sleep` imported from `time`), so the number can only go down: lower
`BUDGET` when you remove one; a new sleep fails the lint with its place.

    python -m tests.sleeps          # prints the count and each place; exit 1 above the budget
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

# The count on 2026-12-07. Only ever lower it.
BUDGET = 77
TESTS = Path(__file__).resolve().parent


def _is_sleep(call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Attribute):
        if func.attr == "wait_for_timeout":
            return True
        return (
            func.attr == "sleep" and isinstance(func.value, ast.Name) and func.value.id in ("time", "asyncio")
        )
    return isinstance(func, ast.Name) and func.id == "sleep"


def sleeps(root: Path = TESTS) -> list[str]:
    """`path:line` of every sleep call in the Python files under `root`."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.resolve() == Path(__file__).resolve():
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        found += [
            f"{path.relative_to(root.parent)}:{node.lineno}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and _is_sleep(node)
        ]
    return found


def main() -> int:
    found = sleeps()
    print(f"sleeps in tests/: {len(found)} (budget {BUDGET}; tests wait on conditions, not time)")
    if len(found) > BUDGET:
        print("\n".join(found))
        print(f"{len(found) - BUDGET} more than the budget: wait for a condition instead (tests/waits.py)")
        return 1
    if len(found) < BUDGET:
        print(f"lower BUDGET in tests/sleeps.py to {len(found)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
