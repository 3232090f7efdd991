"""ID-based context recall/precision and the trec_eval ranking metrics."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._context import ContextOptions, resolve_context
from .._errors import ConfigError
from .._pipeline import Scorer, create_scorer
from .._steps import StepResults, not_scorable
from .._types import Chunk, ScorerRun
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
    seen: dict[str, None] = {}
    for rank, chunk in enumerate(chunks, start=1):
        if chunk.id is None:
            raise ConfigError(
                f"retrieved chunk #{rank} has no id; ID-based and ranking scorers need ids: "
                "pass context as {'id': ..., 'text': ...} dicts or Chunk(id=...)"
            )
        seen.setdefault(chunk.id, None)
    return list(seen)


def relevance_grades(run: ScorerRun) -> dict[str, float]:
    """Reference ids with their grades (1.0 for a plain list); grade <= 0 is kept as
    judged-not-relevant."""
    refs = run.reference_context_ids
    if isinstance(refs, dict):
        return dict(refs)
    return dict.fromkeys(refs or [], 1.0)


def _inputs_step(opts: IDContextOptions) -> Any:
    async def ids(run: ScorerRun, results: StepResults) -> Any:
        grades = relevance_grades(run)
        relevant = [i for i, g in grades.items() if g > 0]
        if not relevant:
            return not_scorable(
                "skipped: no relevant reference_context_ids were given to compare with"
            )
        retrieved = ranked_ids(await resolve_context(run, opts))
        return {"retrieved_ids": retrieved, "relevant_ids": relevant, "grades": grades}

    return ids


# --- factories ---------------------------------------------------------------------------


def _id_scorer(
    scorer_id: str,
    description: str,
    options: Any,
    factory: str,
    score: Callable[[list[str], list[str]], float],
    what: str,
) -> Scorer:
    opts = parse_options(IDContextOptions, options, factory)

    def generate_score(run: ScorerRun, results: StepResults) -> float:
        ids = results["ids"]
        return score(ids["retrieved_ids"], ids["relevant_ids"]) if ids["retrieved_ids"] else 0.0

    def reason(run: ScorerRun, results: StepResults, value: float) -> str:
        ids = results["ids"]
        found = [i for i in ids["retrieved_ids"] if i in set(ids["relevant_ids"])]
        if not ids["retrieved_ids"]:
            return "Score 0: no context was retrieved."
        missing = [i for i in ids["relevant_ids"] if i not in set(ids["retrieved_ids"])]
        extra = [i for i in ids["retrieved_ids"] if i not in set(ids["relevant_ids"])]
        total = len(ids["relevant_ids"]) if what == "recall" else len(ids["retrieved_ids"])
        head = (
            f"{len(found)} of {total} reference ids were retrieved"
            if what == "recall"
            else f"{len(found)} of {total} retrieved ids are relevant"
        )
        return (
            f"{head} (score {value:g}). Found: {found}; missing: {missing}; not relevant: {extra}."
        )

    return (
        create_scorer(id=scorer_id, description=description, scale=opts.scale)
        .preprocess(_inputs_step(opts), name="ids")
        .generate_score(generate_score)
        .generate_reason(reason)
    )


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

    def recall(retrieved: list[str], relevant: list[str]) -> float:
        return len(set(retrieved) & set(relevant)) / len(set(relevant))

    return _id_scorer(
        "id-context-recall",
        "Share of reference ids retrieved",
        options,
        "create_id_context_recall_scorer",
        recall,
        "recall",
    )


@prebuilt("id-context-precision", needs_model=False)
def create_id_context_precision_scorer(
    options: IDContextOptions | dict[str, Any] | None = None,
) -> Scorer:
    """ID context precision: ``|set(R) ∩ set(G)| / |set(R)| × scale`` (R deduplicated).

    Returns:
        A `Scorer` with id ``id-context-precision``.
    """

    def precision(retrieved: list[str], relevant: list[str]) -> float:
        return len(set(retrieved) & set(relevant)) / len(set(retrieved))

    return _id_scorer(
        "id-context-precision",
        "Share of retrieved ids that are relevant",
        options,
        "create_id_context_precision_scorer",
        precision,
        "precision",
    )


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
        ids = results["ids"]
        return fn(ids["retrieved_ids"], ids["grades"])

    def reason(run: ScorerRun, results: StepResults, value: float) -> str:
        ids = results["ids"]
        ranks = [
            r
            for r, doc in enumerate(ids["retrieved_ids"], start=1)
            if ids["grades"].get(doc, 0) > 0
        ]
        return (
            f"{metric} = {value:g}: relevant chunks at ranks {ranks} of "
            f"{len(ids['retrieved_ids'])} retrieved; {len(ids['relevant_ids'])} relevant "
            "references in all."
        )

    return (
        create_scorer(id=metric, description=f"{metric} (trec_eval definition)", scale=opts.scale)
        .preprocess(_inputs_step(opts), name="ids")
        .generate_score(generate_score)
        .generate_reason(reason)
    )
