"""The failure-mode features of BreakingWeb Appendix I.1, computed from a bundle's own tables.

One extractor serves human attempts and agent episodes alike (the agent runner in `agentruns`
calls `extract_features` on the tables it writes), so the Appendix I classifier
(`exports.failure_modes.classify_failures`) never runs on hand-supplied features.

Input tables (pandas DataFrames; extra columns are ignored):

- ``episodes`` (required): one row per attempt/episode. ``attempt_id`` (the key), and any of
  ``terminal_verb`` (an agent's final action verb, e.g. ``finish`` or ``click('a51')``),
  ``outcome`` (a human attempt's end: evaluated, abandoned, timed_out; used when there is no
  terminal verb), ``final_thought`` (the agent's final reasoning/message), ``steps``.
- ``actions`` (optional, agents): one row per action, ``attempt_id, step, verb, target`` and
  ``error`` (the action result's message, null when it succeeded).
- ``events_clean`` (optional): the cleaned trace, ``attempt_id, step, type, xpath``. Used for the
  repeat-action signature of an episode that has no ``actions`` rows.
- ``backend_audit`` (optional): ``attempt_id, status``. Counts failed actions of an episode that
  has no ``actions`` rows (a person's failed action shows as a 4xx/5xx answer).
- ``verdicts`` (optional): ``attempt_id, polarity, passed`` (the canonical-diff checks).
"""

from __future__ import annotations

import re

import pandas as pd

from humantrace.exports.failure_modes import FEATURE_COLUMNS

# Appendix I.1: an action result whose message reports a failed action.
ACTION_ERROR_PATTERN = re.compile(
    r"doesn't exist|doesn’t exist|couldn't|couldn’t|could not|failed", re.IGNORECASE
)
# A person's completion action is the Evaluate button; Abandon and the time limit are not.
HUMAN_TERMINAL_VERBS = {"evaluated": "evaluate", "abandoned": "abandon", "timed_out": "time_out"}
BACKEND_ERROR_STATUS = 400
OUTPUT_COLUMNS = ("attempt_id", *FEATURE_COLUMNS, "steps", "backend_error_count")


def _longest_run(signatures: pd.Series) -> int:
    """Length of the longest run of equal consecutive values (0 for an empty series)."""
    if signatures.empty:
        return 0
    changed = signatures.ne(signatures.shift())
    return int(changed.cumsum().value_counts().max())


def _signatures(frame: pd.DataFrame, verb: str, target: str) -> pd.DataFrame:
    """attempt_id and verb|target per step, in step order (a fill signs without its value)."""
    ordered = frame.sort_values(["attempt_id", "step"], kind="stable")
    sig = (
        ordered[verb].astype(str).str.split("(").str[0].str.strip()
        + "|"
        + ordered[target].fillna("").astype(str)
    )
    return pd.DataFrame({"attempt_id": ordered["attempt_id"].to_numpy(), "signature": sig.to_numpy()})


def _per_attempt(values: pd.Series, ids: pd.Index, default: object) -> pd.Series:
    return values.reindex(ids).astype(object).where(lambda s: s.notna(), default)


def _ids(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with plain int64 attempt ids (bundles read them as nullable Int64)."""
    return frame.assign(attempt_id=frame["attempt_id"].astype("int64"))


def extract_features(
    episodes: pd.DataFrame,
    *,
    actions: pd.DataFrame | None = None,
    events_clean: pd.DataFrame | None = None,
    backend_audit: pd.DataFrame | None = None,
    verdicts: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per episode: ``attempt_id``, the Appendix I features and ``steps``, ``backend_error_count``.

    - ``terminal_verb``: the episode's own, else the human outcome's verb (evaluate, abandon, time_out).
    - ``max_repeat_run``: longest run of consecutive steps with the same verb|target signature, from
      ``actions`` when the episode has any, else from the cleaned trace (type|xpath).
    - ``action_error_count``: action results reporting a failure ("doesn't exist", "couldn't",
      "could not", "failed"); for an episode without ``actions`` rows, its backend calls answered
      with status >= 400.
    - ``failed_positive_checks`` / ``failed_negative_checks``: failed canonical-diff checks of each
      polarity (0 when the episode has verdict rows and none failed; null without verdict rows).
    - ``final_thought``: passed through (null for people).
    - ``steps``: the episode's own, else its actions, else its cleaned steps.
    """
    if "attempt_id" not in episodes.columns:
        raise ValueError("episodes needs an attempt_id column")
    episodes = _ids(episodes)
    actions, events_clean, backend_audit, verdicts = (
        None if t is None or t.empty else _ids(t) for t in (actions, events_clean, backend_audit, verdicts)
    )
    ids = pd.Index(episodes["attempt_id"].tolist(), name="attempt_id")
    if ids.has_duplicates:
        raise ValueError("episodes has duplicate attempt_id values")
    ep = episodes.drop(columns=["attempt_id"]).set_axis(ids)
    out = pd.DataFrame(index=ids)

    verb = ep["terminal_verb"] if "terminal_verb" in ep else pd.Series(None, index=ids, dtype=object)
    if "outcome" in ep:
        verb = verb.astype(object).where(verb.notna(), ep["outcome"].map(HUMAN_TERMINAL_VERBS))
    out["terminal_verb"] = verb.astype(object).where(verb.notna(), None)

    acted = pd.Index([])
    repeat = pd.Series(dtype=float)
    errors = pd.Series(dtype=float)
    steps_from = pd.Series(dtype=float)
    if actions is not None and not actions.empty:
        sig = _signatures(actions, "verb", "target")
        repeat = sig.groupby("attempt_id")["signature"].apply(_longest_run)
        failed = (
            actions["error"].fillna("").astype(str).str.contains(ACTION_ERROR_PATTERN)
            if "error" in actions
            else False
        )
        errors = pd.Series(failed, index=actions.index).groupby(actions["attempt_id"]).sum()
        steps_from = actions.groupby("attempt_id").size()
        acted = pd.Index(repeat.index)
    if events_clean is not None and not events_clean.empty:
        trace = events_clean[~events_clean["attempt_id"].isin(acted)]
        if not trace.empty:
            sig = _signatures(trace, "type", "xpath")
            repeat = pd.concat([repeat, sig.groupby("attempt_id")["signature"].apply(_longest_run)])
            steps_from = pd.concat([steps_from, trace.groupby("attempt_id").size()])
    backend_errors = pd.Series(dtype=float)
    if backend_audit is not None and not backend_audit.empty:
        status = pd.to_numeric(backend_audit["status"], errors="coerce")
        backend_errors = (status >= BACKEND_ERROR_STATUS).groupby(backend_audit["attempt_id"]).sum()
    out["max_repeat_run"] = _per_attempt(repeat, ids, 0).astype(int)
    from_audit = _per_attempt(backend_errors, ids, 0).astype(int)
    out["action_error_count"] = [int(errors[i]) if i in acted else int(from_audit[i]) for i in ids]
    out["backend_error_count"] = from_audit

    failed_pos = failed_neg = pd.Series(dtype=float)
    checked = pd.Index([])
    if verdicts is not None and not verdicts.empty:
        bad = ~verdicts["passed"].astype(bool)
        failed_pos = (bad & (verdicts["polarity"] == "positive")).groupby(verdicts["attempt_id"]).sum()
        failed_neg = (bad & (verdicts["polarity"] == "negative")).groupby(verdicts["attempt_id"]).sum()
        checked = pd.Index(verdicts["attempt_id"].unique())
    out["failed_positive_checks"] = [int(failed_pos[i]) if i in checked else None for i in ids]
    out["failed_negative_checks"] = [int(failed_neg[i]) if i in checked else None for i in ids]
    out["final_thought"] = (
        ep["final_thought"].astype(object).where(ep["final_thought"].notna(), None)
        if "final_thought" in ep
        else None
    )
    given = (
        pd.to_numeric(ep["steps"], errors="coerce") if "steps" in ep else pd.Series(float("nan"), index=ids)
    )
    out["steps"] = given.where(given.notna(), steps_from.reindex(ids)).fillna(0).astype(int)
    return out.reset_index()[list(OUTPUT_COLUMNS)]
