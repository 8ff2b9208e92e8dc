"""Which matching calls a network dispatch fires on, and how long a `delay` waits.

Calls are numbered 1, 2, ... per (session, injection) by the database counter. Every decision is a
pure function of the injection's params, the call number and the session seed, so a session
replays identically (seeded probability included) whatever process serves it.
"""

from __future__ import annotations

import hashlib
from typing import Any

READ_METHODS = {"GET", "HEAD", "OPTIONS"}


def seeded_uniform(seed: int, key: str, call: int) -> float:
    """A number in [0, 1) fixed by (seed, key, call): the coin of `probability` and `tail_latency`."""
    digest = hashlib.sha256(f"{seed}|{key}|{call}".encode()).hexdigest()
    return int(digest[:13], 16) / 16**13


def default_behavior(rule: dict[str, Any]) -> dict[str, Any]:
    """The behaviour when a rule names none: delays always apply (their mode decides), the
    session expires on call `after_calls`, other dispatches fire on the first `fail_count` calls."""
    action = rule["action"]
    if action == "delay":
        return {"mode": "always"}
    if action == "session_expiry":
        after = int(rule.get("after_calls", 1))
        return {"mode": "window", "start": after, "end": after}
    return {"mode": "once", "count": int(rule.get("fail_count", 1))}


def fires(rule: dict[str, Any], call: int, *, seed: int, key: str) -> bool:
    """Whether the rule's dispatch applies to matching call number `call`."""
    behavior = rule.get("behavior") or default_behavior(rule)
    mode = behavior["mode"]
    if mode == "always":
        return True
    if mode == "once":
        count = behavior.get("count")
        if count is None:
            count = int(rule.get("fail_count", 1))
        return call <= count
    if mode == "every":
        return call % int(behavior["k"]) == 0
    if mode == "window":
        return int(behavior["start"]) <= call <= int(behavior["end"])
    if mode == "probability":
        return seeded_uniform(seed, key, call) < float(behavior["p"])
    raise ValueError(f"unknown behavior mode {mode!r}")


def delay_ms(rule: dict[str, Any], call: int, *, method: str, seed: int, key: str) -> int:
    """Milliseconds the `delay` dispatch waits before call `call` (0 = no wait)."""
    mode = rule.get("mode", "once")
    base = int(rule.get("delay_ms", 1500))
    if mode == "once":
        return base if call == 1 else 0
    if mode == "progressive":
        return min(base + int(rule.get("step_ms", 500)) * (call - 1), int(rule.get("max_delay_ms", 8000)))
    if mode == "intermittent":
        return base if call % int(rule.get("every", 2)) == 0 else 0
    if mode == "tail_latency":
        if seeded_uniform(seed, key + "|tail", call) < float(rule.get("tail_probability", 0.2)):
            return int(rule.get("tail_ms", 6000))
        return base
    if mode == "correlated_window":
        return base if int(rule.get("window_start", 1)) <= call <= int(rule.get("window_end", 3)) else 0
    if mode == "write_only_slow":
        return 0 if method.upper() in READ_METHODS else base
    raise ValueError(f"unknown delay mode {mode!r}")
