"""Issue 56's reproductions: what a differential of new random cases found where
``scorekit trec`` and `evaluate_ranking` were not yet trec_eval 10's.

The expected lines were printed by trec_eval 10 (built from usnistgov/trec_eval) on the
same files; the seeded shapes that cover each class (``sparse*`` cases under ``-c -J``,
``-c -M 0``, ``relstring.N``, negative ``-l``) are in test_trec_differential.py.
"""

from __future__ import annotations

import io
import math
import random
from contextlib import redirect_stderr, redirect_stdout

import pytest

from evals.cli import main
from scorers import ConfigError, DatasetError, create_ranking_scorer, evaluate_ranking


def _trec(tmp_path, qrels: str, run: str, *options: str) -> tuple[int, str, str]:
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["trec", *options, str(tmp_path / "qrels"), str(tmp_path / "run")])
    return code, out.getvalue(), err.getvalue()


def _lines(*rows: tuple[str, str, str]) -> str:
    return "".join(f"{name:<22}\t{query}\t{value}\n" for name, query, value in rows)


def test_an_unranked_query_under_c_j_has_no_interpolated_precision(tmp_path):
    """Point 1: -c ranks a query the run lacks with one stand-in document; -J drops it,
    and 0 retrieved at recall 0 is trec_eval's 0/0."""
    qrels, run = "1 0 a 1\n2 0 b 1\n", "1 Q0 a 1 1 r\n"
    options = ["-q", "-m", "iprec_at_recall.0", "-m", "11pt_avg"]
    nan = "  -nan"
    expected = _lines(
        ("iprec_at_recall_0.00", "1", "1.0000"),
        ("11pt_avg", "1", "1.0000"),
        ("iprec_at_recall_0.00", "2", nan),
        ("11pt_avg", "2", nan),
        ("iprec_at_recall_0.00", "all", nan),
        ("11pt_avg", "all", nan),
    )
    assert _trec(tmp_path, qrels, run, "-c", "-J", *options)[:2] == (0, expected)
    empty = expected.replace("1.0000", nan)
    assert _trec(tmp_path, qrels, run, "-c", "-M", "0", *options)[:2] == (0, empty)
    plain = _lines(
        ("iprec_at_recall_0.00", "1", "1.0000"),
        ("11pt_avg", "1", "1.0000"),
        ("iprec_at_recall_0.00", "2", "0.0000"),
        ("11pt_avg", "2", "0.0000"),
        ("iprec_at_recall_0.00", "all", "0.5000"),
        ("11pt_avg", "all", "0.5000"),
    )
    assert _trec(tmp_path, qrels, run, "-c", *options)[:2] == (0, plain)


def test_relstring_of_an_unranked_query_under_c(tmp_path):
    """Point 2: trec_eval clears the plain ``relstring`` of an unranked query, but a
    ``relstring_N`` keeps its stand-in document, not in the pool: ``'-'``."""
    qrels, run = "1 0 a 1\n2 0 b 1\n", "1 Q0 a 1 1 r\n"
    code, out, _ = _trec(tmp_path, qrels, run, "-c", "-q", "-m", "relstring.20")
    assert (code, out) == (0, _lines(("relstring_20", "1", "'1'"), ("relstring_20", "2", "'-'")))
    code, out, _ = _trec(tmp_path, qrels, run, "-c", "-q", "-m", "relstring")
    assert (code, out) == (0, _lines(("relstring", "1", "'1'"), ("relstring", "2", "''")))


def test_a_negative_level_is_a_stated_difference(tmp_path):
    """Point 3: with -l -1 trec_eval counts a document it does not judge as relevant in
    P and map but not in num_rel_ret, bpref or set_P; scorekit counts it everywhere,
    says so on stderr, and docs/ir.md lists it."""
    code, out, err = _trec(
        tmp_path, "q 0 a 1\n", "q Q0 u 1 1 r\n", "-l", "-1", "-m", "num_rel_ret", "-m", "P.5"
    )
    assert code == 0 and "P_5                   \tall\t0.2000" in out  # as trec_eval
    assert "num_rel_ret           \tall\t1" in out  # trec_eval: 0
    assert "with -l -1 a document the qrels do not judge counts as relevant" in err
    code, _, err = _trec(tmp_path, "q 0 a 1\n", "q Q0 u 1 1 r\n", "-l", "0", "-m", "P.5")
    assert code == 0 and err == ""


def test_c_evaluates_when_no_query_is_on_both_sides(tmp_path):
    """Point 4: under -c trec_eval evaluates every judged query, even when the run ranks
    none of them (or holds only a comment); without -c both refuse."""
    expected = _lines(("map", "1", "0.0000"), ("map", "all", "0.0000"))
    assert _trec(tmp_path, "1 0 a 1\n", "2 Q0 a 1 1 r\n", "-c", "-q", "-m", "map")[:2] == (
        0,
        expected,
    )
    assert _trec(tmp_path, "1 0 a 1\n", "# nothing\n", "-c", "-q", "-m", "map")[:2] == (
        0,
        expected,
    )
    code, _, err = _trec(tmp_path, "1 0 a 1\n", "2 Q0 a 1 1 r\n", "-q", "-m", "map")
    assert code != 0 and "no query has both judgements and a ranking" in err
    found = evaluate_ranking({"1": {"a": 1}}, {"2": ["a"]}, ["map"], missing="zero")
    assert (found.means, found.missing_from_run) == ({"map": 0.0}, ["1"])
    with pytest.raises(DatasetError, match="no query has both"):
        evaluate_ranking({"1": {"a": 1}}, {"2": ["a"]}, ["map"])


def test_a_qrels_file_ending_in_a_comment_is_read(tmp_path):
    """Point 5: trec_eval 10 crashes (SIGSEGV) on it; scorekit reads it (docs/ir.md)."""
    code, out, _ = _trec(tmp_path, "1 0 a 1\n1 0 b 0\n# last\n", "1 Q0 a 1 1 r\n", "-m", "map")
    assert (code, out) == (0, _lines(("map", "all", "1.0000")))


@pytest.mark.parametrize("score", ["nan", "inf", "-inf", "NaN", "Infinity"])
def test_scores_that_are_not_finite_are_refused_naming_the_line(tmp_path, score):
    """Point 6 (docs/ir.md's table): atof reads them; a NaN ranks by accident."""
    code, _, err = _trec(tmp_path, "1 0 a 1\n", f"1 Q0 a 1 {score} r\n", "-m", "map")
    assert code != 0 and "line 1" in err and "not a finite number" in err


@pytest.mark.parametrize("measure", ["G", "ndcg_rel", "Rndcg", "rbp", "all_trec"])
def test_huge_grades_need_no_array_per_grade_level(tmp_path, measure):
    """Point 7: a grade of 2**31 - 1 made an array of every level up to it (16 GiB);
    trec_eval 10 crashes on it. Beyond 2**53 a grade is refused, naming the line."""
    qrels = f"1 0 a {2**31 - 1}\n1 0 b 1\n"
    code, out, _ = _trec(tmp_path, qrels, "1 Q0 b 1 1 r\n1 Q0 a 2 0.5 r\n", "-m", measure)
    assert code == 0 and "\tall\t" in out
    code, _, err = _trec(tmp_path, "1 0 a 99999999999999999999\n", "1 Q0 a 1 1 r\n", "-m", "G")
    assert code != 0 and "line 1" in err and "2**53" in err
    with pytest.raises(ConfigError, match="NaN, infinite or beyond"):
        evaluate_ranking({"1": {"a": math.inf}}, {"1": ["a"]}, [measure.replace("all_trec", "G")])


def test_huge_and_sparse_grades_give_the_gains_of_every_level():
    """The levels no document has still bound rbp's rescaling and Rndcg's first gain, as
    trec_eval's array of every level does: the same values with grades 0-9 either way."""
    qrels = {"1": {"a": 9, "b": 1, "c": 0, "d": 4}}
    run = {"1": ["c", "b", "d", "a"]}
    for gains in ("", "_9=1", "_0=2,9=1", "_3=7"):
        metrics = [f"{m}{gains}" for m in ("rbp", "Rndcg", "G", "ndcg_rel")]
        found = evaluate_ranking(qrels, run, metrics)
        assert all(0 <= v < 10 for v in found.means.values()), found.means


def test_means_are_summed_in_trec_evals_query_order():
    """Point 8: trec_eval sums the queries sorted by id (strcmp); summing in the qrels'
    order differs in the last bits (this seed: 0.7844105489417988)."""
    rng = random.Random(0)
    qrels, run = {}, {}
    for query in dict.fromkeys(f"q{rng.randint(0, 999)}" for _ in range(12)):
        docs = [f"d{i}" for i in range(rng.randint(3, 9))]
        qrels[query] = {d: rng.choice([0, 1, 1, 2]) for d in docs}
        run[query] = rng.sample(docs, len(docs))
    found = evaluate_ranking(qrels, run, ["map"])
    values = found.values("map")
    in_sorted, in_given = 0.0, 0.0
    for query in sorted(values):
        in_sorted += values[query]
    for query in qrels:
        in_given += values[query]
    assert in_sorted != in_given
    assert found.means["map"] == in_sorted / len(values) == 0.784410548941799


@pytest.mark.parametrize("metric", ["11pt_avg", "iprec_at_recall_0.00", "map", "unj_5"])
def test_an_empty_ranking_scores_0(metric):
    """Point 9: ``retrieved_context_ids: []`` raised "returned NaN" for interpolated
    precision; an empty ranking scores 0 (docs/metrics.md: empty R → 0), as trec_eval -c
    and ``missing="zero"`` count a query without one, through the fast path too."""
    from evals import run_evals

    scorer = create_ranking_scorer(metric)
    run = {"retrieved_context_ids": [], "reference_context_ids": {"b": 1}}
    assert scorer.run(run).score == 0.0
    items = [{"id": "e", "input": "q", **run}]
    result = run_evals(items, scorers=[scorer], progress=False)
    assert result.items[0].scorer_results[metric].score == 0.0
    assert evaluate_ranking({"q": {"b": 1}}, {}, [metric], missing="zero").means[metric] == 0.0
