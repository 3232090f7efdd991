"""Memory and time per item of big model-free runs, from 10k to a million items.

Writes a data file of N items (10 chunks of ~180 characters with ids, 3 reference texts,
3 reference ids: the model-free benchmark's item), then runs the four model-free
recall/precision scorers over it with a results file, each run in a fresh interpreter
(its peak RSS is the process's own), with ``keep_items=False`` (streamed) and, up to
``--keep-up-to`` items, with every item kept (as before).

    python benchmarks/bench_big_run.py [--sizes 10000 100000 1000000] [--keep-up-to 100000]

Needs about 9 GB of free disk for a million items (data 2.6 GB, results 4.1 GB); the
files go to a temporary folder that is removed at the end.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()

RUN = """
import json, os, resource, sys, time
from evals import run_evals
from scorers import (create_id_context_precision_scorer, create_id_context_recall_scorer,
    create_non_llm_context_precision_scorer, create_non_llm_context_recall_scorer)
scorers = [create_non_llm_context_recall_scorer(), create_non_llm_context_precision_scorer(),
           create_id_context_recall_scorer(), create_id_context_precision_scorer()]
data, out, keep = sys.argv[1], sys.argv[2], sys.argv[3] == "keep"
started = time.perf_counter()
result = run_evals(data, scorers, results_path=out, keep_items=keep, progress="none")
wall = time.perf_counter() - started
print(json.dumps({"items": result.summary.items, "wall_s": wall,
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "line_bytes": os.path.getsize(out) / result.summary.items, "scores": result.scores}))
"""


def write_data(path: Path, n: int, seed: int = 0) -> None:
    rng = random.Random(seed)

    def text() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(30))

    with path.open("w") as handle:
        for k in range(n):
            chunks = [{"id": f"d{i}", "text": text()} for i in range(10)]
            row = {
                "id": str(k),
                "input": "q?",
                "context": chunks,
                "reference_contexts": [chunks[0]["text"], text(), chunks[3]["text"]],
                "reference_context_ids": ["d0", "d3", "d9"],
            }
            handle.write(json.dumps(row) + "\n")


def run(data: Path, out: Path, keep: bool) -> dict:
    out.unlink(missing_ok=True)
    proc = subprocess.run(
        [sys.executable, "-c", RUN, str(data), str(out), "keep" if keep else "stream"],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--keep-up-to", type=int, default=100_000)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="scorekit-big-"))
    rows = []
    try:
        for n in args.sizes:
            data = folder / f"data{n}.jsonl"
            write_data(data, n)
            modes = [False, True] if n <= args.keep_up_to else [False]
            for keep in modes:
                found = run(data, folder / "results.jsonl", keep)
                rows.append((n, keep, found))
            data.unlink()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print("| items | keep_items | wall s | µs/item | peak MB | bytes/line |")
    print("|---:|---|---:|---:|---:|---:|")
    for n, keep, found in rows:
        print(
            f"| {n:,} | {keep} | {found['wall_s']:.1f} | {found['wall_s'] / n * 1e6:.0f} | "
            f"{found['peak_mb']:.0f} | {found['line_bytes']:.0f} |"
        )


if __name__ == "__main__":
    main()
