"""Time away from the website in the human bundle: which attempts the report names.

Every time in the report is the attempt's wall clock (`wall_clock_s`, as the paper defines it:
first recorded event after the website started, to Evaluate, Abandon or the time-out), with the
time away from the website included. Beside it each attempt carries `away_s`, the part of that
wall clock with no website tab present or visible (docs/study.md). An attempt whose `away_s` is
large says its wall clock measures more than work on the task; the report names such attempts
so that a reader can check or exclude them before citing a time.
"""

from __future__ import annotations

import pandas as pd

# An attempt is named when it was away for more than AWAY_WARN_SHARE of its wall clock AND for
# more than AWAY_WARN_SECONDS: both, so that neither a short attempt's few seconds in the control
# tab nor a long attempt's minute of interruption alone raises it.
AWAY_WARN_SHARE = 0.10
AWAY_WARN_SECONDS = 30.0
AWAY_WARN_LISTED = 20  # the warning lists this many attempts, then says how many more there are

CLOCK_STATEMENT = (
    "Every human time in this report (time columns and time changes of the panel summary, time ratios, the "
    "human-time and task-time figures, times in the duplicate audit) is the wall clock of an attempt, "
    "wall_clock_s: "
    "from its first recorded event after the website started to Evaluate, Abandon or the time-out, as "
    "the paper defines it. Time with no website tab present or visible (away_s) is included, not "
    f"subtracted; attempts away for more than {AWAY_WARN_SHARE:.0%} of their wall clock and more than "
    f"{AWAY_WARN_SECONDS:.0f} s are named in the warnings."
)


def large_away(attempts: pd.DataFrame) -> pd.DataFrame:
    """The attempts whose away_s passes both thresholds (none when the bundle predates away_s)."""
    if "away_s" not in attempts.columns or attempts.empty:
        return attempts.iloc[0:0]
    away = pd.to_numeric(attempts["away_s"], errors="coerce")
    wall = pd.to_numeric(attempts["wall_clock_s"], errors="coerce")
    flagged = away.notna() & (away > AWAY_WARN_SECONDS) & (away > AWAY_WARN_SHARE * wall)
    return attempts[flagged.fillna(False)].sort_values("attempt_id")


def away_warnings(attempts: pd.DataFrame) -> list[str]:
    """One warning naming every analysed attempt with a large away_s (coded annotator, attempt id)."""
    flagged = large_away(attempts)
    if flagged.empty:
        return []
    head = flagged.head(AWAY_WARN_LISTED)
    named = [
        f"{annotator} attempt {int(attempt_id)} ({float(away_s):.0f} s of {float(wall):.0f} s)"
        for annotator, attempt_id, away_s, wall in zip(
            head["annotator"].tolist(),
            head["attempt_id"].tolist(),
            head["away_s"].tolist(),
            head["wall_clock_s"].tolist(),
            strict=True,
        )
    ]
    more = len(flagged) - len(named)
    return [
        f"{len(flagged)} attempt(s) were away from the website for more than {AWAY_WARN_SHARE:.0%} of "
        f"their wall clock and more than {AWAY_WARN_SECONDS:.0f} s (away_s; their times include it): "
        + ", ".join(named)
        + (f", and {more} more" if more > 0 else "")
    ]
