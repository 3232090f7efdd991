"""`evaluate_ranking`: trec_eval's measures over whole runs, all queries at once."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field, computed_field

from .._errors import ConfigError, DatasetError
from ._batch import NONPOOL, UNJUDGED, Depth, ranked_batch
from ._kernel import Metric, RankedBatch, parse_metric
from ._measures import MEASURES

if TYPE_CHECKING:
    import numpy as np
else:
    from .._lazy import np

RunLike = Mapping[str, Mapping[str, float] | Sequence[str]]


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
        relstrings: For a ``relstring`` (``relstring_N``) metric: each evaluated query's
            first N (default 10) grades as trec_eval prints them, one character each
            (``0``-``9``, ``>`` above 9, ``-`` not judged, ``.`` in the pool but unjudged).
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
    relstrings: dict[str, list[str]] = Field(default_factory=dict, repr=False)

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


def _parse_metrics(metrics: str | Sequence[str]) -> tuple[list[Metric], dict[str, int]]:
    """The numeric metrics, and the ``relstring`` ones with their lengths."""
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise ConfigError("evaluate_ranking needs at least one metric, e.g. ['ndcg@10', 'map']")
    if len(set(names)) != len(names):
        raise ConfigError(f"metrics are listed twice: {names}")
    strings: dict[str, int] = {}
    for name in names:
        if name == "relstring" or name.startswith("relstring_"):
            try:
                strings[name] = int(float(name.partition("_")[2] or 10))
            except ValueError:
                raise ConfigError(f"{name}: the length is a number, e.g. relstring_5") from None
    return [parse_metric(n) for n in names if n not in strings], strings


def _relstrings(batch: RankedBatch, lengths: dict[str, int]) -> dict[str, list[str]]:
    def char(grade: float) -> str:
        if grade > 9:
            return ">"
        if grade >= 0:
            return str(int(grade))
        return "-" if grade == NONPOOL else "." if grade == UNJUDGED else "<"

    if not lengths:
        return {}
    offsets = batch.offsets
    rows = [batch.grades[offsets[q] : offsets[q + 1]] for q in range(batch.n_queries)]
    strings = {
        name: ["".join(map(char, row[: max(n, 0)])) for row in rows] for name, n in lengths.items()
    }
    if "relstring" in strings and batch.missing is not None:  # trec_eval -c clears the
        strings["relstring"] = [  # plain name's string only; relstring_N keeps its '-'
            "" if absent else text
            for text, absent in zip(strings["relstring"], batch.missing.tolist(), strict=True)
        ]
    return strings


def _scored(ranking: Mapping[str, float] | Sequence[str]) -> Mapping[str, float]:
    if isinstance(ranking, Mapping):
        return ranking
    if isinstance(ranking, str):
        raise ConfigError("a run's ranking is a list of document ids or {doc_id: score}, not a str")
    docs = list(ranking)
    if len(set(docs)) != len(docs):
        raise ConfigError("a ranked list holds a document twice")
    return dict(zip(docs, range(len(docs), 0, -1), strict=True))  # best first


def evaluate_ranking(
    qrels: Mapping[str, Mapping[str, float]],
    run: RunLike,
    metrics: str | Sequence[str],
    *,
    relevance_level: float = 1.0,
    missing: Literal["ignore", "zero"] = "ignore",
    max_docs: int | None = None,
    judged_only: bool = False,
    collection_size: int = 0,
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
            a TREC file). A negative grade means "in the pool, unjudged" (infAP).
        run: ``{query_id: {doc_id: score}}`` (ranked by score descending, ties by
            document id descending, as trec_eval ranks), or ``{query_id: [doc_id, ...]}``
            already in rank order.
        metrics: scorekit names (``ndcg@10``, ``ndcg``, ``map``, ``map@k``, ``mrr``,
            ``precision@k``, ``recall@k``, ``hit_rate@k``, ``r_precision``) or trec_eval
            names (``P_10``, ``ndcg_cut_10``, ``recip_rank``, ``recall_100``, ``Rprec``,
            ``bpref``, ``infAP``, ``Rprec_mult_0.20``, ``relative_P_5``, ``unj_5``,
            ``11pt_avg``, ``G``, ``binG``, ``ndcg_rel``, ``Rndcg``, ``rbp``, ``dcg``,
            ``utility``...; parameters as trec_eval prints them: ``ndcg_1=3,2=9``,
            ``rbp_p=0.8``); results are keyed by the names given.
        relevance_level: A document is relevant when its grade is at least this
            (trec_eval's ``-l``, default 1). nDCG's gains are the grades themselves.
        missing: Queries with qrels that the run does not rank: ``"ignore"`` leaves them
            out of every mean (pytrec_eval's default), ``"zero"`` counts them as
            trec_eval ``-c`` does: ranked by one stand-in document nobody judged, so 0
            (NaN for interpolated precision at recall 0 when ``judged_only`` or
            ``max_docs=0`` drop it, as trec_eval's 0/0), and ``num_rel``'s total counts
            every positive judgement, whatever ``relevance_level``. Queries the qrels
            do not judge are always left out.
        max_docs: Evaluate only each query's top ``max_docs`` documents (trec_eval's
            ``-M``; 0 evaluates empty rankings); None: all of them.
        judged_only: Drop unjudged documents from the rankings first (trec_eval ``-J``).
        collection_size: Documents in the collection (trec_eval ``-N``; ``utility``).

    Raises:
        ConfigError: For unknown metric names, bad scores or an unknown ``missing``.
        DatasetError: When no query is evaluated (with ``missing="ignore"``, none has
            both judgements and a ranking; with ``"zero"``, the qrels are empty), or when a
            document is listed twice within the evaluated depth of a judged query
            (`load_run` keeps such copies aside; trec_eval refuses them too).
    """
    parsed, strings = _parse_metrics(metrics)
    if missing not in ("ignore", "zero"):
        raise ConfigError(f"missing must be 'ignore' or 'zero'; got {missing!r}")
    if not (isinstance(relevance_level, (int, float)) and math.isfinite(relevance_level)):
        raise ConfigError(f"relevance_level must be a finite number; got {relevance_level!r}")
    if max_docs is not None and (
        isinstance(max_docs, bool) or not isinstance(max_docs, int) or max_docs < 0
    ):
        raise ConfigError(f"max_docs must be an integer >= 0; got {max_docs!r}")
    scored: dict[str, Mapping[str, float]] = {q: _scored(r) for q, r in run.items()}
    missing_from_run = [q for q in qrels if q not in scored]
    missing_from_qrels = [q for q in scored if q not in qrels]
    queries = [q for q in qrels if q in scored] if missing == "ignore" else list(qrels)
    if not queries or (missing == "ignore" and not any(q in scored for q in qrels)):
        raise DatasetError(
            "no query has both judgements and a ranking: the run's query ids "
            f"({_some(scored)}) and the qrels' ({_some(qrels)}) do not meet"
        )
    _refuse_duplicates(run, qrels, max_docs)
    exact = bool(strings) or _exact_ties(parsed, relevance_level, max_docs)
    depth = Depth(max_docs, judged_only, collection_size, exact)
    batch = ranked_batch(qrels, scored, queries, float(relevance_level), depth)
    columns = {m.name: batch.values(m) for m in parsed}
    lists = {name: values.tolist() for name, values in columns.items()}
    summed = _strcmp_order(queries)
    means = {m.name: _aggregate(m, columns[m.name][summed]) for m in parsed}
    if missing == "zero":
        for m in parsed:
            if MEASURES[m.kind].positive_judgements_with_c:
                means[m.name] = float(sum(g > 0 for js in qrels.values() for g in js.values()))
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
        relstrings=_relstrings(batch, strings),
    )


def _some(ids: Mapping[str, Any]) -> str:
    shown = [repr(q) for q in list(ids)[:3]]
    return ", ".join(shown) + (", ..." if len(ids) > 3 else "") if shown else "none"


def _exact_ties(parsed: list[Metric], level: float, max_docs: int | None) -> bool:
    cut = max_docs is not None and any(MEASURES[m.kind].judged_only for m in parsed)
    return cut or level <= 0 or any(m.params or MEASURES[m.kind].exact_ties for m in parsed)


def _refuse_duplicates(
    run: RunLike, qrels: Mapping[str, Mapping[str, float]], max_docs: int | None
) -> None:
    """trec_eval refuses a document listed twice when both copies are within the
    evaluated depth of a judged query (`load_run` keeps the other copies aside)."""
    duplicates: Mapping[str, Mapping[str, list[float]]] = getattr(run, "duplicates", {})
    for query, docs in duplicates.items():
        ranking = run.get(query)
        if query not in qrels or not isinstance(ranking, Mapping):
            continue
        entries = [*ranking.items(), *((d, s) for d, copies in docs.items() for s in copies)]
        for doc, others in docs.items():
            second = max(others)  # the second copy: refused when it is within the depth
            above = sum(s > second or (s == second and d >= doc) for d, s in entries) - 1
            if max_docs is None or above < max_docs:
                raise DatasetError(
                    f"document {doc!r} is listed twice for query {query!r} within the "
                    "evaluated ranking; trec_eval refuses duplicate documents too"
                )


def _strcmp_order(queries: list[str]) -> np.ndarray:
    """The positions of ``queries`` in the order trec_eval evaluates (and sums) them:
    their ids sorted as strcmp sorts the UTF-8 bytes."""
    keys = [q.encode("utf-8", "surrogateescape") for q in queries]
    return np.asarray(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.int64)


def _aggregate(metric: Metric, values: np.ndarray) -> float:
    """What trec_eval prints on its ``all`` line from the per-query ``values`` in its
    order (`_strcmp_order`): their mean, summed one by one in that order; the sum of a
    count; the geometric mean (of the floored per-query values) for ``gm_map`` and
    ``gm_bpref``."""
    if not len(values):
        return math.nan
    total = float(np.cumsum(values)[-1])
    mean = MEASURES[metric.kind].mean
    if mean == "sum":
        return total
    if mean == "geometric":
        return math.exp(total / len(values))
    return total / len(values)
