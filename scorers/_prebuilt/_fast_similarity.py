"""The fast path of the string-similarity recall and precision scorers.

A block's similarities come from one multi-core ``process.cpdist`` over every
(chunk, reference) pair of its runs, shared by the recall and precision plug-ins through
the block's memo; each run's best values come from one ``maximum.reduceat``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rapidfuzz import process

from .._checks import clip_scaled
from .._engine import FastPath, Memo, Outcome, register_fast_path
from .._text import has_cjk
from .._types import ScorerRun
from ._options import run_languages
from ._ranking import average_precision
from ._similarity_math import MEASURES, WORD_MEASURES, precision_text, recall_text, share

if TYPE_CHECKING:
    import numpy as np
else:
    from .._lazy import np


@dataclass(frozen=True)
class PairBlock:
    """The similarities of the runs of a block that the fast path scores.

    Attributes:
        slots: Index in the block of each such run.
        rows: Chunks per run; ``cols``: references per run (numpy).
        flat: Every run's ``chunks × references`` matrix, row-major, one after another;
            ``offsets`` their starts.
        matrices: Each run's matrix (views of ``flat``).
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


def pair_block(runs: Sequence[ScorerRun], measure: str) -> PairBlock | None:
    """The `PairBlock` of the runs that carry chunks and references (value for value
    what `similarity_matrix` gives each run); None when no run does."""
    slots = [
        i
        for i, run in enumerate(runs)
        if run.reference_contexts
        and run.context
        and not (measure in WORD_MEASURES and _any_cjk(run))
    ]
    if not slots:
        return None
    texts = [[c.text for c in runs[i].context or ()] for i in slots]
    refs = [runs[i].reference_contexts or [] for i in slots]
    left = [text for ts, rs in zip(texts, refs, strict=True) for text in ts for _ in rs]
    right = [ref for ts, rs in zip(texts, refs, strict=True) for _ in ts for ref in rs]
    scorer, maximum = MEASURES[measure]
    flat = process.cpdist(left, right, scorer=scorer, dtype=np.float64, workers=-1)
    if maximum != 1.0:
        flat = flat / maximum
    rows = np.fromiter(map(len, texts), np.int64, len(texts))
    cols = np.fromiter(map(len, refs), np.int64, len(refs))
    offsets = np.zeros(len(slots) + 1, dtype=np.int64)
    np.cumsum(rows * cols, out=offsets[1:])
    starts, ends = offsets[:-1].tolist(), offsets[1:].tolist()
    matrices = [
        flat[a:b].reshape(r, c)
        for a, b, r, c in zip(starts, ends, rows.tolist(), cols.tolist(), strict=True)
    ]
    return PairBlock(slots, rows, cols, flat, offsets, matrices)


def _any_cjk(run: ScorerRun) -> bool:
    return any(has_cjk(c.text) for c in run.context or ()) or any(
        has_cjk(t) for t in run.reference_contexts or ()
    )


@dataclass(frozen=True)
class SimilarityFastPath:
    """Recall (``per="reference"``) or precision (``per="chunk"``) by string similarity
    for a block of runs; runs without chunks or references are left to the steps."""

    measure: str
    threshold: float
    scale: float
    per: str
    language: str

    def score(self, runs: Sequence[ScorerRun], memo: Memo) -> list[Outcome | None]:
        key = ("pair_similarities", self.measure)
        if key not in memo:
            memo[key] = pair_block(runs, self.measure)
        block: PairBlock | None = memo[key]
        out: list[Outcome | None] = [None] * len(runs)
        if block is None:
            return out
        recall = self.per == "reference"
        best = block.best(self.per)
        matched = (best >= self.threshold).tolist()
        sizes = (block.cols if recall else block.rows).tolist()
        measure, threshold, scale = self.measure, self.threshold, self.scale
        languages = run_languages(runs, self.language, memo)
        start = 0
        for slot, matrix, size in zip(block.slots, block.matrices, sizes, strict=True):
            end = start + size
            hits = matched[start:end]
            details = {  # what detail_value makes of the steps' Similarities
                "measure": measure,
                "threshold": threshold,
                "similarities": matrix,
                "matched": hits,
                f"best_per_{self.per}": best[start:end],
            }
            start = end
            run, lang = runs[slot], languages[slot]
            if recall:
                score = clip_scaled(share(hits), scale)
                reason = recall_text(run.reference_contexts or [], hits, measure, threshold, lang)
            else:
                score = clip_scaled(average_precision(hits), scale)
                reason = precision_text(hits, measure, threshold, score, lang)
            out[slot] = (score, reason, {"similarities": details})
        return out


def _plugin(per: str) -> Any:
    def make(options: Any) -> FastPath | None:
        measure = options.measure
        if not isinstance(measure, str) or options.ignore_case or options.ignore_whitespace:
            return None  # a custom measure or normalised text: the steps only
        return SimilarityFastPath(measure, options.threshold, options.scale, per, options.language)

    return make


register_fast_path("non-llm-context-recall")(_plugin("reference"))
register_fast_path("non-llm-context-precision")(_plugin("chunk"))
