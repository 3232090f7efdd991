"""trec_eval's core measures on a `RankedBatch`, all queries at once: precision, recall
and success at k, average precision (whole and cut), reciprocal rank, R-precision, nDCG
(whole and cut) and gm_map; plus the lines ``scorekit trec`` prints itself (``runid``,
``num_q``, ``relstring``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._experimental import CUTOFFS, ndcg_with_gains
from ._judged import MIN_GEO_MEAN, OFFICIAL, SET
from ._ranked import OWN, Measure, Metric, RankedBatch, own

if TYPE_CHECKING:
    import numpy as np
else:
    from .._lazy import np

_PRINTED = {"per_item": False, "bounds": None}
OWN.extend(
    (
        Measure("runid", None, sets=OFFICIAL | SET, **_PRINTED),  # type: ignore[arg-type]
        Measure("num_q", None, sets=OFFICIAL | SET, **_PRINTED),  # type: ignore[arg-type]
        Measure("relstring", None, params=True, **_PRINTED),  # type: ignore[arg-type]
    )
)


@own("P", cutoffs=CUTOFFS, sets=OFFICIAL)
def precision(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """Relevant documents among the top k, over k."""
    assert metric.k is not None
    return batch.relevant_in_top(metric.k) / metric.k


@own("recall", cutoffs=CUTOFFS)
def recall(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """Relevant documents among the top k, over all relevant ones."""
    assert metric.k is not None
    return batch.over_num_rel(batch.relevant_in_top(metric.k))


@own("success", cutoffs=("1", "5", "10"))
def success(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """1 when a relevant document is among the top k."""
    assert metric.k is not None
    return (batch.relevant_in_top(metric.k) > 0).astype(np.float64)


def average_precision(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """The mean of the precision at each relevant document (down to k if cut)."""
    k = metric.k
    if k is None and "map" in batch.memo:
        return batch.memo["map"]
    precision = batch.hits / (batch.rank0 + 1.0)
    mask = batch.relevant if k is None else batch.relevant & (batch.rank0 < k)
    found = batch.over_num_rel(batch.per_query(precision, mask))
    if k is None:
        batch.memo["map"] = found
    return found


own("map", sets=OFFICIAL)(average_precision)
own("map_cut", cutoffs=CUTOFFS)(average_precision)


@own("gm_map", mean="geometric", per_item=False, bounds=None, sets=OFFICIAL)
def log_average_precision(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """The log of average precision (floored), for its geometric mean."""
    plain = average_precision(batch, Metric("map", "map"))
    return np.log(np.maximum(plain, MIN_GEO_MEAN))  # type: ignore[no-any-return]


@own("Rprec", sets=OFFICIAL)
def r_precision(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """Precision at R, the number of relevant documents."""
    return batch.over_num_rel(batch.relevant_in_top(batch.num_rel))


@own("recip_rank", sets=OFFICIAL)
def reciprocal_rank(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """One over the rank of the first relevant document."""
    out = np.zeros(batch.n_queries)
    positions = np.flatnonzero(batch.relevant)
    queries, first = np.unique(batch.query[positions], return_index=True)
    out[queries] = 1.0 / (batch.rank0[positions[first]] + 1.0)
    return out


def ndcg(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """Normalised discounted cumulative gain (down to k if cut; gains per level if set)."""
    if metric.params:  # trec_eval's gain levels given: the gain measures' walk
        return ndcg_with_gains(batch, metric)
    dcg = batch.dcg(batch.rank0, batch.grades, batch.query, metric.k)
    ideal_query, ideal_rank0 = batch.ideal_positions()
    idcg = batch.dcg(ideal_rank0, batch.ideal_gains, ideal_query, metric.k)
    out = np.zeros(batch.n_queries)
    np.divide(dcg, idcg, out=out, where=idcg > 0)
    return out


own("ndcg", params=True)(ndcg)
own("ndcg_cut", cutoffs=CUTOFFS)(ndcg)
