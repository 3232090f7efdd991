"""Paired significance tests between two systems on the same queries (or items).

Three tests of the mean paired difference ``d = candidate - baseline``:

- the paired t-test, from scipy (``scipy.stats.ttest_rel``), two-sided;
- a randomization test: each difference's sign flipped at random, ``resamples`` times,
  from a fixed seed; p = (1 + #{|mean*| >= |mean|}) / (1 + resamples);
- a paired bootstrap: queries resampled with replacement, ``resamples`` times, from the
  same seed; the 95% percentile interval of the mean, and p = (1 + #{|mean* - mean| >=
  |mean|}) / (1 + resamples) (the shift method: the bootstrap distribution moved to the
  null hypothesis).

`holm` adjusts a family of p-values (one per metric) with Holm–Bonferroni. scipy is
imported on the first t-test only, so ``import scorers`` stays fast.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

if TYPE_CHECKING:
    import numpy as np
else:
    from ._lazy import np

DEFAULT_RESAMPLES = 10_000
DEFAULT_SEED = 0
_BLOCK = 2_000_000  # resampled values held in memory at once


def bootstrap(
    statistic: Callable[..., Any],
    *arrays: Any,
    resamples: int = DEFAULT_RESAMPLES,
    rng: np.random.Generator | None = None,
    seed: int = DEFAULT_SEED,
    cells: int = _BLOCK,
) -> Any:
    """The bootstrap distribution of ``statistic``: the rows of ``arrays`` (numpy arrays
    of one length ``n``) resampled with replacement ``resamples`` times.

    The resamples are drawn in blocks of at most ``cells`` values; for each block,
    ``statistic`` gets every array indexed by a ``(size, n)`` array of row indices (so
    each gains a leading resample axis) and returns one value per resample: an array of
    ``size``, or a dict of such arrays. The blocks' values are joined in draw order.

    Args:
        statistic: ``fn(*resampled) -> array | dict[str, array]``, vectorised over the
            leading axis.
        *arrays: The data, row-aligned.
        resamples: How many resamples.
        rng: The generator to draw from (so a caller's other draws can share its
            stream); default a new one from ``seed``.
        seed: The seed when ``rng`` is not given.
        cells: At most this many values (resamples × rows × a row's width) at once.

    Returns:
        An array of ``resamples`` values, or a dict of them. The draws do not depend on
        ``cells``: resample ``i`` takes the ``i``-th ``n`` indices of the stream.

    Raises:
        ValueError: Without rows.
    """
    if not arrays or not len(arrays[0]):
        raise ValueError("bootstrap needs at least one array with at least one row")
    rng = np.random.default_rng(seed) if rng is None else rng
    n = len(arrays[0])
    width = max(1, max(int(np.prod(a.shape[1:])) for a in arrays))
    block = max(1, cells // (n * width))
    parts: list[Any] = []
    for start in range(0, resamples, block):
        rows = rng.integers(0, n, size=(min(block, resamples - start), n))
        parts.append(statistic(*(a[rows] for a in arrays)))
    if parts and isinstance(parts[0], dict):
        return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    return np.concatenate(parts) if parts else np.empty(0)


class PairedTest(BaseModel):
    """The paired comparison of one metric.

    Attributes:
        n: Pairs compared.
        baseline_mean: Mean of the baseline values.
        candidate_mean: Mean of the candidate values.
        delta: ``candidate_mean - baseline_mean``.
        ci_low: Lower end of the 95% paired Student-t interval of ``delta``.
        ci_high: Upper end.
        t_statistic: The paired t statistic (None below 2 pairs, or when every difference
            is the same and the statistic is undefined; ``p_t`` is then None too).
        p_t: Two-sided p-value of the paired t-test (``scipy.stats.ttest_rel``).
        p_permutation: Two-sided p-value of the sign-flip randomization test.
        p_bootstrap: Two-sided p-value of the paired bootstrap (shift method).
        bootstrap_low: 2.5th percentile of the bootstrap means of ``delta``.
        bootstrap_high: 97.5th percentile.
        p_t_holm: ``p_t`` adjusted across the compared metrics (Holm–Bonferroni).
        p_permutation_holm: The same for ``p_permutation``.
        p_bootstrap_holm: The same for ``p_bootstrap``.
    """

    n: int
    baseline_mean: float | None = None
    candidate_mean: float | None = None
    delta: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    t_statistic: float | None = None
    p_t: float | None = None
    p_permutation: float | None = None
    p_bootstrap: float | None = None
    bootstrap_low: float | None = None
    bootstrap_high: float | None = None
    p_t_holm: float | None = None
    p_permutation_holm: float | None = None
    p_bootstrap_holm: float | None = None


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def paired_test(
    baseline: Sequence[float],
    candidate: Sequence[float],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> PairedTest:
    """All three tests on one metric's paired values (same order in both sequences)."""
    a = np.asarray(baseline, dtype=np.float64)
    b = np.asarray(candidate, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError("paired values need the same length")
    n = len(a)
    if n == 0:
        return PairedTest(n=0)
    d = b - a
    delta = float(d.mean())
    result = PairedTest(
        n=n, baseline_mean=float(a.mean()), candidate_mean=float(b.mean()), delta=delta
    )
    if n < 2:
        return result
    from scipy import stats

    if np.ptp(d) > 0:  # with every difference equal the t statistic is undefined
        t = stats.ttest_rel(b, a)
        result.t_statistic, result.p_t = _finite(t.statistic), _finite(t.pvalue)
    _, result.ci_low, result.ci_high = mean_ci(d.tolist())

    rng = np.random.default_rng(seed)
    tolerance = 1e-12 * max(1.0, abs(delta))
    block = max(1, _BLOCK // n)
    flipped_as_large = 0
    for start in range(0, resamples, block):
        signs = rng.integers(0, 2, size=(min(block, resamples - start), n), dtype=np.int8)
        flipped = ((signs * 2 - 1) * d).mean(axis=1)
        flipped_as_large += int(np.count_nonzero(np.abs(flipped) >= abs(delta) - tolerance))
    boot_means = bootstrap(lambda values: values.mean(axis=1), d, resamples=resamples, rng=rng)
    boot_as_large = int(np.count_nonzero(np.abs(boot_means - delta) >= abs(delta) - tolerance))
    result.p_permutation = (1 + flipped_as_large) / (1 + resamples)
    result.p_bootstrap = (1 + boot_as_large) / (1 + resamples)
    low, high = np.percentile(boot_means, [2.5, 97.5])
    result.bootstrap_low, result.bootstrap_high = float(low), float(high)
    return result


_T95 = (
    12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004,
    2.262157, 2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905,
    2.109816, 2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899,
    2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272,
)  # fmt: skip
"""The two-sided 95% Student t quantile for 1 to 30 degrees of freedom, to 6 decimals."""

_Z975 = 1.959963984540054


def t_critical_95(df: int) -> float:
    """The two-sided 95% Student t quantile: the table to 30 degrees of freedom, then
    the Cornish-Fisher expansion to the fourth order (Abramowitz & Stegun 26.7.5; within
    4e-8 of the exact value from 30 on). No scipy: summaries need it on every run."""
    if df < 1:
        raise ValueError("degrees of freedom must be >= 1")
    if df <= len(_T95):
        return _T95[df - 1]
    z = _Z975
    terms = (
        (z**3 + z) / 4,
        (5 * z**5 + 16 * z**3 + 3 * z) / 96,
        (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
        (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160,
    )
    return z + sum(g / df**k for k, g in enumerate(terms, start=1))


def mean_ci(
    values: Sequence[float], bounds: tuple[float, float] | None = None
) -> tuple[float | None, float | None, float | None]:
    """Mean and 95% Student-t interval of ``values`` (None where undefined): the one
    interval of a mean in scorekit (run summaries, slices, paired differences). The
    sums are exact (``math.fsum``), so the result does not depend on the values' order.

    Args:
        values: The observations.
        bounds: The range the values (hence their mean) cannot leave, e.g. ``(0, scale)``
            for scores; the interval is cut to it. That cannot lower its coverage: the
            true mean lies inside the bounds.
    """
    n = len(values)
    if n == 0:
        return None, None, None
    mean = math.fsum(values) / n
    if n == 1:
        return mean, None, None
    deviations = [v - mean for v in values]
    variance = math.fsum(map(operator.mul, deviations, deviations)) / (n - 1)
    half = t_critical_95(n - 1) * math.sqrt(variance / n)
    low, high = mean - half, mean + half
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return mean, low, high


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm–Bonferroni adjusted p-values, in the input order (None stays None)."""
    present = [(p, i) for i, p in enumerate(pvalues) if p is not None]
    present.sort()
    m = len(present)
    adjusted: list[float | None] = [None] * len(pvalues)
    running = 0.0
    for rank, (p, i) in enumerate(present):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[i] = running
    return adjusted


def adjust_family(tests: Sequence[PairedTest]) -> None:
    """Fill the ``*_holm`` fields of ``tests`` (one per metric), in place."""
    for field in ("p_t", "p_permutation", "p_bootstrap"):
        for test, value in zip(tests, holm([getattr(t, field) for t in tests]), strict=True):
            setattr(test, f"{field}_holm", value)
