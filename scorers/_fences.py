"""The fence grammar of every judge prompt: data inside tags it cannot close.

Prompts show retrieved chunks, claims and answers inside ``<context>``, ``<chunk
index="i">``, ``<claims>``... fences; `fence` neutralises those tags inside the data.
`tagged` and `block` read the same grammar back (the fake judge of `evals.testing` uses
them), so prompts and their parser cannot drift apart.
"""

from __future__ import annotations

import re

from ._types import Chunk

_FENCE_TAGS = re.compile(
    r"<(/?)(context|chunk|claims|claim|answer|question|ground_truth)\b", re.IGNORECASE
)


def fence(text: str) -> str:
    """Neutralise our fence tags inside data so a chunk cannot close its fence."""
    return _FENCE_TAGS.sub(lambda m: f"[{m.group(1)}{m.group(2)}", text)


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
