"""Metric names, scorekit's and trec_eval's, parsed into a `Metric` of the measures'
table; and the batch of one query the per-item ranking scorers compute on (the same
measures as `evaluate_ranking`, on one query).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._errors import ConfigError
from ._measures import MEASURES
from ._ranked import NONPOOL, Metric, RankedBatch

__all__ = ["NONPOOL", "Metric", "RankedBatch", "metric_names", "parse_metric", "single_query_batch"]

if TYPE_CHECKING:
    import numpy as np
else:
    from .._lazy import np


_FIXED = {
    "mrr": "recip_rank",
    "recip_rank": "recip_rank",
    "map": "map",
    "r_precision": "Rprec",
    "Rprec": "Rprec",
    "ndcg": "ndcg",
}
_CUT_SCOREKIT = {
    "precision": "P",
    "recall": "recall",
    "hit_rate": "success",
    "ndcg": "ndcg_cut",
    "map": "map_cut",
}
SCOREKIT_NAMES = (
    *("precision@k", "recall@k", "hit_rate@k", "ndcg@k", "ndcg", "map", "map@k"),
    *("mrr", "r_precision"),
)
"""scorekit's own names of trec_eval measures (``@k``: any cutoff)."""


def metric_names() -> tuple[str, ...]:
    """Every name a metric may be given by: scorekit's, then each measure of the table
    (``_k``: a rank cutoff, ``_L``: a recall level)."""
    MEASURES.load()
    trec = [
        f"{name}_{'L' if m.fraction else 'k'}" if m.cutoffs else name
        for name, m in MEASURES.items()
        if m.compute is not None
    ]
    return (*SCOREKIT_NAMES, *trec)


def parse_metric(name: str) -> Metric:
    """Parse a scorekit (``ndcg@10``) or trec_eval (``ndcg_cut_10``, ``P.10``) name.

    Raises:
        ConfigError: For an unknown name or a cutoff below 1.
    """
    MEASURES.load()
    if not isinstance(name, str):
        raise ConfigError(f"a metric name must be a string, got {type(name).__name__}")
    if name in _FIXED:
        return Metric(name, _FIXED[name])
    plain = MEASURES.get(name)
    if plain is not None and plain.compute is not None and not plain.cutoffs:
        return Metric(name, name)
    fractions = "|".join(n for n, m in MEASURES.items() if m.fraction and m.compute)
    level = re.fullmatch(rf"({fractions})[_.](\d+(?:\.\d*)?|\.\d+)", name)
    if level is not None:
        most = MEASURES[level.group(1)].max_cutoff
        if most is None or float(level.group(2)) <= most:
            return Metric(name, level.group(1), level=float(level.group(2)))
    params = sorted((n for n, m in MEASURES.items() if m.params and m.compute), key=len)
    with_params = re.fullmatch(rf"({'|'.join(params[::-1])})_(.+)", name)
    if with_params is not None and not name.startswith("ndcg_cut"):
        return Metric(name, with_params.group(1), params=with_params.group(2))
    match = re.fullmatch(r"(precision|recall|hit_rate|ndcg|map)@(\d+)", name)
    kind = _CUT_SCOREKIT.get(match.group(1)) if match else None
    if match is None:
        cut_kinds = "|".join(
            n for n, m in MEASURES.items() if m.cutoffs and not m.fraction and m.compute
        )
        match = re.fullmatch(rf"({cut_kinds})[_.](\d+)", name)
        kind = match.group(1) if match else None
    if match is None or kind is None or int(match.group(2)) < 1:
        raise ConfigError(
            f"unknown ranking metric {name!r}; use one of {', '.join(metric_names())} "
            "with k a positive integer and L a recall level, e.g. 'ndcg@10', 'ndcg_cut_10' "
            "or 'iprec_at_recall_0.10'"
        )
    return Metric(name, kind, int(match.group(2)))


def single_query_batch(
    ranked_grades: Sequence[float] | np.ndarray,
    judged_grades: Sequence[float],
    relevance_level: float,
) -> RankedBatch:
    """A batch of one query: the grades of its ranked documents (-1 for a document not
    judged) and all its judgements. An empty ranking is read as trec_eval ``-c`` reads a
    query the run does not rank (its stand-in document, then 0 where ``-c`` resets)."""
    grades = np.asarray(ranked_grades, dtype=np.float64)
    unranked = not len(grades)
    if unranked:
        grades = np.array([NONPOOL])
    judged = np.asarray(judged_grades, dtype=np.float64)
    ideal = -np.sort(-judged[judged > 0])
    return RankedBatch(
        offsets=np.array([0, len(grades)]),
        grades=grades,
        num_rel=np.array([int(np.count_nonzero(judged >= max(relevance_level, 0)))]),
        ideal_offsets=np.array([0, len(ideal)]),
        ideal_gains=ideal,
        relevance_level=relevance_level,
        num_nonrel=np.array([np.count_nonzero((judged >= 0) & (judged < relevance_level))]),
        judged_offsets=np.array([0, len(judged)]),
        judged_grades=judged,
        missing=np.array([unranked]),
    )
