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
