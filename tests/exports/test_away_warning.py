"""The report names attempts that were away from the website for long, and says which clock it uses."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from humantrace.exports.away import (
    AWAY_WARN_SECONDS,
    AWAY_WARN_SHARE,
    CLOCK_STATEMENT,
    away_warnings,
    large_away,
)
from humantrace.exports.bundle import BundleWriter
from tests.exports.conftest import attempt_rows


def _rows(away: dict[int, float | None]) -> pd.DataFrame:
    frame = pd.DataFrame(
        [
            {"attempt_id": i, "annotator": f"A{i}", "wall_clock_s": wall}
            for i, wall in enumerate((400, 400, 200, 100, 50), 1)
        ]
    )
    values = [away.get(int(i)) for i in frame["attempt_id"]]
    return frame.assign(away_s=pd.Series(values, index=frame.index, dtype="float64"))


def test_both_thresholds_must_be_passed():
    assert (AWAY_WARN_SHARE, AWAY_WARN_SECONDS) == (0.10, 30.0)
    # 1: 45 s of 400 s (over 30 s, over 10 %: named); 2: 35 s of 400 s (8.75 %: not);
    # 3: 30 s of 200 s (exactly 30 s: not); 4: 31 s of 100 s (named); 5: 29 s of 50 s (58 %, under 30 s: not).
    frame = _rows({1: 45.0, 2: 35.0, 3: 30.0, 4: 31.0, 5: 29.0})
    assert large_away(frame)["attempt_id"].tolist() == [1, 4]
    (warning,) = away_warnings(frame)
    assert warning.startswith("2 attempt(s) were away from the website")
    assert warning.endswith("A1 attempt 1 (45 s of 400 s), A4 attempt 4 (31 s of 100 s)")


def test_a_bundle_without_away_s_warns_of_nothing():
    assert away_warnings(_rows({})) == []
    assert away_warnings(_rows({}).drop(columns=["away_s"])) == []


def test_the_report_names_the_attempts_and_states_its_clock(tmp_path: Path):
    from humantrace.exports.compare import compare

    rows = attempt_rows()
    for row in rows:
        row["away_s"] = 1.0
    rows[2]["away_s"] = 40.0  # attempt 3: A2, T1 intervention cold, 50 s wall clock: named
    rows[-1]["away_s"] = 400.0  # the rolled-back attempt: excluded from analyses, not named
    bundle = tmp_path / "bundle"
    with BundleWriter(bundle, formats=("parquet",)) as writer:
        writer.append("attempts", pd.DataFrame(rows))
        writer.close()
    result = compare(bundle, [], tmp_path / "out", bootstrap=50, seed=0)
    named = [w for w in result.warnings if "away from the website" in w]
    assert named == [
        "1 attempt(s) were away from the website for more than 10% of their wall clock and more than "
        "30 s (away_s; their times include it): A2 attempt 3 (40 s of 50 s)"
    ]
    html = result.report_path.read_text()
    assert named[0] in html and CLOCK_STATEMENT in html
    assert "wall_clock_s" in CLOCK_STATEMENT and "away_s" in CLOCK_STATEMENT
