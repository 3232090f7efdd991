"""The model-free scorers on real labelled data from ../shared/data (skipped when absent)."""

from __future__ import annotations

import json

import pytest
from rapidfuzz.distance import Levenshtein

from evals import TargetOutput, quickstart, run_evals
from scorers import (
    Chunk,
    create_id_context_recall_scorer,
    create_non_llm_context_precision_scorer,
    create_non_llm_context_recall_scorer,
    create_ranking_scorer,
)


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_string_recall_and_precision_on_hotpotqa_match_a_plain_oracle(shared_data):
    rows = read_jsonl(shared_data / "hotpotqa" / "retrieval_sm.jsonl")
    recall = create_non_llm_context_recall_scorer()
    precision = create_non_llm_context_precision_scorer()
    for row in rows:
        retrieved, gold = row["retrieved_contexts"], row["ground_truth_contexts"]
        sims = [[Levenshtein.normalized_similarity(r, g) for g in gold] for r in retrieved]
        hits = [max(sims[k][j] for k in range(len(retrieved))) >= 0.5 for j in range(len(gold))]
        relevant = [max(row_) >= 0.5 for row_ in sims]
        precisions = [sum(relevant[: k + 1]) / (k + 1) for k in range(len(relevant)) if relevant[k]]
        run = {"context": retrieved, "reference_contexts": gold}
        assert recall.run(**run).score == sum(hits) / len(gold)
        expected_ap = sum(precisions) / len(precisions) if precisions else 0.0
        assert precision.run(**run).score == pytest.approx(expected_ap, abs=1e-15)


def wice_items(shared_data, limit=None):
    items = []
    for i, row in enumerate(read_jsonl(shared_data / "wice" / "dev.jsonl")[:limit]):
        gold = sorted({j for group in row["supporting_sentences"] for j in group})
        items.append(
            {
                "id": str(i),
                "input": {"claim": row["claim"], "evidence": row["evidence"]},
                "reference_context_ids": [str(j) for j in gold],
                "reference_contexts": [row["evidence"][j] for j in gold],
                "metadata": {"label": row["label"]},
            }
        )
    return items


def bm25_over_evidence(value, k=5):
    chunks = [Chunk(id=str(j), text=t) for j, t in enumerate(value["evidence"])]
    return quickstart.BM25Retriever(chunks, k=k)(value["claim"])


def test_bm25_on_wice_ids_agree_with_sets_and_between_scorers(shared_data):
    items = wice_items(shared_data, limit=40)
    scorers = [
        create_id_context_recall_scorer(),
        create_ranking_scorer("recall@5"),
        create_ranking_scorer("hit_rate@5"),
    ]
    result = run_evals(items, scorers, bm25_over_evidence)
    assert result.summary.item_errors == 0
    for item in result.items:
        gold = set(item.item.reference_context_ids or [])
        scores = {sid: r.score for sid, r in item.scorer_results.items()}
        if not gold:
            assert all(r.status == "skipped" for r in item.scorer_results.values())
            continue
        top = {c.id for c in item.target_result.context}
        assert scores["id-context-recall"] == scores["recall@5"] == len(top & gold) / len(gold)
        assert scores["hit_rate@5"] == float(bool(top & gold))


def test_target_output_carries_the_retrieved_chunks(shared_data):
    item = wice_items(shared_data, limit=1)[0]
    output = bm25_over_evidence(item["input"])
    assert isinstance(output, TargetOutput) and len(output.context) == 5
