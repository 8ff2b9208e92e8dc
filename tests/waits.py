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


def poll_until(check: Callable[[], Any], *, timeout_s: float, what: str, every_s: float = 0.1) -> Any:
    """Call `check` until it returns something truthy, and return that; after `timeout_s` an
    AssertionError saying what never happened. For conditions nothing can tell this process about
    (a row in a database, a line in a server's log, a port that opens): the pause between calls is
    the only sleep, and the wait ends as soon as the condition holds."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout_s:.0f} s")
        time.sleep(every_s)


def answers(url: str) -> bool:
    """Whether an HTTP server answers `url` at all (any status)."""
    import httpx

    try:
        httpx.get(url, timeout=1)
    except httpx.HTTPError:
        return False
    return True


def count_of(text: str) -> int:
    """A counter's text as a number (an empty counter is 0)."""
    return int(text.strip() or 0)
