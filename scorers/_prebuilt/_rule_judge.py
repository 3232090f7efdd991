"""Scorekit's judge prompts answered by rule: the stand-in judge of `evals.estimate_run`
(real prompts, no model) and the fake server's default in `evals.testing`.

It reads prompts with the same fence grammar the scorers write them in
(`scorers._fences`), so the two cannot drift apart.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .._fences import block, tagged
from .._i18n import NAMES, detect_language
from .._text import words
from ._registry import answer_for

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
    """The JSON answer to a judge prompt, by rule, without a model: the answer each
    registered scorer declares for the contract (`prebuilt`'s ``answers``, keyed by the
    response schema's title), ``{"answer": "fake"}`` for a contract nobody declared.

    scorekit's own: ``Claims`` (one claim per sentence of the ``<answer>``),
    ``ClaimVerdicts`` ("yes" when one chunk holds ≥ 60% of the claim's content words),
    ``ChunkVerdicts`` ("yes" when the chunk supports some sentence of the reference),
    ``Reason`` (a fixed sentence), ``WrittenQuestion`` (`evals.synthesize`'s writer: the
    first sentence of each passage is the answer, the question names its first words, in
    the passages' language) and ``LabelVerdict`` (the label check by word overlap and
    script).
    """
    answer = answer_for(schema_name or schema_title(task_prompt) or "")
    return json.dumps({"answer": "fake"} if answer is None else answer(task_prompt))


def claims_answer(prompt: str) -> dict[str, Any]:
    """``Claims``: one claim per sentence of the ``<answer>``."""
    return {"claims": _sentences(block("answer", prompt) or "")}


def claim_verdicts_answer(prompt: str) -> dict[str, Any]:
    """``ClaimVerdicts``: "yes" when one chunk holds ≥ 60% of the claim's content words."""
    chunks, claims = tagged("chunk", prompt), tagged("claim", prompt)
    verdicts = []
    for i, claim in enumerate(claims):
        found = any(supports(c, claim) for c in chunks)
        verdicts.append(
            {
                "claim_index": i,
                "verdict": "yes" if found else "no",
                "reason": "word overlap with a chunk" if found else "no chunk states it",
            }
        )
    return {"verdicts": verdicts}


def chunk_verdicts_answer(prompt: str) -> dict[str, Any]:
    """``ChunkVerdicts``: "yes" when the chunk supports some sentence of the reference."""
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
    return {"verdicts": verdicts}


_ASKING = frozenset(
    "what where when who whom why how which whose about does do did is are was were can could "
    "should would will".split()
)


def relevance_level(question: str, chunk: str) -> str:
    """The rule's relevance of a chunk to a question: the share of the question's content
    words (question words left out) the chunk holds — ≥ 0.6 high, ≥ 0.4 medium, ≥ 0.2
    low, else none."""
    wanted = _words(question) - _ASKING
    share = len(wanted & _words(chunk)) / len(wanted) if wanted else 0.0
    return (
        "high" if share >= 0.6 else "medium" if share >= 0.4 else "low" if share >= 0.2 else "none"
    )


def relevance_judgement(
    question: str, chunks: list[str], response: str | None
) -> tuple[list[tuple[str, bool | None]], list[str]]:
    """The rule's relevance verdicts: per chunk its level and (with a response) whether
    the response used it (a sentence of the response it supports); and the question's
    content words no chunk holds, as the missing information (sorted)."""
    sentences = _sentences(response or "")
    found = [
        (
            relevance_level(question, c),
            None if response is None else any(supports(c, s) for s in sentences),
        )
        for c in chunks
    ]
    covered: set[str] = set().union(*(_words(c) for c in chunks)) if chunks else set()
    return found, sorted(_words(question) - _ASKING - covered)


def relevance_answer(prompt: str) -> dict[str, Any]:
    """``RelevanceVerdicts``: `relevance_judgement` of the prompt's question, chunks and
    answer (``used`` only when the prompt shows an answer)."""
    response = block("answer", prompt)
    found, missing = relevance_judgement(
        block("question", prompt) or "", tagged("chunk", prompt), response
    )
    verdicts = []
    for i, (level, used) in enumerate(found):
        verdict: dict[str, Any] = {"context_index": i, "relevance": level}
        if used is not None:
            verdict["used"] = used
        verdict["reason"] = f"{level} word overlap with the question"
        verdicts.append(verdict)
    return {"verdicts": verdicts, "missing": missing}


def relevance_rating(question: str, context: str, judge: int = 1) -> int:
    """The rule's 0-2 rating of a context for a question (Ragas' two-judge relevance):
    judge 1 gives 2 for high, 1 for medium or low, 0 for none; judge 2 is stricter, 1
    for medium only."""
    level = relevance_level(question, context)
    if level == "high":
        return 2
    if level == "medium" or (level == "low" and judge == 1):
        return 1
    return 0


def rating_answer(prompt: str) -> dict[str, Any]:
    """``RelevanceRating``: `relevance_rating` of the prompt's question and context (the
    second judge's prompt says so)."""
    judge = 2 if "Second judge." in prompt else 1
    return {
        "rating": relevance_rating(
            block("question", prompt) or "", block("context", prompt) or "", judge
        )
    }


_ENTITY = re.compile(r"\d+(?:[,.]\d+)*(?:\s+[a-z]+)?|[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*")


def entity_list(text: str) -> list[str]:
    """The rule's entities of a text: capitalised word runs and numbers (with the word
    after them), each once, in order; a sentence's first word only when it is not a
    stop word."""
    found = []
    for match in _ENTITY.finditer(text):
        entity = match.group().rstrip(".,")
        first, _, rest = entity.partition(" ")
        if first.lower() in _STOP and rest[:1].isupper():
            entity = rest  # "The Eiffel Tower" is the Eiffel Tower
        if entity.lower() in _STOP or entity.lower() in _ASKING:
            continue
        found.append(entity)
    return list(dict.fromkeys(found))


def entities_answer(prompt: str) -> dict[str, Any]:
    """``Entities``: `entity_list` of the prompt's text."""
    return {"entities": entity_list(block("text", prompt) or "")}


def reason_answer(prompt: str) -> dict[str, Any]:
    """``Reason``: a fixed sentence."""
    return {"reason": "rule-based fake judge reason"}


_QUESTIONS = {
    "en": ("What is known about {0}?", "How are {0} and {1} connected?"),
    "ko": ("{0}에 대해 알려진 것은 무엇입니까?", "{0}와 {1}는 어떻게 연결됩니까?"),
    "zh": ("关于{0}，已知什么？", "{0}和{1}有什么联系？"),
    "ja": ("{0}について何が知られていますか？", "{0}と{1}はどう関係していますか？"),
}
_CODES = {name: code for code, name in NAMES.items()}


def _asked_language(prompt: str, passages: list[str]) -> str:
    """The language code a synthesis prompt asks for (the passages' when it names none)."""
    match = re.search(r"(?:answer in|written in) ([A-Z]\w+)", prompt)
    if match and match.group(1) in _CODES:
        return _CODES[match.group(1)]
    return detect_language(" ".join(passages))


def _topic(sentence: str, language: str) -> str:
    if language == "en":
        found = re.findall(r"\w+", sentence)
        return " ".join([w for w in found if w.lower() not in _STOP][:4])
    if language == "ko":
        return " ".join(sentence.split()[:3])
    return sentence[:4]


def written_question_answer(prompt: str) -> dict[str, str]:
    """A question on the first sentence of each passage, built from its first words (a
    fake cannot paraphrase: its paraphrase questions fail the BM25 gate, as they should)."""
    passages = tagged("passage", prompt)
    language = _asked_language(prompt, passages)
    bodies = [re.sub(r"(?m)^#.*$", "", p).strip() or p for p in passages]
    firsts = [(_sentences(b) or [b])[0] for b in bodies] or [""]
    single, several = _QUESTIONS.get(language, _QUESTIONS["en"])
    topics = [_topic(s, language) for s in firsts]
    question = several.format(*topics[:2]) if len(firsts) > 1 else single.format(topics[0])
    return {"question": question, "answer": " ".join(firsts[:2])}


def label_verdict_answer(prompt: str) -> dict[str, str]:
    """The four checks by word overlap: each answer sentence supported by the passages;
    the question holding >= 80% of the answer's words gives it away; scripts compared."""
    question, answer = block("question", prompt) or "", block("answer", prompt) or ""
    passages = tagged("passage", prompt)
    sentences = _sentences(answer)
    answered = bool(sentences) and all(supports(" ".join(passages), s) for s in sentences)
    needed = len(passages) < 2 or all(any(supports(p, s) for s in sentences) for p in passages)
    same = detect_language(question) == _asked_language(prompt, passages)
    verdict = {
        "answered": "yes" if answered else "no",
        "answer_in_question": "yes" if supports(question, answer, 0.8) else "no",
        "same_language": "yes" if same else "no",
        "needs_all": "yes" if needed else "no",
    }
    return {**verdict, "reason": "rule-based checks by word overlap"}
