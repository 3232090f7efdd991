"""The fence grammar of every judge prompt: data inside tags it cannot close.

Prompts show retrieved chunks, claims and answers inside ``<context>``, ``<chunk
index="i">``, ``<claims>``... fences; `fence` neutralises those tags inside the data.
`tagged` and `block` read the same grammar back (the fake judge of `evals.testing` uses
them), so prompts and their parser cannot drift apart.
"""

from __future__ import annotations

import re
import unicodedata

from ._types import Chunk

_TAG_NAMES = "context|chunk|claims|claim|answer|question|ground_truth"
_FENCE_TAGS = re.compile(rf"<(\s*/?\s*)({_TAG_NAMES})\b", re.IGNORECASE)
_LOOKALIKE_TAGS = re.compile(rf"<\s*/?\s*(?:{_TAG_NAMES})\b", re.IGNORECASE)

# characters a model may read as an angle bracket, and letters that look like the Latin
# ones of our tag names (Cyrillic and Greek); NFKC already folds fullwidth and small forms
_BRACKETS = dict.fromkeys("‹〈〈⟨˂ᐸ❮⧼〈", "<") | dict.fromkeys("›〉〉⟩˃ᐳ❯⧽〉", ">")
_HOMOGLYPHS = {
    **dict(zip("аеосрхукмнтіјѕһԁԛԝ", "aeocpxykmhtijshdqw", strict=True)),
    **dict(zip("АЕОСРХУКМНТІЈЅ", "AEOCPXYKMHTIJS", strict=True)),
    **dict(zip("αεοτικνρυχ", "aeotikvpux", strict=True)),
    **dict(zip("ΑΕΟΤΙΚΝΡΥΧΗΜ", "AEOTIKNPYXHM", strict=True)),
}


def _folded(char: str) -> str:
    """What ``char`` reads as, for tag detection: format characters (zero-width, bidi
    controls) vanish; compatibility forms, lookalike brackets and letters fold."""
    if unicodedata.category(char) == "Cf":
        return ""
    char = unicodedata.normalize("NFKC", char)
    return "".join(_BRACKETS.get(c, _HOMOGLYPHS.get(c, c)) for c in char)


def fence(text: str) -> str:
    """Neutralise our fence tags inside data so a chunk cannot close its fence.

    The opening bracket of every fence tag becomes ``[``. Tags are found on a folded
    copy of the text (NFKC; zero-width and bidi controls removed; lookalike brackets
    and Cyrillic / Greek lookalike letters folded; spaces after ``<`` allowed), so
    ``< /context>``, ``<\u200b/context>``, ``＜/context＞`` and ``<сontext>`` (Cyrillic
    ``с``) are caught as well as ``</context>``. Other text is left exactly as it was.
    """
    if text.isascii():
        return _FENCE_TAGS.sub(lambda m: f"[{m.group(1)}{m.group(2)}", text)
    folded: list[str] = []
    origin: list[int] = []  # index in ``text`` of each folded character
    for index, char in enumerate(text):
        for piece in _folded(char):
            folded.append(piece)
            origin.append(index)
    starts = {origin[m.start()] for m in _LOOKALIKE_TAGS.finditer("".join(folded))}
    if not starts:
        return text
    return "".join("[" if i in starts else c for i, c in enumerate(text))


def numbered(tag: str, texts: list[str]) -> str:
    """``<tag index="0">...</tag>`` lines for a list of texts, fenced."""
    return "\n".join(f'<{tag} index="{i}">\n{fence(t)}\n</{tag}>' for i, t in enumerate(texts))


def context_block(chunks: list[Chunk]) -> str:
    """The retrieved chunks as a fenced, numbered block."""
    return f"<context>\n{numbered('chunk', [c.text for c in chunks])}\n</context>"


def tagged(tag: str, prompt: str) -> list[str]:
    """The texts of every ``<tag index="i">`` element in ``prompt``, in order."""
    return [m.strip() for m in re.findall(rf'<{tag} index="\d+">\n(.*?)\n</{tag}>', prompt, re.S)]


def block(tag: str, prompt: str) -> str | None:
    """The text of the first ``<tag>`` block in ``prompt``, or None."""
    match = re.search(rf"<{tag}>\n(.*?)\n</{tag}>", prompt, re.S)
    return match.group(1) if match else None


def clip(text: str, limit: int = 120) -> str:
    """``text`` shortened to ``limit`` characters for reasons."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
