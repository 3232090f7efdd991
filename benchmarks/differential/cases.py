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


ODD_CHARS = (
    "\udce9",
    "\u00a0",
    "\u2009",
    "\u3000",
    "\u2028",
    "\x85",
    "\x1c",
    "\x1d",
    "\x1e",
    "\x1f",
)
"""Characters trec_eval keeps inside a field: a byte that is not UTF-8 (0xe9, carried as a
surrogate escape), Unicode spaces and line separators, the ASCII separators 0x1c-0x1f."""
SEPARATORS = (" ", "\t", "\v", "\f", " \t", "  ", "\t\v ")
"""C whitespace, what trec_eval splits fields at."""


def make_odd_case(seed: int) -> Case:
    """Files as people and tools write them: ids holding any of `ODD_CHARS`, fields split
    by any C whitespace, CRLF line ends, single comment lines, a query whose every grade is
    negative, a ranking of more than 1,000 documents. (Blank lines and two comment lines
    in a row are left out: trec_eval refuses them and scorekit reads them, on purpose.)"""
    rng = random.Random(seed)
    base = make_case(seed)

    def odd(text: str) -> str:
        return text + rng.choice(ODD_CHARS) if rng.random() < 0.5 else text

    names: dict[str, str] = {}

    def rename(field: str) -> str:
        if field not in names:
            names[field] = odd(field)
        return names[field]

    def rewrite(lines: list[str], id_fields: tuple[int, ...]) -> list[str]:
        out = []
        for line in lines:
            fields = line.split(" ")
            fields = [rename(f) if i in id_fields else f for i, f in enumerate(fields)]
            text = "".join(f + rng.choice(SEPARATORS) for f in fields[:-1]) + fields[-1]
            out.append(text + ("\r" if rng.random() < 0.1 else ""))
        return out

    qrels = rewrite(base.qrels.splitlines(), (0, 2))
    run = rewrite(base.run.splitlines(), (0, 2))
    negative = f"neg{seed}"
    # -1 first: trec_eval 10 crashes (SIGSEGV) on a query whose every grade is -2
    qrels += [f"{negative} 0 n{i} {-1 if i == 0 else rng.choice([-1, -2])}" for i in range(4)]
    run += [f"{negative} Q0 n{i} {i} {10 - i} runA" for i in range(6)]
    big = f"big{seed}"
    qrels += [f"{big} 0 b{i} {rng.choice([0, 1, 2])}" for i in range(0, 1400, 37)]
    run += [
        f"{big} Q0 b{i} {i} {rng.randint(0, 3000) / 7:g} runA" for i in range(1100 + seed % 300)
    ]
    for lines in (qrels, run):
        for _ in range(rng.randint(1, 2)):
            where = rng.randrange(len(lines))
            if not lines[where].startswith("#") and not lines[max(where - 1, 0)].startswith("#"):
                lines.insert(where, f"# a comment {rng.randint(0, 99)}")
    rng.shuffle(run)
    return Case(f"odd{seed}", "\n".join(qrels) + "\n", "\n".join(run) + "\n")


def make_sparse_case(seed: int) -> Case:
    """Where trec_eval's ``-c``, ``-J``, ``-M`` and negative ``-l`` meet (issue 56): many
    judged queries without a ranking, rankings of only unjudged documents (empty under
    ``-J``), very short rankings, and (one seed in four) no query on both sides."""
    rng = random.Random(seed)
    qrels_lines: list[str] = []
    run_lines: list[str] = []
    apart = seed % 4 == 0
    for q in range(rng.randint(2, 7)):
        query = f"s{q}"
        judged = [f"j{rng.randint(1, 30)}" for _ in range(rng.randint(1, 6))]
        for i, doc in enumerate(dict.fromkeys(judged)):
            # a query whose every grade is negative breaks trec_eval 10 (docs/ir.md)
            grade = rng.choice(GRADES if i else GRADES[2:])
            qrels_lines.append(f"{query} 0 {doc} {grade}")
        shape = rng.choice(["none", "unjudged", "short", "mixed"])
        if shape == "none":
            continue
        pool = {"unjudged": [], "short": judged[:1]}.get(shape, judged)
        docs = list(
            dict.fromkeys(pool + [f"u{rng.randint(1, 9)}" for _ in range(rng.randint(0, 4))])
        )
        if not docs:
            docs = ["u0"]
        ranked_query = f"other{q}" if apart else query
        for rank, doc in enumerate(docs, start=1):
            run_lines.append(f"{ranked_query} Q0 {doc} {rank} {rng.randint(0, 5)} runS")
    if not run_lines:
        run_lines.append("zz Q0 u0 1 1 runS")
    rng.shuffle(run_lines)
    return Case(f"sparse{seed}", "\n".join(qrels_lines) + "\n", "\n".join(run_lines) + "\n")


def encoded(text: str) -> bytes:
    """A case's file as bytes (surrogate escapes back to the bytes they stand for)."""
    return text.encode("utf-8", "surrogateescape")


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
    "c_J": ["-m", "all_trec", "-c", "-J", "-q"],
    "c_M0": ["-m", "all_trec", "-c", "-M", "0", "-q"],
    "c_M1_J": ["-m", "all_trec", "-c", "-M", "1", "-J", "-q"],
    "c_strings": ["-m", "relstring", "-m", "relstring.3", "-m", "relstring.0", "-c", "-q"],
    "c_strings_J": ["-m", "relstring.2", "-m", "11pt_avg", "-c", "-J", "-q"],
    "l_neg1": ["-m", "all_trec", "-l", "-1", "-q"],
    "l_neg2_c": ["-m", "all_trec", "-l", "-2", "-c", "-q"],
    "mixed_order": ["-m", "recall.7,2", "-m", "bpref", "-m", "P", "-m", "runid", "-m", "unj.3"],
}
"""trec_eval arguments each case is run with (name: arguments)."""

SEEDS = range(32)
SPARSE_SEEDS = range(200, 224)
"""Seeds of `make_sparse_case`."""
ODD_SEEDS = range(100, 116)
"""Seeds of `make_odd_case` (issue 47: what trec_eval reads that people's files hold)."""


def all_cases() -> list[Case]:
    """Every seeded case: `make_case`, `make_odd_case`, then `make_sparse_case`."""
    return (
        [make_case(s) for s in SEEDS]
        + [make_odd_case(s) for s in ODD_SEEDS]
        + [make_sparse_case(s) for s in SPARSE_SEEDS]
    )


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
