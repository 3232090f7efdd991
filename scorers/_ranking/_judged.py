"""trec_eval's measures beyond the rank cutoffs: counts, set measures, bpref, infAP,
interpolated precision, over a `RankedBatch`, all queries at once.

A ranked document the qrels do not judge has the grade -1 in the batch (trec_eval's "not
in the pool"), one with a negative qrels grade -2 ("in the pool, unjudged", what infAP
counts); bpref and infAP look only at judged documents, every other measure counts an
unjudged one as non-relevant, as trec_eval does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._ranked import Metric, RankedBatch, own

if TYPE_CHECKING:
    import numpy as np
else:
    from .._lazy import np

MIN_GEO_MEAN = 0.00001
"""trec_eval's floor of a query's value in a geometric mean."""
INFAP_EPSILON = 0.00001
LEVELS = ("0.0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1.0")
OFFICIAL = frozenset({"official", "all_trec"})
SET = frozenset({"set", "all_trec"})
EVERY = frozenset({"official", "set", "all_trec"})
COUNT: dict[str, Any] = {"mean": "sum", "per_item": False, "bounds": None}


def _ratio(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    out = np.zeros(len(top))
    np.divide(top, bottom, out=out, where=bottom > 0)
    return out


def _retrieved(batch: RankedBatch) -> np.ndarray:
    return np.diff(batch.offsets).astype(np.float64)


def _relevant_retrieved(batch: RankedBatch) -> np.ndarray:
    return batch.relevant_in_top(len(batch.grades) + 1)  # every ranked document


@own("num_ret", sets=EVERY, zero_without_ranking=True, **COUNT)
def num_ret(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """Documents retrieved."""
    return _retrieved(batch)


@own("num_rel", sets=EVERY, positive_judgements_with_c=True, **COUNT)
def num_rel(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """Relevant documents in the qrels."""
    return batch.num_rel.astype(np.float64)


@own("num_rel_ret", sets=EVERY, **COUNT)
def num_rel_ret(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """Relevant documents retrieved."""
    return _relevant_retrieved(batch)


@own("num_nonrel_judged_ret", judged_only=True, **COUNT)
def num_nonrel_judged_ret(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """Judged non-relevant documents retrieved."""
    return batch.per_query(_judged_nonrel(batch).astype(np.float64))


@own("set_P", sets=SET)
def set_precision(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """Relevant retrieved over retrieved."""
    return _ratio(_relevant_retrieved(batch), _retrieved(batch))


@own("set_recall", sets=SET)
def set_recall(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """Relevant retrieved over relevant."""
    return _ratio(_relevant_retrieved(batch), batch.num_rel.astype(np.float64))


@own("set_relative_P", sets=SET)
def set_relative_precision(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """Relevant retrieved over the smaller of retrieved and relevant."""
    bottom = np.minimum(_retrieved(batch), batch.num_rel.astype(np.float64))
    return _ratio(_relevant_retrieved(batch), bottom)


@own("set_map", sets=SET)
def set_map(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """Set precision times set recall."""
    rel_ret = _relevant_retrieved(batch)
    return _ratio(rel_ret * rel_ret, _retrieved(batch) * batch.num_rel.astype(np.float64))


@own("set_F", sets=SET)
def set_f(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """The harmonic mean of set precision and set recall."""
    precision, recall = set_precision(batch, metric), set_recall(batch, metric)
    out = np.zeros(batch.n_queries)
    both = _relevant_retrieved(batch) > 0
    out[both] = 2.0 * precision[both] * recall[both] / (precision[both] + recall[both])
    return out


def _judged_nonrel(batch: RankedBatch) -> np.ndarray:
    grades = batch.grades
    return (grades >= 0) & (grades < batch.relevance_level)


def _judged_before(batch: RankedBatch, mask: np.ndarray) -> np.ndarray:
    """For every ranked position, how many positions above it (same query) are in
    ``mask``."""
    running = np.cumsum(mask, dtype=np.int64)
    before_query = np.concatenate(([0], running))[batch.offsets[:-1]]
    return running - mask - before_query[batch.query]


@own("bpref", judged_only=True, sets=OFFICIAL)
def bpref(batch: RankedBatch, metric: Metric | None = None) -> np.ndarray:
    """Binary preference: judged non-relevant documents above each relevant one."""
    nonrel = _judged_nonrel(batch)
    above = _judged_before(batch, nonrel)
    relevant = batch.relevant
    query = batch.query[relevant]
    num_rel = batch.num_rel[query]
    assert batch.num_nonrel is not None
    bound = np.minimum(batch.num_nonrel[query], num_rel).astype(np.float64)
    seen = np.minimum(above[relevant], num_rel).astype(np.float64)
    terms = np.ones(len(query))
    some = above[relevant] > 0
    terms[some] = 1.0 - seen[some] / bound[some]
    total = np.bincount(query, weights=terms, minlength=batch.n_queries)
    return batch.over_num_rel(total)


@own("infAP", judged_only=True)
def inferred_ap(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """Inferred average precision (pooled, sampled judgements)."""
    grades = batch.grades
    relevant = batch.relevant
    nonrel = _judged_before(batch, _judged_nonrel(batch))[relevant].astype(np.float64)
    unjudged = _judged_before(batch, grades == -2)[relevant].astype(np.float64)
    rel_above = batch.hits[relevant].astype(np.float64) - 1.0
    j = batch.rank0[relevant].astype(np.float64)
    terms = np.ones(len(j))
    deeper = j > 0
    fj, r, n, u = j[deeper], rel_above[deeper], nonrel[deeper], unjudged[deeper]
    terms[deeper] = 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((r + n + u) / fj) * (
        (r + INFAP_EPSILON) / (r + n + 2 * INFAP_EPSILON)
    )
    total = np.bincount(batch.query[relevant], weights=terms, minlength=batch.n_queries)
    return batch.over_num_rel(total)


def _precision_at_relevant(batch: RankedBatch) -> tuple[np.ndarray, np.ndarray]:
    """The precision at each retrieved relevant document, query after query (with a
    trailing 0), and the CSR offsets of each query's run of them (cached)."""
    if "iprec" not in batch.memo:
        positions = np.flatnonzero(batch.relevant)
        precision = batch.hits[positions] / (batch.rank0[positions] + 1.0)
        counts = np.bincount(batch.query[positions], minlength=batch.n_queries)
        starts = np.zeros(batch.n_queries + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        batch.memo["iprec"] = np.append(precision, 0.0)
        batch.memo["iprec_starts"] = starts
    return batch.memo["iprec"], batch.memo["iprec_starts"]


@own("iprec_at_recall", cutoffs=LEVELS, fraction=True, max_cutoff=1.0, sets=OFFICIAL)
def iprec_at_recall(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """Interpolated precision at the recall level ``metric.level``."""
    assert metric.level is not None
    return interpolated_precision(batch, metric.level)


def interpolated_precision(batch: RankedBatch, level: float) -> np.ndarray:
    """Interpolated precision at a recall level: the best precision at or below the
    rank where the ``round(level * num_rel)``-th relevant document is retrieved
    (trec_eval 10's cutoff, rounding half away from zero); 0 when fewer are retrieved.
    One ``maximum.reduceat`` over each query's tail of relevant documents."""
    precision, starts = _precision_at_relevant(batch)
    found = np.diff(starts)
    needed = np.floor(level * batch.num_rel.astype(np.float64) + 0.5).astype(np.int64)
    valid = (found > 0) & (needed <= found)
    first = starts[:-1][valid] + np.maximum(needed[valid] - 1, 0)
    bounds = np.empty(2 * len(first), dtype=np.int64)
    bounds[0::2], bounds[1::2] = first, starts[1:][valid]
    out = np.zeros(batch.n_queries)
    if len(first):
        out[valid] = np.maximum.reduceat(precision, bounds)[0::2]
    # trec_eval divides 0 retrieved relevant by 0 retrieved at recall 0: NaN
    out[(np.diff(batch.offsets) == 0) & (needed == 0)] = np.nan
    return out
