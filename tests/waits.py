"""Waiting on what a page shows, under the dashboard's Content-Security-Policy.

Playwright's `wait_for_function` evaluates its predicate with `eval` while it polls, which the
dashboard's CSP (`script-src 'self'`, no `'unsafe-eval'`) refuses, as it should. These waits poll
the element's text from Python instead."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def wait_for_text(
    page: Any, selector: str, check: Callable[[str], bool], *, timeout_ms: float = 30_000
) -> str:
    """Poll `selector`'s textContent until `check(text)` is true; returns the text."""
    deadline = time.monotonic() + timeout_ms / 1000
    text = ""
    while True:
        text = page.locator(selector).first.text_content() or ""
        if check(text):
            return text
        if time.monotonic() > deadline:
            raise AssertionError(f"{selector} still shows {text!r} after {timeout_ms / 1000:.0f} s")
        page.wait_for_timeout(100)


def count_of(text: str) -> int:
    """A counter's text as a number (an empty counter is 0)."""
    return int(text.strip() or 0)
