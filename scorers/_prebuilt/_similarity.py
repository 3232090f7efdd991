"""Non-LLM context recall and precision by string similarity (rapidfuzz)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator
from rapidfuzz import distance, fuzz, process

from .._context import ContextOptions, resolve_context
from .._fences import clip
from .._pipeline import Kernel, Scorer, create_scorer
from .._steps import StepResults, not_scorable
from .._text import has_cjk, nfkc, words
from .._types import ScoreResult, ScorerRun, batch_result
from ._options import ScaleOptions, parse_options
from ._ranking import average_precision
from ._registry import prebuilt

if TYPE_CHECKING:
    import numpy as np
else:
    from .._lazy import np

SimilarityFn = Callable[[str, str], float]

WORD_MEASURES = frozenset({"token_set_ratio"})
"""Measures over words: CJK text is split into character bigrams for them."""

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
        ignore_case: Lower-case both sides first (after NFKC normalisation).
        ignore_whitespace: Collapse runs of whitespace and strip both sides first (after
            NFKC normalisation: fullwidth letters and digits become plain ones).
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
            text = nfkc(text)
            if ignore_whitespace:
                text = " ".join(text.split())
            return text.lower() if ignore_case else text

        rows, cols = [norm(t) for t in rows], [norm(t) for t in cols]
    if measure in WORD_MEASURES and any(has_cjk(t) for t in (*rows, *cols)):
        rows, cols = [" ".join(words(t)) for t in rows], [" ".join(words(t)) for t in cols]
    if isinstance(measure, str):
        scorer, maximum = MEASURES[measure]
    else:
        user_fn = measure

        def scorer(a: str, b: str, **_: Any) -> float:
            return float(user_fn(a, b))

        maximum = 1.0
    matrix = process.cdist(rows, cols, scorer=scorer, dtype=np.float64)
    return matrix / maximum if maximum != 1.0 else matrix


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


def _pairs_kernel(
    chunk_texts: list[list[str]], references: list[list[str]], measure: str
) -> Kernel:
    """Every (chunk, reference) similarity of many runs by one ``process.cpdist`` over
    the pairs (on every core), in [0, 1], laid out run by run as each run's
    ``chunks × references`` matrix, row-major (equal to `similarity_matrix` per run, value
    for value), as a `Kernel`: the pairs listed now, ``cpdist`` in ``compute`` (multi-core,
    so rapidfuzz releases the GIL), the scaling to [0, 1] in ``finish``."""
    left = [
        text
        for texts, refs in zip(chunk_texts, references, strict=True)
        for text in texts
        for _ in refs
    ]
    right = [
        ref
        for texts, refs in zip(chunk_texts, references, strict=True)
        for _ in texts
        for ref in refs
    ]
    scorer, maximum = MEASURES[measure]

    def compute() -> np.ndarray:
        return process.cpdist(left, right, scorer=scorer, dtype=np.float64, workers=-1)

    def finish(flat: np.ndarray) -> np.ndarray:
        return flat / maximum if maximum != 1.0 else flat

    return Kernel(compute, finish)


@dataclass(frozen=True)
class _PairBlock:
    """The similarities of a block's runs that a batch can score.

    Attributes:
        slots: Index in the block of each such run.
        rows: Chunks per run; ``cols``: references per run (numpy).
        flat: Every run's matrix, row-major, one after another; ``offsets`` their starts.
        matrices: Each run's ``chunks × references`` matrix (views of ``flat``).
    """

    slots: list[int]
    rows: np.ndarray
    cols: np.ndarray
    flat: np.ndarray
    offsets: np.ndarray
    matrices: list[np.ndarray]

    def best(self, per: str) -> np.ndarray:
        """The best similarity of each chunk (``per="chunk"``: the maximum of each
        matrix row) or each reference (``"reference"``: of each column), run after run,
        in one ``maximum.reduceat``."""
        n = len(self.slots)
        flat, offsets, rows, cols = self.flat, self.offsets, self.rows, self.cols
        if per == "reference":  # transpose every matrix in place in one scatter
            run = np.repeat(np.arange(n), rows * cols)
            position = np.arange(len(flat)) - offsets[run]
            i, j = np.divmod(position, cols[run])
            transposed = np.empty_like(flat)
            transposed[offsets[run] + j * rows[run] + i] = flat
            flat, rows, cols = transposed, cols, rows
        segments = np.repeat(np.arange(n), rows)  # one segment per row of a matrix
        first = np.cumsum(rows) - rows
        starts = offsets[segments] + (np.arange(len(segments)) - first[segments]) * cols[segments]
        return np.maximum.reduceat(flat, starts)


def _pair_block(runs: Any, measure: str) -> _PairBlock | None:
    """The `_PairBlock` of a block's runs (None when no run has chunks and references)."""
    kernel = _pair_block_kernel(runs, measure)
    return kernel.finish(kernel.compute())


def _pair_block_kernel(runs: Any, measure: str) -> Kernel:
    """`_pair_block` as a `Kernel` (see `_pairs_kernel`)."""
    slots = [
        i
        for i, run in enumerate(runs)
        if run.reference_contexts
        and run.context
        and not (measure in WORD_MEASURES and _any_cjk(run))
    ]
    if not slots:
        return Kernel(lambda: None, lambda _: None)
    texts = [[c.text for c in runs[i].context] for i in slots]
    refs = [runs[i].reference_contexts for i in slots]
    pairs = _pairs_kernel(texts, refs, measure)
    return Kernel(pairs.compute, lambda flat: _blocked(slots, texts, refs, pairs.finish(flat)))


def _blocked(
    slots: list[int], texts: list[list[str]], refs: list[list[str]], flat: np.ndarray
) -> _PairBlock:
    rows = np.fromiter(map(len, texts), np.int64, len(texts))
    cols = np.fromiter(map(len, refs), np.int64, len(refs))
    offsets = np.zeros(len(slots) + 1, dtype=np.int64)
    np.cumsum(rows * cols, out=offsets[1:])
    starts, ends = offsets[:-1].tolist(), offsets[1:].tolist()
    matrices = [
        flat[a:b].reshape(r, c)
        for a, b, r, c in zip(starts, ends, rows.tolist(), cols.tolist(), strict=True)
    ]
    return _PairBlock(slots, rows, cols, flat, offsets, matrices)


def _with_similarity_batch(pipeline: Scorer, opts: NonLLMContextOptions, per: str) -> Scorer:
    """The recall (``per="reference"``) or precision (``"chunk"``) scorer ``pipeline``
    with its vectorised twin and that batch's kernel (the block's pair similarities), when
    the options allow one: a named measure and no text normalisation. The batch takes runs
    that carry their chunks and references and leaves the others to the pipeline (None)."""
    measure = opts.measure
    if not isinstance(measure, str) or opts.ignore_case or opts.ignore_whitespace:
        return pipeline
    recall = per == "reference"
    threshold = opts.threshold
    best_key = f"best_per_{per}"
    key = ("pair_similarities", measure)

    def kernels(runs: Sequence[ScorerRun]) -> dict[Any, Kernel]:
        return {key: _pair_block_kernel(runs, measure)}

    def batch(scorer: Scorer, runs: Any, memo: dict[Any, Any]) -> list[ScoreResult | None]:
        if key not in memo:
            memo[key] = _pair_block(runs, measure)
        block: _PairBlock | None = memo[key]
        out: list[ScoreResult | None] = [None] * len(runs)
        if block is None:
            return out
        best = block.best(per)
        matched = (best >= threshold).tolist()
        sizes = (block.cols if recall else block.rows).tolist()
        sid, scaled = scorer.id, scorer.scaled
        start = 0
        for slot, matrix, size in zip(block.slots, block.matrices, sizes, strict=True):
            end = start + size
            hits = matched[start:end]
            details = {  # what detail_value makes of the pipeline's Similarities
                "measure": measure,
                "threshold": threshold,
                "similarities": matrix,
                "matched": hits,
                best_key: best[start:end],
            }
            start = end
            if recall:
                score = scaled(_share(hits))
                reason = _recall_text(runs[slot].reference_contexts, hits, measure, threshold)
            else:
                score = scaled(average_precision(hits))
                reason = _precision_text(hits, measure, threshold, score)
            out[slot] = batch_result(sid, score, reason, {"similarities": details})
        return out

    return pipeline._with_batch(batch, kernels)


def _any_cjk(run: ScorerRun) -> bool:
    return any(has_cjk(c.text) for c in run.context or ()) or any(
        has_cjk(t) for t in run.reference_contexts or ()
    )


def _references_present(opts: NonLLMContextOptions) -> Any:
    def context(run: ScorerRun, results: StepResults) -> Any:
        if not run.reference_contexts:
            return not_scorable("skipped: no reference_contexts were given to compare with")
        return run.context if run.context is not None else resolve_context(run, opts)

    return context


def matched_share(run: ScorerRun, results: StepResults) -> float:
    """Recall: the share of references matched; 0 for empty context."""
    sims: Similarities | None = results["similarities"]
    return 0.0 if sims is None else _share(sims.matched)


def _share(matched: list[bool]) -> float:
    return sum(matched) / len(matched)


def matched_precision(run: ScorerRun, results: StepResults) -> float:
    """Precision: average precision of the matched chunks; 0 for empty context."""
    sims: Similarities | None = results["similarities"]
    return 0.0 if sims is None else average_precision(sims.matched)


def _recall_reason(run: ScorerRun, results: StepResults, score: float) -> str:
    sims: Similarities | None = results["similarities"]
    if sims is None:
        return "Score 0: no context was retrieved."
    return _recall_text(run.reference_contexts or [], sims.matched, sims.measure, sims.threshold)


def _recall_text(refs: list[str], matched: list[bool], measure: str, threshold: float) -> str:
    missing = [f'"{clip(refs[i], 60)}"' for i, hit in enumerate(matched) if not hit]
    text = (
        f"{len(matched) - len(missing)} of {len(matched)} reference contexts have a retrieved "
        f"chunk with {measure} similarity >= {threshold:g}."
    )
    return text + (f" Missing: {', '.join(missing)}." if missing else "")


def _precision_reason(run: ScorerRun, results: StepResults, score: float) -> str:
    sims: Similarities | None = results["similarities"]
    if sims is None:
        return "Score 0: no context was retrieved."
    return _precision_text(sims.matched, sims.measure, sims.threshold, score)


def _precision_text(matched: list[bool], measure: str, threshold: float, score: float) -> str:
    ranks = [k + 1 for k, rel in enumerate(matched) if rel]
    return (
        f"{len(ranks)} of {len(matched)} retrieved chunks match a reference "
        f"({measure} similarity >= {threshold:g})"
        + (f" at ranks {ranks}" if ranks else "")
        + f"; average precision {score:g}."
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
        .generate_reason(_recall_reason)
    )
    return _with_similarity_batch(scorer, opts, "reference")


@prebuilt("non-llm-context-precision", needs_model=False)
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
        .generate_reason(_precision_reason)
    )
    return _with_similarity_batch(scorer, opts, "chunk")
