"""Bootstrap intervals: seeded, paired, and close to the textbook interval on a large sample."""

from __future__ import annotations

import numpy as np
import pytest

from humantrace.exports.stats import paired_difference, stratified_weighted_mean


def _sample():
    rng = np.random.default_rng(123)
    a = rng.normal(10.0, 2.0, size=400)
    return a, a - rng.normal(1.0, 1.0, size=400)  # paired: b = a - d, d ~ N(1, 1)


def test_same_seed_and_key_repeat_other_seeds_differ():
    a, b = _sample()
    first = paired_difference(a, b, seed=0, key="x")
    assert paired_difference(a, b, seed=0, key="x") == first
    assert paired_difference(a, b, seed=1, key="x") != first
    assert paired_difference(a, b, seed=0, key="y") != first


def test_paired_interval_matches_the_normal_approximation():
    a, b = _sample()
    d = a - b
    est = paired_difference(a, b, n_boot=4000, seed=0, key="normal")
    half = 1.96 * d.std(ddof=1) / np.sqrt(len(d))  # about 0.098
    assert est.estimate == pytest.approx(d.mean())
    assert est.ci_low == pytest.approx(d.mean() - half, abs=0.02)
    assert est.ci_high == pytest.approx(d.mean() + half, abs=0.02)
    # pairing matters: a and b vary a lot (sd 2) but their difference does not (sd 1)
    assert est.ci_high - est.ci_low < 0.3


def test_missing_pairs_are_dropped_and_empty_input_is_nan():
    est = paired_difference([1.0, np.nan, 1.0], [0.0, 0.0, np.nan], seed=0)
    assert (est.estimate, est.ci_low, est.ci_high, est.n) == (1.0, 1.0, 1.0, 1)
    assert np.isnan(paired_difference([], []).estimate)


def test_stratified_weighted_mean_is_post_stratified():
    # cells (N_full, per-task values): (10, [1]), (30, [0, 1]) -> (10 * 1 + 30 * 0.5) / 40 = 0.625
    est = stratified_weighted_mean([(10, np.array([1.0])), (30, np.array([0.0, 1.0]))], seed=0, key="k")
    assert est.estimate == pytest.approx(0.625)
    # resampled mail cell mean is 0, 0.5 or 1 -> (10 + 30 m) / 40 in {0.25, 0.625, 1.0}
    assert (est.ci_low, est.ci_high) == (pytest.approx(0.25), pytest.approx(1.0))
