"""The failure-mode taxonomy of BreakingWeb Appendix I for agent runs, and its human counterpart.

Agent rules, first match wins (our reading of Appendix I.2, see docs/exports.md):
  1. misleading_success_taken  done verb, a failed positive check, a success keyword in the final thought
  2. premature_done            done verb, a failed positive check
  3. retry_loop                no done verb, longest repeat-action run >= REPEAT_THRESHOLD
  4. plan_collapse             no done verb, at most 5 steps
  5. abandoned_run             no done verb (fallback; excluded from the mode shares)
  6. silent_overreach          no failed positive check, a failed negative check
  7. selector_hallucination    at least 3 action errors
A failed run that no rule matches is `unclassified`; passed runs and runs without the features
get no label (None).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

# "evaluate" is a person's completion action (the Evaluate button; see exports.features).
DONE_VERBS = frozenset({"finish", "done", "send_msg_to_user", "complete", "submit", "evaluate"})
# Words by which a final thought claims that an effect happened (not merely that the agent stopped):
# "I have submitted the form" is misleading_success_taken, "I have finished this task" is not.
SUCCESS_KEYWORDS = (
    "success",
    "successful",
    "successfully",
    "succeeded",
    "submitted",
    "placed",
    "confirmed",
    "saved",
    "sent",
    "added",
    "created",
    "updated",
    "deleted",
    "removed",
    "booked",
    "scheduled",
    "posted",
)
REPEAT_THRESHOLD = (
    5  # the paper gives none; its examples put it in 4..7 (3 repeats: plan_collapse, 7: retry_loop)
)
PLAN_COLLAPSE_MAX_STEPS = 5
SELECTOR_ERRORS = 3

AGENT_MODES = (
    "misleading_success_taken",
    "premature_done",
    "retry_loop",
    "plan_collapse",
    "abandoned_run",
    "silent_overreach",
    "selector_hallucination",
)
MODE_CLASS = {
    "misleading_success_taken": "belief",
    "premature_done": "belief",
    "retry_loop": "action",
    "plan_collapse": "action",
    "selector_hallucination": "action",
    "silent_overreach": "overreach",
    "abandoned_run": "abandoned_run",
    "unclassified": "unclassified",
}
FEATURE_COLUMNS = (
    "terminal_verb",
    "max_repeat_run",
    "action_error_count",
    "failed_positive_checks",
    "failed_negative_checks",
    "final_thought",
)
_KEYWORD_RE = r"\b(?:" + "|".join(SUCCESS_KEYWORDS) + r")\b"


def _column(runs: pd.DataFrame, name: str) -> pd.Series:
    if name in runs.columns:
        return runs[name]
    return pd.Series([None] * len(runs), index=runs.index, dtype=object)


def _count(series: pd.Series) -> pd.Series:
    return pd.to_numeric(
        series.astype(object).map(lambda v: float(v) if isinstance(v, bool) else v), errors="coerce"
    )


def run_failed(runs: pd.DataFrame) -> pd.Series:
    """Boolean Series: the run did not pass (`passed` when given, else score < 1)."""
    if "passed" in runs.columns and runs["passed"].notna().all():
        return ~runs["passed"].astype(bool)
    return ~(pd.to_numeric(runs["score"], errors="coerce") >= 1.0 - 1e-9)


def classify_failures(runs: pd.DataFrame, *, repeat_threshold: int = REPEAT_THRESHOLD) -> pd.Series:
    """One failure mode per run (None for passed runs and runs without features), vectorised."""
    if runs.empty:
        return pd.Series([], index=runs.index, dtype=object)
    verb = _column(runs, "terminal_verb")
    pos_raw, neg_raw = _column(runs, "failed_positive_checks"), _column(runs, "failed_negative_checks")
    has_features = (verb.notna() & pos_raw.notna() & neg_raw.notna()).to_numpy()
    verb = verb.fillna("").astype(str).str.lower().str.split("(").str[0].str.strip()
    done = verb.isin(DONE_VERBS).to_numpy()
    pos = (_count(pos_raw).fillna(0) > 0).to_numpy()
    neg = (_count(neg_raw).fillna(0) > 0).to_numpy()
    repeat = _count(_column(runs, "max_repeat_run")).fillna(0).to_numpy()
    errors = _count(_column(runs, "action_error_count")).fillna(0).to_numpy()
    steps = _count(_column(runs, "steps")).to_numpy()
    thought = _column(runs, "final_thought").fillna("").astype(str)
    keyword = thought.str.contains(_KEYWORD_RE, case=False, regex=True).to_numpy()
    rules = [
        ("misleading_success_taken", done & pos & keyword),
        ("premature_done", done & pos),
        ("retry_loop", ~done & (repeat >= repeat_threshold)),
        ("plan_collapse", ~done & (steps <= PLAN_COLLAPSE_MAX_STEPS)),
        ("abandoned_run", ~done),
        ("silent_overreach", ~pos & neg),
        ("selector_hallucination", errors >= SELECTOR_ERRORS),
    ]
    labels = np.select([mask for _, mask in rules], [name for name, _ in rules], default="unclassified")
    labelled = run_failed(runs).to_numpy() & has_features
    none = np.array(None, dtype=object)
    return pd.Series(np.where(labelled, labels.astype(object), none), index=runs.index, dtype="object")


def classify_failure(run: Mapping[str, object], *, repeat_threshold: int = REPEAT_THRESHOLD) -> str | None:
    """The failure mode of one agent run (a mapping with the agent-bundle columns), or None."""
    mode = classify_failures(pd.DataFrame([dict(run)]), repeat_threshold=repeat_threshold).iloc[0]
    return None if mode is None else str(mode)


HUMAN_ENDINGS = (
    "evaluated_obligation_failed",
    "evaluated_invariant_broken",
    "abandoned",
    "timed_out",
    "evaluated_unexplained",
)
"""How a failed human attempt ended, by its `outcome` and verdict rows. This is **not** the
Appendix I taxonomy (which `classify_failures` applies to people and agents alike, on the
features of `exports.features`); it is a description of endings, kept apart under its own name."""


def classify_human_endings(attempts: pd.DataFrame, verdicts: pd.DataFrame | None) -> pd.Series:
    """How each failed attempt ended (None for passed ones).

    Evaluate with a failed obligation (positive check) = evaluated_obligation_failed; Evaluate
    with every obligation met but a failed negative check = evaluated_invariant_broken; Abandon =
    abandoned; the time limit = timed_out; an evaluated failure whose verdict rows are absent =
    evaluated_unexplained.
    """
    failed_pos: set[object] = set()
    failed_neg: set[object] = set()
    if verdicts is not None and not verdicts.empty:
        bad = verdicts[~verdicts["passed"].astype(bool)]
        failed_pos = set(bad.loc[bad["polarity"] == "positive", "attempt_id"].tolist())
        failed_neg = set(bad.loc[bad["polarity"] == "negative", "attempt_id"].tolist())

    def label(row: pd.Series) -> str | None:
        if bool(row["passed"]):
            return None
        if row["outcome"] == "abandoned":
            return "abandoned"
        if row["outcome"] == "timed_out":
            return "timed_out"
        if row["attempt_id"] in failed_pos:
            return "evaluated_obligation_failed"
        if row["attempt_id"] in failed_neg:
            return "evaluated_invariant_broken"
        return "evaluated_unexplained"

    if attempts.empty:
        return pd.Series([], index=attempts.index, dtype=object)
    return pd.Series([label(row) for _, row in attempts.iterrows()], index=attempts.index, dtype="object")
