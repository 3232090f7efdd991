"""ID-based context recall/precision and the trec_eval ranking metrics."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from .._context import ContextOptions, resolve_context
from .._errors import ConfigError
from .._pipeline import Scorer, create_scorer
from .._steps import NotScorable, StepResults, detail_value, not_scorable
from .._types import Chunk, ScorerRun, batch_result
from ._options import ScaleOptions, parse_options
from ._ranking import ranking_metric
from ._registry import prebuilt


class IDContextOptions(ContextOptions, ScaleOptions):
    """Options of the ID-based and ranking scorers.

    Attributes:
        scale: Scores lie in ``[0, scale]``.
        context: Static retrieved chunks (with ids), in rank order.
        context_extractor: ``fn(input, output)`` or a registered extractor name.
    """


def ranked_ids(chunks: list[Chunk]) -> list[str]:
    """Chunk ids in rank order, duplicates dropped keeping the first rank.

    Raises:
        ConfigError: If a chunk has no id.
    """
    ids = list(map(_ID, chunks))
    if None in ids:
        raise ConfigError(
            f"retrieved chunk #{ids.index(None) + 1} has no id; ID-based and ranking scorers "
            "need ids: pass context as {'id': ..., 'text': ...} dicts or Chunk(id=...)"
        )
    return list(dict.fromkeys(ids))  # type: ignore[arg-type]  # no None left


_ID = attrgetter("id")


def relevance_grades(run: ScorerRun) -> dict[str, float]:
    """Reference ids with their grades (1.0 for a plain list); grade <= 0 is kept as
    judged-not-relevant."""
    refs = run.reference_context_ids
    if isinstance(refs, dict):
        return dict(refs)
    return dict.fromkeys(refs or [], 1.0)


class _cached:  # functools.cached_property without its lock (Python 3.11)
    """A method computed on first access and stored on the instance."""

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn, self.name, self.__doc__ = fn, fn.__name__, fn.__doc__

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.fn(instance)
        return value


@dataclass
class RankedIds:
    """The ids step's result: what was retrieved, in rank order, and what is relevant.

    Attributes:
        retrieved_ids: Retrieved chunk ids, deduplicated keeping the first rank.
        relevant_ids: Reference ids with a grade above 0.
        grades: Every judged reference id with its grade.
    """

    retrieved_ids: list[str]
    relevant_ids: list[str]
    grades: dict[str, float]

    @_cached
    def found(self) -> list[str]:
        """The retrieved ids that are relevant, in rank order."""
        relevant = set(self.relevant_ids)
        return [i for i in self.retrieved_ids if i in relevant]

    @_cached
    def listing(self) -> str:
        """The found, missing and not relevant ids, as the reasons name them."""
        relevant, retrieved = set(self.relevant_ids), set(self.retrieved_ids)
        missing = [i for i in self.relevant_ids if i not in retrieved]
        extra = [i for i in self.retrieved_ids if i not in relevant]
        return f"Found: {self.found}; missing: {missing}; not relevant: {extra}."


def rank(grades: dict[str, float], chunks: list[Chunk]) -> RankedIds:
    """The `RankedIds` of retrieved chunks against a run's `relevance_grades`.

    Raises:
        ConfigError: If a chunk has no id.
    """
    relevant = [i for i, g in grades.items() if g > 0]
    return RankedIds(ranked_ids(chunks), relevant, grades)


def ids_step(opts: IDContextOptions) -> Any:
    """Preprocess step: the `RankedIds` of a run (no relevant references → skipped)."""

    async def ids(run: ScorerRun, results: StepResults) -> RankedIds | NotScorable:
        grades = relevance_grades(run)
        if not any(g > 0 for g in grades.values()):
            return not_scorable(
                "skipped: no relevant reference_context_ids were given to compare with"
            )
        return rank(grades, await resolve_context(run, opts))

    return ids


# --- factories ---------------------------------------------------------------------------


def id_recall(run: ScorerRun, results: StepResults) -> float:
    """``|set(R) ∩ set(G)| / |set(G)|``; 0 when nothing was retrieved."""
    ids: RankedIds = results["ids"]  # both id lists hold each id once
    return len(ids.found) / len(ids.relevant_ids) if ids.retrieved_ids else 0.0


def id_precision(run: ScorerRun, results: StepResults) -> float:
    """``|set(R) ∩ set(G)| / |set(R)|``; 0 when nothing was retrieved."""
    ids: RankedIds = results["ids"]
    return len(ids.found) / len(ids.retrieved_ids) if ids.retrieved_ids else 0.0


def id_reason(what: str) -> Any:
    """The reason of the ID scorers: found, missing and not relevant ids."""

    def reason(run: ScorerRun, results: StepResults, value: float) -> str:
        ids: RankedIds = results["ids"]
        if not ids.retrieved_ids:
            return "Score 0: no context was retrieved."
        head = (
            f"{len(ids.found)} of {len(ids.relevant_ids)} reference ids were retrieved"
            if what == "recall"
            else f"{len(ids.found)} of {len(ids.retrieved_ids)} retrieved ids are relevant"
        )
        return f"{head} (score {value:g}). {ids.listing}"

    return reason


def _id_batch(opts: IDContextOptions, what: str) -> Any:
    """The vectorised twin of the ID recall / precision pipeline for runs that carry
    their chunks (all with ids) and relevant reference ids; other runs are left to the
    pipeline (None), which also names a missing id."""
    score_of = id_recall if what == "recall" else id_precision
    reason_of = id_reason(what)

    def batch(scorer: Scorer, runs: Any, memo: dict[Any, Any]) -> list[Any]:
        shared = memo.get("ranked_ids")
        if shared is None:
            shared = memo["ranked_ids"] = [_ranked(run) for run in runs]
        sid, scaled = scorer.id, scorer.scaled
        out: list[Any] = [None] * len(runs)
        for i, (run, ids) in enumerate(zip(runs, shared, strict=True)):
            if ids is not None:
                results = {"ids": ids}
                score = scaled(score_of(run, results))  # type: ignore[arg-type]
                details = {"ids": detail_value(ids)}
                out[i] = batch_result(sid, score, reason_of(run, results, score), details)
        return out

    return batch


def _ranked(run: ScorerRun) -> RankedIds | None:
    """A run's ranked ids for the batch; None leaves the run to the pipeline."""
    if not run.context or not run.reference_context_ids:
        return None
    try:
        ranked = rank(relevance_grades(run), run.context)
    except ConfigError:  # a chunk without an id: the pipeline names it
        return None
    return ranked if ranked.relevant_ids else None


@prebuilt("id-context-recall", needs_model=False)
def create_id_context_recall_scorer(
    options: IDContextOptions | dict[str, Any] | None = None,
) -> Scorer:
    """ID context recall: ``|set(R) ∩ set(G)| / |set(G)| × scale``.

    Retrieved ids come from the chunks' ``id`` (compared as strings), references from
    ``reference_context_ids`` (none → skipped); empty context → 0.

    Returns:
        A `Scorer` with id ``id-context-recall``.
    """

    opts = parse_options(IDContextOptions, options, "create_id_context_recall_scorer")
    scorer = (
        create_scorer(
            id="id-context-recall",
            description="Share of reference ids retrieved",
            scale=opts.scale,
            config=opts,
        )
        .preprocess(ids_step(opts), name="ids")
        .generate_score(id_recall)
        .generate_reason(id_reason("recall"))
    )
    return scorer._with_batch(_id_batch(opts, "recall"))


@prebuilt("id-context-precision", needs_model=False)
def create_id_context_precision_scorer(
    options: IDContextOptions | dict[str, Any] | None = None,
) -> Scorer:
    """ID context precision: ``|set(R) ∩ set(G)| / |set(R)| × scale`` (R deduplicated).

    Returns:
        A `Scorer` with id ``id-context-precision``.
    """

    opts = parse_options(IDContextOptions, options, "create_id_context_precision_scorer")
    scorer = (
        create_scorer(
            id="id-context-precision",
            description="Share of retrieved ids that are relevant",
            scale=opts.scale,
            config=opts,
        )
        .preprocess(ids_step(opts), name="ids")
        .generate_score(id_precision)
        .generate_reason(id_reason("precision"))
    )
    return scorer._with_batch(_id_batch(opts, "precision"))


def create_ranking_scorer(
    metric: str, options: IDContextOptions | dict[str, Any] | None = None
) -> Scorer:
    """A ranking metric over retrieved ids, with trec_eval's definitions.

    Metrics: ``precision@k``, ``recall@k``, ``hit_rate@k``, ``mrr``, ``map`` (AP divided by
    all relevant references), ``ndcg@k`` / ``ndcg`` (graded: gain = grade, log2 discount,
    ideal from all judged references) and ``r_precision``. ``reference_context_ids`` is a
    list (binary relevance) or a dict id -> grade; grade <= 0 is not relevant.

    Args:
        metric: The metric name; it is also the scorer id.
        options: `IDContextOptions` or a dict of its fields.

    Returns:
        A `Scorer` whose id is ``metric``.
    """
    fn = ranking_metric(metric)
    opts = parse_options(IDContextOptions, options, "create_ranking_scorer")

    def generate_score(run: ScorerRun, results: StepResults) -> float:
        ids: RankedIds = results["ids"]
        return fn(ids.retrieved_ids, ids.grades)

    def reason(run: ScorerRun, results: StepResults, value: float) -> str:
        ids: RankedIds = results["ids"]
        ranks = [
            r for r, doc in enumerate(ids.retrieved_ids, start=1) if ids.grades.get(doc, 0) > 0
        ]
        return (
            f"{metric} = {value:g}: relevant chunks at ranks {ranks} of "
            f"{len(ids.retrieved_ids)} retrieved; {len(ids.relevant_ids)} relevant "
            "references in all."
        )

    return (
        create_scorer(
            id=metric,
            description=f"{metric} (trec_eval definition)",
            scale=opts.scale,
            config=opts,
        )
        .preprocess(ids_step(opts), name="ids")
        .generate_score(generate_score)
        .generate_reason(reason)
    )
