"""Is the detectable change scorekit states detected about 80% of the time?

For each design and size ``n``, simulate ``--trials`` paired comparisons whose true mean
change is the change scorekit states as detectable (`scorers.detectable_change`, 80% power,
two-sided alpha 0.05), and count how often each test finds it (p < 0.05):

- ``normal``: differences ~ N(delta, sd);
- ``3-level``: differences delta + {-a, 0, +a} (a change of one grade level on a
  recall-like score, many items unchanged), scaled to the same sd;
- ``null``: no change at all: how often each test wrongly finds one (its level, 5%);
- ``stated``: the sd is not known: in each trial a pilot set of n pairs from the
  ``3-level`` design gives the sd scorekit would state (as `scorekit compare` and a run's
  summary do), and the true change is that trial's stated value.

The t-test runs on every trial (vectorised, scipy's ``ttest_rel``); scorekit's own
`paired_test` (t, bootstrap, randomization) on ``--full-trials`` of them.

    python benchmarks/bench_power.py [--trials 4000] [--full-trials 300] [--seed 0]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from scipy import stats

from scorers import detectable_change, paired_test

SD = 0.3
SIZES = (6, 10, 28, 100, 300)


def differences(design: str, delta: float, sd: float, shape: tuple[int, int], rng) -> np.ndarray:
    if design == "normal":
        return rng.normal(delta, sd, shape)
    share = 0.5  # half the items move by one level, half stay
    level = sd / np.sqrt(share)
    steps = rng.choice([-1.0, 0.0, 1.0], size=shape, p=[share / 2, 1 - share, share / 2])
    return delta + level * steps


def t_power(d: np.ndarray) -> float:
    with warnings.catch_warnings():  # a trial whose differences are all equal has no t
        warnings.simplefilter("ignore", RuntimeWarning)
        p = stats.ttest_rel(d, np.zeros_like(d), axis=1).pvalue
    return float(np.mean(p < 0.05))


def full_power(d: np.ndarray, resamples: int) -> tuple[float, float, float]:
    found = np.zeros(3)
    for i, row in enumerate(d):
        test = paired_test(np.zeros_like(row), row, resamples=resamples, seed=i)
        ps = (test.p_t, test.p_bootstrap, test.p_permutation)  # p_t None: no spread
        found += [p is not None and p < 0.05 for p in ps]
    return tuple(found / len(d))  # type: ignore[return-value]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=4000)
    parser.add_argument("--full-trials", type=int, default=300)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    print(
        "| design | n | stated detectable | found by t (all trials) | t | bootstrap | "
        "randomization |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for design in ("normal", "3-level", "stated", "null (3-level)"):
        for n in SIZES:
            shape = (args.trials, n)
            if design.startswith("null"):  # no change: how often each test says there is
                d = differences("3-level", 0.0, SD, shape, rng)
                shown = "0 (true change)"
            elif design == "stated":  # each trial's change: what its own pilot set states
                pilots = differences("3-level", 0.0, SD, shape, rng)
                delta = detectable_change(1.0, n) * pilots.std(axis=1, ddof=1)[:, None]
                d = differences("3-level", 0.0, SD, shape, rng) + delta
                shown = f"{float(delta.mean()):.4f} (mean)"
            else:
                delta = detectable_change(SD, n)
                d = differences(design, delta, SD, shape, rng)
                shown = f"{delta:.4f}"
            found = t_power(d)
            t, boot, perm = full_power(d[: args.full_trials], args.resamples)
            print(f"| {design} | {n} | {shown} | {found:.3f} | {t:.3f} | {boot:.3f} | {perm:.3f} |")
    print(
        f"\n{args.trials:,} trials per row (t), {args.full_trials} through paired_test with "
        f"{args.resamples:,} resamples; sd {SD}; seed {args.seed}; "
        f"{time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
