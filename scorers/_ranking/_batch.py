"""Rankings and qrels into a `RankedBatch`: trec_eval's order (score descending, ties by
document id descending), its grades for unjudged documents, ``-M`` and ``-J``."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import repeat
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from .._errors import ConfigError
from ._kernel import NONPOOL, RankedBatch

if TYPE_CHECKING:
    import numpy as np
else:
    from .._lazy import np

NOT_JUDGED = -math.inf
UNJUDGED = -2.0
"""The grade of a ranked document the qrels give a negative grade ("in the pool, unjudged")."""
STAND_IN: Mapping[str, float] = {"ceci_nest_pas_un_docno": 1.0}
"""The ranking trec_eval 10 gives a judged query the run does not rank under ``-c``: one
document, named so that no qrels judge it; ``-M`` and ``-J`` apply to it as to any."""


def pool_grades(grades: np.ndarray) -> np.ndarray:
    """Ranked documents' grades as the batch reads them, in place: ``NOT_JUDGED`` (not in
    the reference) becomes `NONPOOL`, any negative grade `UNJUDGED`, as trec_eval reads
    qrels (-1 and -2 alike: "in the pool, unjudged")."""
    missing = np.isneginf(grades)
    grades[grades < 0] = UNJUDGED
    grades[missing] = NONPOOL
    return grades


def _by_score(offsets: np.ndarray, query: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Positions sorted by query, then score descending (stable: ties keep input order).

    Rows of a padded matrix sort much faster than one lexsort over all positions; that
    is used unless a few long rankings would make the padding large.
    """
    lengths = np.diff(offsets)
    width = int(lengths.max()) if len(lengths) else 0
    if not len(scores) or len(lengths) * width > 4 * len(scores) + 4096:
        return np.lexsort((-scores, query))
    real = np.arange(width) < lengths[:, None]
    matrix = np.full((len(lengths), width), np.inf)
    matrix[real] = -scores
    columns = np.argsort(matrix, axis=1, kind="stable")
    return (columns + offsets[:-1, None])[real]  # padding (inf) sorts last in each row


def _order(
    offsets: np.ndarray, query: np.ndarray, scores: np.ndarray, grades: np.ndarray, docs: list[str]
) -> np.ndarray:
    """Positions sorted by query, score descending, ties by document id descending.

    Only ties between documents of different grades can change a metric, so only those
    groups are put in document order (one string sort over their documents).
    """
    order = _by_score(offsets, query, scores)
    q, s = query[order], scores[order]
    tied = (q[1:] == q[:-1]) & (s[1:] == s[:-1])
    if not tied.any():
        return order
    group = np.concatenate(([0], np.cumsum(~tied)))  # tie group of each sorted position
    starts = np.flatnonzero(np.concatenate(([True], ~tied)))
    g = grades[order]
    differs = np.minimum.reduceat(g, starts) != np.maximum.reduceat(g, starts)
    mixed = np.flatnonzero(differs[group])
    if not len(mixed):
        return order
    positions = order[mixed]
    picked = itemgetter(*positions.tolist())(docs)
    names = list(picked) if len(positions) > 1 else [picked]
    # groups ascending and, inside each, document ids descending
    within = np.lexsort((*_string_keys(names)[::-1], -group[mixed]))[::-1]
    order[mixed] = positions[within]
    return order


def _string_keys(names: list[str]) -> list[np.ndarray]:
    """Sort keys that order ``names`` as strcmp orders their UTF-8 bytes: big-endian
    8-byte words, most significant first (integers sort much faster than strings)."""
    try:
        raw = np.array(names, dtype=np.bytes_)
    except UnicodeEncodeError:
        raw = np.array([n.encode("utf-8", "surrogateescape") for n in names], dtype=np.bytes_)
    width = -(-raw.dtype.itemsize // 8) * 8
    words = raw.astype(f"S{width}").view(">u8").reshape(len(names), width // 8)
    return [words[:, i] for i in range(width // 8)]


MAX_GRADE = 2.0**53
"""The largest grade magnitude evaluated: beyond it a float no longer holds every integer."""


def _worst(grades: np.ndarray) -> float:
    bad = grades[~(np.abs(grades) <= MAX_GRADE)]
    return float(bad[0])


@dataclass(frozen=True)
class Depth:
    """How much of each ranking counts: trec_eval's ``-M``, ``-J`` and ``-N``."""

    max_docs: int | None = None
    judged_only: bool = False
    collection_size: int = 0
    exact_ties: bool = False


def ranked_batch(
    qrels: Mapping[str, Mapping[str, float]],
    run: Mapping[str, Mapping[str, float]],
    queries: list[str],
    level: float,
    depth: Depth,
) -> RankedBatch:
    lengths: list[int] = []
    docs: list[str] = []
    scores: list[float] = []
    grades: list[float] = []
    judged_lengths: list[int] = []
    judged: list[float] = []
    for query in queries:
        ranking = run.get(query, STAND_IN)
        judgements = qrels[query]
        lengths.append(len(ranking))
        docs.extend(ranking)
        scores.extend(ranking.values())
        grades.extend(map(judgements.get, ranking, repeat(NOT_JUDGED)))
        judged_lengths.append(len(judgements))
        judged.extend(judgements.values())
    n = len(queries)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    query_of = np.repeat(np.arange(n), lengths)
    score_array = np.asarray(scores, dtype=np.float64)
    if score_array.size and not np.isfinite(score_array).all():
        raise ConfigError("a run holds a score that is NaN or infinite")
    all_grades = np.asarray(grades, dtype=np.float64)
    judged_array = np.asarray(judged, dtype=np.float64)
    if judged_array.size and not (np.abs(judged_array) <= MAX_GRADE).all():
        raise ConfigError(
            f"the qrels hold a grade that is NaN, infinite or beyond ±2**53 "
            f"({_worst(judged_array)!r}); grades are small integers (0-3, say)"
        )
    if (judged_array < 0).any():  # trec_eval: any negative grade is "pooled, unjudged"
        not_judged = np.isinf(all_grades)
        all_grades[all_grades < 0] = UNJUDGED
        all_grades[not_judged] = NONPOOL
    else:
        np.maximum(all_grades, NONPOOL, out=all_grades)  # not judged: -inf to -1
    # tied documents need id order only where it changes a value: where relevance
    # differs, unless a measure tells non-relevant documents apart (see evaluate_ranking)
    tie_grades = all_grades if depth.exact_ties else np.maximum(all_grades, 0.0)
    order = _order(offsets, query_of, score_array, tie_grades, docs)
    grade_array = all_grades[order]
    if depth.max_docs is not None:  # trec_eval -M: each query's top max_docs only
        keep = np.arange(len(grade_array)) - offsets[:-1][query_of] < depth.max_docs
        grade_array = grade_array[keep]
        np.cumsum(np.minimum(lengths, depth.max_docs), out=offsets[1:])
    if depth.judged_only:  # trec_eval -J: unjudged documents removed before anything
        keep = grade_array >= 0
        kept = np.bincount(np.repeat(np.arange(n), np.diff(offsets))[keep], minlength=n)
        grade_array = grade_array[keep]
        np.cumsum(kept, out=offsets[1:])

    return RankedBatch(
        offsets=offsets,
        grades=grade_array,
        relevance_level=level,
        missing=np.array([q not in run for q in queries], dtype=bool),
        collection_size=depth.collection_size,
        **_judgements(judged_array, judged_lengths, level),
    )


def _judgements(judged_array: np.ndarray, lengths: list[int], level: float) -> dict[str, Any]:
    """The batch's qrels side: relevant and judged non-relevant counts, ideal gains, and
    every grade per query."""
    n = len(lengths)
    judged_query = np.repeat(np.arange(n), lengths)
    positive = judged_array > 0
    ideal_query, ideal_gain = judged_query[positive], judged_array[positive]
    ideal_order = np.lexsort((-ideal_gain, ideal_query))
    ideal_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(ideal_query, minlength=n), out=ideal_offsets[1:])
    judged_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=judged_offsets[1:])
    nonrel = (judged_array >= 0) & (judged_array < level)
    return {
        "num_rel": np.bincount(judged_query[judged_array >= max(level, 0)], minlength=n),
        "ideal_offsets": ideal_offsets,
        "ideal_gains": ideal_gain[ideal_order],
        "num_nonrel": np.bincount(judged_query[nonrel], minlength=n),
        "judged_offsets": judged_offsets,
        "judged_grades": judged_array,
    }
