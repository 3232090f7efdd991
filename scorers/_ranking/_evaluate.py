"""`evaluate_ranking`: trec_eval's measures over whole runs, all queries at once."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import cached_property
from itertools import repeat
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field, computed_field

from .._errors import ConfigError
from ._judged import COUNTS, JUDGED_ONLY
from ._kernel import Metric, RankedBatch, parse_metric

if TYPE_CHECKING:
    import numpy as np
else:
    from .._lazy import np

RunLike = Mapping[str, Mapping[str, float] | Sequence[str]]

UNJUDGED = -math.inf
"""The grade a ranked document without a judgement gets in a batch."""


class RankingEvaluation(BaseModel):
    """What `evaluate_ranking` returns.

    Attributes:
        metrics: The metric names, as asked for.
        means: ``{metric: mean over the evaluated queries}``.
        query_ids: The evaluated queries, in qrels order.
        columns: ``{metric: [value per query in query_ids order]}``.
        n_queries: Queries evaluated.
        missing_from_run: Queries with qrels but no ranking (counted as 0 with
            ``missing="zero"``, left out with ``missing="ignore"``).
        missing_from_qrels: Queries ranked but never judged (always left out).
        relevance_level: The grade from which a document counts as relevant.
        missing: How queries absent from the run were counted.
    """

    metrics: list[str]
    means: dict[str, float]
    query_ids: list[str] = Field(repr=False)
    columns: dict[str, list[float]] = Field(repr=False)
    n_queries: int
    missing_from_run: list[str] = Field(default_factory=list)
    missing_from_qrels: list[str] = Field(default_factory=list)
    relevance_level: float = 1.0
    missing: str = "ignore"

    @computed_field(repr=False)  # type: ignore[prop-decorator]
    @cached_property
    def per_query(self) -> dict[str, dict[str, float]]:
        """``{query_id: {metric: value}}`` for every evaluated query (built on first use
        from ``query_ids`` and ``columns``, the same values column by column)."""
        names = list(self.columns)
        rows = zip(*self.columns.values(), strict=True)
        return {
            q: dict(zip(names, row, strict=True))
            for q, row in zip(self.query_ids, rows, strict=True)
        }

    def values(self, metric: str) -> dict[str, float]:
        """``{query_id: value}`` of one metric."""
        return dict(zip(self.query_ids, self.columns[metric], strict=True))

    def to_pandas(self) -> Any:
        """A pandas DataFrame: one row per evaluated query (index ``query_id``), a column
        per metric (pandas is an optional extra: ``pip install 'scorekit[pandas]'``).

        Raises:
            ConfigError: When pandas is not installed.
        """
        try:
            import pandas
        except ImportError:
            raise ConfigError("to_pandas needs pandas: pip install 'scorekit[pandas]'") from None
        frame = pandas.DataFrame(self.columns, index=pandas.Index(self.query_ids, name="query_id"))
        return frame


def _parse_metrics(metrics: str | Sequence[str]) -> list[Metric]:
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise ConfigError("evaluate_ranking needs at least one metric, e.g. ['ndcg@10', 'map']")
    if len(set(names)) != len(names):
        raise ConfigError(f"metrics are listed twice: {names}")
    return [parse_metric(name) for name in names]


def _scored(ranking: Mapping[str, float] | Sequence[str]) -> Mapping[str, float]:
    if isinstance(ranking, Mapping):
        return ranking
    if isinstance(ranking, str):
        raise ConfigError("a run's ranking is a list of document ids or {doc_id: score}, not a str")
    docs = list(ranking)
    if len(set(docs)) != len(docs):
        raise ConfigError("a ranked list holds a document twice")
    return dict(zip(docs, range(len(docs), 0, -1), strict=True))  # best first


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
        raw = np.array([n.encode("utf-8") for n in names], dtype=np.bytes_)
    width = -(-raw.dtype.itemsize // 8) * 8
    words = raw.astype(f"S{width}").view(">u8").reshape(len(names), width // 8)
    return [words[:, i] for i in range(width // 8)]


def _batch(
    qrels: Mapping[str, Mapping[str, float]],
    run: Mapping[str, Mapping[str, float]],
    queries: list[str],
    level: float,
    max_docs: int | None = None,
    judged_matters: bool = False,
) -> RankedBatch:
    lengths: list[int] = []
    docs: list[str] = []
    scores: list[float] = []
    grades: list[float] = []
    judged_lengths: list[int] = []
    judged: list[float] = []
    empty: Mapping[str, float] = {}
    for query in queries:
        ranking = run.get(query, empty)
        judgements = qrels[query]
        lengths.append(len(ranking))
        docs.extend(ranking)
        scores.extend(ranking.values())
        grades.extend(map(judgements.get, ranking, repeat(UNJUDGED)))
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
    # tied documents need id order only where it changes a value: where grades differ
    # (bpref and infAP skip unjudged documents, so a judged non-relevant one and an
    # unjudged one trade places freely), and at a -M cut for the judged counts
    tie_grades = all_grades if judged_matters else np.maximum(all_grades, 0.0)
    order = _order(offsets, query_of, score_array, tie_grades, docs)
    grade_array = all_grades[order]
    if max_docs is not None:  # trec_eval -M: each query's top max_docs only
        keep = np.arange(len(grade_array)) - offsets[:-1][query_of] < max_docs
        grade_array = grade_array[keep]
        np.cumsum(np.minimum(lengths, max_docs), out=offsets[1:])

    judged_array = np.asarray(judged, dtype=np.float64)
    judged_query = np.repeat(np.arange(n), judged_lengths)
    num_rel = np.bincount(judged_query[judged_array >= level], minlength=n)
    positive = judged_array > 0
    ideal_query, ideal_gain = judged_query[positive], judged_array[positive]
    ideal_order = np.lexsort((-ideal_gain, ideal_query))
    ideal_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(ideal_query, minlength=n), out=ideal_offsets[1:])
    return RankedBatch(
        offsets=offsets,
        grades=grade_array,
        num_rel=num_rel,
        ideal_offsets=ideal_offsets,
        ideal_gains=ideal_gain[ideal_order],
        relevance_level=level,
        num_nonrel=np.bincount(
            judged_query[(judged_array >= 0) & (judged_array < level)], minlength=n
        ),
    )


def evaluate_ranking(
    qrels: Mapping[str, Mapping[str, float]],
    run: RunLike,
    metrics: str | Sequence[str],
    *,
    relevance_level: float = 1.0,
    missing: Literal["ignore", "zero"] = "ignore",
    max_docs: int | None = None,
) -> RankingEvaluation:
    """Evaluate a whole run against qrels with trec_eval's definitions, vectorised.

    Example:
        ```python
        from scorers import evaluate_ranking, load_qrels, load_run

        result = evaluate_ranking(load_qrels("qrels.txt"), load_run("bm25.run"),
                                  ["ndcg@10", "map", "recip_rank", "P_10", "recall@100"])
        result.means["ndcg@10"], result.per_query["301"]["map"]
        ```

    Args:
        qrels: ``{query_id: {doc_id: grade}}`` (pytrec_eval's shape; `load_qrels` reads
            a TREC file).
        run: ``{query_id: {doc_id: score}}`` (ranked by score descending, ties by
            document id descending, as trec_eval ranks), or ``{query_id: [doc_id, ...]}``
            already in rank order.
        metrics: scorekit names (``ndcg@10``, ``ndcg``, ``map``, ``map@k``, ``mrr``,
            ``precision@k``, ``recall@k``, ``hit_rate@k``, ``r_precision``) or trec_eval
            names (``P_10``, ``ndcg_cut_10``, ``recip_rank``, ``recall_100``, ``Rprec``,
            ``success_5``, ``map_cut_10``, ``map``, ``ndcg``); results are keyed by the
            names given.
        relevance_level: A document is relevant when its grade is at least this
            (trec_eval's ``-l``, default 1). nDCG's gains are the grades themselves.
        missing: Queries with qrels that the run does not rank: ``"ignore"`` leaves them
            out of every mean (trec_eval's and pytrec_eval's default), ``"zero"`` counts
            them with every metric 0 (trec_eval ``-c``). Queries the qrels do not
            judge are always left out.
        max_docs: Evaluate only each query's top ``max_docs`` documents (trec_eval's
            ``-M``); None: all of them.

    Raises:
        ConfigError: For unknown metric names, bad scores or an unknown ``missing``.
    """
    parsed = _parse_metrics(metrics)
    if missing not in ("ignore", "zero"):
        raise ConfigError(f"missing must be 'ignore' or 'zero'; got {missing!r}")
    if not (isinstance(relevance_level, (int, float)) and math.isfinite(relevance_level)):
        raise ConfigError(f"relevance_level must be a finite number; got {relevance_level!r}")
    scored: dict[str, Mapping[str, float]] = {q: _scored(r) for q, r in run.items()}
    missing_from_run = [q for q in qrels if q not in scored]
    missing_from_qrels = [q for q in scored if q not in qrels]
    queries = [q for q in qrels if q in scored] if missing == "ignore" else list(qrels)
    if max_docs is not None and (
        isinstance(max_docs, bool) or not isinstance(max_docs, int) or max_docs < 1
    ):
        raise ConfigError(f"max_docs must be an integer >= 1; got {max_docs!r}")
    judged = max_docs is not None and any(m.kind in JUDGED_ONLY for m in parsed)
    batch = _batch(qrels, scored, queries, float(relevance_level), max_docs, judged)
    columns = {m.name: batch.values(m) for m in parsed}
    lists = {name: values.tolist() for name, values in columns.items()}
    means = {m.name: _aggregate(m, columns[m.name]) for m in parsed}
    return RankingEvaluation.model_construct(
        metrics=list(lists),
        means=means,
        query_ids=queries,
        columns=lists,
        n_queries=len(queries),
        missing_from_run=missing_from_run,
        missing_from_qrels=missing_from_qrels,
        relevance_level=float(relevance_level),
        missing=missing,
    )


def _aggregate(metric: Metric, values: np.ndarray) -> float:
    """What trec_eval prints on its ``all`` line: the mean over the queries; the sum of
    a count; the geometric mean (of the floored per-query values) for ``gm_map``."""
    if not len(values):
        return math.nan
    if metric.kind in COUNTS:
        return float(values.sum())
    if metric.kind == "gm_map":
        return math.exp(float(values.sum()) / len(values))
    return float(values.mean())
