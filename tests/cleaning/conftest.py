"""Fixtures for the cleaning tests: a small trace builder and a seeded random trace generator."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
import pandas as pd
import pytest

from humantrace.cleaning import raw_frame

T0 = 1_700_000_000_000


class TraceBuilder:
    """Append events to one or more attempts; seq counts per attempt, t_ms from T0 + `at`."""

    def __init__(self) -> None:
        self.records: list[dict] = []
        self._next_seq: dict[int, int] = {}

    def add(self, type: str, at: int, *, attempt: int = 1, **fields: object) -> int:
        seq = self._next_seq.get(attempt, 0)
        self._next_seq[attempt] = seq + 1
        self.records.append(
            {
                "attempt_id": attempt,
                "seq": seq,
                "t_ms": T0 + at,
                "type": type,
                "url": "http://shop.test/",
                **fields,
            }
        )
        return seq

    def type_text(
        self, xpath: str, text: str, at: int, *, every: int = 80, attempt: int = 1, start: str = ""
    ) -> int:
        """keydown + input per character, as a browser reports typing; returns the end time."""
        for i, char in enumerate(text):
            self.add("keydown", at, attempt=attempt, xpath=xpath, key=char)
            self.add("input", at + 5, attempt=attempt, xpath=xpath, value=start + text[: i + 1])
            at += every
        return at

    def frame(self) -> pd.DataFrame:
        return raw_frame(self.records)


@pytest.fixture
def trace() -> TraceBuilder:
    return TraceBuilder()


TYPES = np.array(
    [
        "mousemove",
        "mousemove",
        "mousemove",
        "scroll",
        "scroll",
        "keydown",
        "input",
        "keydown",
        "input",
        "dom_change",
        "click",
        "focus",
        "blur",
        "change",
        "submit",
        "select",
        "navigation",
        "visibility",
        "resize",
        "dblclick",
        "contextmenu",
    ]
)
XPATHS = np.array(["/html", "/html/body/form/input[1]", "/html/body/form/input[2]", "/html/body/div[2]"])
KEYS = np.array(["a", "b", " ", "Enter", "Shift", "Backspace", "Tab", "ArrowLeft"])
NULL = np.array(
    None, dtype=object
)  # "no value" where a field does not apply (np.where makes the column object)


def random_raw(seed: int, events: int, attempts: int) -> pd.DataFrame:
    """A shuffled raw frame with uniform random events (not realistic; dense in edge cases)."""
    rng = np.random.default_rng(seed)
    attempt = np.sort(rng.integers(0, attempts, events))
    seq = np.arange(events) - np.searchsorted(attempt, attempt)
    step = rng.choice([0, 30, 90, 150, 399, 400, 401, 600, 2000, -20], events)
    t_ms = T0 + np.cumsum(step)
    kind = TYPES[rng.integers(0, len(TYPES), events)]
    frame = pd.DataFrame(
        {
            "attempt_id": attempt,
            "seq": seq,
            "t_ms": t_ms,
            "type": kind,
            "xpath": XPATHS[rng.integers(0, len(XPATHS), events)],
            "key": np.where(kind == "keydown", KEYS[rng.integers(0, len(KEYS), events)], NULL),
            "value": np.where(kind == "input", rng.choice(["", "a", "ab", "abc"], events), NULL),
            "dy": np.where(kind == "scroll", rng.choice([-100.0, 40.0, 100.0, 2.5], events), np.nan),
            "dx": np.where(kind == "scroll", rng.choice([0.0, 10.0], events), np.nan),
            "scroll_y": np.where(kind == "scroll", rng.integers(0, 5000, events), np.nan),
        }
    )
    frame = raw_frame(cast("list[dict[str, Any]]", frame.to_dict("records")))
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


@pytest.fixture
def make_random_raw() -> Callable[..., pd.DataFrame]:
    return random_raw
