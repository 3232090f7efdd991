"""Student quantiles without scipy; how large a change a set of paired items can see, and
how many items a change needs.

The paired t-test's power from the noncentral t distribution (as statsmodels'
``TTestPower``): a true mean change ``delta`` over ``n`` pairs whose differences have
standard deviation ``sd`` is found with probability ``power`` at two-sided level ``alpha``
when ``P(|T'| > t(1 - alpha/2, n-1)) >= power`` for ``T'`` noncentral t with ``n - 1``
degrees of freedom and noncentrality ``delta * sqrt(n) / sd``. The probability is one
integral over the spread's chi distribution, by Simpson's rule; no scipy (it runs with
every summary). `benchmarks/bench_power.py` checks by simulation that the stated change is
found 80% of the time; the tests hold it to statsmodels.
"""

from __future__ import annotations

import functools
import math

ALPHA = 0.05
MIN_PAIRED = 6
"""The fewest pairs a paired test is made on: with 5 or fewer, no two-sided test at 5% can
reject (the sign-flip test's smallest p is 2 / 2**n = 0.0625 at n = 5), so an interval or a
p-value would only look like evidence."""


_T80 = (
    1.376382, 1.060660, 0.978472, 0.940965, 0.919544, 0.905703, 0.896030, 0.888890,
    0.883404, 0.879058, 0.875530, 0.872609, 0.870152, 0.868055, 0.866245, 0.864667,
    0.863279, 0.862049, 0.860951, 0.859964, 0.859074, 0.858266, 0.857530, 0.856855,
    0.856236, 0.855665, 0.855137, 0.854647, 0.854192, 0.853767,
)  # fmt: skip
"""The one-sided 80% Student t quantile for 1 to 30 degrees of freedom, to 6 decimals."""
_Z80 = 0.8416212335729143


def cornish_fisher(z: float, df: int) -> float:
    """The Student t quantile with ``df`` degrees of freedom at the normal quantile ``z``:
    the Cornish-Fisher expansion to the fourth order (Abramowitz & Stegun 26.7.5; within
    4e-8 of scipy's from 30 degrees of freedom on, at the 80% and 97.5% points)."""
    terms = (
        (z**3 + z) / 4,
        (5 * z**5 + 16 * z**3 + 3 * z) / 96,
        (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
        (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160,
    )
    return z + sum(g / df**k for k, g in enumerate(terms, start=1))


def t_power_80(df: int) -> float:
    """The one-sided 80% Student t quantile (the table to 30 degrees of freedom, then
    `cornish_fisher`); no scipy."""
    if df < 1:
        raise ValueError("degrees of freedom must be >= 1")
    return _T80[df - 1] if df <= len(_T80) else cornish_fisher(_Z80, df)


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
    the Cornish-Fisher expansion (`cornish_fisher`; within 4e-8 of the exact value from
    30 on). No scipy: summaries need it on every run."""
    if df < 1:
        raise ValueError("degrees of freedom must be >= 1")
    if df <= len(_T95):
        return _T95[df - 1]
    return cornish_fisher(_Z975, df)


def _normal_tail(x: float) -> float:
    """``P(Z > x)`` for a standard normal ``Z``."""
    return 0.5 * math.erfc(x / math.sqrt(2.0))


def t_test_power(noncentrality: float, df: int, critical: float) -> float:
    """Two-sided power of a t-test: ``P(|T'| > critical)`` for ``T'`` noncentral t with
    ``df`` degrees of freedom, i.e. ``E[Q(c S - nc) + Q(c S + nc)]`` over ``S`` the square
    root of a chi-square over ``df``, integrated by Simpson's rule on 600 intervals where
    ``S``'s density is above 1e-30."""
    half = df / 2.0
    log_norm = math.log(2.0) + half * math.log(half) - math.lgamma(half)
    width = 12.0 / math.sqrt(2.0 * df)
    low, high = max(0.0, 1.0 - width), 1.0 + width
    steps = 600
    h = (high - low) / steps
    total = 0.0
    for i in range(steps + 1):
        s = low + i * h
        if s <= 0.0:
            density = math.exp(log_norm) if df == 1 else 0.0
        else:
            density = math.exp(log_norm + (df - 1) * math.log(s) - df * s * s / 2.0)
        value = _normal_tail(critical * s - noncentrality) + _normal_tail(
            critical * s + noncentrality
        )
        weight = 1.0 if i in (0, steps) else 4.0 if i % 2 else 2.0
        total += weight * density * value
    return total * h / 3.0


@functools.lru_cache(maxsize=1024)
def _noncentrality_80(df: int) -> float:
    """The noncentrality at which the two-sided 5% t-test with ``df`` degrees of freedom
    has 80% power: secant steps from the normal answer, to 1e-10."""
    critical = t_critical_95(df)

    def short(nc: float) -> float:
        return t_test_power(nc, df, critical) - 0.8

    a, b = critical + t_power_80(df), critical + _Z80
    fa, fb = short(a), short(b)
    for _ in range(50):
        if fb == fa or abs(b - a) < 1e-10:
            break
        a, fa, b = b, fb, b - fb * (b - a) / (fb - fa)
        fb = short(b)
    return b


def detectable_change(sd: float, n: int) -> float:
    """The smallest true mean change a two-sided paired t-test over ``n`` pairs finds
    with 80% power at level 0.05, when the differences' standard deviation is ``sd``:
    ``nc * sd / sqrt(n)``, ``nc`` the noncentrality of the noncentral t with ``n - 1``
    degrees of freedom at which the test has 80% power (`t_test_power`; statsmodels'
    ``TTestPower`` gives the same). No scipy (it runs with every summary).

    Raises:
        ValueError: Below 2 pairs.
    """
    if n < 2:
        raise ValueError("a detectable change needs at least 2 pairs")
    return _noncentrality_80(n - 1) * sd / math.sqrt(n)


def items_needed(sd: float, change: float) -> int:
    """How many pairs a paired t-test needs to find a true change of ``change`` with 80%
    power at two-sided level 0.05 (the least ``n``, at least `MIN_PAIRED`, whose
    `detectable_change` is at most ``change``).

    Raises:
        ValueError: When ``change`` is not positive.
    """
    if not change > 0:
        raise ValueError(f"the change to detect must be > 0; got {change!r}")
    if sd == 0:
        return MIN_PAIRED
    z = _Z975 + _Z80
    n = max(MIN_PAIRED, math.ceil((z * sd / change) ** 2))  # the normal answer, then t's
    if n > 100_000:  # the noncentral t is the normal here, to far below a pair
        return n
    while detectable_change(sd, n) > change:
        n += 1
    while n > MIN_PAIRED and detectable_change(sd, n - 1) <= change:
        n -= 1
    return n
