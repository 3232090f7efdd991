"""String-similarity scorers against the rapidfuzz kernel floor.

Scores N items × 10 retrieved × 3 reference chunks of sentence length through the public
scorers (``Scorer.run_many``) and compares with a bare loop of one
``rapidfuzz.process.cdist`` call per item over the same pairs (the floor).

    python benchmarks/bench_similarity.py [--items 10000] [--repeat 3]

Prints a markdown table and writes ``benchmarks/results/similarity.json``. Each timing is
the best of ``--repeat`` runs (the least disturbed by other work on the machine).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from pathlib import Path

import numpy as np
import rapidfuzz
from rapidfuzz import distance, process

from scorers import (
    ScorerRun,
    create_non_llm_context_precision_scorer,
    create_non_llm_context_recall_scorer,
)


def make_items(n: int, seed: int = 0) -> list[tuple[list[str], list[str]]]:
    """Deterministic pseudo-sentences of 12-22 words (about 110 characters)."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(2, 9))) for _ in range(2000)]

    def sentence() -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(12, 22))) + "."

    return [([sentence() for _ in range(10)], [sentence() for _ in range(3)]) for _ in range(n)]


def best_of(repeat: int, fn, setup=lambda: None) -> float:
    """The best time of ``fn(setup())`` over ``repeat`` runs, ``setup`` outside the timing."""
    times = []
    for _ in range(repeat):
        value = setup()
        started = time.perf_counter()
        fn(value)
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--write", action="store_true", help="write the results into benchmarks/results/"
    )
    args = parser.parse_args()

    items = make_items(args.items)
    scorer_fn = distance.Levenshtein.normalized_similarity

    def floor(_: object = None) -> None:
        for retrieved, references in items:
            process.cdist(retrieved, references, scorer=scorer_fn, dtype=np.float64)

    def fresh_runs() -> list[ScorerRun]:
        # new runs each time: a run caches its similarity matrix (ScorerRun.memo), and a
        # repeat over the same runs would time that cache, not the scorer
        return [ScorerRun(context=r, reference_contexts=g) for r, g in items]

    started = time.perf_counter()
    runs = fresh_runs()
    build_s = time.perf_counter() - started

    recall = create_non_llm_context_recall_scorer()
    precision = create_non_llm_context_precision_scorer()
    recall.run_many(runs[:10])  # warm up the event-loop thread

    floor_s = best_of(args.repeat, floor)
    recall_s = best_of(args.repeat, recall.run_many, fresh_runs)
    precision_s = best_of(args.repeat, precision.run_many, fresh_runs)
    check = recall.run_many(runs[:100])
    assert all(r.status == "scored" for r in check)

    n = args.items
    rows = [
        ("bare cdist loop (floor)", floor_s),
        ("non-llm-context-recall", recall_s),
        ("non-llm-context-precision", precision_s),
    ]
    print(f"{n} items × 10 retrieved × 3 references, levenshtein, best of {args.repeat}\n")
    print("| what | total s | items/s | µs/item | × floor |")
    print("|---|---:|---:|---:|---:|")
    for name, seconds in rows:
        print(
            f"| {name} | {seconds:.3f} | {n / seconds:,.0f} | {seconds / n * 1e6:.1f} | "
            f"{seconds / floor_s:.2f} |"
        )
    print(
        f"\nBuilding the {n} ScorerRun inputs from lists (not in the rows above): "
        f"{build_s:.3f} s ({build_s / n * 1e6:.1f} µs/item)"
    )
    if not args.write:
        return
    out = Path(__file__).parent / "results" / "similarity.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "items": n,
                "repeat": args.repeat,
                "floor_s": floor_s,
                "recall_s": recall_s,
                "precision_s": precision_s,
                "recall_ratio": recall_s / floor_s,
                "precision_ratio": precision_s / floor_s,
                "build_inputs_s": build_s,
                "python": platform.python_version(),
                "rapidfuzz": rapidfuzz.__version__,
                "machine": platform.machine(),
            },
            indent=2,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
