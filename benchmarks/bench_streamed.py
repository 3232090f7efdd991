"""Model-free runs against the plainest code that does the same work, side by side.

1. **Streamed**: N ids-only rows (3 gold ids, 10 retrieved) in a JSONL file, scored by
   id-context-recall, id-context-precision, mrr and ndcg@10 through
   ``run_evals(path, ..., results_path=..., keep_items=False)`` (what ``scorekit run
   --out`` does), against a plain loop that reads each row, computes the same four numbers
   and writes one JSON line per item. Both in this process, alternating, best of
   ``--repeat``; the streamed run's peak memory from a fresh interpreter.
2. **In memory**: 2,000 dict rows through ``run_evals`` with the four string and ID
   scorers of ``bench_non_llm.py``, against its bare kernel loop (one matrix per string
   scorer).
3. **Ranking rows**: 10,000 ids-only rows of 100 retrieved ids with five ranking scorers
   through ``run_evals`` (in memory), against `evaluate_ranking` over the same rankings
   as qrels and a run.

Each comparison alternates its two sides for ``--repeat`` rounds (a slow spell of a shared
machine hits both) and gives the ratio of the best times and the median of the rounds'
ratios.

The numbers of both sides are checked equal before anything is timed. ``--parts`` instead
prints where a streamed item's time goes: each part timed in place, and the results line's
own cost as the run's time less that of the same run with the line stubbed out.

    python benchmarks/bench_streamed.py [--rows 200000] [--repeat 3] [--parts]
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bench_non_llm

from evals import read_results, run_evals
from scorers import (
    create_id_context_precision_scorer,
    create_id_context_recall_scorer,
    create_non_llm_context_precision_scorer,
    create_non_llm_context_recall_scorer,
    create_ranking_scorer,
    evaluate_ranking,
)

STREAMED = ("id-context-recall", "id-context-precision", "mrr", "ndcg@10")
RANKING = ("mrr", "ndcg@10", "map", "recall@100", "precision@10")


def write_rows(path: Path, n: int, width: int = 10, gold: int = 3, seed: int = 0) -> None:
    rng = random.Random(seed)
    with path.open("w") as handle:
        for k in range(n):
            pool = rng.sample(range(10 * width), width + gold)
            retrieved = [f"d{d}" for d in pool[:width]]
            relevant = [f"d{d}" for d in rng.sample(pool, gold)]
            row = {"id": f"q{k}", "input": "q?", "retrieved_context_ids": retrieved,
                   "reference_context_ids": relevant}  # fmt: skip
            handle.write(json.dumps(row) + "\n")


def _ndcg(relevant: list[bool], n_gold: int, k: int = 10) -> float:
    dcg = sum(1 / math.log2(i + 2) for i, hit in enumerate(relevant[:k]) if hit)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(n_gold, k)))
    return dcg / ideal


def plain_loop(data: Path, out: Path) -> list[list[float]]:
    """Read a row, compute the four numbers, write a line: no framework."""
    found = []
    with data.open() as rows, out.open("w") as lines:
        for line in rows:
            row = json.loads(line)
            retrieved, gold = row["retrieved_context_ids"], set(row["reference_context_ids"])
            relevant = [doc in gold for doc in retrieved]
            first = next((i for i, hit in enumerate(relevant) if hit), None)
            scores = [
                len(gold.intersection(retrieved)) / len(gold),
                sum(relevant) / len(retrieved),
                0.0 if first is None else 1 / (first + 1),
                _ndcg(relevant, len(gold)),
            ]
            found.append(scores)
            lines.write(
                json.dumps({"id": row["id"], "scores": dict(zip(STREAMED, scores, strict=True))})
            )
            lines.write("\n")
    return found


def streamed_scorers() -> list:
    return [create_id_context_recall_scorer(), create_id_context_precision_scorer(),
            create_ranking_scorer("mrr"), create_ranking_scorer("ndcg@10")]  # fmt: skip


def streamed_run(data: Path, out: Path) -> None:
    out.unlink(missing_ok=True)
    run_evals(data, streamed_scorers(), results_path=out, keep_items=False, progress="none")


def streamed_scores(out: Path) -> list[list[float]]:
    return [[item.scorer_results[s].score for s in STREAMED] for item in read_results(out)]


PEAK = """
import sys
sys.path.insert(0, {here!r})
from bench_streamed import streamed_scorers
from evals import run_evals
run_evals(sys.argv[1], streamed_scorers(), results_path=sys.argv[2], keep_items=False,
          progress="none")
status = open("/proc/self/status").read()  # VmHWM: this process's own peak; ru_maxrss
print(int(status.split("VmHWM:")[1].split()[0]) / 1024)  # keeps the parent's across exec
"""


def peak_mb(data: Path, out: Path) -> float:
    out.unlink(missing_ok=True)
    code = PEAK.format(here=str(Path(__file__).parent))
    done = subprocess.run([sys.executable, "-c", code, str(data), str(out)],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return float(done.stdout.strip())


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def side_by_side(ours: Callable[[], Any], peer: Callable[[], Any], repeat: int) -> tuple:
    """Both sides alternating for ``repeat`` rounds: (our best s, the peer's best s, the
    median of the rounds' ratios)."""
    mine, theirs, ratios = [], [], []
    for _ in range(repeat):
        theirs.append(best(peer, 1))
        mine.append(best(ours, 1))
        ratios.append(mine[-1] / theirs[-1])
    return min(mine), min(theirs), statistics.median(ratios)


def ranking_rows(n: int, seed: int = 1) -> tuple[list[dict], dict, dict]:
    rng = random.Random(seed)
    rows, qrels, run = [], {}, {}
    for k in range(n):
        pool = rng.sample(range(1000), 110)
        retrieved = [f"d{d}" for d in pool[:100]]
        relevant = {f"d{d}": 1 for d in rng.sample(pool, 5)}
        rows.append({"id": f"q{k}", "input": "q?", "retrieved_context_ids": retrieved,
                     "reference_context_ids": list(relevant)})  # fmt: skip
        qrels[f"q{k}"], run[f"q{k}"] = relevant, retrieved
    return rows, qrels, run


PARTS = (  # (module, attribute, label): what a streamed item spends its time on
    ("evals._run._finish", "Finish.block", "finishing its block (lines, summary, bar)"),
    ("evals._file._jsonl", "ResultsFile.write_outcomes", "  writing its results line"),
    ("evals._stats._summarize", "SummaryBuilder.add_outcomes", "  the summary"),
    ("scorers._engine._many", "_fast_outcomes", "the four fast paths"),
    ("evals._run._source", "ItemSource._scan", "the first pass: every row validated"),
    ("evals._run._source", "ItemSource._read", "the second pass: rows read as items"),
    ("evals._run._runner", "make_jobs", "ScorerRuns and jobs"),
)


def _timed(owner: Any, name: str, spent: dict[str, float], label: str) -> None:
    original = getattr(owner, name)

    def clocked(fn: Any) -> Any:
        if inspect.iscoroutinefunction(fn):

            async def timed_async(*args: Any, **kwargs: Any) -> Any:
                started = time.perf_counter()
                try:
                    return await fn(*args, **kwargs)
                finally:
                    spent[label] += time.perf_counter() - started

            return timed_async

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[label] += time.perf_counter() - started

        return timed

    setattr(owner, name, clocked(original))


def parts(rows: int, repeat: int) -> None:
    """Each part of a streamed run's time per item, timed in place (this process)."""
    import importlib

    import evals._file._jsonl as jsonl

    with tempfile.TemporaryDirectory() as folder:
        data, out = Path(folder, "d.jsonl"), Path(folder, "r.jsonl")
        write_rows(data, rows)
        streamed_run(data, out)
        whole = best(lambda: streamed_run(data, out), repeat)
        outcome_line = jsonl.outcome_line
        jsonl.outcome_line = lambda *_: b'"item":{"id":"x"},"scorer_results":{}}'
        try:
            stubbed = best(lambda: streamed_run(data, out), repeat)
        finally:
            jsonl.outcome_line = outcome_line
        spent = dict.fromkeys((label for _, _, label in PARTS), 0.0)
        for module, attribute, label in PARTS:
            owner: Any = importlib.import_module(module)
            *path, name = attribute.split(".")
            for step in path:
                owner = getattr(owner, step)
            _timed(owner, name, spent, label)
        timed_run = best(lambda: streamed_run(data, out), 1)
    print(f"streamed run: {whole / rows * 1e6:.1f} µs per item ({rows:,} rows, best of {repeat})")
    print(f"  the results line, by stubbing it out: {(whole - stubbed) / rows * 1e6:.1f} µs")
    print(f"in place (one timed run, {timed_run / rows * 1e6:.1f} µs per item with the clocks):")
    for label, seconds in spent.items():
        print(f"  {label:52s} {seconds / rows * 1e6:6.1f} µs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--memory-rows", type=int, default=2_000)
    parser.add_argument("--ranking-rows", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--parts", action="store_true", help="where a streamed item's time goes")
    args = parser.parse_args()
    print(f"Python {platform.python_version()}, {platform.machine()}, {args.rows:,} rows")
    if args.parts:
        parts(args.rows, args.repeat)
        return
    with tempfile.TemporaryDirectory() as folder:
        data, plain_out, run_out = (Path(folder, n) for n in ("d.jsonl", "p.jsonl", "r.jsonl"))
        write_rows(data, args.rows)
        streamed_run(data, run_out)
        expected, got = plain_loop(data, plain_out), streamed_scores(run_out)
        assert all(
            math.isclose(a, b, abs_tol=1e-12)
            for x, y in zip(expected, got, strict=True)
            for a, b in zip(x, y, strict=True)
        )
        s, p, streamed_median = side_by_side(
            lambda: streamed_run(data, run_out), lambda: plain_loop(data, plain_out), args.repeat
        )
        memory = peak_mb(data, run_out)
    table_rows = bench_non_llm.make_rows(args.memory_rows)
    string_scorers = [create_non_llm_context_recall_scorer(), create_non_llm_context_precision_scorer(),
                      create_id_context_recall_scorer(), create_id_context_precision_scorer()]  # fmt: skip
    kept = run_evals(table_rows, string_scorers, progress="none")
    ids = [scorer.id for scorer in string_scorers]
    got = [tuple(item.scorer_results[sid].score for sid in ids) for item in kept.items]
    assert got == bench_non_llm.floor(table_rows, shared=False)
    memory_ours, memory_floor, memory_median = side_by_side(
        lambda: run_evals(table_rows, string_scorers, progress="none"),
        lambda: bench_non_llm.floor(table_rows, shared=False),
        max(args.repeat, 5),
    )
    rows, qrels, run = ranking_rows(args.ranking_rows)
    scorers = [create_ranking_scorer(m) for m in RANKING]
    result = run_evals(rows, scorers, progress="none")
    whole = evaluate_ranking(qrels, run, list(RANKING))
    for m in RANKING:
        assert math.isclose(result.summary.scorers[m].mean, whole.means[m], abs_tol=1e-12), m
    through, direct, ranking_median = side_by_side(
        lambda: run_evals(rows, scorers, progress="none"),
        lambda: evaluate_ranking(qrels, run, list(RANKING)),
        args.repeat,
    )
    print()
    print("| comparison | scorekit s | peer s | ratio (best) | ratio (median round) | bound |")
    print("|---|---:|---:|---:|---:|---:|")
    print(f"| streamed run, {args.rows:,} rows × 4 scorers vs plain loop | {s:.2f} | {p:.2f} | "
          f"**{s / p:.2f}×** | {streamed_median:.2f}× | 3× |")  # fmt: skip
    print(f"| run_evals in memory, {args.memory_rows:,} rows × 4 string and ID scorers vs bare kernel loop | "
          f"{memory_ours:.3f} | {memory_floor:.3f} | **{memory_ours / memory_floor:.2f}×** | "
          f"{memory_median:.2f}× | 1.25× |")  # fmt: skip
    print(
        f"| run_evals, {args.ranking_rows:,} rows of 100 ids × 5 ranking scorers vs "
        f"evaluate_ranking | {through:.2f} | {direct:.2f} | **{through / direct:.2f}×** | "
        f"{ranking_median:.2f}× | 2× |"
    )
    print()
    print(
        f"streamed: {s / args.rows * 1e6:.1f} µs per item, peak memory {memory:.0f} MB; "
        f"plain loop {p / args.rows * 1e6:.1f} µs per item"
    )


if __name__ == "__main__":
    main()
