"""Scorekit's judge prompts answered by rule: the stand-in judge of `evals.estimate_run`
(real prompts, no model) and the fake server's default in `evals.testing`.

It reads prompts with the same fence grammar the scorers write them in
(`scorers._fences`), so the two cannot drift apart.
"""

from __future__ import annotations

import json
import re

from .._fences import block, tagged
from .._text import words

_STOP = frozenset(
    "a an the of in on at to for by with and or is are was were be been it its this that "
    "as from which who whom".split()
)


def _words(text: str) -> set[str]:
    """Content words; Chinese, Japanese and Korean text as character bigrams."""
    return {w for w in words(text.lower()) if w not in _STOP}


def _sentences(text: str) -> list[str]:
    """Sentences: after ``. ! ?`` and a space, or after ``。！？`` (CJK full stops)."""
    parts = re.split(r"(?<=[.!?])\s+|(?<=[。！？])\s*", text.strip())
    return [s.strip() for s in parts if s.strip()]


def supports(evidence: str, statement: str, threshold: float = 0.6) -> bool:
    """The rule the fake judge uses: at least ``threshold`` of the statement's content
    words occur in the evidence."""
    wanted = _words(statement)
    return bool(wanted) and len(wanted & _words(evidence)) / len(wanted) >= threshold


def schema_title(prompt: str) -> str | None:
    """The response schema's title that scorekit's prompts end with (``"Claims"``, ...)."""
    match = re.search(r'"title":"(\w+)","type":"object"\}\s*$', prompt)
    return match.group(1) if match else None


def rule_answer(task_prompt: str, schema_name: str | None = None) -> str:
    """The JSON answer to one of scorekit's judge prompts, by rule, without a model.

    - ``Claims``: one claim per sentence of the ``<answer>``.
    - ``ClaimVerdicts``: "yes" when one chunk contains ≥ 60% of the claim's content words.
    - ``ChunkVerdicts``: "yes" when the chunk supports some sentence of the reference.
    - ``Reason``: a fixed sentence.
    """
    prompt, name = task_prompt, schema_name or schema_title(task_prompt)
    if name == "Claims":
        return json.dumps({"claims": _sentences(block("answer", prompt) or "")})
    if name == "ClaimVerdicts":
        chunks, claims = tagged("chunk", prompt), tagged("claim", prompt)
        verdicts = [
            {
                "claim_index": i,
                "verdict": "yes" if any(supports(c, claim) for c in chunks) else "no",
                "reason": "word overlap with a chunk"
                if any(supports(c, claim) for c in chunks)
                else "no chunk states it",
            }
            for i, claim in enumerate(claims)
        ]
        return json.dumps({"verdicts": verdicts})
    if name == "ChunkVerdicts":
        reference = block("ground_truth", prompt) or block("answer", prompt) or ""
        chunks = tagged("chunk", prompt)
        offset_match = re.search(r'<chunk index="(\d+)">', prompt)
        offset = int(offset_match.group(1)) if offset_match else 0
        verdicts = []
        for i, chunk in enumerate(chunks):
            useful = any(supports(chunk, s) for s in _sentences(reference))
            verdicts.append(
                {
                    "context_index": offset + i,
                    "verdict": "yes" if useful else "no",
                    "reason": "states part of the reference"
                    if useful
                    else "unrelated to the reference",
                }
            )
        return json.dumps({"verdicts": verdicts})
    if name == "Reason":
        return json.dumps({"reason": "rule-based fake judge reason"})
    return json.dumps({"answer": "fake"})
