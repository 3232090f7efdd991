"""A labelled set written from documents, then a retriever scored on it.

python examples/synthesize.py

The quickstart's passages become three Markdown documents in a temporary folder; the
judge writes and checks 9 questions with their gold passage ids; BM25 over the same
passages is then scored on them. With a real judge (SCOREKIT_MODEL), paraphrase
questions are asked too: the fake judge copies the passages' words, so BM25 would find
every one of its paraphrases and the gate would drop them all.
"""

import os
import tempfile
from pathlib import Path

from _judge import example_judge

from evals import estimate_synthesis, read_corpus, run_evals, synthesize
from evals.quickstart import BM25Retriever, passages
from scorers import create_id_context_recall_scorer, create_ranking_scorer

kinds = (
    ("single", "multi", "paraphrase") if os.environ.get("SCOREKIT_MODEL") else ("single", "multi")
)
with tempfile.TemporaryDirectory() as folder:
    docs = Path(folder)
    chunks = passages()
    for i, name in enumerate(["notes-1.md", "notes-2.md", "notes-3.md"]):
        (docs / name).write_text("\n\n".join(c.text for c in chunks[12 * i : 12 * i + 12]))

    with example_judge() as judge:
        print(estimate_synthesis(docs, judge, n=9, kinds=kinds, max_chars=300).table(), "\n")
        labelled = synthesize(docs, judge, n=9, kinds=kinds, max_chars=300, progress="none")
    print(labelled.table(), "\n")
    for row in labelled.rows:
        print(f"{row.id} [{row.metadata['kind']}] {row.input}")
        print(f"    gold {row.reference_context_ids}")
    for dropped in labelled.dropped:
        print(f"dropped {dropped.id} at {dropped.gate}: {dropped.reason}")

    corpus = read_corpus(docs, max_chars=300)  # the same passages, the same ids
    scorers = [
        create_id_context_recall_scorer(),
        create_ranking_scorer("mrr"),
        create_ranking_scorer("ndcg@3"),
    ]
    result = run_evals(labelled.rows, scorers, target=BM25Retriever(corpus, k=3), progress=False)
print()
print(result.table())
