"""The failure-mode features of BreakingWeb Appendix I.1, computed from an agent bundle's tables.

A small extractor for the agent runner (`agentruns`), with the interface of the shared extractor
that the comparison work adds in this same module (`extract_features(episodes, actions=...,
verdicts=...)`), so that one replaces this one without a change to its callers.

- ``terminal_verb``: the verb of the episode's last action.
- ``max_repeat_run``: longest run of consecutive actions with the same verb and target.
- ``action_error_count``: actions whose result reported a failure ("doesn't exist", "couldn't",
  "could not", "failed", a timeout).
- ``failed_positive_checks`` / ``failed_negative_checks``: failed canonical-diff checks of each
  polarity (null without verdict rows).
- ``final_thought``: passed through from ``episodes``.
"""

from __future__ import annotations

import re

import pandas as pd

from exports.failure_modes import FEATURE_COLUMNS

ACTION_ERROR_PATTERN = re.compile(r"doesn't exist|doesn’t exist|couldn't|couldn’t|could not|failed|timeout", re.IGNORECASE)
OUTPUT_COLUMNS = ("attempt_id", *FEATURE_COLUMNS, "steps")


def _longest_run(values: list[str]) -> int:
    best = run = 0
    previous = None
    for value in values:
        run = run + 1 if value == previous else 1
        best = max(best, run)
        previous = value
    return best


def extract_features(
    episodes: pd.DataFrame,
    *,
    actions: pd.DataFrame | None = None,
    verdicts: pd.DataFrame | None = None,
    **_other_tables: pd.DataFrame | None,
) -> pd.DataFrame:
    """One row per episode (``attempt_id``): the Appendix I features and ``steps``."""
    rows = []
    for episode in episodes.to_dict(orient="records"):
        attempt_id = int(episode["attempt_id"])
        mine = actions[actions["attempt_id"] == attempt_id].sort_values("step") if actions is not None and not actions.empty else None
        verbs = [] if mine is None else mine["verb"].fillna("").astype(str).tolist()
        signatures = [] if mine is None else (mine["verb"].fillna("").astype(str) + "|" + mine["target"].fillna("").astype(str)).tolist()
        errors = 0 if mine is None or "error" not in mine else int(mine["error"].fillna("").astype(str).str.contains(ACTION_ERROR_PATTERN).sum())
        checks = verdicts[verdicts["attempt_id"] == attempt_id] if verdicts is not None and not verdicts.empty else None
        failed = None if checks is None or checks.empty else checks[~checks["passed"].astype(bool)]
        rows.append({
            "attempt_id": attempt_id,
            "terminal_verb": verbs[-1] if verbs else episode.get("terminal_verb"),
            "max_repeat_run": _longest_run(signatures),
            "action_error_count": errors,
            "failed_positive_checks": None if failed is None else int((failed["polarity"] == "positive").sum()),
            "failed_negative_checks": None if failed is None else int((failed["polarity"] == "negative").sum()),
            "final_thought": episode.get("final_thought"),
            "steps": int(episode["steps"]) if episode.get("steps") is not None else len(verbs),
        })
    return pd.DataFrame(rows, columns=list(OUTPUT_COLUMNS))
