"""The model-free recall/precision scorers through `run_evals` against the bare kernel loop.

N dict rows (10 retrieved chunks with ids and text, 3 reference texts, 3 reference ids)
scored by the four model-free scorers — non-llm-context-recall and -precision
(Levenshtein, threshold 0.5) and id-context-recall and -precision — through
``run_evals(rows, scorers)`` (loading and validating the rows included), against a bare
loop over the same dicts: one ``rapidfuzz.process.cdist`` per row (its column and row
maxima give both string scores) and set operations for the ID scores. The floor computes
the same numbers (checked) with no framework at all.

    python benchmarks/bench_non_llm.py [--items 2000] [--repeat 9] [--write]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
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


def row_scores(row: dict, recall_matrix: np.ndarray, precision_matrix: np.ndarray) -> tuple:
    """The four scores of a row from its chunk × reference similarities."""
    recall = float(np.mean(recall_matrix.max(axis=0) >= 0.5))
    precision = average_precision((precision_matrix.max(axis=1) >= 0.5).tolist())
    gold = set(row["reference_context_ids"])
    retrieved = {c["id"] for c in row["context"]}
    found = len(retrieved & gold)
    return recall, precision, found / len(gold), found / len(retrieved)


def floor(rows: list[dict], shared: bool = True) -> list[tuple]:
    """The four scores per row with no framework; ``shared``: one matrix for both string
    scores, else one per scorer (as the scorers compute them)."""
    similarity = distance.Levenshtein.normalized_similarity
    out = []
    for row in rows:
        texts = [c["text"] for c in row["context"]]
        references = row["reference_contexts"]
        matrix = process.cdist(texts, references, scorer=similarity, dtype=np.float64)
        second = (
            matrix
            if shared
            else process.cdist(texts, references, scorer=similarity, dtype=np.float64)
        )
        out.append(row_scores(row, matrix, second))
    return out


def batched_floor(rows: list[dict]) -> list[tuple]:
    """The floor with its kernel batched as scorekit's batch path does it: one
    ``process.cpdist`` over every (chunk, reference) pair of all rows, on every core; the
    rest as in `floor`: what the kernel costs when batched as run_evals batches it."""
    similarity = distance.Levenshtein.normalized_similarity
    texts = [[c["text"] for c in row["context"]] for row in rows]
    refs = [row["reference_contexts"] for row in rows]
    left = [t for ts, rs in zip(texts, refs, strict=True) for t in ts for _ in rs]
    right = [r for ts, rs in zip(texts, refs, strict=True) for _ in ts for r in rs]
    flat = process.cpdist(left, right, scorer=similarity, dtype=np.float64, workers=-1)
    out, start = [], 0
    for row, ts, rs in zip(rows, texts, refs, strict=True):
        matrix = flat[start : start + len(ts) * len(rs)].reshape(len(ts), len(rs))
        start += len(ts) * len(rs)
        out.append(row_scores(row, matrix, matrix))
    return out


def interleaved(repeat: int, paths: dict) -> tuple[dict, dict, dict]:
    """Each path's best wall time over ``repeat`` rounds, one run of every path per round
    (so that a slow spell of a shared machine hits all paths alike), the median over the
    rounds of each path's time over the first path's, and each path's last value. The
    previous value is dropped before timing: freeing 2,000 results is not this run's."""
    best = dict.fromkeys(paths, float("inf"))
    ratios: dict = {name: [] for name in paths}
    values: dict = dict.fromkeys(paths)
    for _ in range(repeat):
        times = {}
        for name, fn in paths.items():
            values[name] = None
            started = time.perf_counter()
            values[name] = fn()
            times[name] = time.perf_counter() - started
            best[name] = min(best[name], times[name])
        first = times[next(iter(paths))]
        for name in paths:
            ratios[name].append(times[name] / first)
    medians = {name: statistics.median(r) for name, r in ratios.items()}
    return best, medians, values


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=9)
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
    best, medians, values = interleaved(
        args.repeat,
        {
            "floor": lambda: floor(rows),
            "separate": lambda: floor(rows, shared=False),
            "batched": lambda: batched_floor(rows),
            "ours": lambda: run_evals(rows, scorers, progress=False),
        },
    )
    ids = [s.id for s in scorers]
    got = [tuple(item.scorer_results[sid].score for sid in ids) for item in values["ours"].items]
    assert got == values["floor"] == values["batched"], "run_evals and the floors disagree"
    n = args.items
    labels = {
        "floor": "bare kernel loop, one matrix per row (floor)",
        "separate": "bare kernel loop, one matrix per string scorer",
        "batched": "bare loop, its kernel batched (one cpdist, every core)",
        "ours": "run_evals (rows loaded, validated, scored, summarised)",
    }
    lines = [
        f"{n:,} dict rows × 4 model-free scorers (10 chunks, 3 references each); best of "
        f"{args.repeat} interleaved rounds; Python {platform.python_version()}, "
        f"{os.cpu_count()} cores",
        "",
        "| path | best wall s | items/s | µs/item | × floor (best) | × floor (median round) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, label in labels.items():
        wall = best[name]
        lines.append(
            f"| {label} | {wall:.3f} | {n / wall:,.0f} | {wall / n * 1e6:.0f} | "
            f"{wall / best['floor']:.2f} | {medians[name]:.2f} |"
        )
    text = "\n".join(lines)
    print(text)
    if args.write:
        out = Path(__file__).parent / "results"
        (out / "non_llm.md").write_text(text + "\n")
        (out / "non_llm.json").write_text(
            json.dumps(
                {
                    "items": n,
                    "floor_s": best["floor"],
                    "run_evals_s": best["ours"],
                    "ratio_best": best["ours"] / best["floor"],
                    "ratio_median_round": medians["ours"],
                },
                indent=2,
            )
            + "\n"
        )


if __name__ == "__main__":
    main()
