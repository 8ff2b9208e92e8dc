"""The cleaning configuration, recorded in every cleaned output."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

CLEANING_VERSION = "3"
"""Bumped whenever the rules or their vocabulary (`cleaning.events`) change what they output."""


class CleaningConfig(BaseModel):
    """Parameters of the four cleaning rules (docs/architecture.md, "Cleaning rules").

    `scroll_window_ms`: rule 2 collapses consecutive scrolls on one container while each is at most
    this many milliseconds after the *first* scroll of the run (docs/architecture.md: 400).

    `hover_window_ms`: rule 3 counts a `dom_change` as a hover trigger of a mousemove when the
    mousemove is the last operation before it and it comes at most this long after the move. 500 ms
    covers the delays menus deliberately add before opening on hover (hover-intent delays of about
    100-300 ms, CSS transitions) plus the recorder's throttling of `dom_change` summaries, while a
    page's own timers (clocks, carousels, polling) rarely fall inside so short a window after the
    last move. Larger values keep more moves; smaller ones miss slow menus.

    `drag_min_px`: rule 4 makes a press and its release one `drag` when the release is at least this
    many CSS pixels from the press (4 px, the usual system drag threshold: a hand's jitter during a
    click stays below it). An HTML5 `drop` is a drag at any distance.

    `group_by`: the column whose values are independent traces (one attempt each); events are
    ordered by this column and then `seq`, and no run ever spans two groups.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    scroll_window_ms: int = Field(default=400, ge=0)
    hover_window_ms: int = Field(default=500, ge=0)
    drag_min_px: float = Field(default=4.0, ge=0)
    group_by: str = "attempt_id"

    def to_dict(self) -> dict[str, Any]:
        """The configuration as a JSON-serialisable dict (what `df.attrs` records)."""
        return self.model_dump(mode="json")
