"""Vectorised ranking metrics with trec_eval's exact semantics, for many queries at once.

Queries are laid out as CSR arrays: the judged grade of every ranked document, query
after query, in rank order, plus each query's offsets. Each metric is a few numpy passes
over those arrays; sums run in rank order, as trec_eval's loops do, so values equal
trec_eval's to the last bit. The per-item ranking scorers call the same kernel with one
query.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from .._errors import ConfigError
from ._measures import MEASURES, measure_of

if TYPE_CHECKING:
    import numpy as np
else:
    from .._lazy import np


NONPOOL = -1.0
"""The grade of a ranked document the qrels do not judge (trec_eval's "not in the pool")."""


@dataclass(frozen=True)
class Metric:
    """A parsed metric name.

    Attributes:
        name: The name as given (``"ndcg@10"`` or ``"ndcg_cut_10"``); results use it.
        kind: The trec_eval measure: a name of the table (`_measures.MEASURES`).
        k: The cutoff, for the ``*_k`` measures.
        level: The recall level, for ``iprec_at_recall`` and ``Rprec_mult``.
        params: trec_eval's parameters of the measures that take some (``ndcg.1=3,2=9``,
            ``rbp.p=0.8``, ``utility.1,-1,0,0``, ``11pt_avg.0.2,0.5``) as the text after
            the dot; empty for the defaults.
    """

    name: str
    kind: str
    k: int | None = None
    level: float | None = None
    params: str = ""


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


@dataclass
class RankedBatch:
    """Ranked, judged documents of many queries as CSR arrays.

    Attributes:
        offsets: ``offsets[q]:offsets[q + 1]`` are query q's ranked positions.
        grades: The qrels grade of each ranked document: -1 when the qrels do not
            judge it, -2 when they give it a negative grade (in the pool, unjudged).
        num_rel: Relevant documents per query in the qrels (retrieved or not).
        ideal_offsets: CSR offsets of ``ideal_gains``.
        ideal_gains: Each query's positive qrels grades, largest first.
        relevance_level: A document is relevant when its grade is at least this.
        num_nonrel: Judged non-relevant documents per query in the qrels (bpref).
        judged_offsets: CSR offsets of ``judged_grades``.
        judged_grades: Every qrels grade of each query (the gain measures' levels).
        missing: Judged queries the run does not rank (trec_eval ``-c``), ranked as
            trec_eval ranks them: one document nobody judged (`_batch.STAND_IN`).
        collection_size: Documents in the collection (trec_eval ``-N``, for utility).
    """

    offsets: np.ndarray
    grades: np.ndarray
    num_rel: np.ndarray
    ideal_offsets: np.ndarray
    ideal_gains: np.ndarray
    relevance_level: float = 1.0
    num_nonrel: np.ndarray | None = None
    judged_offsets: np.ndarray | None = None
    judged_grades: np.ndarray | None = None
    missing: np.ndarray | None = None
    collection_size: int = 0
    _cache: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    @property
    def n_queries(self) -> int:
        """How many queries the batch holds."""
        return len(self.num_rel)

    @cached_property
    def query(self) -> np.ndarray:
        """The query index of every ranked position."""
        return np.repeat(np.arange(self.n_queries), np.diff(self.offsets))

    @cached_property
    def rank0(self) -> np.ndarray:
        """The 0-based rank of every ranked position within its query."""
        return np.arange(len(self.grades)) - self.offsets[:-1][self.query]

    @cached_property
    def relevant(self) -> np.ndarray:
        """Whether each ranked document is relevant."""
        return self.grades >= self.relevance_level

    @cached_property
    def hits(self) -> np.ndarray:
        """Relevant documents at or above each ranked position, within its query."""
        running = np.cumsum(self.relevant, dtype=np.int64)
        before = np.concatenate(([0], running))[self.offsets[:-1]]
        return running - before[self.query]

    def _per_query(self, weights: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        query = self.query
        if mask is not None:
            query, weights = query[mask], weights[mask]
        return np.bincount(query, weights=weights, minlength=self.n_queries).astype(np.float64)

    def _over_num_rel(self, values: np.ndarray) -> np.ndarray:
        num_rel = self.num_rel
        out = np.zeros(self.n_queries)
        np.divide(values, num_rel, out=out, where=num_rel > 0)
        return out

    def _relevant_in_top(self, k: np.ndarray | int) -> np.ndarray:
        """Relevant documents among each query's top ``k``: the running count at its
        ``min(k, ranked)``-th position (one lookup per query)."""
        ranked = np.diff(self.offsets)
        depth = np.minimum(ranked, k)
        out = np.zeros(self.n_queries)
        some = depth > 0
        out[some] = self.hits[self.offsets[:-1][some] + depth[some] - 1]
        return out

    def _dcg(
        self, rank0: np.ndarray, gains: np.ndarray, query: np.ndarray, k: int | None
    ) -> np.ndarray:
        keep = gains > 0
        if k is not None:
            keep &= rank0 < k
        terms = gains[keep] / np.log2(rank0[keep] + 2.0)
        return np.bincount(query[keep], weights=terms, minlength=self.n_queries)

    def _ideal(self) -> tuple[np.ndarray, np.ndarray]:
        if "ideal" not in self._cache:
            lengths = np.diff(self.ideal_offsets)
            query = np.repeat(np.arange(self.n_queries), lengths)
            rank0 = np.arange(len(self.ideal_gains)) - self.ideal_offsets[:-1][query]
            self._cache["ideal"] = query
            self._cache["ideal_rank0"] = rank0
        return self._cache["ideal"], self._cache["ideal_rank0"]

    def values(self, metric: Metric) -> np.ndarray:
        """The metric's value for every query, as trec_eval computes it (the table's
        entry of its measure, `_measures.MEASURES`)."""
        measure = measure_of(metric.kind)
        assert measure.compute is not None
        values = measure.compute(self, metric)
        if measure.zero_without_ranking and self.missing is not None and self.missing.any():
            values = np.where(self.missing, 0.0, values)
        return values


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
