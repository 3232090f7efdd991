"""What `synthesize` returns: the kept rows, the dropped candidates and a summary."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from scorers._internal import write_atomically

GATES = {
    "unreadable": "the judge's answer could not be read, even after a repair round",
    "answer_in_question": "the question states its own answer",
    "language": "the question is not in the expected language",
    "bm25_top_hit": "a paraphrase question whose gold passage is BM25's top hit",
    "near_duplicate": "a near-duplicate of an earlier question",
    "not_answered": "the gold passages do not answer the question",
    "not_multi_hop": "a multi question that one passage answers alone",
    "check_failed": "the check could not be made (the judge failed)",
    "surplus": "n rows were already kept",
}
"""Every gate a candidate can be dropped at, with what it means."""


class SynthesizedRow(BaseModel):
    """One labelled row, in scorekit's data format (`evals.load_dataset` reads it).

    Attributes:
        id: ``syn-<serial>``: stable across resumes of one run.
        input: The question.
        ground_truth: The reference answer.
        reference_context_ids: The gold passages' ids, as the corpus gives them; a
            passage that appears more than once in the corpus is named with every copy
            (the first, then the others in corpus order).
        reference_contexts: The texts of those ids, exactly as in the corpus.
        metadata: ``kind``, ``source`` (and ``sources``), ``model``, ``bm25_rank`` (the
            gold passage's rank for the question under the shipped BM25; ``bm25_ranks``
            for multi), ``pairing`` (multi: shared names or overlap), ``language``.
    """

    id: str
    input: str
    ground_truth: str
    reference_context_ids: list[str]
    reference_contexts: list[str]
    metadata: dict[str, Any] = Field(default_factory=dict)


class DroppedCandidate(BaseModel):
    """A candidate that did not become a row.

    Attributes:
        id: The row id it would have had.
        kind: ``single``, ``multi`` or ``paraphrase``.
        passage_ids: Its gold passages.
        question: The question written (None when writing failed).
        answer: The answer written.
        gate: Where it was dropped (a key of `GATES`).
        reason: Why, in the judge's words where the judge decided.
    """

    id: str
    kind: str
    passage_ids: list[str]
    question: str | None = None
    answer: str | None = None
    gate: str
    reason: str


class SynthesisSummary(BaseModel):
    """How a synthesis run went.

    Attributes:
        requested: ``n``.
        kept: Rows kept; ``kept_by_kind`` per kind.
        dropped_by_gate: Dropped candidates per gate.
        candidates: Candidates drawn; ``rounds``: rounds of writing and checking.
        passages: Passages in the corpus; ``anchors``: those long enough to ask about.
        copies: Passages whose text (whitespace aside) repeats an earlier passage's: never
            an anchor or a partner; a row's gold ids name every copy of its passages.
        exhausted: The corpus ran out of anchors before ``n`` rows were kept.
        message: One line on the outcome.
        calls: Model calls made by this invocation (cache hits and logged results not
            counted); ``cached_calls``: answered by the judge's cache; ``resumed``:
            step results taken from the log of an earlier invocation.
        prompt_tokens, completion_tokens: Of ``calls``.
        cost: USD of ``calls`` (None when a price is unknown).
        wall_s: Seconds this invocation took.
    """

    requested: int
    kept: int = 0
    kept_by_kind: dict[str, int] = Field(default_factory=dict)
    dropped_by_gate: dict[str, int] = Field(default_factory=dict)
    candidates: int = 0
    rounds: int = 0
    passages: int = 0
    anchors: int = 0
    copies: int = 0
    exhausted: bool = False
    message: str = ""
    calls: int = 0
    cached_calls: int = 0
    resumed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = 0.0
    wall_s: float = 0.0


class SynthesisResult(BaseModel):
    """What `synthesize` returns.

    Attributes:
        rows: The labelled rows, ready for `run_evals` (``.to_jsonl(path)`` writes them).
        dropped: Every candidate dropped, with its gate and reason.
        summary: Counts, calls, tokens and cost.
    """

    rows: list[SynthesizedRow] = Field(default_factory=list)
    dropped: list[DroppedCandidate] = Field(default_factory=list)
    summary: SynthesisSummary

    def to_jsonl(self, path: str | os.PathLike[str]) -> Path:
        """Write the rows as JSON lines (all at once: never a half-written file)."""
        text = "".join(
            json.dumps(row.model_dump(mode="json"), ensure_ascii=False) + "\n" for row in self.rows
        )
        return write_atomically(Path(path), text.encode("utf-8"))

    def table(self) -> str:
        """The summary as a few lines of text."""
        s = self.summary
        kinds = ", ".join(f"{k} {v}" for k, v in s.kept_by_kind.items())
        gates = ", ".join(f"{k} {v}" for k, v in s.dropped_by_gate.items()) or "none"
        cost = "n/a" if s.cost is None else f"${s.cost:.4f}"
        return (
            f"{s.message}\n"
            f"kept by kind: {kinds}\n"
            f"dropped by gate: {gates}\n"
            f"{s.candidates} candidates in {s.rounds} round{'' if s.rounds == 1 else 's'} "
            f"from {s.anchors} of "
            f"{s.passages} passages; {s.calls} model calls ({s.cached_calls} cached, "
            f"{s.resumed} from the log), {s.prompt_tokens + s.completion_tokens:,} tokens, "
            f"cost {cost}"
        ) + (
            f"\n{s.copies} passages repeat an earlier passage's text: never asked about or "
            "paired; rows name every copy in their gold ids"
            if s.copies
            else ""
        )

    def __str__(self) -> str:
        return self.table()
