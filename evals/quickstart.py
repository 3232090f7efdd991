"""The embedded quickstart: a small labelled corpus, a BM25 retriever, model-free scorers.

``scorekit demo`` (the README's first command) runs it with no API key. With a model
(``--model`` or ``SCOREKIT_MODEL``) the LLM context recall and precision scorers are
added.

The corpus (36 short passages) and the 28 questions with ground-truth answers and gold
passage ids were written for this project.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from importlib import resources
from typing import Any

from scorers import (
    Chunk,
    Judge,
    Scorer,
    create_context_precision_scorer,
    create_context_recall_scorer,
    create_context_relevance_scorer,
    create_id_context_precision_scorer,
    create_id_context_recall_scorer,
    create_non_llm_context_recall_scorer,
    create_ranking_scorer,
    normalized_words,
)

from ._data import EvalItem, load_dataset
from ._results import EvalResult
from ._run._runner import run_evals
from ._run._targets import TargetOutput

_STOP = frozenset(
    "a an the of in on at to for by with and or is are was were be it its this that as from "
    "which who what when where why how do does did".split()
)


def tokenize(text: str) -> list[str]:
    """Lower-cased words without common English stop words; Chinese, Japanese and Korean
    text as character bigrams (NFKC-normalised first)."""
    return [t for t in normalized_words(text) if t not in _STOP]


class BM25Retriever:
    """Okapi BM25 over a list of chunks (k1 = 1.5, b = 0.75).

    Calling it with a question returns a `TargetOutput` whose context is the top ``k``
    chunks and whose output is the best chunk's text (an extractive answer).
    """

    def __init__(self, chunks: list[Chunk], k: int = 3, k1: float = 1.5, b: float = 0.75):
        self.chunks = chunks
        self.k, self.k1, self.b = k, k1, b
        self.docs = [Counter(tokenize(c.text)) for c in chunks]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg_length = sum(self.lengths) / len(self.lengths)
        frequency = Counter(term for doc in self.docs for term in doc)
        n = len(chunks)
        self.idf = {t: math.log((n - f + 0.5) / (f + 0.5) + 1) for t, f in frequency.items()}

    def search(self, query: str) -> list[tuple[float, Chunk]]:
        """The top ``k`` chunks with their scores, best first (ties by position)."""
        terms = tokenize(query)
        scored = []
        for index, (doc, length) in enumerate(zip(self.docs, self.lengths, strict=True)):
            score = 0.0
            for term in terms:
                tf = doc.get(term, 0)
                if tf:
                    norm = tf + self.k1 * (1 - self.b + self.b * length / self.avg_length)
                    score += self.idf[term] * tf * (self.k1 + 1) / norm
            scored.append((score, -index, self.chunks[index]))
        scored.sort(key=lambda row: (row[0], row[1]), reverse=True)
        return [(score, chunk) for score, _, chunk in scored[: self.k]]

    def __call__(self, question: str) -> TargetOutput:
        """Retrieve for ``question``: the top chunks as context, the best one as output."""
        hits = self.search(question)
        return TargetOutput(output=hits[0][1].text if hits else "", context=[c for _, c in hits])


def passages() -> list[Chunk]:
    """The quickstart corpus."""
    text = resources.files("evals").joinpath("data/quickstart_passages.jsonl").read_text("utf-8")
    return [Chunk(**json.loads(line)) for line in text.splitlines() if line.strip()]


def items() -> list[EvalItem]:
    """The quickstart questions with ground truths and gold passage ids and texts."""
    path = resources.files("evals").joinpath("data/quickstart.jsonl")
    with resources.as_file(path) as file:
        return load_dataset(file)


def scorers(model: str | Judge | None = None) -> list[Scorer]:
    """Model-free retrieval scorers, plus LLM recall, precision and relevance (no labels
    needed) when a model is given."""
    chosen = [
        create_id_context_recall_scorer(),
        create_id_context_precision_scorer(),
        create_ranking_scorer("mrr"),
        create_ranking_scorer("ndcg@3"),
        create_non_llm_context_recall_scorer(),
    ]
    if model is not None:
        chosen += [
            create_context_recall_scorer(model),
            create_context_precision_scorer(model),
            create_context_relevance_scorer(model),
        ]
    return chosen


def run(
    model: str | Judge | None = None, k: int = 3, limit: int | None = None, **kwargs: Any
) -> EvalResult:
    """Run the quickstart: BM25 (top ``k``) over the corpus, scored on every question (or
    the first ``limit``); ``kwargs`` go to `run_evals`."""
    chosen = items() if limit is None else items()[:limit]
    return run_evals(chosen, scorers(model), target=BM25Retriever(passages(), k=k), **kwargs)
