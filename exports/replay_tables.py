"""The replay measure: the share of passed human attempts whose cleaned trace, replayed by XPath in
a fresh session at the same seed, reproduces a passing final state (per task and per site).

It reads the replay agent's episodes from agent bundles (`humantrace agents run --agent replay`);
failed replays are counted by their explanation (see `agentruns.replay`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from humantrace.exports.agent_bundle import is_agent_bundle, read_agent_bundle

FAILURES = (
    "xpath_unresolved",
    "element_not_visible",
    "masked_value",
    "unreplayable_event",
    "state_differs",
)
COLUMNS = ("level", "env_id", "task_id", "replays", "reproduced", "share", *FAILURES)


def replay_episodes(paths: Iterable[str | Path]) -> pd.DataFrame:
    """The replay episodes (those with a replayed human attempt) of every agent bundle directory."""
    frames = []
    for path in paths:
        if is_agent_bundle(path):
            episodes = read_agent_bundle(path, tables=["episodes"])["episodes"]
            frames.append(episodes[episodes["replayed_attempt_id"].notna()])
    return (
        pd.concat(frames, ignore_index=True)
        if frames
        else pd.DataFrame(columns=["env_id", "task_id", "passed", "replay_failure"])
    )


def replay_reproduce(paths: Iterable[str | Path]) -> pd.DataFrame:
    """One row per task and one per site: replays, reproduced passes, their share, failures by cause."""
    episodes = replay_episodes(paths)
    if episodes.empty:
        return pd.DataFrame(columns=list(COLUMNS))
    episodes = episodes.assign(passed=episodes["passed"].astype(bool))
    rows = []
    for level, keys in (("task", ["env_id", "task_id"]), ("site", ["env_id"])):
        for key, group in episodes.groupby(keys, sort=True):
            key = key if isinstance(key, tuple) else (key,)
            failures = group.loc[~group["passed"], "replay_failure"].value_counts()
            rows.append(
                {
                    "level": level,
                    "env_id": key[0],
                    "task_id": key[1] if level == "task" else None,
                    "replays": len(group),
                    "reproduced": int(group["passed"].sum()),
                    "share": float(group["passed"].mean()),
                    **{name: int(failures.get(name, 0)) for name in FAILURES},
                }
            )
    return pd.DataFrame(rows, columns=list(COLUMNS))
