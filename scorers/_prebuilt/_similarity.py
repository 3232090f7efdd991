"""Non-LLM context recall and precision by string similarity (rapidfuzz)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from pydantic import Field, field_validator
from rapidfuzz import distance, fuzz, process

from .._context import ContextOptions, resolve_context
from .._pipeline import Scorer, create_scorer
from .._steps import StepResults, not_scorable
from .._types import ScorerRun
from ._options import ScaleOptions, parse_options
from ._ranking import average_precision
from ._registry import prebuilt

SimilarityFn = Callable[[str, str], float]

# name -> (rapidfuzz scorer, the scorer's maximum, to map it onto [0, 1])
MEASURES: dict[str, tuple[Callable[..., float], float]] = {
    "levenshtein": (distance.Levenshtein.normalized_similarity, 1.0),
    "indel": (distance.Indel.normalized_similarity, 1.0),
    "jaro": (distance.Jaro.normalized_similarity, 1.0),
    "jaro_winkler": (distance.JaroWinkler.normalized_similarity, 1.0),
    "hamming": (distance.Hamming.normalized_similarity, 1.0),
    "token_set_ratio": (fuzz.token_set_ratio, 100.0),
    "partial_ratio": (fuzz.partial_ratio, 100.0),
}


class NonLLMContextOptions(ContextOptions, ScaleOptions):
    """Options of the string-similarity scorers.

    Attributes:
        scale: Scores lie in ``[0, scale]``.
        context: Static retrieved chunks, in rank order.
        context_extractor: ``fn(input, output)`` or a registered extractor name.
        measure: A name from `MEASURES` (default ``"levenshtein"``, i.e.
            ``1 - Levenshtein.normalized_distance``) or ``fn(a, b) -> similarity in [0, 1]``.
        threshold: A pair matches when its similarity is ``>= threshold``.
        ignore_case: Lower-case both sides first.
        ignore_whitespace: Collapse runs of whitespace and strip both sides first.
    """

    measure: str | Callable[..., float] = "levenshtein"
    threshold: float = Field(default=0.5, ge=0.0, le=1.0)
    ignore_case: bool = False
    ignore_whitespace: bool = False

    @field_validator("measure")
    @classmethod
    def _known_measure(cls, value: Any) -> Any:
        if isinstance(value, str) and value not in MEASURES:
            raise ValueError(
                f"unknown measure {value!r}; choose one of {sorted(MEASURES)} "
                "or pass a function (a, b) -> similarity in [0, 1]"
            )
        return value


def similarity_matrix(
    rows: list[str],
    cols: list[str],
    measure: str | SimilarityFn = "levenshtein",
    *,
    ignore_case: bool = False,
    ignore_whitespace: bool = False,
) -> np.ndarray:
    """The ``len(rows) × len(cols)`` similarity matrix in [0, 1], by one ``process.cdist``.

    Args:
        rows: First strings (retrieved chunks).
        cols: Second strings (references).
        measure: A name from `MEASURES` or ``fn(a, b) -> float in [0, 1]``.
        ignore_case: Lower-case first.
        ignore_whitespace: Collapse whitespace first.
    """
    if ignore_case or ignore_whitespace:

        def norm(text: str) -> str:
            if ignore_whitespace:
                text = " ".join(text.split())
            return text.lower() if ignore_case else text

        rows, cols = [norm(t) for t in rows], [norm(t) for t in cols]
    if isinstance(measure, str):
        scorer, maximum = MEASURES[measure]
    else:
        user_fn = measure

        def scorer(a: str, b: str, **_: Any) -> float:
            return float(user_fn(a, b))

        maximum = 1.0
    matrix = process.cdist(rows, cols, scorer=scorer, dtype=np.float64)
    return matrix / maximum if maximum != 1.0 else matrix


def _compare(opts: NonLLMContextOptions, per: str) -> Any:
    """Analyze step: the chunk × reference matrix and, per reference (recall) or per chunk
    (precision), the best similarity and whether it reaches the threshold."""
    axis = 0 if per == "reference" else 1
    best_key = f"best_per_{per}"
    measure = opts.measure
    name = measure if isinstance(measure, str) else getattr(measure, "__name__", "custom")
    threshold = opts.threshold
    ignore_case, ignore_whitespace = opts.ignore_case, opts.ignore_whitespace

    def similarities(run: ScorerRun, results: StepResults) -> dict[str, Any] | None:
        chunks = results["_context"]
        if not chunks:
            return None
        matrix = similarity_matrix(
            [c.text for c in chunks],
            run.reference_contexts or [],
            measure,
            ignore_case=ignore_case,
            ignore_whitespace=ignore_whitespace,
        )
        best = matrix.max(axis=axis)
        return {
            "measure": name,
            "threshold": threshold,
            "similarities": matrix,
            best_key: best,
            "matched": (best >= threshold).tolist(),
        }

    return similarities


def _references_present(opts: NonLLMContextOptions) -> Any:
    def context(run: ScorerRun, results: StepResults) -> Any:
        if not run.reference_contexts:
            return not_scorable("skipped: no reference_contexts were given to compare with")
        return run.context if run.context is not None else resolve_context(run, opts)

    return context


def _recall_score(run: ScorerRun, results: StepResults) -> float:
    sims = results["similarities"]
    return 0.0 if sims is None else sum(sims["matched"]) / len(sims["matched"])


def _precision_score(run: ScorerRun, results: StepResults) -> float:
    sims = results["similarities"]
    return 0.0 if sims is None else average_precision(sims["matched"])


def _recall_reason(run: ScorerRun, results: StepResults, score: float) -> str:
    sims = results["similarities"]
    if sims is None:
        return "Score 0: no context was retrieved."
    refs = run.reference_contexts or []
    matched = sims["matched"]
    missing = [f'"{_short(refs[i])}"' for i, hit in enumerate(matched) if not hit]
    text = (
        f"{len(matched) - len(missing)} of {len(matched)} reference contexts have a retrieved "
        f"chunk with {sims['measure']} similarity >= {sims['threshold']:g}."
    )
    return text + (f" Missing: {', '.join(missing)}." if missing else "")


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _precision_reason(run: ScorerRun, results: StepResults, score: float) -> str:
    sims = results["similarities"]
    if sims is None:
        return "Score 0: no context was retrieved."
    ranks = [k + 1 for k, rel in enumerate(sims["matched"]) if rel]
    return (
        f"{len(ranks)} of {len(sims['matched'])} retrieved chunks match a reference "
        f"({sims['measure']} similarity >= {sims['threshold']:g})"
        + (f" at ranks {ranks}" if ranks else "")
        + f"; average precision {score:g}."
    )


def _build(
    scorer_id: str, description: str, options: Any, factory: str, per: str, score: Any, reason: Any
) -> Scorer:
    opts = parse_options(NonLLMContextOptions, options, factory)
    return (
        create_scorer(id=scorer_id, description=description, scale=opts.scale)
        .preprocess(_references_present(opts), name="_context")
        .analyze(_compare(opts, per), name="similarities")
        .generate_score(score)
        .generate_reason(reason)
    )


@prebuilt("non-llm-context-recall", needs_model=False)
def create_non_llm_context_recall_scorer(
    options: NonLLMContextOptions | dict[str, Any] | None = None,
) -> Scorer:
    """String-similarity context recall: the share of references found among the chunks.

    ``hit_g = max_k sim(g, r_k) >= threshold``; score ``hits / |G| × scale``. References
    come from the run's ``reference_contexts`` (none → skipped); empty context → 0.

    Returns:
        A `Scorer` with id ``non-llm-context-recall``.
    """
    return _build(
        "non-llm-context-recall",
        "Share of reference contexts matched by a chunk",
        options,
        "create_non_llm_context_recall_scorer",
        "reference",
        _recall_score,
        _recall_reason,
    )


@prebuilt("non-llm-context-precision", needs_model=False)
def create_non_llm_context_precision_scorer(
    options: NonLLMContextOptions | dict[str, Any] | None = None,
) -> Scorer:
    """String-similarity context precision: average precision of chunks matching a reference.

    ``v_k = max_g sim(r_k, g) >= threshold``; score ``Σ P@k·v_k / Σ v_k × scale``.

    Returns:
        A `Scorer` with id ``non-llm-context-precision``.
    """
    return _build(
        "non-llm-context-precision",
        "Average precision of chunks matching a reference",
        options,
        "create_non_llm_context_precision_scorer",
        "chunk",
        _precision_score,
        _precision_reason,
    )
