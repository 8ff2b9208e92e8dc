"""Benchmark the cleaning pipeline on synthetic raw traces.

    .venv/bin/python benchmarks/cleaning.py [--events 5000000] [--attempts 5000]

Generates raw events with a realistic mix (mouse paths ending in clicks or hovers, idle paths,
typing runs of keydown+input with autocomplete dom_changes, scroll bursts, navigations, context
events), then times: the pipeline (`cleaning.clean`), the row-loop reference on a sample of whole
attempts (scaled to events per second), and a floor (one stable sort by attempt and seq plus one
groupby count over the same frame). Peak memory is the process's resident high-water mark while
the pipeline runs (reset just before it where Linux allows, else since start). Prints figures,
then one JSON line.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from pandas.api.types import pandas_dtype

# Run as a script, this file's folder comes first on sys.path and its name shadows the package.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from humantrace.cleaning import CleaningConfig, clean  # noqa: E402
from humantrace.cleaning.events import RAW_DTYPES  # noqa: E402
from humantrace.cleaning.reference import clean_reference  # noqa: E402

T0 = 1_700_000_000_000

# Episode kinds: (weight, min length, max length, ms between events)
EPISODES = {
    "click_path": (30, 3, 25, 16),  # mousemoves, then a click (sometimes focus before it)
    "hover_path": (8, 3, 20, 16),  # mousemoves, then a dom_change a little later
    "idle_path": (15, 2, 30, 16),  # mousemoves to nowhere
    "typing": (12, 2, 25, 110),  # keydown + input per character, some dom_changes
    "scroll": (16, 1, 30, 30),  # scroll events on one container
    "key": (10, 1, 1, 0),  # a lone Enter / Tab / Escape / arrow
    "other": (60, 1, 1, 0),  # one of the rarer operations or a context event
}
OTHER_TYPES = np.array(
    [
        "change",
        "submit",
        "select",
        "blur",
        "navigation",
        "visibility",
        "resize",
        "dom_change",
        "dblclick",
        "contextmenu",
    ]
)
COMMAND_KEYS = np.array(["Enter", "Tab", "Escape", "ArrowDown", "ArrowUp"])
NULL = np.array(
    None, dtype=object
)  # "no value" where a field does not apply (np.where makes the column object)


@dataclass(frozen=True)
class Figures:
    events: int
    attempts: int
    events_per_s: float
    reference_events_per_s: float
    floor_s: float
    pipeline_s: float
    pipeline_cpu_s: float
    ratio_to_floor: float
    peak_mb: float
    clean_steps: int


def synthetic_raw(events: int, attempts: int, seed: int = 0) -> pd.DataFrame:
    """`events` raw events over `attempts` attempts, ordered by attempt and seq."""
    rng = np.random.default_rng(seed)
    names = list(EPISODES)
    weights = np.array([EPISODES[k][0] for k in names], dtype=float)
    mean_len = sum(
        w * (EPISODES[k][1] + EPISODES[k][2]) / 2 * (2 if k == "typing" else 1)
        for k, w in zip(names, weights / weights.sum())
    )
    n_episodes = int(events / mean_len * 1.1) + 10
    kind = rng.choice(len(names), n_episodes, p=weights / weights.sum())
    low = np.array([EPISODES[k][1] for k in names])[kind]
    high = np.array([EPISODES[k][2] for k in names])[kind]
    length = rng.integers(low, high + 1)
    length = np.where(kind == names.index("typing"), 2 * length, length)  # keydown + input
    ends = np.cumsum(length)
    n_episodes = int(np.searchsorted(ends, events)) + 1
    kind, length = kind[:n_episodes], length[:n_episodes]

    episode = np.repeat(np.arange(n_episodes), length)[:events]
    starts = np.concatenate(([0], np.cumsum(length)[:-1]))
    pos = np.arange(len(episode)) - starts[episode]  # position within the episode
    last = pos == length[episode] - 1
    ek = kind[episode]
    is_ = {k: ek == names.index(k) for k in names}

    etype = np.full(len(episode), "mousemove", dtype=object)
    etype[is_["click_path"] & last] = "click"
    focus_first = rng.random(n_episodes) < 0.3
    etype[is_["click_path"] & (pos == length[episode] - 2) & focus_first[episode]] = "focus"
    etype[is_["hover_path"] & last] = "dom_change"
    typing = is_["typing"]
    etype[typing] = np.where(pos[typing] % 2 == 0, "keydown", "input")
    autocomplete = typing & (pos % 6 == 5)
    etype[autocomplete] = "dom_change"
    etype[is_["scroll"]] = "scroll"
    etype[is_["key"]] = "keydown"
    etype[is_["other"]] = OTHER_TYPES[rng.integers(0, len(OTHER_TYPES), is_["other"].sum())]

    gap_in = np.array([EPISODES[k][3] for k in names])[ek]
    jitter = rng.integers(0, 12, len(episode))
    gap = np.where(pos == 0, rng.integers(300, 4000, len(episode)), gap_in + jitter)
    gap = np.where(is_["hover_path"] & last, 150, gap)
    t_ms = T0 + np.cumsum(gap)

    attempt = (np.arange(len(episode)) * attempts // len(episode)).astype(np.int64)
    seq = np.arange(len(episode)) - np.searchsorted(attempt, attempt)

    xpath_pool = np.array(
        [f"/html/body/div[{i % 7}]/form/input[{i}]" for i in range(300)]
        + ["/html", "/html/body/main", "/html/body/aside/ul"]
    )
    ep_xpath = rng.integers(0, 300, n_episodes)
    scroll_target = np.where(rng.random(n_episodes) < 0.8, 300, rng.integers(301, 303, n_episodes))
    xpath_code = np.where(is_["scroll"], scroll_target[episode], ep_xpath[episode])
    url_pool = np.array([f"http://127.0.0.1:8000/env/shop/page/{i}" for i in range(40)])
    url_code = rng.integers(0, 40, n_episodes)[episode]

    pointer = np.isin(etype, ["mousemove", "click", "dblclick", "contextmenu"])
    key = np.full(len(episode), None, dtype=object)
    keydown = etype == "keydown"
    chars = np.array(list("abcdefghijklmnopqrstuvwxyz "))
    key[keydown] = chars[rng.integers(0, len(chars), keydown.sum())]
    key[keydown & is_["key"]] = COMMAND_KEYS[rng.integers(0, 5, (keydown & is_["key"]).sum())]
    value_pool = np.array([f"search term {i}" for i in range(500)])
    valued = np.isin(etype, ["input", "change", "select"])
    value = np.full(len(episode), None, dtype=object)
    value[valued] = value_pool[rng.integers(0, 500, valued.sum())]
    scroll = etype == "scroll"
    dom = etype == "dom_change"

    def floats(mask, values):
        return np.where(mask, values, np.nan)

    def counts(mask, high):  # null where the field does not apply
        return pd.Series(rng.integers(0, high, len(episode))).astype("Int64").where(mask)

    columns = {
        "attempt_id": attempt,
        "seq": seq,
        "t_ms": t_ms,
        "type": etype,
        "xpath": np.where(
            np.isin(etype, ["navigation", "visibility", "resize", "dom_change"]), NULL, xpath_pool[xpath_code]
        ),
        "url": url_pool[url_code],
        "x": floats(pointer, rng.random(len(episode)) * 1280),
        "y": floats(pointer, rng.random(len(episode)) * 800),
        "key": key,
        "value": value,
        "scroll_x": floats(scroll, 0.0),
        "scroll_y": floats(scroll, rng.integers(0, 8000, len(episode)).astype(float)),
        "dx": floats(scroll, 0.0),
        "dy": floats(scroll, rng.choice([-100.0, 100.0, 53.0], len(episode))),
        "nav": np.where(etype == "navigation", "load", NULL),
        "added": counts(dom, 40),
        "removed": counts(dom, 10),
        "attributes": counts(dom, 5),
        "width": counts(etype == "resize", 1920),
        "height": counts(etype == "resize", 1080),
        "state": np.where(etype == "visibility", "visible", NULL),
    }
    return pd.DataFrame({k: pd.Series(v).astype(pandas_dtype(RAW_DTYPES[k])) for k, v in columns.items()})


def _reset_peak_rss() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def _peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _current_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def run(events: int, attempts: int, sample_attempts: int, shuffle: bool) -> Figures:
    raw = synthetic_raw(events, attempts)
    if shuffle:  # as if read from storage in no particular order: the pipeline must sort
        raw = raw.sample(frac=1.0, random_state=1).reset_index(drop=True)
    print(
        f"raw: {len(raw):,} events, {attempts:,} attempts, "
        f"{raw.memory_usage(deep=True).sum() / 2**20:,.0f} MB in memory"
    )
    print("type mix:", ", ".join(f"{k} {v:.1%}" for k, v in raw["type"].value_counts(normalize=True).items()))
    config = CleaningConfig()

    start = time.perf_counter()
    by_attempt = raw.sort_values(["attempt_id", "seq"], kind="stable")
    by_attempt.groupby("attempt_id").size()
    floor_s = time.perf_counter() - start
    del by_attempt
    gc.collect()

    rss_before = _current_rss_mb()
    reset = _reset_peak_rss()
    start, cpu_start = time.perf_counter(), time.process_time()
    cleaned = clean(raw, config)
    pipeline_s = time.perf_counter() - start
    pipeline_cpu_s = time.process_time() - cpu_start
    peak_mb = _peak_rss_mb()
    print(
        f"resident before the pipeline {rss_before:,.0f} MB, peak during it {peak_mb:,.0f} MB"
        + ("" if reset else " (peak since process start)")
    )

    sample = raw[raw["attempt_id"] < sample_attempts]
    start = time.perf_counter()
    clean_reference(sample, config)
    reference_s = time.perf_counter() - start

    return Figures(
        events=len(raw),
        attempts=attempts,
        events_per_s=len(raw) / pipeline_s,
        reference_events_per_s=len(sample) / reference_s,
        floor_s=floor_s,
        pipeline_s=pipeline_s,
        pipeline_cpu_s=pipeline_cpu_s,
        ratio_to_floor=pipeline_s / floor_s,
        peak_mb=peak_mb,
        clean_steps=len(cleaned),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=5_000_000)
    parser.add_argument("--attempts", type=int, default=5_000)
    parser.add_argument(
        "--sample-attempts",
        type=int,
        default=50,
        help="attempts the reference loop cleans (it is timed, then scaled)",
    )
    parser.add_argument(
        "--shuffle",
        action="store_true",
        help="shuffle the rows first (default: stored order, attempt then seq)",
    )
    args = parser.parse_args()
    f = run(args.events, args.attempts, args.sample_attempts, args.shuffle)
    print(
        f"pipeline   {f.pipeline_s:8.2f} s  {f.events_per_s:12,.0f} events/s  "
        f"({f.clean_steps:,} clean steps, {f.clean_steps / f.events:.1%} of raw)"
    )
    print(
        f"pipeline CPU time {f.pipeline_cpu_s:.2f} s (wall time above includes waiting for "
        f"a core on a shared machine; {os.getloadavg()[0]:.1f} load average now)"
    )
    print(
        f"reference             {f.reference_events_per_s:12,.0f} events/s  "
        f"(pipeline is {f.events_per_s / f.reference_events_per_s:,.0f}x faster)"
    )
    print(f"floor      {f.floor_s:8.2f} s  (sort + groupby count); pipeline / floor {f.ratio_to_floor:.2f}")
    print(f"peak memory {f.peak_mb:,.0f} MB")
    print(
        json.dumps(
            {
                "events": f.events,
                "events_per_s": round(f.events_per_s),
                "reference_events_per_s": round(f.reference_events_per_s),
                "floor_s": round(f.floor_s, 3),
                "pipeline_s": round(f.pipeline_s, 3),
                "ratio_to_floor": round(f.ratio_to_floor, 2),
                "peak_mb": round(f.peak_mb, 1),
                "pipeline_cpu_s": round(f.pipeline_cpu_s, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
