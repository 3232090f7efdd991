"""The gates decided without the judge: a question that states its answer word for word,
a paraphrase whose gold passage BM25 ranks first, a near-duplicate of an earlier question.
"""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz import fuzz, process, utils

from scorers import Chunk

from ..quickstart import BM25Retriever

NEAR_DUPLICATE = 90.0
"""rapidfuzz ``token_sort_ratio`` (lower-cased, punctuation dropped) at or above which a
question is a near-duplicate of an earlier one."""


class LexicalRanks:
    """The shipped BM25 (k1 = 1.5, b = 0.75) over the whole corpus: where a question's
    gold passages rank."""

    def __init__(self, passages: Sequence[Chunk]):
        self._bm25 = BM25Retriever(list(passages), k=len(passages))
        self._position = {str(p.id): i for i, p in enumerate(passages)}

    def ranks(self, question: str, gold: Sequence[str]) -> list[int]:
        """The 1-based BM25 rank of each gold id (ties broken by corpus order), or 0 when
        the question shares no word with it."""
        hits = self._bm25.search(question)
        rank = {str(chunk.id): i + 1 for i, (score, chunk) in enumerate(hits) if score > 0}
        return [rank.get(doc, 0) for doc in gold]


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
