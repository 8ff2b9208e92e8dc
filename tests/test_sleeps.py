"""The sleep count `./dev lint` prints (`tests/sleeps.py`): what counts, and that it holds."""

from __future__ import annotations

from tests import sleeps


def test_the_counter_finds_each_kind_of_sleep_and_nothing_else(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(
        "import asyncio, time\nfrom time import sleep\n"
        "def test_x(page, clock):\n"
        "    time.sleep(0.5)\n"
        "    page.wait_for_timeout(100)\n"
        "    sleep(1)\n"
        "    clock.sleep(30)  # a moved clock is not a sleep\n"
        "async def test_y():\n"
        "    await asyncio.sleep(0.1)\n",
        encoding="utf-8",
    )
    assert sleeps.sleeps(tmp_path / "tests") == [
        "tests/test_a.py:4",
        "tests/test_a.py:5",
        "tests/test_a.py:6",
        "tests/test_a.py:9",
    ]


def test_the_tests_hold_the_sleep_budget():
    found = sleeps.sleeps()
    assert len(found) <= sleeps.BUDGET, "new sleeps (wait on a condition instead):\n" + "\n".join(found)
