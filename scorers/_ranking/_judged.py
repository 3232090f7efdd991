"""trec_eval's measures beyond the rank cutoffs: counts, set measures, bpref, infAP,
interpolated precision and gm_map, over a `RankedBatch`, all queries at once.

A ranked document the qrels do not judge has the grade -1 in the batch (trec_eval's "not
in the pool"), one with a negative qrels grade -2 ("in the pool, unjudged", what infAP
counts); bpref and infAP look only at judged documents, every other measure counts an
unjudged one as non-relevant, as trec_eval does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
else:
    from .._lazy import np

RankedBatch = Any  # the kernel's batch (this module is imported by the kernel)

MIN_GEO_MEAN = 0.00001
"""trec_eval's floor of a query's value in a geometric mean."""
INFAP_EPSILON = 0.00001

COUNTS = frozenset({"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"})
"""Measures whose value over all queries is their sum, not their mean."""

JUDGED_ONLY = frozenset({"bpref", "infAP", "num_nonrel_judged_ret"})
"""Measures that tell judged non-relevant documents from unjudged ones."""

IPREC_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
KINDS = frozenset(
    {
        *COUNTS,
        "gm_map",
        "bpref",
        "infAP",
        "iprec_at_recall",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
    }
)


def _ratio(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    out = np.zeros(len(top))
    np.divide(top, bottom, out=out, where=bottom > 0)
    return out


def values(batch: RankedBatch, kind: str, level: float | None = None) -> np.ndarray:
    """The value of one of `KINDS` (but ``gm_map``, the kernel's) for every query."""
    num_ret = np.diff(batch.offsets).astype(np.float64)
    num_rel = batch.num_rel.astype(np.float64)
    rel_ret = batch._relevant_in_top(len(batch.grades) + 1)  # every ranked document
    if kind == "num_ret":
        return num_ret
    if kind == "num_rel":
        return num_rel
    if kind == "num_rel_ret":
        return rel_ret
    if kind == "num_nonrel_judged_ret":
        return batch._per_query(_judged_nonrel(batch).astype(np.float64))
    if kind == "set_P":
        return _ratio(rel_ret, num_ret)
    if kind == "set_recall":
        return _ratio(rel_ret, num_rel)
    if kind == "set_relative_P":
        return _ratio(rel_ret, np.minimum(num_ret, num_rel))
    if kind == "set_map":
        return _ratio(rel_ret * rel_ret, num_ret * num_rel)
    if kind == "set_F":
        precision, recall = _ratio(rel_ret, num_ret), _ratio(rel_ret, num_rel)
        out = np.zeros(len(rel_ret))
        both = rel_ret > 0
        out[both] = 2.0 * precision[both] * recall[both] / (precision[both] + recall[both])
        return out
    if kind == "bpref":
        return _bpref(batch)
    if kind == "infAP":
        return _inf_ap(batch)
    if kind == "iprec_at_recall":
        assert level is not None
        return _iprec(batch, level)
    raise AssertionError(kind)  # pragma: no cover


def _judged_nonrel(batch: RankedBatch) -> np.ndarray:
    grades = batch.grades
    return (grades >= 0) & (grades < batch.relevance_level)


def _judged_before(batch: RankedBatch, mask: np.ndarray) -> np.ndarray:
    """For every ranked position, how many positions above it (same query) are in
    ``mask``."""
    running = np.cumsum(mask, dtype=np.int64)
    before_query = np.concatenate(([0], running))[batch.offsets[:-1]]
    return running - mask - before_query[batch.query]


def _bpref(batch: RankedBatch) -> np.ndarray:
    nonrel = _judged_nonrel(batch)
    above = _judged_before(batch, nonrel)
    relevant = batch.relevant
    query = batch.query[relevant]
    num_rel = batch.num_rel[query]
    bound = np.minimum(batch.num_nonrel[query], num_rel).astype(np.float64)
    seen = np.minimum(above[relevant], num_rel).astype(np.float64)
    terms = np.ones(len(query))
    some = above[relevant] > 0
    terms[some] = 1.0 - seen[some] / bound[some]
    total = np.bincount(query, weights=terms, minlength=batch.n_queries)
    return batch._over_num_rel(total)


def _inf_ap(batch: RankedBatch) -> np.ndarray:
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
    return batch._over_num_rel(total)


def _precision_at_relevant(batch: RankedBatch) -> tuple[np.ndarray, np.ndarray]:
    """The precision at each retrieved relevant document, query after query (with a
    trailing 0), and the CSR offsets of each query's run of them (cached)."""
    if "iprec" not in batch._cache:
        positions = np.flatnonzero(batch.relevant)
        precision = batch.hits[positions] / (batch.rank0[positions] + 1.0)
        counts = np.bincount(batch.query[positions], minlength=batch.n_queries)
        starts = np.zeros(batch.n_queries + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        batch._cache["iprec"] = np.append(precision, 0.0)
        batch._cache["iprec_starts"] = starts
    return batch._cache["iprec"], batch._cache["iprec_starts"]


def _iprec(batch: RankedBatch, level: float) -> np.ndarray:
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
