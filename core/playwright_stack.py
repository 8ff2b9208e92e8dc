"""Playwright's sync API without its per-call source lookups.

On every call (`locator.click()`, `page.wait_for_function()`, ...) Playwright 1.44's sync API stores
the caller's stack on the task it starts: `inspect.stack()`, which opens each frame's source file to
read a line of context and looks up its module, and `traceback.extract_stack()`, which reads every
line too. Playwright uses only each frame's file, line and function (for the call's name in its
errors and the location it sends to the driver); the lines are never read. Under a test runner, a
bot or BrowserGym the stack is 40 to 80 frames deep, so this bookkeeping was about a quarter of the
Python time of a browser test (py-spy, three booking oracles). BrowserGym pins `playwright==1.44`.

`install()` gives Playwright's sync layer the same frames without the lookups: `inspect.FrameInfo`
rows with no code context, and a `StackSummary` whose lines are read only when asked for. Error
messages, API names and locations are unchanged (`tests/test_playwright_stack.py`).
"""

from __future__ import annotations

import inspect
import sys
import traceback
from types import SimpleNamespace
from typing import Any


def _stack() -> list[inspect.FrameInfo]:
    """What `inspect.stack()` returns when called where this is called, without code context."""
    frame: Any = sys._getframe(1)
    rows = []
    while frame is not None:
        code = frame.f_code
        rows.append(inspect.FrameInfo(frame, code.co_filename, frame.f_lineno, code.co_name, None, None))
        frame = frame.f_back
    return rows


def _extract_stack() -> traceback.StackSummary:
    """What `traceback.extract_stack()` returns when called where this is called; each line is read
    when first asked for."""
    summary = traceback.StackSummary.extract(traceback.walk_stack(sys._getframe(1)), lookup_lines=False)
    summary.reverse()
    return summary


def install() -> None:
    """Make Playwright's sync API take the caller's stack cheaply (idempotent)."""
    from playwright._impl import _sync_base

    module: Any = _sync_base
    if isinstance(module.inspect, SimpleNamespace):
        return
    module.inspect = SimpleNamespace(stack=_stack)
    module.traceback = SimpleNamespace(extract_stack=_extract_stack)
