"""Two evaluations of the same qrels compared query by query: paired tests per metric."""

from __future__ import annotations

from pydantic import BaseModel, Field

from .._errors import ConfigError
from .._significance import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    PairedTest,
    adjust_family,
    paired_table,
    paired_test,
)
from ._evaluate import RankingEvaluation
from ._kernel import parse_metric
from ._measures import MEASURES


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
        """The comparison as a table: per metric the change, each method's 95% interval
        beside its own p-value, the smallest detectable change; then the Holm-adjusted
        p-values (see `scorers.paired_table`)."""
        table = paired_table(self.metrics, resamples=self.resamples, seed=self.seed)
        return f"{self.n_compared} queries paired\n{table}"


def difference_bounds(metric: str) -> tuple[float, float] | None:
    """The range a change of ``metric`` can have: ``±(high - low)`` for a measure whose
    per-query values lie in ``[low, high]`` (its table entry's ``bounds``: ``(-1, 1)`` for
    precision, recall, nDCG, AP, RR, bpref, ...), None for counts, gains and the log
    values of ``gm_map``."""
    try:
        kind = parse_metric(metric).kind
    except ConfigError:
        return None
    bounds = MEASURES[kind].bounds
    return None if bounds is None else (bounds[0] - bounds[1], bounds[1] - bounds[0])


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
    randomization test and a paired bootstrap (``resamples`` each, fixed ``seed``), each
    interval the dual of its p-value (`scorers.paired_test`), the t interval cut to the
    range a change of the metric can have (``[-1, 1]`` for measures in ``[0, 1]``), and
    the p-values are Holm–Bonferroni adjusted across the metrics. Below
    `scorers.MIN_PAIRED` queries no test is made (``note`` says so).

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
        bounds = difference_bounds(metric)
        tests[metric] = paired_test(a, b, resamples=resamples, seed=seed, bounds=bounds)
    adjust_family(list(tests.values()))
    return RankingComparison(
        metrics=tests,
        n_compared=len(common),
        only_in_baseline=[q for q in baseline.per_query if q not in candidate.per_query],
        only_in_candidate=[q for q in candidate.per_query if q not in baseline.per_query],
        resamples=resamples,
        seed=seed,
    )
