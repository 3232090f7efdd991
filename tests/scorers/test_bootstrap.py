"""`scorers.bootstrap`: the one resampler behind paired tests, judge-noise intervals and
calibration intervals."""

from __future__ import annotations

import numpy as np
import pytest

from scorers import bootstrap


def test_each_resample_is_the_next_n_indices_of_the_stream_whatever_the_blocks() -> None:
    values = np.arange(7, dtype=np.float64) ** 2
    rng = np.random.default_rng(5)
    naive = [values[rng.integers(0, 7, 7)].mean() for _ in range(300)]
    for cells in (7, 50, 10_000):
        got = bootstrap(lambda v: v.mean(axis=1), values, resamples=300, seed=5, cells=cells)
        assert got.tolist() == naive


def test_rows_stay_aligned_across_arrays_and_dict_statistics_are_joined() -> None:
    x = np.array([1.0, 2.0, 3.0, 4.0])
    pairs = np.stack([x, 10 * x], axis=1)  # a row's width is counted in the blocks
    found = bootstrap(
        lambda a, b: {"same": (a * 10 == b[..., 1]).all(axis=1), "mean": a.mean(axis=1)},
        x,
        pairs,
        resamples=1000,
        cells=64,
    )
    assert found["same"].all() and len(found["mean"]) == 1000
    assert 1.0 <= found["mean"].min() and found["mean"].max() <= 4.0


def test_no_rows_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least one row"):
        bootstrap(lambda v: v.mean(axis=1), np.array([]), resamples=10)


def test_one_interval_rule_everywhere() -> None:
    """Every bootstrap interval of scorekit is `bootstrap_interval` over `bootstrap`'s
    draws: the agreement κ and accuracy intervals (once drawn apart, with
    interpolated percentiles) equal it, and no module computes percentiles or resamples
    rows of its own."""
    from pathlib import Path

    from evals._calibration import _metric_arrays, agreement
    from scorers import bootstrap_interval

    rng = np.random.default_rng(3)
    labels, predicted = rng.random(40) < 0.5, rng.random(40) < 0.6
    _, ci, _ = agreement(labels.tolist(), predicted.tolist(), resamples=500, seed=2)
    draws = bootstrap(_metric_arrays, labels, predicted, resamples=500, seed=2)
    for name in ("kappa", "accuracy"):
        assert tuple(ci[name]) == bootstrap_interval(draws[name])
    assert bootstrap_interval(np.arange(1.0, 41.0)) == (1.0, 40.0)  # ceil(0.025 * 40) = 1
    assert bootstrap_interval(np.arange(1.0, 201.0)) == (5.0, 196.0)
    assert bootstrap_interval(np.array([np.nan])) is None
    root = Path(__file__).resolve().parents[2]
    for path in [*root.glob("scorers/**/*.py"), *root.glob("evals/**/*.py")]:
        text = path.read_text()
        assert "np.percentile(" not in text and "np.quantile(" not in text, path
        if path.name != "_bootstrap.py":
            assert ".integers(0, n" not in text, path
