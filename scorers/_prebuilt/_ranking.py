"""Ranking math: average precision and the trec_eval metrics, on ranked relevance."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

from .._errors import ConfigError
from .._lazy import np
from .._ranking._batch import NOT_JUDGED, pool_grades
from .._ranking._kernel import parse_metric, single_query_batch
from .._ranking._measures import MEASURES


def precision_sum(relevant: Iterable[bool]) -> tuple[float, int]:
    """``(Σ_k P@k·v_k, Σ_k v_k)`` over a ranked relevance list: the two halves of every
    average-precision variant (native, trec_eval's ``map``, Ragas')."""
    hits = 0
    total = 0.0
    for rank, is_relevant in enumerate(relevant, start=1):
        if is_relevant:
            hits += 1
            total += hits / rank
    return total, hits


def average_precision(relevant: Sequence[bool]) -> float:
    """``Σ_k P@k·v_k / Σ_k v_k`` over a ranked relevance list; 0 when nothing is relevant.

    Example: ``[True, False, True]`` gives ``(1 + 2/3) / 2``.
    """
    total, hits = precision_sum(relevant)
    return total / hits if hits else 0.0


ANY_POSITIVE = math.nextafter(0.0, 1.0)
"""The relevance level of the ranking scorers: any grade > 0 is relevant."""

RANKING_METRICS = (
    "precision@k",
    "recall@k",
    "hit_rate@k",
    "ndcg@k",
    "ndcg",
    "mrr",
    "map",
    "map@k",
    "r_precision",
)


def ranking_metric(metric: str) -> Callable[[list[str], dict[str, float]], float]:
    """The function ``(ranked ids, grades) -> value`` for a metric name like ``"ndcg@10"``
    (trec_eval names such as ``"ndcg_cut_10"`` too), computed by the same kernel as
    `scorers.evaluate_ranking`, one query at a time. A grade > 0 is relevant.

    Raises:
        ConfigError: For an unknown name or a cutoff below 1.
    """
    parsed = parse_metric(metric)
    measure = MEASURES[parsed.kind]
    if not measure.per_item:
        what = {"geometric": "a run-level aggregate", "sum": "a count"}.get(
            measure.mean, "unbounded"
        )
        raise ConfigError(
            f"{metric!r} is {what}, not a per-item score in [0, 1]: compute it over the whole "
            "run with scorers.evaluate_ranking(qrels, run, [...]) or `scorekit trec`"
        )

    def value(ranked: list[str], grades: dict[str, float]) -> float:
        ranked_grades = pool_grades(np.array([grades.get(doc, NOT_JUDGED) for doc in ranked]))
        batch = single_query_batch(ranked_grades, list(grades.values()), ANY_POSITIVE)
        return float(batch.values(parsed)[0])

    return value
