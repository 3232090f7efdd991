"""Prebuilt scorers by id: what the CLI and `scorer_by_id` look up."""

from __future__ import annotations

from typing import Any

from ._errors import ConfigError
from ._model._judge import Judge
from ._pipeline import Scorer
from ._prebuilt._ids import create_ranking_scorer
from ._prebuilt._ranking import RANKING_METRICS, ranking_metric
from ._prebuilt._registry import registry


def scorer_ids() -> dict[str, str]:
    """Every prebuilt scorer id with a one-line description; ranking metrics with a
    cutoff are listed at 10 (``ndcg@10``) and take any."""
    llm_first = sorted(registry().items(), key=lambda item: not item[1].needs_model)
    listing = {sid: entry.description for sid, entry in llm_first}
    for metric in RANKING_METRICS:  # a concrete id each, accepted as it is listed
        example = metric.replace("@k", "@10")
        cutoff = f" (any cutoff: {metric.replace('@k', '@K')})" if "@k" in metric else ""
        listing.setdefault(example, f"ranking metric, trec_eval definition{cutoff}")
    return listing


def scorer_by_id(
    scorer_id: str, model: str | Judge | None = None, options: dict[str, Any] | None = None
) -> Scorer:
    """Build a prebuilt scorer from its id (e.g. ``"context-recall"``, ``"ndcg@10"``).

    Raises:
        ConfigError: For an unknown id, or an LLM scorer without a model.
    """
    entry = registry().get(scorer_id)
    if entry is not None and entry.needs_model:
        if model is None:
            raise ConfigError(
                f"scorer {scorer_id!r} needs a judge model: pass --model or "
                "set SCOREKIT_MODEL (a litellm model string)"
            )
        return entry.factory(model, options)  # type: ignore[no-any-return]
    if entry is not None:
        return entry.factory(options)  # type: ignore[no-any-return]
    try:
        ranking_metric(scorer_id)
    except ConfigError:
        known = ", ".join([*registry(), *RANKING_METRICS])
        raise ConfigError(f"unknown scorer id {scorer_id!r}; known: {known}") from None
    return create_ranking_scorer(scorer_id, options)
