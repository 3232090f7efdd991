"""Ranking math: average precision and the trec_eval metrics, on ranked relevance."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence

from .._errors import ConfigError


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


def _rels(ranked: list[str], grades: dict[str, float]) -> list[bool]:
    return [grades.get(doc, 0.0) > 0 for doc in ranked]


def precision_at(k: int) -> Callable[[list[str], dict[str, float]], float]:
    """trec_eval ``P_k``: relevant in the top k / k (k even when fewer were retrieved)."""
    return lambda ranked, grades: sum(_rels(ranked[:k], grades)) / k


def recall_at(k: int) -> Callable[[list[str], dict[str, float]], float]:
    """trec_eval ``recall_k``: relevant in the top k / all relevant references."""
    return lambda ranked, grades: sum(_rels(ranked[:k], grades)) / _num_rel(grades)


def hit_rate_at(k: int) -> Callable[[list[str], dict[str, float]], float]:
    """trec_eval ``success_k``: 1 when a relevant reference is in the top k."""
    return lambda ranked, grades: float(any(_rels(ranked[:k], grades)))


def _num_rel(grades: dict[str, float]) -> int:
    return sum(g > 0 for g in grades.values())


def reciprocal_rank(ranked: list[str], grades: dict[str, float]) -> float:
    """trec_eval ``recip_rank``: 1 / rank of the first relevant chunk, 0 when none."""
    for rank, rel in enumerate(_rels(ranked, grades), start=1):
        if rel:
            return 1.0 / rank
    return 0.0


def average_precision_all(ranked: list[str], grades: dict[str, float]) -> float:
    """trec_eval ``map`` (per query): Σ P@rank over relevant retrieved / all relevant."""
    total, _ = precision_sum(_rels(ranked, grades))
    return total / _num_rel(grades)


def r_precision(ranked: list[str], grades: dict[str, float]) -> float:
    """trec_eval ``Rprec``: precision at R, R = number of relevant references."""
    num_rel = _num_rel(grades)
    return sum(_rels(ranked[:num_rel], grades)) / num_rel


def ndcg_at(k: int | None) -> Callable[[list[str], dict[str, float]], float]:
    """trec_eval ``ndcg_cut_k`` (``ndcg`` when k is None): gain = grade (<= 0 counts 0),
    discount log2(rank + 1), ideal ranking from all judged references."""

    def ndcg(ranked: list[str], grades: dict[str, float]) -> float:
        top = ranked if k is None else ranked[:k]
        dcg = sum(
            max(grades.get(doc, 0.0), 0.0) / math.log2(rank + 1)
            for rank, doc in enumerate(top, start=1)
        )
        ideal_gains = sorted((g for g in grades.values() if g > 0), reverse=True)
        if k is not None:
            ideal_gains = ideal_gains[:k]
        idcg = sum(g / math.log2(rank + 1) for rank, g in enumerate(ideal_gains, start=1))
        return dcg / idcg if idcg > 0 else 0.0

    return ndcg


RANKING_METRICS = (
    "precision@k",
    "recall@k",
    "hit_rate@k",
    "ndcg@k",
    "ndcg",
    "mrr",
    "map",
    "r_precision",
)


def ranking_metric(metric: str) -> Callable[[list[str], dict[str, float]], float]:
    """The function ``(ranked ids, grades) -> value`` for a metric name like ``"ndcg@10"``.

    Raises:
        ConfigError: For an unknown name or a cutoff below 1.
    """
    fixed = {
        "mrr": reciprocal_rank,
        "map": average_precision_all,
        "r_precision": r_precision,
        "ndcg": ndcg_at(None),
    }
    if metric in fixed:
        return fixed[metric]
    match = re.fullmatch(r"(precision|recall|hit_rate|ndcg)@(\d+)", metric)
    if match is None or int(match.group(2)) < 1:
        raise ConfigError(
            f"unknown ranking metric {metric!r}; use one of {', '.join(RANKING_METRICS)} "
            "with k a positive integer, e.g. 'ndcg@10'"
        )
    k = int(match.group(2))
    return {
        "precision": precision_at,
        "recall": recall_at,
        "hit_rate": hit_rate_at,
        "ndcg": ndcg_at,
    }[match.group(1)](k)
