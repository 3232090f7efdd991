"""Words of any script: Latin-style words, and character bigrams for CJK text.

Chinese and Japanese are written without spaces (and Korean words carry particles), so
splitting on spaces gives one "word" per sentence and word-level measures see nothing in
common between two phrasings of the same fact. Runs of CJK characters become their
overlapping character bigrams instead ("巴黎是法国" → 巴黎 黎是 是法 法国), which is the
usual unit for such text in retrieval.
"""

from __future__ import annotations

import re
import unicodedata

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_PIECES = re.compile(rf"[{_CJK}]+|[^\W{_CJK}]+")
_CJK_RUN = re.compile(rf"[{_CJK}]+")


def words(text: str) -> list[str]:
    """The words of ``text``: ``\\w`` runs outside CJK scripts, bigrams inside them (a
    lone CJK character stays one word)."""
    out: list[str] = []
    for piece in _PIECES.findall(text):
        if _CJK_RUN.fullmatch(piece):
            out.extend(
                [piece] if len(piece) == 1 else [piece[i : i + 2] for i in range(len(piece) - 1)]
            )
        else:
            out.append(piece)
    return out


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a Chinese, Japanese or Korean character."""
    return _CJK_RUN.search(text) is not None


def nfkc(text: str) -> str:
    """Unicode compatibility normalisation: fullwidth letters and digits, ligatures and
    other compatibility forms become their plain equivalents."""
    return unicodedata.normalize("NFKC", text)


def normalized_words(text: str) -> list[str]:
    """`words` of the NFKC-normalised, lower-cased text."""
    return words(nfkc(text).lower())
