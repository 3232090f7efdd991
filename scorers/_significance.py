"""Paired significance tests between two systems on the same queries (or items).

Three tests of the mean paired difference ``d = candidate - baseline``, each with the
interval that is its dual, so that "the 95% interval excludes 0" and "p < 0.05" always
say the same thing:

- the paired t-test: p from scipy (``scipy.stats.ttest_rel``, two-sided), beside the 95%
  Student-t interval of the mean difference with scipy's exact quantile (cut to the range
  a difference can have, which cannot move 0 in or out of it);
- a paired bootstrap: queries resampled with replacement, ``resamples`` times, from a
  fixed seed; the 95% percentile interval of the mean (order statistics: the
  ``ceil(0.025 B)``-th smallest and largest of the ``B`` bootstrap means) and
  p = 2 min(#{mean* <= 0}, #{mean* >= 0}) / B, the smallest level at which that interval
  excludes 0 (percentile-interval inversion);
- a randomization test: each difference's sign flipped at random, ``resamples`` times,
  from the same seed; p = (1 + #{|mean*| >= |mean|}) / (1 + resamples), beside the
  interval that inverts it: every shift δ that the same test, with the same flips, does
  not reject on ``d - δ`` (computed exactly from each flip's range, `_sign_flip`).

Below `MIN_PAIRED` pairs no test is made: no two-sided test at 5% can reject there (the
randomization test's smallest p is 2 / 2**n). `holm` adjusts a family of p-values (one
per metric) with Holm–Bonferroni. `detectable_change` is the smallest true change a paired
t-test finds 80% of the time at two-sided α 0.05. scipy is imported on the first test
only, so ``import scorers`` stays fast.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel

from ._bootstrap import BLOCK, DEFAULT_RESAMPLES, DEFAULT_SEED, bootstrap, bootstrap_interval
from ._power import ALPHA, MIN_PAIRED, detectable_change, t_critical_95

if TYPE_CHECKING:
    import numpy as np
else:
    from ._lazy import np


class PairedTest(BaseModel):
    """The paired comparison of one metric.

    Attributes:
        n: Pairs compared.
        baseline_mean: Mean of the baseline values.
        candidate_mean: Mean of the candidate values.
        delta: ``candidate_mean - baseline_mean``.
        ci_low: Lower end of the 95% paired Student-t interval of ``delta`` (the dual of
            ``p_t``; cut to ``bounds``).
        ci_high: Upper end.
        t_statistic: The paired t statistic (None when every difference is the same and
            the statistic is undefined; ``p_t`` is then None too).
        p_t: Two-sided p-value of the paired t-test (``scipy.stats.ttest_rel``).
        bootstrap_low: Lower end of the 95% percentile interval of the bootstrap means
            (the dual of ``p_bootstrap``).
        bootstrap_high: Upper end.
        p_bootstrap: Two-sided p-value of the paired bootstrap (percentile inversion; 0
            when no bootstrap mean lies on the far side of 0: tables show ``<1/resamples``).
        p_permutation: Two-sided p-value of the sign-flip randomization test.
        permutation_low: Lower end of the 95% interval of ``delta`` that inverts the
            sign-flip test (the shifts it does not reject, with the same flips; the dual
            of ``p_permutation``; cut to ``bounds``).
        permutation_high: Upper end.
        p_t_holm: ``p_t`` adjusted across the compared metrics (Holm–Bonferroni).
        p_permutation_holm: The same for ``p_permutation``.
        p_bootstrap_holm: The same for ``p_bootstrap``.
        detectable: The smallest true change of the mean that a paired t-test over
            these ``n`` pairs finds with 80% power at two-sided α 0.05, from the observed
            spread of the differences (`detectable_change`); None when every pair moved
            alike (no spread to estimate it from).
        sd_difference: The standard deviation of the paired differences.
        note: Why there is no test (too few pairs), else "".
    """

    n: int
    baseline_mean: float | None = None
    candidate_mean: float | None = None
    delta: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    t_statistic: float | None = None
    p_t: float | None = None
    bootstrap_low: float | None = None
    bootstrap_high: float | None = None
    p_bootstrap: float | None = None
    p_permutation: float | None = None
    permutation_low: float | None = None
    permutation_high: float | None = None
    p_t_holm: float | None = None
    p_permutation_holm: float | None = None
    p_bootstrap_holm: float | None = None
    detectable: float | None = None
    sd_difference: float | None = None
    note: str = ""


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def too_few(n: int) -> str:
    """The note of a comparison over fewer than `MIN_PAIRED` pairs ("" from there on)."""
    if n >= MIN_PAIRED:
        return ""
    return f"n = {n}: too few paired items for a test ({MIN_PAIRED} needed)"


def paired_test(
    baseline: Sequence[float],
    candidate: Sequence[float],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    bounds: tuple[float, float] | None = None,
) -> PairedTest:
    """All three tests on one metric's paired values (same order in both sequences).

    Args:
        baseline: The baseline's values.
        candidate: The candidate's, pair by pair.
        resamples: Resamples of the randomization test and of the bootstrap.
        seed: Their seed (one stream: the sign flips, then the bootstrap).
        bounds: The range a difference can have (``(-scale, scale)`` for scores in
            ``[0, scale]``): the t interval is cut to it.
    """
    a = np.asarray(baseline, dtype=np.float64)
    b = np.asarray(candidate, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError("paired values need the same length")
    n = len(a)
    if n == 0:
        return PairedTest(n=0, note=too_few(0))
    d = b - a
    delta = float(d.mean())
    result = PairedTest(
        n=n, baseline_mean=float(a.mean()), candidate_mean=float(b.mean()), delta=delta
    )
    result.note = too_few(n)
    if result.note:
        return result
    from scipy import stats

    if np.ptp(d) > 0:  # with every difference equal the t statistic is undefined
        t = stats.ttest_rel(b, a)
        result.t_statistic, result.p_t = _finite(t.statistic), _finite(t.pvalue)
    critical = float(stats.t.ppf(1 - ALPHA / 2, n - 1))
    _, result.ci_low, result.ci_high = mean_ci(d.tolist(), bounds, critical=critical)
    result.sd_difference = float(d.std(ddof=1))
    if result.sd_difference > 0:  # no spread in these pairs says nothing of the next ones'
        result.detectable = detectable_change(result.sd_difference, n)

    rng = np.random.default_rng(seed)
    result.p_permutation, result.permutation_low, result.permutation_high = _sign_flip(
        d, resamples, rng, bounds
    )
    means = np.sort(bootstrap(lambda v: v.mean(axis=1), d, resamples=resamples, rng=rng))
    result.bootstrap_low, result.bootstrap_high = bootstrap_interval(means) or (None, None)
    below = int(np.searchsorted(means, 0.0, side="right"))  # means <= 0
    above = resamples - int(np.searchsorted(means, 0.0, side="left"))  # means >= 0
    result.p_bootstrap = min(1.0, 2 * min(below, above) / resamples)
    return result


def _sign_flip(
    d: np.ndarray, resamples: int, rng: np.random.Generator, bounds: tuple[float, float] | None
) -> tuple[float, float | None, float | None]:
    """The sign-flip randomization test of mean(d) = 0 and its inversion: the interval of
    every shift δ that the same test on ``d - δ``, with the same sign flips, does not
    reject at 0.05.

    A flip ``s`` (signs ±1) makes the statistic ``a - δ c`` (``a = mean(s d)``,
    ``c = mean(s)``) against the observed ``m - δ``. Away from ``m`` the observed one
    grows at rate 1 and the flipped one at rate ``|c| <= 1``, so each flip counts as "as
    large" on an interval around ``m``: up to ``m + |e| / (1 + sgn(e) c)`` and down to
    ``m - |e| / (1 - sgn(e) c)``, with ``e = a - m c`` (everywhere when every sign is the
    same). The 95% interval's ends are the ``k``-th widest of these, ``k`` the smallest
    count with p >= 0.05; an end within rounding of 0 takes the side ``p`` says.
    """
    n, delta = len(d), float(d.mean())
    tolerance = 1e-12 * max(1.0, abs(delta))
    block = max(1, BLOCK // n)
    as_large = 0
    ups, downs = [], []
    for start in range(0, resamples, block):
        signs = rng.integers(0, 2, size=(min(block, resamples - start), n), dtype=np.int8)
        signs = signs * 2 - 1
        flipped = (signs * d).mean(axis=1)
        as_large += int(np.count_nonzero(np.abs(flipped) >= abs(delta) - tolerance))
        c = signs.mean(axis=1)
        e = flipped - delta * c
        with np.errstate(divide="ignore", invalid="ignore"):
            same = np.abs(c) == 1.0
            ups.append(np.where(same, np.inf, np.abs(e) / (1 + np.sign(e) * c)))
            downs.append(np.where(same, np.inf, np.abs(e) / (1 - np.sign(e) * c)))
    p = (1 + as_large) / (1 + resamples)
    k = math.ceil(ALPHA * (1 + resamples) - 1 - 1e-9)  # p >= ALPHA needs k flips as large
    if k <= 0:
        return p, bounds[0] if bounds else None, bounds[1] if bounds else None
    up = float(-np.partition(-np.concatenate(ups), k - 1)[k - 1])
    down = float(-np.partition(-np.concatenate(downs), k - 1)[k - 1])
    low, high = delta - down, delta + up
    near, rejected = 1e-9 * max(1.0, abs(delta)), p < ALPHA
    if abs(low) <= near:  # a tie at 0: the test's own count decides
        low = math.ulp(0.0) if rejected else 0.0
    if abs(high) <= near:
        high = -math.ulp(0.0) if rejected else 0.0
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return (
        p,
        low if math.isfinite(low) else None,
        high if math.isfinite(high) else None,
    )


def mean_ci(
    values: Sequence[float],
    bounds: tuple[float, float] | None = None,
    *,
    critical: float | None = None,
) -> tuple[float | None, float | None, float | None]:
    """Mean and 95% Student-t interval of ``values`` (None where undefined): the one
    interval of a mean in scorekit (run summaries, slices, paired differences). The
    sums are exact (``math.fsum``), so the result does not depend on the values' order.

    Args:
        values: The observations.
        bounds: The range the values (hence their mean) cannot leave, e.g. ``(0, scale)``
            for scores; the interval is cut to it. That cannot lower its coverage: the
            true mean lies inside the bounds.
        critical: The t quantile to use (default `t_critical_95`, which needs no
            scipy; a paired test passes scipy's exact one, so that its interval is the
            exact dual of its p-value).
    """
    n = len(values)
    if n == 0:
        return None, None, None
    mean = math.fsum(values) / n
    if n == 1:
        return mean, None, None
    deviations = [v - mean for v in values]
    variance = math.fsum(map(operator.mul, deviations, deviations)) / (n - 1)
    half = (t_critical_95(n - 1) if critical is None else critical) * math.sqrt(variance / n)
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


def paired_table(
    tests: Mapping[str, PairedTest],
    *,
    label: str = "metric",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    counts: Mapping[str, str] | None = None,
) -> str:
    """The table of paired tests scorekit prints (`compare_rankings`, ``scorekit
    compare``, the report): per row the means, the change, then each method's interval
    beside its own p-value — t (``95% CI (t)``, ``p(t)``), bootstrap (``95% CI (boot)``,
    ``p(boot)``), randomization (``95% CI (perm)``, ``p(perm)``) — and the smallest change the
    pairs can detect; below, the p-values Holm-adjusted across the rows, and each row
    with too few pairs for a test.

    Args:
        tests: The rows, by name.
        label: The first column's heading.
        resamples: What the randomization test and the bootstrap used (for the footer).
        seed: Their seed.
        counts: Per row, extra text put after its name's row (e.g. pairs up and down).
    """

    def num(value: float | None, spec: str) -> str:
        return "-" if value is None else format(value, spec)

    def interval(low: float | None, high: float | None) -> str:
        return "-" if low is None or high is None else f"[{low:+.3f}, {high:+.3f}]"

    width = max([len(label), *(len(m) for m in tests)])
    smallest = f"<{1 / resamples:.4f}"  # no bootstrap mean on the far side of 0
    lines = [
        f"{label:<{width}}  {'baseline':>8}  {'candidate':>9}  {'delta':>7}  "
        f"{'95% CI (t)':<18}  {'p(t)':>6}  {'95% CI (boot)':<18}  {'p(boot)':>7}  "
        f"{'95% CI (perm)':<18}  {'p(perm)':>7}  {'detectable':>10}"
    ]
    for name, t in tests.items():
        lines.append(
            f"{name:<{width}}  {num(t.baseline_mean, '.4f'):>8}  {num(t.candidate_mean, '.4f'):>9}  "
            f"{num(t.delta, '+.4f'):>7}  {interval(t.ci_low, t.ci_high):<18}  "
            f"{num(t.p_t, '.4f'):>6}  {interval(t.bootstrap_low, t.bootstrap_high):<18}  "
            f"{smallest if t.p_bootstrap == 0 else num(t.p_bootstrap, '.4f'):>7}  "
            f"{interval(t.permutation_low, t.permutation_high):<18}  "
            f"{num(t.p_permutation, '.4f'):>7}  "
            f"{num(t.detectable, '.4f'):>10}"
            + (f"  {counts[name]}" if counts and name in counts else "")
        )
    tested = {name: t for name, t in tests.items() if not t.note}
    lines.append("")
    lines += [
        "each 95% interval is the dual of the p-value beside it: it excludes 0 exactly when "
        "p < 0.05",
        "t: scipy's paired t-test, Student interval; boot: paired bootstrap, percentile "
        "interval; perm: sign-flip randomization test, the shifts it does not reject",
        f"{resamples:,} resamples, seed {seed}; detectable: the smallest change found with 80% "
        "power at two-sided alpha 0.05",
    ]
    if len(tested) > 1:
        lines.append(f"Holm-Bonferroni adjusted across the {len(tested)} {label}s:")
        for name, t in tested.items():
            lines.append(
                f"  {name:<{width}}  p(t) {num(t.p_t_holm, '.4f')}  p(boot) "
                f"{num(t.p_bootstrap_holm, '.4f')}  p(perm) {num(t.p_permutation_holm, '.4f')}"
            )
    notes: dict[str, list[str]] = {}
    for name, t in tests.items():
        if t.note:
            notes.setdefault(t.note, []).append(name)
    lines += [f"{note}: {', '.join(names)}" for note, names in notes.items()]
    return "\n".join(lines)
