"""ID-based context recall/precision and the trec_eval ranking metrics."""

from __future__ import annotations

from typing import Any

from .._context import ContextOptions, resolve_context
from .._engine import with_fast_path
from .._i18n import t
from .._pipeline import Scorer, create_scorer
from .._steps import NotScorable, StepResults, not_scorable
from .._types import ScorerRun
from . import _fast_ids, _fast_ranking  # noqa: F401  # register the fast paths
from ._options import LanguageOptions, ScaleOptions, parse_options, run_language
from ._ranked_ids import RankedIds, rank, relevance_grades
from ._ranking import ranking_metric
from ._registry import prebuilt


class IDContextOptions(ContextOptions, ScaleOptions, LanguageOptions):
    """Options of the ID-based and ranking scorers.

    Attributes:
        scale: Scores lie in ``[0, scale]``.
        context: Static retrieved chunks (with ids), in rank order.
        context_extractor: ``fn(input, output)`` or a registered extractor name.
        language: The reason's language (``auto``: the data's; see `LanguageOptions`).
    """


def ids_step(opts: IDContextOptions) -> Any:
    """Preprocess step: the `RankedIds` of a run (no relevant references → skipped)."""

    async def ids(run: ScorerRun, results: StepResults) -> RankedIds | NotScorable:
        grades = relevance_grades(run)
        if not any(g > 0 for g in grades.values()):
            return not_scorable(t(run_language(run, opts.language), "no_reference_ids"))
        if run.retrieved_context_ids is not None:  # never with context (ScorerRun)
            return rank(grades, run.retrieved_context_ids)
        chunks = await resolve_context(run, opts)
        return chunks if isinstance(chunks, NotScorable) else rank(grades, chunks)

    return ids


# --- factories ---------------------------------------------------------------------------


def id_recall(run: ScorerRun, results: StepResults) -> float:
    """``|set(R) ∩ set(G)| / |set(G)|``; 0 when nothing was retrieved."""
    ids: RankedIds = results["ids"]
    return ids.recall()


def id_precision(run: ScorerRun, results: StepResults) -> float:
    """``|set(R) ∩ set(G)| / |set(R)|``; 0 when nothing was retrieved."""
    ids: RankedIds = results["ids"]
    return ids.precision()


def id_reason(what: str, language: str = "auto") -> Any:
    """The reason of the ID scorers: found, missing and not relevant ids."""

    def reason(run: ScorerRun, results: StepResults, value: float) -> str:
        ids: RankedIds = results["ids"]
        return ids.reason(what, value, run_language(run, language))

    return reason


@prebuilt("id-context-recall", needs_model=False, ragas="IDBasedContextRecall")
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
        .generate_reason(id_reason("recall", opts.language))
    )
    return with_fast_path(scorer, opts)


@prebuilt("id-context-precision", needs_model=False, ragas="IDBasedContextPrecision")
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
        .generate_reason(id_reason("precision", opts.language))
    )
    return with_fast_path(scorer, opts)


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
        return t(
            run_language(run, opts.language),
            "ranking",
            metric=metric,
            value=f"{value:g}",
            ranks=ranks,
            retrieved=len(ids.retrieved_ids),
            relevant=len(ids.relevant_ids),
        )

    scorer = (
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
    return with_fast_path(scorer, (metric, opts), family="ranking")
