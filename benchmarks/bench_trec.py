"""Whole-run ranking evaluation: scorekit's `evaluate_ranking` beside pytrec_eval and ranx.

Q queries × 100 retrieved documents (scores with ties), graded qrels (0-3, ~20 judged per
query, some queries missing from the run), five metrics: ndcg@10, map, mrr, P@10,
recall@100; or, with ``--measures official``, trec_eval's default set (30 values: counts,
map, gm_map, Rprec, bpref, recip_rank, 11 interpolated precisions, 9 P cutoffs; ranx is
left out, it has no gm_map or interpolated precision). All three run in this process on the same dicts, in one invocation; the
per-query values of scorekit and pytrec_eval are checked to be equal, the means of ranx
too. Memory: tracemalloc's peak during scorekit's evaluation at 1/4, 1/2 and all of Q.

pytrec_eval and ranx are peers, not dependencies: install them in the benchmark's own
environment,

    python -m venv .venv-peers && .venv-peers/bin/pip install -e . pytrec_eval ranx
    .venv-peers/bin/python benchmarks/bench_trec.py [--queries 10000] [--repeat 3] [--write]

A peer that is not installed is left out of the table (and said so). ``--write`` stores
the table in ``benchmarks/results/trec.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
import tracemalloc
from pathlib import Path
from typing import Any

from scorers import evaluate_ranking

SCOREKIT = ["ndcg@10", "map", "mrr", "precision@10", "recall@100"]
TREC = {
    "ndcg@10": "ndcg_cut_10",
    "map": "map",
    "mrr": "recip_rank",
    "precision@10": "P_10",
    "recall@100": "recall_100",
}
RANX = {
    "ndcg@10": "ndcg@10",
    "map": "map",
    "mrr": "mrr",
    "precision@10": "precision@10",
    "recall@100": "recall@100",
}


LEVELS = [f"{i / 10:.2f}" for i in range(11)]
CUTOFFS = [5, 10, 15, 20, 30, 100, 200, 500, 1000]
OFFICIAL = [
    "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    *(f"iprec_at_recall_{level}" for level in LEVELS), *(f"P_{k}" for k in CUTOFFS),
]  # fmt: skip
PYTREC_OFFICIAL = [
    "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    "iprec_at_recall", "P",
]  # fmt: skip


def make(queries: int, seed: int = 0, ties: bool = True) -> tuple[dict, dict]:
    """Deterministic qrels and run; 1 query in 50 has qrels but no ranking. With ``ties``
    scores are multiples of 0.5 in [0, 10] (about 21 levels for 100 documents)."""
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(queries):
        pool = [f"D{q}-{i}" for i in range(300)]
        judged = rng.sample(pool[:150], 20)
        qrels[f"q{q}"] = {d: rng.choice((0, 0, 1, 1, 2, 3)) for d in judged}
        if q % 50 == 49:
            continue
        retrieved = rng.sample(pool, 100)
        run[f"q{q}"] = {
            d: round(rng.random() * 20) / 2 if ties else rng.random() for d in retrieved
        }
    return qrels, run


def best_of(repeat: int, fn):
    best, value = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - started)
    return best, value


def peak_mb(fn) -> float:
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1e6


def as_rows(qrels: dict, run: dict, ids_only: bool = False) -> list[dict]:
    """The run as scorekit data rows: each query's documents in trec_eval's order (score
    descending, ties by document id descending) as chunks, or with ``ids_only`` as
    ``retrieved_context_ids``; its qrels as graded ids."""
    rows = []
    for query, docs in run.items():
        ranked = sorted(docs, reverse=True)
        ranked.sort(key=docs.__getitem__, reverse=True)  # stable: ties stay id-descending
        retrieved: dict[str, Any] = (
            {"retrieved_context_ids": ranked}
            if ids_only
            else {"context": [{"id": doc, "text": ""} for doc in ranked]}
        )
        rows.append(
            {"id": query, "input": query, **retrieved, "reference_context_ids": qrels[query]}
        )
    return rows


def run_evals_row(
    qrels: dict, run: dict, ours: Any, repeat: int, notes: list[str], ids_only: bool = False
) -> tuple[float, float]:
    """Best wall times of `run_evals` with the five metrics as ranking scorers: on the
    rows as dicts (built outside the timing: a user has them), then on the same rows
    validated once by `load_dataset` outside the timing (data loaded once, run again);
    its values checked against `evaluate_ranking`'s."""
    from evals import load_dataset, run_evals
    from scorers import create_ranking_scorer

    scorers = [create_ranking_scorer(m) for m in SCOREKIT]
    best, result = float("inf"), None
    for _ in range(repeat):
        rows = as_rows(qrels, run, ids_only)
        started = time.perf_counter()
        result = run_evals(rows, scorers, progress="none")
        best = min(best, time.perf_counter() - started)
    items = load_dataset(as_rows(qrels, run, ids_only))
    validated, _ = best_of(repeat, lambda: run_evals(items, scorers, progress="none"))
    assert result is not None
    scored = [item for item in result.items if item.scorer_results["map"].status == "scored"]
    unequal = sum(
        item.scorer_results[m].score != ours.per_query[item.item.id][m]
        for item in scored
        for m in SCOREKIT
    )
    notes.append(
        f"run_evals{' (ids only)' if ids_only else ''}: {len(scored)} items scored (queries "
        "without a relevant document are skipped), per-item values equal to "
        f"evaluate_ranking's: {unequal == 0}"
    )
    return best, validated


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-ties", action="store_true", help="continuous scores (no ties)")
    parser.add_argument("--write", action="store_true", help="write benchmarks/results/trec*.*")
    parser.add_argument("--measures", choices=("five", "official"), default="five")
    args = parser.parse_args()
    official = args.measures == "official"
    names = OFFICIAL if official else SCOREKIT
    trec_names = {m: m for m in OFFICIAL} if official else TREC

    qrels, run = make(args.queries, ties=not args.no_ties)
    rows = []
    ours_time, ours = best_of(args.repeat, lambda: evaluate_ranking(qrels, run, names))
    rows.append(("scorekit evaluate_ranking", ours_time))
    notes = [
        f"scorekit: {ours.n_queries} queries evaluated, {len(ours.missing_from_run)} missing from the run (left out, as trec_eval)"
    ]

    if not official:
        run_time, validated = run_evals_row(qrels, run, ours, args.repeat, notes)
        rows.append(("scorekit run_evals, 5 ranking scorers (rows given as dicts)", run_time))
        rows.append(("scorekit run_evals, the same items validated once (load_dataset)", validated))
        run_time, validated = run_evals_row(qrels, run, ours, args.repeat, notes, ids_only=True)
        rows.append(
            ("scorekit run_evals, 5 ranking scorers (dict rows, retrieved_context_ids)", run_time)
        )
        rows.append(("scorekit run_evals, the same ids-only items validated once", validated))

    try:
        import pytrec_eval
    except ImportError:
        notes.append("pytrec_eval: not installed (pip install pytrec_eval in this environment)")
    else:

        def trec() -> dict:
            measures = set(PYTREC_OFFICIAL if official else TREC.values())
            return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)

        trec_time, trec_values = best_of(args.repeat, trec)
        rows.append(("pytrec_eval (trec_eval's C code)", trec_time))
        assert set(trec_values) == set(ours.per_query), "evaluated queries differ"
        unequal = [
            (q, m)
            for q, row in ours.per_query.items()
            for m in names
            if row[m] != trec_values[q][trec_names[m]]
        ]
        measures_apart = sorted({m for _, m in unequal})
        notes.append(
            f"pytrec_eval: per-query values identical for {len(ours.per_query)} queries × "
            f"{len(names) - len(measures_apart)} metrics"
            + (
                f"; {len(unequal)} values of {', '.join(measures_apart)} differ"
                + (
                    " (pytrec_eval bundles trec_eval 9, whose recall cutoff adds 0.9 and "
                    "truncates; trec_eval 10, whose test outputs scorekit matches, rounds)"
                    if all(m.startswith("iprec_at_recall") for m in measures_apart)
                    else ""
                )
                if unequal
                else ""
            )
        )

    try:
        if official:
            raise ImportError
        from ranx import Qrels, Run, evaluate
    except ImportError:
        notes.append(
            "ranx: left out (no gm_map or interpolated precision)"
            if official
            else "ranx: not installed (pip install ranx in this environment)"
        )
    else:

        def ranx_eval() -> dict:
            return evaluate(Qrels(qrels), Run(run), list(RANX.values()), make_comparable=True)

        ranx_eval()  # numba compiles on the first call: not timed
        ranx_time, ranx_means = best_of(args.repeat, ranx_eval)
        rows.append(("ranx", ranx_time))
        zero = evaluate_ranking(qrels, run, SCOREKIT, missing="zero")
        for label, reference in (("ignore", ours), ("zero", zero)):
            gaps = {m: abs(reference.means[m] - ranx_means[RANX[m]]) for m in SCOREKIT}
            notes.append(
                f"ranx vs scorekit missing={label!r}: largest mean gap {max(gaps.values()):.2e}"
            )

    sizes = [args.queries // 4, args.queries // 2, args.queries]
    memory = []
    for n in sizes:
        sub_qrels, sub_run = make(n, ties=not args.no_ties)
        memory.append((n, peak_mb(lambda q=sub_qrels, r=sub_run: evaluate_ranking(q, r, names))))

    ranked = sum(len(r) for r in run.values())
    table = [
        f"{args.queries:,} queries × 100 retrieved ({ranked:,} ranked documents, "
        f"{'continuous scores' if args.no_ties else 'scores with ties'}), graded qrels, "
        f"{len(names)} metrics ({args.measures}); best of {args.repeat}; "
        f"Python {platform.python_version()}",
        "",
        "| path | wall s | queries/s | × scorekit |",
        "|---|---:|---:|---:|",
    ]
    for name, seconds in rows:
        table.append(
            f"| {name} | {seconds:.3f} | {args.queries / seconds:,.0f} | {seconds / ours_time:.2f} |"
        )
    table += ["", "| queries | peak MB (tracemalloc) | MB per 1,000 queries |", "|---:|---:|---:|"]
    for n, mb in memory:
        table.append(f"| {n:,} | {mb:.1f} | {mb / n * 1000:.2f} |")
    table += ["", *(f"- {note}" for note in notes)]
    text = "\n".join(table)
    print(text)
    if args.write:
        out = Path(__file__).parent / "results"
        stem = ("trec_no_ties" if args.no_ties else "trec") + ("_official" if official else "")
        (out / f"{stem}.md").write_text(text + "\n")
        (out / f"{stem}.json").write_text(
            json.dumps(
                {"rows": rows, "memory": memory, "notes": notes, "queries": args.queries}, indent=2
            )
            + "\n"
        )


if __name__ == "__main__":
    main()
