"""`away_s`: the part of an attempt's wall clock with no website tab present or visible.

Pure functions (no database): `dashboard.flow.service` feeds them the attempt's raw events and the
presence sweep's absences when the attempt ends. The definition, which `docs/study.md` repeats:

    away = window ∩ (absent ∪ not_shown)

- `window`: the attempt's wall-clock window, [end − wall clock, end] (the first acknowledged event
  after "go" to the button that ended it, or the time-out or rollback).
- `absent`: the presence channel's absences (`WebsiteAbsence`): no website tab connected for
  longer than `presence.WEBSITE_GONE_SECONDS`, from its last heartbeat until one is heard again.
- `not_shown`: the recorder's view: the moments when no stream (website tab) of the attempt is
  alive and visible. A stream is alive from its first event to its end: its last
  `navigation: unload` when no page loaded after it (the tab was closed), else the end of the
  window. Within its life it is
  hidden from a `visibility: hidden` event to the next `visibility: visible`. A `hidden` recorded
  while a page unloads (after `navigation: unload`, before the next page's `navigation: load`)
  is the page being replaced, not the tab being hidden, and is ignored; so a navigation or a
  reload inside the tab is never away.

Two tabs count as shown while either is visible. An attempt with no event at all has no tab
shown: all of its window is away.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Interval:
    """A half-open stretch [start_ms, end_ms) of epoch milliseconds (empty when end <= start)."""

    start_ms: int
    end_ms: int

    @property
    def length_ms(self) -> int:
        return max(0, self.end_ms - self.start_ms)


@dataclass(frozen=True)
class VisibilityEvent:
    """The fields of one raw event that decide whether its tab is alive and visible."""

    stream: int
    seq: int
    t_ms: int
    type: str
    nav: str | None = None
    state: str | None = None


def union(intervals: Iterable[Interval]) -> list[Interval]:
    """The intervals merged into disjoint, sorted ones (empty ones dropped)."""
    merged: list[Interval] = []
    for item in sorted(i for i in intervals if i.length_ms > 0):
        if merged and item.start_ms <= merged[-1].end_ms:
            last = merged[-1]
            merged[-1] = Interval(last.start_ms, max(last.end_ms, item.end_ms))
        else:
            merged.append(item)
    return merged


def clip(intervals: Iterable[Interval], window: Interval) -> list[Interval]:
    """The intervals cut to `window` (what falls outside it is dropped)."""
    cut = (Interval(max(i.start_ms, window.start_ms), min(i.end_ms, window.end_ms)) for i in intervals)
    return union(cut)


def complement(intervals: Iterable[Interval], window: Interval) -> list[Interval]:
    """The parts of `window` no interval covers."""
    gaps, at = [], window.start_ms
    for item in clip(intervals, window):
        if item.start_ms > at:
            gaps.append(Interval(at, item.start_ms))
        at = max(at, item.end_ms)
    if at < window.end_ms:
        gaps.append(Interval(at, window.end_ms))
    return gaps


def shown_intervals(events: Iterable[VisibilityEvent], *, until_ms: int) -> list[Interval]:
    """When some stream (website tab) was alive and visible, from the recorder's raw events.

    `until_ms` ends a stream that is still alive (its last event is not an unload): the end of
    the attempt's window.
    """
    by_stream: dict[int, list[VisibilityEvent]] = {}
    for event in events:
        by_stream.setdefault(event.stream, []).append(event)
    shown: list[Interval] = []
    for stream_events in by_stream.values():
        stream_events.sort(key=lambda e: e.seq)
        shown += _stream_shown(stream_events, until_ms=until_ms)
    return union(shown)


def _stream_shown(events: Sequence[VisibilityEvent], *, until_ms: int) -> list[Interval]:
    shown: list[Interval] = []
    visible_from: int | None = events[0].t_ms  # a page is taken to start visible
    unloaded_at: int | None = None  # set between a page's unload and the next page's load
    for event in events:
        if event.type == "navigation" and event.nav == "unload":
            unloaded_at = event.t_ms
        elif event.type == "navigation" and event.nav == "load":
            unloaded_at = None
        elif event.type == "visibility" and event.state == "hidden" and unloaded_at is None:
            if visible_from is not None:
                shown.append(Interval(visible_from, event.t_ms))
                visible_from = None
        elif event.type == "visibility" and event.state == "visible" and visible_from is None:
            visible_from = event.t_ms
    # Unloaded with no next page: the tab was closed then (what it recorded while unloading, such
    # as the `hidden` Chromium reports after pagehide, does not keep it open).
    end = unloaded_at if unloaded_at is not None else max(until_ms, events[-1].t_ms)
    if visible_from is not None:
        shown.append(Interval(visible_from, end))
    return shown


def away_intervals(
    *, window: Interval, shown: Iterable[Interval], absent: Iterable[Interval]
) -> list[Interval]:
    """The parts of `window` with no website tab present (`absent`) or shown (not in `shown`)."""
    return clip([*complement(shown, window), *absent], window)


def away_seconds(*, window: Interval, shown: Iterable[Interval], absent: Iterable[Interval]) -> float:
    """`away_s`: the total length of `away_intervals`, in seconds (milliseconds kept)."""
    away = away_intervals(window=window, shown=shown, absent=absent)
    return sum(i.length_ms for i in away) / 1000
