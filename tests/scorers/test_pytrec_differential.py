"""evaluate_ranking against pytrec_eval (trec_eval's C code) on the seeded cases, where
pytrec_eval is installed (a benchmark-only peer, never a dependency)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from scorers import DatasetError, evaluate_ranking, load_qrels, load_run

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "differential"))
from cases import SEEDS, make_case  # noqa: E402

MEASURES = ["map", "ndcg", "ndcg_cut_10", "P_5", "recall_10", "recip_rank", "Rprec", "bpref"]
MEASURES += ["infAP", "set_F", "num_rel_ret", "success_1", "Rprec_mult_0.60", "relative_P_5"]
FAMILIES = {m.rsplit("_", 1)[0] if m[-1].isdigit() else m for m in MEASURES}


def test_per_query_values_equal_pytrec_eval(tmp_path):
    pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec_eval is a benchmark peer")
    compared = 0
    for seed in SEEDS:
        case = make_case(seed)
        (tmp_path / "q").write_text(case.qrels)
        (tmp_path / "r").write_text(case.run)
        try:
            qrels = load_qrels(tmp_path / "q")
        except DatasetError:
            continue  # empty, or a document judged twice: trec_eval refuses these too
        run = {q: docs for q, docs in load_run(tmp_path / "r").items() if q in qrels}
        if not run:
            continue
        ours = evaluate_ranking(qrels, run, MEASURES).per_query
        judged = {q: {d: int(g) for d, g in docs.items()} for q, docs in qrels.items()}
        theirs = pytrec_eval.RelevanceEvaluator(judged, FAMILIES).evaluate(run)
        for query, values in ours.items():
            for measure in MEASURES:
                assert values[measure] == pytest.approx(theirs[query][measure], abs=1e-12), (
                    seed,
                    query,
                    measure,
                )
                compared += 1
    assert compared > 1000
