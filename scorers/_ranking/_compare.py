"""Two evaluations of the same qrels compared query by query: paired tests per metric."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, Field

from .._errors import ConfigError
from .._significance import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    PairedTest,
    adjust_family,
    paired_test,
)
from ._evaluate import RankingEvaluation


class RankingComparison(BaseModel):
    """What `compare_rankings` returns.

    Attributes:
        metrics: Per metric, the paired tests (`PairedTest`), Holm-adjusted across the
            metrics.
        n_compared: Queries evaluated in both runs (the pairs).
        only_in_baseline: Queries only the baseline evaluation has.
        only_in_candidate: Queries only the candidate evaluation has.
        resamples: Resamples of the randomization test and of the bootstrap.
        seed: Their random seed.
    """

    metrics: dict[str, PairedTest]
    n_compared: int
    only_in_baseline: list[str] = Field(default_factory=list)
    only_in_candidate: list[str] = Field(default_factory=list)
    resamples: int
    seed: int

    def table(self) -> str:
        """The comparison as a table (Holm-adjusted p-values)."""
        return significance_table(self.metrics, self.n_compared, self.resamples, self.seed)


def significance_table(
    tests: Mapping[str, PairedTest], n_compared: int, resamples: int, seed: int
) -> str:
    """A table of paired tests: means, delta with its 95% CI, Holm-adjusted p-values."""

    def fmt(value: float | None, spec: str) -> str:
        return "-" if value is None else format(value, spec)

    width = max([len("metric"), *(len(m) for m in tests)])
    lines = [
        f"{'metric':<{width}}  {'baseline':>8}  {'candidate':>9}  {'delta':>7}  "
        f"{'95% CI':<19}  {'p(t)':>7}  {'p(perm)':>7}  {'p(boot)':>7}"
    ]
    for name, t in tests.items():
        ci = "-" if t.ci_low is None else f"[{t.ci_low:+.3f}, {t.ci_high:+.3f}]"
        lines.append(
            f"{name:<{width}}  {fmt(t.baseline_mean, '.4f'):>8}  "
            f"{fmt(t.candidate_mean, '.4f'):>9}  {fmt(t.delta, '+.4f'):>7}  {ci:<19}  "
            f"{fmt(t.p_t_holm, '.4f'):>7}  {fmt(t.p_permutation_holm, '.4f'):>7}  "
            f"{fmt(t.p_bootstrap_holm, '.4f'):>7}"
        )
    lines.append("")
    lines.append(
        f"{n_compared} paired; p-values two-sided, Holm-Bonferroni adjusted across the "
        f"{len(tests)} metrics; randomization and bootstrap: {resamples:,} resamples, seed {seed}"
    )
    return "\n".join(lines)


def compare_rankings(
    baseline: RankingEvaluation,
    candidate: RankingEvaluation,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> RankingComparison:
    """Paired significance tests between two `evaluate_ranking` results, per metric.

    Queries evaluated by both are paired; metrics both evaluated are compared. Each metric
    gets the paired t-test (equal to ``scipy.stats.ttest_rel``), a sign-flip
    randomization test and a paired bootstrap (``resamples`` each, fixed ``seed``), and
    the p-values are Holm–Bonferroni adjusted across the metrics.

    Raises:
        ConfigError: If the two share no metric.
    """
    metrics = [m for m in baseline.metrics if m in candidate.metrics]
    if not metrics:
        raise ConfigError(
            f"the evaluations share no metric ({baseline.metrics} vs {candidate.metrics})"
        )
    common = [q for q in baseline.per_query if q in candidate.per_query]
    tests = {}
    for metric in metrics:
        a = [baseline.per_query[q][metric] for q in common]
        b = [candidate.per_query[q][metric] for q in common]
        tests[metric] = paired_test(a, b, resamples=resamples, seed=seed)
    adjust_family(list(tests.values()))
    return RankingComparison(
        metrics=tests,
        n_compared=len(common),
        only_in_baseline=[q for q in baseline.per_query if q not in candidate.per_query],
        only_in_candidate=[q for q in candidate.per_query if q not in baseline.per_query],
        resamples=resamples,
        seed=seed,
    )
