"""Seeded random TREC qrels and runs for the differential tests against trec_eval.

Pure Python and deterministic (``random.Random(seed)``): the fixture script writes
trec_eval's output for each case once; the tests rebuild the same files from the seed
and compare scorekit's output with it byte for byte.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    """One generated pair of files."""

    name: str
    qrels: str
    run: str


GRADES = (-2, -1, 0, 0, 0, 1, 1, 2, 3)


def make_case(seed: int) -> Case:
    """Queries with graded and negative judgements, tied scores, unjudged documents,
    queries only in the qrels or only in the run, a few runs with several tags, and (one
    seed in four) documents listed twice, low in a ranking and in an unjudged query."""
    rng = random.Random(seed)
    n_queries = rng.randint(2, 6)
    pool = [f"d{rng.randint(1, 400)}" for _ in range(120)] + [f"D{i}" for i in range(30)]
    qrels_lines: list[str] = []
    run_lines: list[str] = []
    tags = ["runA"] if rng.random() < 0.7 else ["runA", "runB", "zz"]
    for q in range(n_queries):
        query = str(rng.choice([q + 1, 100 + q, 7 * q + 3]))
        docs = list(dict.fromkeys(rng.sample(pool, rng.randint(3, 40))))
        in_qrels = rng.random() > 0.1
        in_run = rng.random() > 0.04
        judged = [d for d in docs if rng.random() < 0.7]
        if in_qrels:
            extra = [f"x{q}_{i}" for i in range(rng.randint(0, 5))]  # judged, never ranked
            for doc in judged + extra:
                qrels_lines.append(f"{query} 0 {doc} {rng.choice(GRADES)}")
        if in_run:
            ranked = docs[: rng.randint(1, len(docs))]
            levels = rng.choice([3, 8, 1000])
            for rank, doc in enumerate(ranked, start=1):
                score = rng.randint(0, levels) / rng.choice([1, 4, 10])
                run_lines.append(f"{query} Q0 {doc} {rank} {score:g} {rng.choice(tags)}")
    if seed % 4 == 3:  # documents listed twice: refused only within the evaluated depth
        for line in rng.sample(run_lines, min(2, len(run_lines))):
            query, _, doc, rank, _, tag = line.split()
            run_lines.append(f"{query} Q0 {doc} {rank} {rng.randint(-50, 0) / 10:g} {tag}")
        run_lines.append(f"999 Q0 twice 1 1 {tags[0]}")
        run_lines.append(f"999 Q0 twice 2 0.5 {tags[0]}")
    rng.shuffle(run_lines)
    return Case(f"seed{seed}", "\n".join(qrels_lines) + "\n", "\n".join(run_lines) + "\n")


OPTIONS: dict[str, list[str]] = {
    "default": [],
    "q": ["-q"],
    "all": ["-m", "all_trec"],
    "all_q": ["-m", "all_trec", "-q"],
    "all_c": ["-m", "all_trec", "-c"],
    "l2": ["-m", "all_trec", "-l", "2"],
    "l0": ["-m", "all_trec", "-l", "0", "-q"],
    "l2_c": ["-m", "all_trec", "-l", "2", "-c"],
    "M5": ["-m", "all_trec", "-M", "5", "-q"],
    "families": ["-m", "P.20,5", "-m", "ndcg_cut.3", "-m", "map", "-m", "P.7", "-q"],
    "c_q": ["-m", "all_trec", "-c", "-q"],
    "M0": ["-m", "all_trec", "-M", "0"],
    "J": ["-m", "all_trec", "-J", "-q"],
    "N": ["-m", "set", "-m", "utility.1,-2,-0.5,0.25", "-N", "500", "-q"],
    "gains": [
        "-m",
        "ndcg.1=3,2=9,0=1",
        "-m",
        "G.3=5,1=4",
        "-m",
        "Rndcg.1=2",
        "-m",
        "relstring.4",
        "-q",
    ],
    "gains_l2": ["-m", "ndcg_rel.2=1", "-m", "Rndcg", "-m", "ndcg", "-m", "G", "-l", "2", "-q"],
    "dcg": ["-m", "dcg", "-m", "ideal_dcg", "-m", "G", "-m", "rbp_resid.p=0.8", "-q", "-l", "2"],
    "n": ["-m", "official", "-n", "-q", "-l", "3"],
    "mixed_order": ["-m", "recall.7,2", "-m", "bpref", "-m", "P", "-m", "runid", "-m", "unj.3"],
}
"""trec_eval arguments each case is run with (name: arguments)."""

SEEDS = range(32)

ON_SHARED_FILES = {
    "out.test.aql": ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level"],
    "out.test.meas_params": (
        "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
        "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
        "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 -m rbp.p=0.5 qrels.test"
    ).split(),
}
"""trec_eval's own test commands (its Makefile's quicktest) on ../shared/data's files;
the run is results.test."""
