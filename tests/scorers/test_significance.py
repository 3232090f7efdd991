"""One statistics engine (issue 46, items 2 and 3): each interval is the dual of the p-value
beside it, intervals stay in the possible range, no test below MIN_PAIRED pairs, and
every number equals scipy's / statsmodels' on seeded cases."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from scorers import (
    MIN_PAIRED,
    detectable_change,
    holm,
    items_needed,
    paired_table,
    paired_test,
    t_critical_95,
)


def _cases(count: int = 60):
    """Seeded paired samples: sizes 6 to 60, effects from none to large, scores in [0, 1]
    (continuous and on a few levels, as recall is on short lists)."""
    rng = np.random.default_rng(46)
    for i in range(count):
        n = int(rng.integers(MIN_PAIRED, 61))
        base = rng.uniform(0, 1, n)
        effect = rng.choice([0.0, 0.02, 0.05, 0.1, 0.2, 0.4])
        cand = np.clip(base + effect + rng.normal(0, rng.uniform(0.05, 0.4), n), 0, 1)
        if i % 3 == 0:
            base, cand = np.round(base * 4) / 4, np.round(cand * 4) / 4
        yield i, base, cand


@pytest.mark.parametrize(("i", "base", "cand"), list(_cases()))
def test_each_interval_excludes_zero_exactly_when_its_p_is_below_005(i, base, cand):
    test = paired_test(base, cand, resamples=2000, seed=i, bounds=(-1.0, 1.0))
    if test.p_t is not None:
        assert (test.ci_low > 0 or test.ci_high < 0) == (test.p_t < 0.05), test
    assert (test.bootstrap_low > 0 or test.bootstrap_high < 0) == (test.p_bootstrap < 0.05), test
    perm = (test.permutation_low, test.permutation_high)
    assert (perm[0] > 0 or perm[1] < 0) == (test.p_permutation < 0.05), test
    assert -1.0 <= test.ci_low <= test.ci_high <= 1.0
    assert -1.0 <= test.bootstrap_low <= test.bootstrap_high <= 1.0
    assert -1.0 <= perm[0] <= test.delta <= perm[1] <= 1.0


def _p_shifted(d, shift: float, resamples: int, seed: int) -> float:
    """The sign-flip p-value of mean(d - shift) = 0 with paired_test's own flips, by brute
    force (one block of draws, as paired_test makes for these sizes)."""
    signs = np.random.default_rng(seed).integers(0, 2, size=(resamples, len(d)), dtype=np.int8)
    moved = d - shift
    flipped = np.abs(((signs * 2 - 1) * moved).mean(axis=1))
    return (1 + np.count_nonzero(flipped >= abs(moved.mean()) - 1e-12)) / (1 + resamples)


@pytest.mark.parametrize(("i", "base", "cand"), list(_cases(20)))
def test_the_randomization_interval_is_the_set_of_shifts_the_test_keeps(i, base, cand):
    """Brute force: just inside each end the shifted test keeps the shift (p >= 0.05),
    just outside it rejects — with the very flips behind p(perm)."""
    test = paired_test(base, cand, resamples=2000, seed=i)
    d = cand - base
    for end, outward in ((test.permutation_low, -1), (test.permutation_high, 1)):
        step = 1e-7 * max(1.0, abs(end))
        assert _p_shifted(d, end - outward * step, 2000, i) >= 0.05, (i, end)
        assert _p_shifted(d, end + outward * step, 2000, i) < 0.05, (i, end)


def test_the_randomization_interval_nears_the_t_interval_on_many_pairs():
    rng = np.random.default_rng(5)
    base = rng.uniform(0, 1, 400)
    cand = np.clip(base + 0.03 + rng.normal(0, 0.2, 400), 0, 1)
    test = paired_test(base, cand, resamples=20_000, seed=1)
    width_t = test.ci_high - test.ci_low
    assert test.permutation_low == pytest.approx(test.ci_low, abs=0.05 * width_t)
    assert test.permutation_high == pytest.approx(test.ci_high, abs=0.05 * width_t)


@pytest.mark.slow
@pytest.mark.parametrize(("i", "base", "cand"), list(_cases(12)))
def test_the_numbers_equal_scipys(i, base, cand):
    test = paired_test(base, cand, resamples=20_000, seed=i)
    d = cand - base
    if np.ptp(d) > 0:
        assert test.p_t == pytest.approx(stats.ttest_rel(cand, base).pvalue, rel=1e-12)
        low, high = stats.t.interval(0.95, len(d) - 1, loc=d.mean(), scale=stats.sem(d))
        assert (test.ci_low, test.ci_high) == pytest.approx((low, high), rel=1e-9, abs=1e-12)
    # the sign-flip test against scipy's, exact or randomized: Monte Carlo error only
    exact = stats.permutation_test(
        (d,), np.mean, permutation_type="samples", n_resamples=20_000, random_state=i
    )
    assert test.p_permutation == pytest.approx(exact.pvalue, abs=0.02)
    boot = stats.bootstrap(
        (d,), np.mean, method="percentile", n_resamples=20_000, random_state=i
    ).confidence_interval
    # Monte Carlo error, plus one step of the mean where the scores take a few levels
    step = 0.25 / len(d) if i % 3 == 0 else 0.0
    tolerance = 0.1 * max(d.std(), 1e-9) / np.sqrt(len(d)) + step
    assert test.bootstrap_low == pytest.approx(boot.low, abs=tolerance)
    assert test.bootstrap_high == pytest.approx(boot.high, abs=tolerance)


def test_holm_equals_statsmodels():
    multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
    rng = np.random.default_rng(7)
    for size in (1, 2, 3, 5, 10, 40):
        for _ in range(3):  # statsmodels takes about 0.1 s a call
            pvalues = rng.uniform(0, 0.2, size) ** rng.uniform(0.5, 3)
            expected = multipletests(pvalues, method="holm")[1]
            assert holm(list(pvalues)) == pytest.approx(list(expected), rel=1e-12)
    assert holm([0.01, None, 0.04]) == pytest.approx([0.02, None, 0.04])


def test_below_min_paired_there_is_no_test_and_the_note_says_why():
    test = paired_test([0.2, 0.4], [0.9, 1.0])
    assert test.delta == pytest.approx(0.65)
    assert (test.ci_low, test.p_t, test.p_permutation, test.bootstrap_low) == (None,) * 4
    assert test.note == "n = 2: too few paired items for a test (6 needed)"
    assert MIN_PAIRED == 6 and 2 / 2**5 > 0.05 > 2 / 2**6  # why six
    table = paired_table({"mrr": test})
    assert "n = 2: too few paired items for a test (6 needed): mrr" in table


def test_the_detectable_change_has_80_percent_power_at_every_n():
    """statsmodels' TTestPower (noncentral t) gives the stated change 80% power; the
    normal approximation it replaced gave 0.73 at n = 2 and 0.795 at n = 6."""
    from statsmodels.stats.power import TTestPower

    power = TTestPower()
    for n in (3, 4, 5, 6, 7, 10, 28, 31, 100, 5000, 1_000_000):
        found = power.power(detectable_change(0.3, n) / 0.3, n, 0.05, alternative="two-sided")
        assert found == pytest.approx(0.8, abs=1e-6), n
        assert t_critical_95(n - 1) == pytest.approx(stats.t.ppf(0.975, n - 1), abs=1e-6)
    solved = power.solve_power(nobs=2, alpha=0.05, power=0.8, alternative="two-sided")
    assert detectable_change(1.0, 2) == pytest.approx(solved, rel=1e-6)  # scipy's nct: NaN


def test_items_needed_inverts_the_detectable_change():
    needed = items_needed(0.3, 0.05)
    assert detectable_change(0.3, needed) <= 0.05 < detectable_change(0.3, needed - 1)
    assert items_needed(0.0, 0.05) == MIN_PAIRED
    with pytest.raises(ValueError, match="must be > 0"):
        items_needed(0.3, 0)


def test_the_table_names_each_method_and_puts_each_p_beside_its_interval():
    rng = np.random.default_rng(3)
    base = rng.uniform(0, 1, 40)
    tests = {"a": paired_test(base, np.clip(base + 0.1, 0, 1)), "b": paired_test(base, base)}
    table = paired_table(tests)
    head = table.splitlines()[0].split()
    assert head[head.index("(t)") + 1] == "p(t)" and head[head.index("(boot)") + 1] == "p(boot)"
    assert "Holm-Bonferroni adjusted across the 2 metrics:" in table
    assert "excludes 0 exactly when p < 0.05" in table


def test_every_difference_alike_has_no_t_test_but_the_resampling_ones_answer():
    """docs/results.md: scipy's ttest_rel gives t = -inf and p 0 here; scorekit gives no
    t-test p (no spread), the interval [c, c], and the other two tests' p."""
    base, cand = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [1.5, 2.5, 3.5, 4.5, 5.5, 6.5]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # scipy: "catastrophic cancellation"
        assert stats.ttest_rel(base, cand).pvalue == 0.0
    found = paired_test(base, cand)
    assert (found.p_t, found.ci_low, found.ci_high) == (None, 0.5, 0.5)
    assert found.p_bootstrap == 0.0 and found.p_permutation == pytest.approx(0.0306, abs=1e-4)
    assert found.detectable is None
