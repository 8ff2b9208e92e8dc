"""Paired differences with percentile bootstrap confidence intervals over base tasks.

Every interval is seeded: the generator for one estimate is built from the study seed and a
stable key naming the estimate, so adding a table never changes another table's interval.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

STATISTICS: dict[str, Callable[..., Any]] = {"mean": np.mean, "median": np.median}
CI_LEVEL = 0.95


@dataclass(frozen=True)
class Estimate:
    """A point estimate, its 95% bootstrap interval and the number of units (base tasks)."""

    estimate: float
    ci_low: float
    ci_high: float
    n: int


def rng_for(seed: int, key: str) -> np.random.Generator:
    """A numpy Generator seeded by (seed, key), independent of any other estimate's draws."""
    return np.random.default_rng([seed, zlib.crc32(key.encode("utf-8"))])


def _interval(boots: npt.NDArray[np.float64]) -> tuple[float, float]:
    tail = (1.0 - CI_LEVEL) / 2.0
    low, high = np.quantile(boots, [tail, 1.0 - tail])
    return float(low), float(high)


def paired_difference(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    *,
    statistic: str = "mean",
    n_boot: int = 2000,
    seed: int = 0,
    key: str = "",
) -> Estimate:
    """stat(a) - stat(b) over paired units (a[i] and b[i] belong to the same base task).

    Pairs where either side is NaN are dropped. The interval resamples units with replacement
    (the pair stays together) `n_boot` times and takes the 2.5% and 97.5% percentiles.
    """
    a_all = np.asarray(a, dtype=float)
    b_all = np.asarray(b, dtype=float)
    keep = ~(np.isnan(a_all) | np.isnan(b_all))
    a_kept, b_kept = a_all[keep], b_all[keep]
    n = len(a_kept)
    if n == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    stat = STATISTICS[statistic]
    estimate = float(stat(a_kept) - stat(b_kept))
    if n_boot <= 0:
        return Estimate(estimate, float("nan"), float("nan"), n)
    idx = rng_for(seed, key).integers(0, n, size=(n_boot, n))
    boots = stat(a_kept[idx], axis=1) - stat(b_kept[idx], axis=1)
    low, high = _interval(boots)
    return Estimate(estimate, low, high, n)


def mean_with_ci(values: npt.ArrayLike, *, n_boot: int = 2000, seed: int = 0, key: str = "") -> Estimate:
    """The mean of per-unit values with a percentile bootstrap interval over units."""
    array = np.asarray(values, dtype=float)
    return paired_difference(array, np.zeros_like(array), statistic="mean", n_boot=n_boot, seed=seed, key=key)


def stratified_weighted_mean(
    cells: Sequence[tuple[float, npt.ArrayLike]], *, n_boot: int = 2000, seed: int = 0, key: str = ""
) -> Estimate:
    """Post-stratified mean sum_c N_c * mean(y_c) / sum_c N_c over cells (N_c, per-task values y_c).

    Equivalently each task t in cell c has weight w_c = N_c / k_c (k_c tasks of the cell). The
    interval resamples tasks with replacement within each cell, keeping cell sizes fixed.
    """
    arrays = [(float(n_full), np.asarray(y, dtype=float)) for n_full, y in cells]
    arrays = [(n_full, y[~np.isnan(y)]) for n_full, y in arrays]
    arrays = [(n_full, y) for n_full, y in arrays if len(y) and n_full > 0]
    if not arrays:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    total = sum(n_full for n_full, _ in arrays)
    estimate = sum(n_full * y.mean() for n_full, y in arrays) / total
    n = sum(len(y) for _, y in arrays)
    if n_boot <= 0:
        return Estimate(float(estimate), float("nan"), float("nan"), n)
    rng = rng_for(seed, key)
    boots = np.zeros(n_boot)
    for n_full, y in arrays:
        idx = rng.integers(0, len(y), size=(n_boot, len(y)))
        boots += n_full * y[idx].mean(axis=1)
    low, high = _interval(boots / total)
    return Estimate(float(estimate), low, high, n)


MIN_N_FOR_CI = 5
N_TOO_SMALL = "n too small"


def wilson(successes: int, n: int) -> Estimate:
    """A proportion with its 95% Wilson score interval (scipy's binomtest); NaN when n = 0."""
    from scipy.stats import binomtest

    if n <= 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    ci = binomtest(int(successes), int(n)).proportion_ci(confidence_level=CI_LEVEL, method="wilson")
    return Estimate(successes / n, float(ci.low), float(ci.high), int(n))


def bootstrap(
    values: npt.ArrayLike,
    statistic: Callable[[npt.NDArray[np.float64]], float],
    *,
    n_boot: int = 2000,
    seed: int = 0,
    key: str = "",
    batched: Callable[[npt.NDArray[np.float64]], npt.ArrayLike] | None = None,
) -> Estimate:
    """`statistic(values)` with a percentile bootstrap interval resampling rows of `values`.

    `values` is an (n,) or (n, k) array; `statistic` maps such an array (rows = units) to a float.
    `batched`, when given, computes the statistic of all resamples at once from an
    (n_boot, n[, k]) array (the same numbers, without a Python loop over resamples).
    """
    array = np.asarray(values, dtype=float)
    n = len(array)
    if n == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    estimate = float(statistic(array))
    if n_boot <= 0:
        return Estimate(estimate, float("nan"), float("nan"), n)
    idx = rng_for(seed, key).integers(0, n, size=(n_boot, n))
    if batched is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            boots = np.asarray(batched(array[idx]), dtype=float)
    else:
        boots = np.array([statistic(array[i]) for i in idx], dtype=float)
    boots = boots[np.isfinite(boots)]
    if not len(boots):
        return Estimate(estimate, float("nan"), float("nan"), n)
    low, high = _interval(boots)
    return Estimate(estimate, low, high, n)


def cohen_kappa(pairs: npt.ArrayLike) -> float:
    """Cohen's kappa of two raters' binary labels, an (n, 2) array of 0/1.

    kappa = (p_o - p_e) / (1 - p_e); when both raters give one and the same label throughout
    (p_e = 1) agreement is perfect but kappa is undefined: NaN.
    """
    array = np.asarray(pairs, dtype=float)
    a, b = array[:, 0], array[:, 1]
    p_o = float(np.mean(a == b))
    p_e = float(a.mean() * b.mean() + (1 - a.mean()) * (1 - b.mean()))
    return float("nan") if p_e >= 1.0 - 1e-12 else (p_o - p_e) / (1.0 - p_e)


def icc_a1(pairs: npt.ArrayLike) -> float:
    """ICC(A,1) (Shrout-Fleiss ICC(2,1): two-way random, absolute agreement, single rater) of an
    (n, k) array: n units (task-condition and phase), k raters (primary, duplicate)."""
    y = np.asarray(pairs, dtype=float)
    n, k = y.shape
    if n < 2:
        return float("nan")
    grand = y.mean()
    ss_rows = k * ((y.mean(axis=1) - grand) ** 2).sum()
    ss_cols = n * ((y.mean(axis=0) - grand) ** 2).sum()
    ss_err = ((y - grand) ** 2).sum() - ss_rows - ss_cols
    ms_r, ms_c, ms_e = ss_rows / (n - 1), ss_cols / (k - 1), ss_err / ((n - 1) * (k - 1))
    denominator = ms_r + (k - 1) * ms_e + k * (ms_c - ms_e) / n
    return float("nan") if denominator == 0 else float((ms_r - ms_e) / denominator)


def ci_fields(est: Estimate, prefix: str = "") -> dict[str, float | int | str]:
    """The CSV fields of an estimate: value, interval (blank when n < MIN_N_FOR_CI), n and a note."""
    small = est.n < MIN_N_FOR_CI
    return {
        f"{prefix}estimate" if prefix else "estimate": est.estimate,
        f"{prefix}ci_low": float("nan") if small else est.ci_low,
        f"{prefix}ci_high": float("nan") if small else est.ci_high,
        f"{prefix}n": est.n,
        f"{prefix}ci_note": N_TOO_SMALL if small else "",
    }


def too_few(n: object) -> bool:
    """Whether an estimate over `n` units is under the minimum n for an interval (NaN n: too few)."""
    try:
        value = float(n)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return True
    return not value >= MIN_N_FOR_CI


def ratio_over_units(
    numerators: npt.ArrayLike,
    denominators: npt.ArrayLike,
    *,
    n_boot: int = 2000,
    seed: int = 0,
    key: str = "",
) -> Estimate:
    """sum(numerators) / sum(denominators) with a percentile bootstrap interval over units.

    One unit per position (a base task: its passed attempts over its attempts), so a rate over
    attempt rows is resampled by base task, the unit the attempts of a task share. n = units.
    """
    pairs = np.column_stack([np.asarray(numerators, dtype=float), np.asarray(denominators, dtype=float)])
    pairs = pairs[~np.isnan(pairs).any(axis=1)]

    def ratio(v: npt.NDArray[np.float64]) -> float:
        total = v[:, 1].sum()
        return float(v[:, 0].sum() / total) if total > 0 else float("nan")

    def batched(b: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        result: npt.NDArray[np.float64] = b[:, :, 0].sum(axis=1) / b[:, :, 1].sum(axis=1)
        return result

    return bootstrap(pairs, ratio, n_boot=n_boot, seed=seed, key=key, batched=batched)


def cluster_bootstrap(
    values: npt.ArrayLike,
    clusters: Sequence[object],
    statistic: Callable[[npt.NDArray[np.float64]], float],
    *,
    n_boot: int = 2000,
    seed: int = 0,
    key: str = "",
) -> Estimate:
    """`statistic(values)` with a percentile bootstrap that resamples whole clusters.

    `values` has one row per observation and `clusters[i]` names the unit row i belongs to (the
    duplicate audit's task-condition: both its phases come from the same two annotators, so they
    are resampled together). n = the number of clusters.
    """
    array = np.asarray(values, dtype=float)
    codes, uniques = _factorize(clusters)
    n = len(uniques)
    if n == 0 or len(array) == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), n)
    estimate = float(statistic(array))
    if n_boot <= 0:
        return Estimate(estimate, float("nan"), float("nan"), n)
    members = [np.flatnonzero(codes == c) for c in range(n)]
    draws = rng_for(seed, key).integers(0, n, size=(n_boot, n))
    boots = np.empty(n_boot)
    with np.errstate(divide="ignore", invalid="ignore"):
        for b, drawn in enumerate(draws):
            boots[b] = statistic(array[np.concatenate([members[c] for c in drawn])])
    boots = boots[np.isfinite(boots)]
    if not len(boots):
        return Estimate(estimate, float("nan"), float("nan"), n)
    low, high = _interval(boots)
    return Estimate(estimate, low, high, n)


def _factorize(labels: Sequence[object]) -> tuple[npt.NDArray[np.int64], list[object]]:
    index: dict[object, int] = {}
    codes = np.array([index.setdefault(label, len(index)) for label in labels], dtype=np.int64)
    return codes, list(index)
