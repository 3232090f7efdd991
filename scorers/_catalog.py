"""Prebuilt scorers by id: what the CLI and `scorer_by_id` look up."""

from __future__ import annotations

from typing import Any

from ._errors import ConfigError
from ._judge import Judge
from ._pipeline import Scorer
from ._prebuilt._ids import (
    create_id_context_precision_scorer,
    create_id_context_recall_scorer,
    create_ranking_scorer,
)
from ._prebuilt._precision import create_context_precision_scorer, create_context_utilization_scorer
from ._prebuilt._ranking import RANKING_METRICS
from ._prebuilt._recall import create_context_recall_scorer
from ._prebuilt._similarity import (
    create_non_llm_context_precision_scorer,
    create_non_llm_context_recall_scorer,
)

LLM_SCORERS = {
    "context-recall": (
        create_context_recall_scorer,
        "claims of the ground truth supported by the context",
    ),
    "context-precision": (
        create_context_precision_scorer,
        "average precision of chunks useful for the ground truth",
    ),
    "context-utilization": (
        create_context_utilization_scorer,
        "average precision of chunks the response used",
    ),
}
MODEL_FREE_SCORERS = {
    "non-llm-context-recall": (
        create_non_llm_context_recall_scorer,
        "reference contexts matched by a chunk (string similarity)",
    ),
    "non-llm-context-precision": (
        create_non_llm_context_precision_scorer,
        "average precision of chunks matching a reference (string similarity)",
    ),
    "id-context-recall": (create_id_context_recall_scorer, "share of reference ids retrieved"),
    "id-context-precision": (
        create_id_context_precision_scorer,
        "share of retrieved ids that are relevant",
    ),
}


def scorer_ids() -> dict[str, str]:
    """Every prebuilt scorer id (ranking metrics as patterns) with a one-line description."""
    listing = {k: v[1] for k, v in {**LLM_SCORERS, **MODEL_FREE_SCORERS}.items()}
    listing.update({m: "ranking metric, trec_eval definition" for m in RANKING_METRICS})
    return listing


def scorer_by_id(
    scorer_id: str, model: str | Judge | None = None, options: dict[str, Any] | None = None
) -> Scorer:
    """Build a prebuilt scorer from its id (e.g. ``"context-recall"``, ``"ndcg@10"``).

    Raises:
        ConfigError: For an unknown id, or an LLM scorer without a model.
    """
    if scorer_id in LLM_SCORERS:
        if model is None:
            raise ConfigError(
                f"scorer {scorer_id!r} needs a judge model: pass --model or "
                "set SCOREKIT_MODEL (a litellm model string)"
            )
        return LLM_SCORERS[scorer_id][0](model, options)
    if scorer_id in MODEL_FREE_SCORERS:
        return MODEL_FREE_SCORERS[scorer_id][0](options)
    try:
        return create_ranking_scorer(scorer_id, options)
    except ConfigError:
        known = ", ".join([*LLM_SCORERS, *MODEL_FREE_SCORERS, *RANKING_METRICS])
        raise ConfigError(f"unknown scorer id {scorer_id!r}; known: {known}") from None
