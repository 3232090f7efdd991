"""The rest of trec_eval's ``all_trec``: its parameterised and experimental measures.

``Rprec_mult``, ``relative_P``, ``unj``, ``utility``, ``11pt_avg``, ``binG``,
``gm_bpref`` and ``rbp_resid`` are a few numpy passes over a `RankedBatch`, like the
kernel's. The gain measures (``ndcg``/``dcg``/``ideal_dcg`` with gains set per level,
``G``, ``ndcg_rel``, ``Rndcg``, ``rbp``) walk each query's ranking against its ideal
ranking, one query at a time, with sums in rank order as trec_eval's loops keep them.

Gains follow trec_eval: a judged grade's gain is the grade itself unless a parameter
``level=gain`` sets it (``ndcg.1=3,2=9``); unjudged documents gain 0. The ideal ranking
lists every judged document whose gain is positive, largest gain first.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._errors import ConfigError
from ._judged import MIN_GEO_MEAN, SET, bpref, interpolated_precision
from ._ranked import Compute, Metric, RankedBatch, own

if TYPE_CHECKING:
    import numpy as np
else:
    from .._lazy import np

CUTOFFS = ("5", "10", "15", "20", "30", "100", "200", "500", "1000")
MULTIPLES = ("0.2", "0.4", "0.6", "0.8", "1.0", "1.2", "1.4", "1.6", "1.8", "2.0")
ELEVEN_LEVELS = tuple(i / 10 for i in range(11))
GainWalk = Callable[["Gains", "np.ndarray", "np.ndarray", int], float]
"""``walk(gains, ranked grades, judged grades, num_rel)``: one query's value."""


def _numbers(metric: Any, count: int | None = None) -> list[float]:
    try:
        found = [float(part) for part in metric.params.split(",") if part]
    except ValueError:
        raise ConfigError(f"{metric.name}: parameters must be numbers") from None
    if count is not None and len(found) != count:
        raise ConfigError(f"{metric.name}: give {count} numbers, e.g. utility.1,-1,0,0")
    return found


@dataclass(frozen=True)
class Gains:
    """``level=gain`` parameters and rbp's persistence ``p``."""

    levels: dict[int, float]
    p: float = 0.9

    @classmethod
    def parse(cls, metric: Any) -> Gains:
        levels: dict[int, float] = {}
        p = 0.9
        for pair in filter(None, metric.params.split(",")):
            name, equals, value = pair.partition("=")
            try:
                number = float(value)
            except ValueError:
                number = math.nan
            if not equals or math.isnan(number):
                raise ConfigError(
                    f"{metric.name}: parameters are level=gain pairs, e.g. ndcg.1=3,2=9"
                )
            if name == "p":
                p = number
            elif name.lstrip("+-").isdigit():
                levels[int(name)] = number
        return cls(levels, p)

    def of(self, grades: np.ndarray, low: float = 0.0, high: float = 1.0) -> np.ndarray:
        """The gain of each grade (unjudged documents: 0 unless set); with ``low`` and
        ``high``, a level's gain is rescaled to ``(gain - low) / (high - low)``."""
        gains = np.where(grades >= 0, grades, 0.0)
        known = grades >= 0
        for level, gain in self.levels.items():
            gains[grades == level] = gain
            known |= grades == level
        if (low, high) != (0.0, 1.0):
            gains = np.where(known, (gains - low) / (high - low), 0.0)
        return gains

    def table(self, judged: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The gain of each level a query knows and how many of its judged documents
        have it, in level order.

        trec_eval knows every level from 0 to the highest grade, and those set. A level
        between them that no document has and no parameter sets only counts through its
        gain (the level itself) as the smallest or the largest gain, so only the lowest
        and the highest such level are kept: no array as long as the highest grade.
        """
        found, counts = np.unique(judged[judged >= 0].astype(np.int64), return_counts=True)
        known = dict(zip(found.tolist(), counts.tolist(), strict=True))
        if known:
            top = max(known)
            unset = (lv for lv in range(top + 1) if lv not in self.levels)
            down = (lv for lv in range(top, -1, -1) if lv not in self.levels)
            for level in (next(unset, None), next(down, None)):
                if level is not None:
                    known.setdefault(level, 0)
        levels = sorted(set(known) | set(self.levels))
        gains = np.array([self.levels.get(lv, float(lv)) for lv in levels], dtype=np.float64)
        number = np.array([known.get(lv, 0) for lv in levels], dtype=np.int64)
        return gains, number

    def ideal(self, judged: np.ndarray) -> tuple[np.ndarray, float, float]:
        """The ideal ranking's gains, the gain after it (the best level with documents
        and a gain <= 0, else 0) and the best gain of any level."""
        gains, number = self.table(judged)
        order = np.argsort(-gains, kind="stable")
        gains, number = gains[order], number[order]
        positive = (gains > 0) & (number > 0)
        ideal = np.repeat(gains[positive], number[positive])
        rest = gains[(gains <= 0) & (number > 0)]
        return ideal, float(rest[0]) if len(rest) else 0.0, float(gains[0]) if len(gains) else 0.0


@own("gm_bpref", mean="geometric", per_item=False, bounds=None)
def log_bpref(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """The log of bpref (floored), for its geometric mean."""
    return np.log(np.maximum(bpref(batch), MIN_GEO_MEAN))  # type: ignore[no-any-return]


@own("Rprec_mult", cutoffs=MULTIPLES, fraction=True)
def rprec_mult(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """Precision at ``level`` times R."""
    assert metric.level is not None
    cut = (metric.level * batch.num_rel.astype(np.float64) + 0.9).astype(np.int64)
    found = batch.relevant_in_top(np.maximum(cut, 1))
    return np.where(cut > 0, found / np.maximum(cut, 1), 0.0)


@own("utility", params=True, per_item=False, bounds=None, sets=SET, zero_without_ranking=True)
def utility(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """A linear utility of the four set counts, ``utility.a,b,c,d``."""
    a, b, c, d = _numbers(metric, 4) if metric.params else [1.0, -1.0, 0.0, 0.0]
    rel_ret = batch.relevant_in_top(len(batch.grades) + 1)
    ret = np.diff(batch.offsets).astype(np.float64)
    rel = batch.num_rel.astype(np.float64)
    value = a * rel_ret + b * (ret - rel_ret) + c * (rel - rel_ret)
    return value + d * (batch.collection_size + rel_ret - ret - rel)  # type: ignore[no-any-return]


@own("11pt_avg", params=True)
def eleven_point_average(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """Interpolated precision averaged over recall levels (0, 0.1, ..., 1 unless given)."""
    levels = _numbers(metric) if metric.params else list(ELEVEN_LEVELS)
    if not levels:
        raise ConfigError(f"{metric.name}: give at least one recall level")
    total = np.zeros(batch.n_queries)
    for level in sorted(levels, reverse=True):  # trec_eval adds the highest first
        total += interpolated_precision(batch, level)
    return total / len(levels)


@own("binG")
def bin_g(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """Binary G: each relevant document discounted by the non-relevant ones above it."""
    relevant = batch.relevant
    terms = 1.0 / np.log2(3.0 + batch.rank0[relevant] - batch.hits[relevant])
    total = np.bincount(batch.query[relevant], weights=terms, minlength=batch.n_queries)
    return batch.over_num_rel(total)


@own("relative_P", cutoffs=CUTOFFS)
def relative_precision(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """Precision at k over the best precision at k possible."""
    assert metric.k is not None
    num_rel = batch.num_rel
    below = np.minimum(metric.k, num_rel).astype(np.float64)
    return np.where(num_rel > 0, batch.relevant_in_top(metric.k) / np.maximum(below, 1), 0.0)


@own("rbp_resid", params=True, exact_ties=True, zero_without_ranking=True)
def rbp_residual(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """rbp's residual: the weight of unjudged and unranked positions."""
    p = Gains.parse(metric).p
    weight = _powers(int(np.diff(batch.offsets).max()) if batch.n_queries else 0, p)
    unjudged = batch.grades < 0
    total = batch.per_query(weight[batch.rank0], unjudged)
    any_unjudged = np.bincount(batch.query[unjudged], minlength=batch.n_queries) > 0
    depth = np.diff(batch.offsets)
    return np.where(any_unjudged, weight[depth] + (1 - p) * total, 0.0)


@own("unj", cutoffs=("5", "10", "20"), exact_ties=True, zero_without_ranking=True)
def unjudged(batch: RankedBatch, metric: Metric) -> np.ndarray:
    """Unjudged documents among the top k, over k."""
    assert metric.k is not None
    return batch.per_query((batch.grades < 0).astype(np.float64), batch.rank0 < metric.k) / metric.k


def walked(walk: GainWalk) -> Compute:
    """A gain measure's compute: ``walk`` over each query's ranking and judgements."""

    def compute(batch: RankedBatch, metric: Metric) -> np.ndarray:
        gains = Gains.parse(metric)
        out = np.zeros(batch.n_queries)
        offsets, judged_offsets = batch.offsets, batch.judged_offsets
        assert judged_offsets is not None and batch.judged_grades is not None
        for q in range(batch.n_queries):
            ranked = batch.grades[offsets[q] : offsets[q + 1]]
            judged = batch.judged_grades[judged_offsets[q] : judged_offsets[q + 1]]
            out[q] = walk(gains, ranked, judged, int(batch.num_rel[q]))
        return out

    compute.__doc__ = walk.__doc__
    return compute


def _powers(length: int, p: float) -> np.ndarray:
    """``p**i`` for i = 0..length, as repeated products (trec_eval's)."""
    return np.concatenate(([1.0], np.cumprod(np.full(length, p))))


def _discounts(n: int) -> np.ndarray:
    return np.log2(np.arange(n, dtype=np.float64) + 2.0)


def _sequential_sum(values: np.ndarray) -> float:
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


def _ideal_dcg_walk(gains: Gains, ranked: np.ndarray, judged: np.ndarray, num_rel: int) -> float:
    """The ideal ranking's DCG, gains set per level."""
    ideal, _, _ = gains.ideal(judged)
    return _sequential_sum(ideal / _discounts(len(ideal)))


def _dcg_walk(gains: Gains, ranked: np.ndarray, judged: np.ndarray, num_rel: int) -> float:
    """DCG, gains set per level."""
    found = gains.of(ranked)
    keep = found != 0
    return _sequential_sum(found[keep] / _discounts(len(found))[keep])


def _ndcg_walk(gains: Gains, ranked: np.ndarray, judged: np.ndarray, num_rel: int) -> float:
    """nDCG, gains set per level."""
    ideal_dcg = _ideal_dcg_walk(gains, ranked, judged, num_rel)
    dcg = _dcg_walk(gains, ranked, judged, num_rel)
    return dcg / ideal_dcg if ideal_dcg > 0 else 0.0


def _g(gains: Gains, ranked: np.ndarray, judged: np.ndarray, num_rel: int) -> float:
    """G: gain over the cost of reaching it (trec_eval's experimental measure)."""
    ideal, _, _ = gains.ideal(judged)
    found = gains.of(ranked)
    cost = np.ones(len(found))
    both = min(len(found), len(ideal))
    cost[:both] = np.where(ideal[:both] >= 1.0, ideal[:both], 1.0)
    spent = (2.0 + np.cumsum(cost)) - np.cumsum(found)
    keep = found != 0
    total_ideal = _sequential_sum(ideal)
    if total_ideal <= 0:
        return 0.0
    return _sequential_sum(found[keep] / np.log2(spent[keep])) / total_ideal


def _ndcg_rel(gains: Gains, ranked: np.ndarray, judged: np.ndarray, num_rel: int) -> float:
    """nDCG averaged at each relevant document retrieved."""
    ideal, _, _ = gains.ideal(judged)
    found = gains.of(ranked)
    n, r = len(found), len(ideal)
    dcg = np.cumsum(np.where(found != 0, found / _discounts(n), 0.0))
    ideal_dcg = np.cumsum(ideal / _discounts(r)) if r else np.zeros(0)
    at = ideal_dcg[np.minimum(np.arange(n), r - 1)] if r else np.zeros(n)
    hit = found > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = dcg[hit] / at[hit]
        total = _sequential_sum(ratios)
        final_dcg = dcg[-1] if n else 0.0
        final_ideal = ideal_dcg[-1] if r else 0.0
        total += np.float64((r - int(hit.sum())) * final_dcg) / np.float64(final_ideal)
    return float(total / r) if total > 0 else 0.0


def _rndcg(gains: Gains, ranked: np.ndarray, judged: np.ndarray, num_rel: int) -> float:
    """nDCG averaged where the ideal gain changes (trec_eval's R levels), including the
    end of the ranking when it is longer than the ideal one."""
    if num_rel == 0:
        return 0.0
    ideal, after, best = gains.ideal(judged)
    found = gains.of(ranked)
    n, r = len(found), len(ideal)
    discount = _discounts(max(n, r) + 2)
    total, count, dcg, ideal_dcg = 0.0, 0, 0.0, 0.0
    previous = current = best

    def ideal_at(i: int) -> None:
        """Position i of the ideal ranking: an nDCG point where its gain changes (before
        position i counts), then its gain."""
        nonlocal total, count, previous, current, ideal_dcg
        current = float(ideal[i]) if i < r else after
        if current != previous:
            if ideal_dcg > 0:
                total, count = total + dcg / ideal_dcg, count + 1
            previous = current
        if current > 0:
            ideal_dcg += current / discount[i]

    i = 0
    while i < n and current > 0:
        ideal_at(i)
        if found[i] != 0:
            dcg += found[i] / discount[i]
        i += 1
    if i < n:  # the ranking goes on past the ideal one: one more point at its end
        for j in range(i, n):
            if found[j] != 0:
                dcg += found[j] / discount[j]
        if ideal_dcg > 0:
            total, count = total + dcg / ideal_dcg, count + 1
        i = n
    while current > 0:
        ideal_at(i)
        i += 1
    return total / count if count else math.nan


def _rbp(gains: Gains, ranked: np.ndarray, judged: np.ndarray, num_rel: int) -> float:
    """Rank-biased precision with persistence p."""
    table, _ = gains.table(judged)
    low, high = (float(table.min()), float(table.max())) if len(table) else (0.0, 0.0)
    found = gains.of(ranked, low, high) if low < 0 or high > 1 else gains.of(ranked)
    weight = _powers(len(found), gains.p)[:-1]
    keep = found != 0
    return (1.0 - gains.p) * _sequential_sum(found[keep] * weight[keep])


ndcg_with_gains = walked(_ndcg_walk)
_NOT_ITEM: dict[str, Any] = {"per_item": False, "bounds": None, "sets": frozenset()}
own("G", params=True)(walked(_g))
own("dcg", params=True, **_NOT_ITEM)(walked(_dcg_walk))
own("ideal_dcg", params=True, **_NOT_ITEM)(walked(_ideal_dcg_walk))
own("ndcg_rel", params=True)(walked(_ndcg_rel))
own("Rndcg", params=True)(walked(_rndcg))
own("rbp", params=True, exact_ties=True)(walked(_rbp))
