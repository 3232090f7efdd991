"""String similarity for the non-LLM scorers: measures, matrices and the reasons' text.

Pure functions: the scorers' steps and their fast path both use them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rapidfuzz import distance, fuzz, process

from .._fences import clip
from .._i18n import t
from .._text import has_cjk, nfkc, words

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


def share(matched: list[bool]) -> float:
    """The share of True values (recall's score before scaling)."""
    return sum(matched) / len(matched)


def recall_text(
    refs: list[str], matched: list[bool], measure: str, threshold: float, lang: str = "en"
) -> str:
    """The recall reason: how many references a chunk matched, and the missing ones."""
    missing = [f'"{clip(refs[i], 60)}"' for i, hit in enumerate(matched) if not hit]
    text = t(
        lang,
        "similarity_recall",
        matched=len(matched) - len(missing),
        total=len(matched),
        measure=measure,
        threshold=f"{threshold:g}",
    )
    return text + (t(lang, "missing_list", items=", ".join(missing)) if missing else "")


def precision_text(
    matched: list[bool], measure: str, threshold: float, score: float, lang: str = "en"
) -> str:
    """The precision reason: which ranks matched a reference, and the average precision."""
    ranks = [k + 1 for k, rel in enumerate(matched) if rel]
    return t(
        lang,
        "similarity_precision",
        matched=len(ranks),
        total=len(matched),
        measure=measure,
        threshold=f"{threshold:g}",
        ranks=t(lang, "at_ranks", ranks=ranks) if ranks else "",
        score=f"{score:g}",
    )
