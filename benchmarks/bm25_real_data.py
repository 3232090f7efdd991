"""Real data: BM25 evidence retrieval on WiCE, scored by the model-free scorers.

For each of the 349 WiCE dev claims, BM25 ranks the claim's ~120 evidence sentences and
keeps the top 5; the gold sentences (the union of WiCE's alternative supporting sets)
are the references. Needs ../shared/data/wice/dev.jsonl.

    python benchmarks/bm25_real_data.py [--k 5]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from evals import quickstart, run_evals
from scorers import (
    Chunk,
    create_id_context_precision_scorer,
    create_id_context_recall_scorer,
    create_non_llm_context_recall_scorer,
    create_ranking_scorer,
)

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "wice" / "dev.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--k", type=int, default=5)
    args = parser.parse_args()
    if not DATA.exists():
        sys.exit(f"{DATA} not found: this benchmark needs ../shared/data")
    items = []
    for i, line in enumerate(DATA.read_text().splitlines()):
        row = json.loads(line)
        gold = sorted({j for group in row["supporting_sentences"] for j in group})
        items.append(
            {
                "id": str(i),
                "input": {"claim": row["claim"], "evidence": row["evidence"]},
                "reference_context_ids": [str(j) for j in gold],
                "reference_contexts": [row["evidence"][j] for j in gold],
            }
        )

    def bm25(value: dict) -> object:
        chunks = [Chunk(id=str(j), text=t) for j, t in enumerate(value["evidence"])]
        return quickstart.BM25Retriever(chunks, k=args.k)(value["claim"])

    k = args.k
    scorers = [
        create_id_context_recall_scorer(),
        create_id_context_precision_scorer(),
        create_ranking_scorer(f"recall@{k}"),
        create_ranking_scorer(f"ndcg@{k}"),
        create_ranking_scorer("mrr"),
        create_ranking_scorer(f"hit_rate@{k}"),
        create_non_llm_context_recall_scorer(),
    ]
    started = time.perf_counter()
    result = run_evals(items, scorers, bm25, progress=False)
    print(
        f"WiCE dev, {len(items)} claims, BM25 top {k} of ~120 evidence sentences "
        f"({time.perf_counter() - started:.1f} s)\n"
    )
    print("```")
    print(result.table())
    print("```")


if __name__ == "__main__":
    main()
