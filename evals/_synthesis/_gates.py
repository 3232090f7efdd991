"""The gates decided without the judge: a question that states its answer word for word,
a paraphrase whose gold passage BM25 ranks first, a near-duplicate of an earlier question.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from rapidfuzz import fuzz, process, utils

from scorers import Chunk

from ..quickstart import BM25Retriever, tokenize

NEAR_DUPLICATE = 90.0
"""rapidfuzz ``token_sort_ratio`` (lower-cased, punctuation dropped) at or above which a
question is a near-duplicate of an earlier one."""


class LexicalRanks:
    """The shipped BM25 (`evals.quickstart.BM25Retriever`, k1 = 1.5, b = 0.75) over the
    whole corpus: where a question's gold passages rank. Only the passages sharing a
    word with the question are scored (through an inverted index), so a question costs
    its postings, not the corpus."""

    def __init__(self, passages: Sequence[Chunk]):
        self.bm25 = BM25Retriever(list(passages), k=len(passages))
        self.position = {str(p.id): i for i, p in enumerate(passages)}
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for index, doc in enumerate(self.bm25.docs):
            for term, tf in doc.items():
                self.postings[term].append((index, tf))

    def scores(self, question: str) -> dict[int, float]:
        """BM25 scores of the passages sharing a word with ``question`` (by index)."""
        bm25 = self.bm25
        found: dict[int, float] = defaultdict(float)
        for term in tokenize(question):
            idf = bm25.idf.get(term, 0.0)
            for index, tf in self.postings.get(term, ()):
                norm = tf + bm25.k1 * (1 - bm25.b + bm25.b * bm25.lengths[index] / bm25.avg_length)
                found[index] += idf * tf * (bm25.k1 + 1) / norm
        return found

    def ranks(self, question: str, gold: Sequence[str]) -> list[int]:
        """The 1-based BM25 rank of each gold id (ties broken by corpus order, as
        `BM25Retriever.search` breaks them), or 0 when the question shares no word with it."""
        scores = self.scores(question)
        ranks = []
        for doc in gold:
            mine = self.position[doc]
            score = scores.get(mine, 0.0)
            if score <= 0:
                ranks.append(0)
                continue
            ahead = sum(1 for i, s in scores.items() if s > score or (s == score and i < mine))
            ranks.append(ahead + 1)
        return ranks


def states_answer(question: str, answer: str) -> bool:
    """Whether the question holds the whole answer, word for word (case and punctuation
    aside); answers under three characters are not compared."""
    wanted = utils.default_process(answer)
    return len(wanted) >= 3 and wanted in utils.default_process(question)


class Questions:
    """The questions seen so far, for the near-duplicate gate."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.ids: list[str] = []

    def duplicate_of(self, question: str) -> tuple[str, float] | None:
        """The earlier question's id and similarity when ``question`` repeats one."""
        if not self.texts:
            return None
        scores = process.cdist(
            [question], self.texts, scorer=fuzz.token_sort_ratio, processor=utils.default_process
        )[0]
        best = int(scores.argmax())
        if scores[best] >= NEAR_DUPLICATE:
            return self.ids[best], float(scores[best])
        return None

    def add(self, row_id: str, question: str) -> None:
        """Remember a question."""
        self.texts.append(question)
        self.ids.append(row_id)
