"""`judge_qrels`: relevance judgements for (question, chunk) pairs by an LLM judge.

Each distinct pair is judged once per call, with the per-chunk verdict contract of
context precision (binary: the chunk is useful for arriving at the ground truth) or a
0-3 grade; the judge's cache keys every answer by the exact prompt (question, ground
truth, chunk text) and the judge's configuration, so judging a second retriever's run
costs only its new chunks.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from scorers import (
    ConfigError,
    Job,
    Judge,
    Scored,
    ScorerRun,
    create_relevance_scorer,
    retrieved_chunks,
    score_many,
)
from scorers._internal import integer

from ._data import EvalItem, load_dataset
from ._run._progress import Progress
from ._twins import sync_twin


class JudgedQrels(BaseModel):
    """What `judge_qrels` returns.

    Attributes:
        qrels: ``{query_id: {doc_id: grade}}`` (binary: 1 useful, 0 not), ready for
            `scorers.evaluate_ranking` and `scorers.write_qrels`.
        pairs: Distinct (query, chunk) pairs asked about.
        judged: Pairs answered by a model call in this invocation.
        cached: Pairs answered from the judge cache.
        failed: Pairs whose judgement failed (left out of ``qrels``), with the error.
        skipped_items: Items left out because they have no ground truth.
        doc_ids: Chunks without an id get ``sha1:<16 hex digits of their text>``.
    """

    qrels: dict[str, dict[str, float]]
    pairs: int
    judged: int
    cached: int
    failed: dict[str, str] = Field(default_factory=dict)
    skipped_items: list[str] = Field(default_factory=list)


def text_id(text: str) -> str:
    """The qrels id of a chunk without one: ``sha1:`` and 16 hex digits of its text."""
    return "sha1:" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def _chunks_by_query(
    items: Sequence[EvalItem],
    skipped: Sequence[str],
    runs: Mapping[str, Mapping[str, Sequence[Any]]],
) -> dict[str, dict[str, str]]:
    """Per judged item, the distinct chunks (id -> text) of its own context and of every
    run; chunks without an id are keyed by `text_id`."""
    known = {item.id for item in items}
    found: dict[str, dict[str, str]] = {item.id: {} for item in items if item.id not in skipped}
    own = {item.id: item.context or [] for item in items}
    for source in (own, *runs.values()):
        for query, values in source.items():
            if query not in known:
                raise ConfigError(f"a run ranks query {query!r}, which is not an item of the data")
            if query not in found:
                continue
            for chunk in retrieved_chunks(values):
                doc = chunk.id if chunk.id is not None else text_id(chunk.text)
                found[query].setdefault(doc, chunk.text)
    return found


async def ajudge_qrels(
    judge: Judge,
    data: str | os.PathLike[str] | Iterable[Any],
    *,
    runs: Mapping[str, Mapping[str, Sequence[Any]]] | None = None,
    graded: bool = False,
    concurrency: int = 16,
    progress: bool | None = None,
) -> JudgedQrels:
    """LLM-judged qrels for the chunks retrieved for each item.

    Every distinct (item, chunk) pair — over the items' own ``context`` and every run in
    ``runs`` — is judged once: binary by default, with context precision's per-chunk
    verdict contract (``{"verdicts": [{"context_index": 0, "verdict": "yes"|"no",
    "reason"}]}``: the chunk is useful for arriving at the ground truth), or graded 0-3
    with ``graded=True``. With the judge's cache on (the default), a pair judged before
    — by an earlier call, or by ``context-precision`` with ``per_chunk=True`` on the same
    judge — costs nothing: comparing two retrievers judges the union of their chunks
    once, and a later retriever only its new chunks.

    Example:
        ```python
        judged = judge_qrels(Judge("openai/gpt-4o-mini"), "items.jsonl",
                             runs={"dense": {"q1": [{"id": "d7", "text": "..."}], ...}})
        evaluate_ranking(judged.qrels, bm25_run, ["ndcg@10", "map"])
        judged.judged, judged.cached  # model calls made, answers from the cache
        ```

    Args:
        judge: The judge (`scorers.Judge`).
        data: Items (path or rows) with an ``input`` question, a ``ground_truth`` and,
            optionally, retrieved ``context``; items without a ground truth are skipped.
        runs: More retrieved chunks per item: ``{run_name: {item_id: [chunk, ...]}}``,
            chunks as str / ``{"id", "text"}`` / `Chunk`.
        graded: Grades 0-3 instead of 0/1.
        concurrency: Pairs judged at once (the judge's own limits still hold).
        progress: Progress bar on stderr; default: only when stderr is a terminal.

    Returns:
        A `JudgedQrels`. Documents are keyed by chunk id, or by ``sha1:`` of the text
        for chunks without one.

    Raises:
        JudgeSetupError: At the first call that meets a broken judge setup.
        ConfigError: For a run naming an item that is not in the data.
    """
    if not isinstance(judge, Judge):
        raise ConfigError(f"judge_qrels needs a scorers.Judge, got {type(judge).__name__}")
    concurrency = integer("concurrency", concurrency)
    items = load_dataset(data)
    by_id = {item.id: item for item in items}
    skipped = [item.id for item in items if not (item.ground_truth or "").strip()]
    chunks_by_query = _chunks_by_query(items, skipped, runs or {})
    pairs = [(q, doc, text) for q, docs in chunks_by_query.items() for doc, text in docs.items()]
    qrels: dict[str, dict[str, float]] = {q: {} for q in chunks_by_query}
    failed: dict[str, str] = {}
    counts = {"judged": 0, "cached": 0}
    bar = Progress(len(pairs), progress)

    async def keep(scored: Scored) -> None:
        query, doc = scored.job.key
        result = scored.results["qrels"]
        if result.value is None:
            failed[f"{query}\t{doc}"] = result.error or result.reason
            bar.advance(error=True)
            return
        qrels[query][doc] = result.value
        calls = result.judge_calls
        counts["cached" if calls and all(c.cached for c in calls) else "judged"] += 1
        bar.advance()

    jobs = [
        Job(
            (query, doc),
            ScorerRun(
                input=by_id[query].input, ground_truth=by_id[query].ground_truth, context=[text]
            ),
        )
        for query, doc, text in pairs
    ]
    try:
        await score_many(
            {"qrels": create_relevance_scorer(judge, {"graded": graded})},
            jobs,
            keep,
            concurrency=concurrency,
        )
    finally:
        bar.close()
    return JudgedQrels(
        qrels=qrels,
        pairs=len(pairs),
        judged=counts["judged"],
        cached=counts["cached"],
        failed=failed,
        skipped_items=skipped,
    )


judge_qrels = sync_twin(ajudge_qrels)
