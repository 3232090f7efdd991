"""The model-free recall/precision scorers through `run_evals` against the bare kernel loop.

N dict rows (10 retrieved chunks with ids and text, 3 reference texts, 3 reference ids)
scored by the four model-free scorers — non-llm-context-recall and -precision
(Levenshtein, threshold 0.5) and id-context-recall and -precision — through
``run_evals(rows, scorers)`` (loading and validating the rows included), against a bare
loop over the same dicts: one ``rapidfuzz.process.cdist`` per row (its column and row
maxima give both string scores) and set operations for the ID scores. The floor computes
the same numbers (checked) with no framework at all.

    python benchmarks/bench_non_llm.py [--items 2000] [--repeat 5] [--write]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from pathlib import Path

import numpy as np
from rapidfuzz import distance, process

from evals import run_evals
from scorers import (
    average_precision,
    create_id_context_precision_scorer,
    create_id_context_recall_scorer,
    create_non_llm_context_precision_scorer,
    create_non_llm_context_recall_scorer,
)


def make_rows(n: int, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(2, 9))) for _ in range(2000)]

    def sentence() -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(12, 22))) + "."

    rows = []
    for i in range(n):
        chunks = [{"id": f"d{i}-{k}", "text": sentence()} for k in range(10)]
        gold = rng.sample(range(10), 2)
        references = [chunks[gold[0]]["text"], chunks[gold[1]]["text"][:80], sentence()]
        rows.append(
            {
                "id": str(i),
                "input": f"question {i}",
                "context": chunks,
                "reference_contexts": references,
                "reference_context_ids": [f"d{i}-{gold[0]}", f"d{i}-{gold[1]}", f"x{i}"],
            }
        )
    return rows


def floor(rows: list[dict], shared: bool = True) -> list[tuple[float, float, float, float]]:
    """The four scores per row with no framework; ``shared``: one matrix for both string
    scores, else one per scorer (as the scorers compute them)."""
    similarity = distance.Levenshtein.normalized_similarity
    out = []
    for row in rows:
        texts = [c["text"] for c in row["context"]]
        ids = [c["id"] for c in row["context"]]
        references = row["reference_contexts"]
        matrix = process.cdist(texts, references, scorer=similarity, dtype=np.float64)
        recall = float(np.mean(matrix.max(axis=0) >= 0.5))
        if not shared:
            matrix = process.cdist(texts, references, scorer=similarity, dtype=np.float64)
        precision = average_precision((matrix.max(axis=1) >= 0.5).tolist())
        gold = set(row["reference_context_ids"])
        retrieved = set(ids)
        out.append(
            (
                recall,
                precision,
                len(retrieved & gold) / len(gold),
                len(retrieved & gold) / len(retrieved),
            )
        )
    return out


def best_of(repeat: int, fn):
    best, value = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - started)
    return best, value


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--write", action="store_true", help="write benchmarks/results/non_llm.*")
    args = parser.parse_args()

    rows = make_rows(args.items)
    scorers = [
        create_non_llm_context_recall_scorer(),
        create_non_llm_context_precision_scorer(),
        create_id_context_recall_scorer(),
        create_id_context_precision_scorer(),
    ]
    run_evals(rows[:20], scorers, progress=False)  # warm up
    floor_s, expected = best_of(args.repeat, lambda: floor(rows))
    separate_s, _ = best_of(args.repeat, lambda: floor(rows, shared=False))
    ours_s, result = best_of(args.repeat, lambda: run_evals(rows, scorers, progress=False))
    ids = [s.id for s in scorers]
    got = [tuple(item.scorer_results[sid].score for sid in ids) for item in result.items]
    assert got == expected, "run_evals and the floor disagree"
    n = args.items
    lines = [
        f"{n:,} dict rows × 4 model-free scorers (10 chunks, 3 references each); best of {args.repeat}; "
        f"Python {platform.python_version()}",
        "",
        "| path | wall s | items/s | µs/item | × floor |",
        "|---|---:|---:|---:|---:|",
        f"| bare kernel loop, one matrix per row (floor) | {floor_s:.3f} | {n / floor_s:,.0f} | "
        f"{floor_s / n * 1e6:.0f} | 1.00 |",
        f"| bare kernel loop, one matrix per string scorer | {separate_s:.3f} | {n / separate_s:,.0f} | "
        f"{separate_s / n * 1e6:.0f} | {separate_s / floor_s:.2f} |",
        f"| run_evals (rows loaded, validated, scored, summarised) | {ours_s:.3f} | {n / ours_s:,.0f} | "
        f"{ours_s / n * 1e6:.0f} | {ours_s / floor_s:.2f} |",
    ]
    text = "\n".join(lines)
    print(text)
    if args.write:
        out = Path(__file__).parent / "results"
        (out / "non_llm.md").write_text(text + "\n")
        (out / "non_llm.json").write_text(
            json.dumps(
                {"items": n, "floor_s": floor_s, "run_evals_s": ours_s, "ratio": ours_s / floor_s},
                indent=2,
            )
            + "\n"
        )


if __name__ == "__main__":
    main()
