"""Non-LLM context recall and precision by string similarity (rapidfuzz)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import Field, field_validator

from .._context import ContextOptions, resolve_context
from .._engine import with_fast_path
from .._i18n import t
from .._pipeline import Scorer, create_scorer
from .._steps import StepResults, not_scorable
from .._types import ScorerRun
from . import _fast_similarity  # noqa: F401  # registers the fast path
from ._options import LanguageOptions, ScaleOptions, parse_options, run_language
from ._ranking import average_precision
from ._registry import prebuilt
from ._similarity_math import MEASURES, precision_text, recall_text, share, similarity_matrix


class NonLLMContextOptions(ContextOptions, ScaleOptions, LanguageOptions):
    """Options of the string-similarity scorers.

    Attributes:
        scale: Scores lie in ``[0, scale]``.
        context: Static retrieved chunks, in rank order.
        context_extractor: ``fn(input, output)`` or a registered extractor name.
        measure: A name from `MEASURES` (default ``"levenshtein"``, i.e.
            ``1 - Levenshtein.normalized_distance``) or ``fn(a, b) -> similarity in [0, 1]``.
        threshold: A pair matches when its similarity is ``>= threshold``.
        ignore_case: Lower-case both sides first (after NFKC normalisation).
        ignore_whitespace: Collapse runs of whitespace and strip both sides first (after
            NFKC normalisation: fullwidth letters and digits become plain ones).
        language: The reason's language (``auto``: the data's; see `LanguageOptions`).
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


@dataclass
class Similarities:
    """The similarities step's result.

    Attributes:
        measure: The similarity measure's name.
        threshold: The threshold a best similarity must reach (``>=``).
        similarities: The chunk × reference similarity matrix (numpy, in [0, 1]).
        matched: Per reference (recall) or per chunk (precision): best >= threshold.
        best_per_reference: Recall's best similarity of each reference, else None.
        best_per_chunk: Precision's best similarity of each chunk, else None.
    """

    measure: str
    threshold: float
    similarities: Any
    matched: list[bool]
    best_per_reference: Any = None
    best_per_chunk: Any = None


def similarities_step(opts: NonLLMContextOptions, per: str) -> Any:
    """Analyze step: the chunk × reference matrix and, per reference (recall) or per chunk
    (precision), the best similarity and whether it reaches the threshold."""
    axis = 0 if per == "reference" else 1
    measure = opts.measure
    name = measure if isinstance(measure, str) else getattr(measure, "__name__", "custom")

    def similarities(run: ScorerRun, results: StepResults) -> Similarities | None:
        chunks = results["_context"]
        if not chunks:
            return None
        # the recall and precision scorers of one run share the matrix
        key = ("similarity_matrix", id(chunks), measure, opts.ignore_case, opts.ignore_whitespace)
        memo = run.memo()
        matrix = memo.get(key)
        if matrix is None:
            matrix = memo[key] = similarity_matrix(
                [c.text for c in chunks],
                run.reference_contexts or [],
                measure,
                ignore_case=opts.ignore_case,
                ignore_whitespace=opts.ignore_whitespace,
            )
        best = matrix.max(axis=axis)
        return Similarities(
            measure=name,
            threshold=opts.threshold,
            similarities=matrix,
            matched=(best >= opts.threshold).tolist(),
            **{f"best_per_{per}": best},
        )

    return similarities


def _references_present(opts: NonLLMContextOptions) -> Any:
    def context(run: ScorerRun, results: StepResults) -> Any:
        if not run.reference_contexts:
            return not_scorable(t(run_language(run, opts.language), "no_references"))
        return run.context if run.context is not None else resolve_context(run, opts)

    return context


def matched_share(run: ScorerRun, results: StepResults) -> float:
    """Recall: the share of references matched; 0 for empty context."""
    sims: Similarities | None = results["similarities"]
    return 0.0 if sims is None else share(sims.matched)


def matched_precision(run: ScorerRun, results: StepResults) -> float:
    """Precision: average precision of the matched chunks; 0 for empty context."""
    sims: Similarities | None = results["similarities"]
    return 0.0 if sims is None else average_precision(sims.matched)


def _recall_reason(opts: NonLLMContextOptions) -> Any:
    def reason(run: ScorerRun, results: StepResults, score: float) -> str:
        lang = run_language(run, opts.language)
        sims: Similarities | None = results["similarities"]
        if sims is None:
            return t(lang, "precision_no_context")
        refs = run.reference_contexts or []
        return recall_text(refs, sims.matched, sims.measure, sims.threshold, lang)

    return reason


def _precision_reason(opts: NonLLMContextOptions) -> Any:
    def reason(run: ScorerRun, results: StepResults, score: float) -> str:
        lang = run_language(run, opts.language)
        sims: Similarities | None = results["similarities"]
        if sims is None:
            return t(lang, "precision_no_context")
        return precision_text(sims.matched, sims.measure, sims.threshold, score, lang)

    return reason


@prebuilt("non-llm-context-recall", needs_model=False, ragas="NonLLMContextRecall")
def create_non_llm_context_recall_scorer(
    options: NonLLMContextOptions | dict[str, Any] | None = None,
) -> Scorer:
    """String-similarity context recall: the share of references found among the chunks.

    ``hit_g = max_k sim(g, r_k) >= threshold``; score ``hits / |G| × scale``. References
    come from the run's ``reference_contexts`` (none → skipped); empty context → 0.

    Returns:
        A `Scorer` with id ``non-llm-context-recall``.
    """
    opts = parse_options(NonLLMContextOptions, options, "create_non_llm_context_recall_scorer")
    scorer = (
        create_scorer(
            id="non-llm-context-recall",
            description="Share of reference contexts matched by a chunk",
            scale=opts.scale,
            config=opts,
        )
        .preprocess(_references_present(opts), name="_context")
        .analyze(similarities_step(opts, "reference"), name="similarities")
        .generate_score(matched_share)
        .generate_reason(_recall_reason(opts))
    )
    return with_fast_path(scorer, opts)


@prebuilt(
    "non-llm-context-precision",
    needs_model=False,
    ragas="NonLLMContextPrecisionWithReference",
)
def create_non_llm_context_precision_scorer(
    options: NonLLMContextOptions | dict[str, Any] | None = None,
) -> Scorer:
    """String-similarity context precision: average precision of chunks matching a reference.

    ``v_k = max_g sim(r_k, g) >= threshold``; score ``Σ P@k·v_k / Σ v_k × scale``.

    Returns:
        A `Scorer` with id ``non-llm-context-precision``.
    """
    opts = parse_options(NonLLMContextOptions, options, "create_non_llm_context_precision_scorer")
    scorer = (
        create_scorer(
            id="non-llm-context-precision",
            description="Average precision of chunks matching a reference",
            scale=opts.scale,
            config=opts,
        )
        .preprocess(_references_present(opts), name="_context")
        .analyze(similarities_step(opts, "chunk"), name="similarities")
        .generate_score(matched_precision)
        .generate_reason(_precision_reason(opts))
    )
    return with_fast_path(scorer, opts)
