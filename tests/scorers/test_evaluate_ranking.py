"""evaluate_ranking: trec_eval's values for whole runs, ties, missing queries, TREC files,
significance tests against scipy."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest

from scorers import (
    ConfigError,
    DatasetError,
    compare_rankings,
    create_ranking_scorer,
    evaluate_ranking,
    holm,
    load_qrels,
    load_run,
    paired_test,
    write_qrels,
)
from tests.conftest import SHARED_DATA

TREC_NAMES = {
    "P_5": "precision@5",
    "P_10": "precision@10",
    "P_1000": "precision@1000",
    "recall_5": "recall@5",
    "recall_1000": "recall@1000",
    "success_1": "hit_rate@1",
    "success_10": "hit_rate@10",
    "ndcg": "ndcg",
    "ndcg_cut_10": "ndcg@10",
    "ndcg_cut_1000": "ndcg@1000",
    "map": "map",
    "map_cut_100": "map@100",
    "recip_rank": "mrr",
    "Rprec": "r_precision",
}


@pytest.fixture(scope="module")
def trec():
    folder = SHARED_DATA / "trec_eval"
    if not folder.is_dir():
        pytest.skip(f"trec_eval test files not found at {folder} (../shared/data is absent)")
    expected = {}
    for line in (folder / "out.test.aq").read_text().splitlines():
        measure, query, value = line.split()
        expected[(measure, query)] = value
    return load_qrels(folder / "qrels.test"), load_run(folder / "results.test"), expected


def test_every_measure_equals_trec_eval_per_query_and_on_average(trec):
    qrels, run, expected = trec
    for names in (list(TREC_NAMES), list(TREC_NAMES.values())):
        result = evaluate_ranking(qrels, run, names)
        assert result.n_queries == 3 and result.missing_from_run == []
        for trec_name, ours in TREC_NAMES.items():
            name = trec_name if names[0] == "P_5" else ours
            for query, row in result.per_query.items():
                assert f"{row[name]:.4f}" == expected[(trec_name, query)], (name, query)
            assert f"{result.means[name]:.4f}" == expected[(trec_name, "all")], name


def test_the_scorers_and_evaluate_ranking_give_the_same_values():
    rng = random.Random(7)
    qrels, run = {}, {}
    for q in range(40):
        docs = [f"d{i}" for i in range(30)]
        qrels[str(q)] = {d: rng.choice([0, 1, 1, 2, 3]) for d in rng.sample(docs, 8)}
        run[str(q)] = {d: float(rng.randint(0, 5)) for d in rng.sample(docs, 15)}  # many ties
    metrics = ["ndcg@10", "ndcg", "map", "map@5", "mrr", "precision@3", "recall@10", "r_precision"]
    result = evaluate_ranking(qrels, run, metrics, relevance_level=1)
    for metric in metrics:
        scorer = create_ranking_scorer(metric)
        for q, ranking in run.items():
            ranked = sorted(ranking, key=lambda d: (ranking[d], d), reverse=True)
            judged = {d: g for d, g in qrels[q].items()}
            if not any(g > 0 for g in judged.values()):
                continue
            value = scorer.run(
                context=[{"id": d, "text": ""} for d in ranked], reference_context_ids=judged
            ).score
            assert value == result.per_query[q][metric], (metric, q)


def test_ties_are_broken_by_document_id_descending_and_lists_are_rankings():
    qrels = {"q": {"a": 1}}
    tied = evaluate_ranking(qrels, {"q": {"a": 1.0, "b": 1.0, "c": 1.0}}, ["mrr", "P_1"])
    assert tied.per_query["q"] == {"mrr": 1 / 3, "P_1": 0.0}  # c, b, a
    ranked = evaluate_ranking(qrels, {"q": ["b", "a", "c"]}, ["mrr"])
    assert ranked.per_query["q"]["mrr"] == 0.5
    mixed = evaluate_ranking(qrels, {"q": {"z": 2.0, "a": 1.0, "b": 1.0}}, ["mrr"])
    assert mixed.per_query["q"]["mrr"] == 1 / 3  # z, then b before a


def test_queries_missing_from_the_run_or_the_qrels():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q1": {"a": 1.0}, "q3": {"x": 1.0}}
    ignored = evaluate_ranking(qrels, run, ["map"])
    assert ignored.n_queries == 1 and ignored.means == {"map": 1.0}
    assert ignored.missing_from_run == ["q2"] and ignored.missing_from_qrels == ["q3"]
    zero = evaluate_ranking(qrels, run, ["map"], missing="zero")
    assert zero.n_queries == 2 and zero.means == {"map": 0.5}
    assert zero.per_query["q2"] == {"map": 0.0}


def test_graded_qrels_and_the_relevance_level():
    qrels = {"q": {"a": 1, "b": 2, "c": 0}}
    run = {"q": ["a", "b", "c"]}
    default = evaluate_ranking(qrels, run, ["P_2", "map", "ndcg"])
    strict = evaluate_ranking(qrels, run, ["P_2", "map", "ndcg"], relevance_level=2)
    assert default.per_query["q"]["P_2"] == 1.0 and strict.per_query["q"]["P_2"] == 0.5
    assert strict.per_query["q"]["map"] == 0.5  # b at rank 2 is the one relevant
    ideal = 2 + 1 / math.log2(3)
    dcg = 1 + 2 / math.log2(3)
    assert default.per_query["q"]["ndcg"] == pytest.approx(dcg / ideal, rel=1e-15)
    assert strict.per_query["q"]["ndcg"] == default.per_query["q"]["ndcg"]  # gains = grades
    no_relevant = evaluate_ranking({"q": {"a": 0}}, {"q": ["a"]}, ["map", "ndcg", "recall@5"])
    assert no_relevant.per_query["q"] == {"map": 0.0, "ndcg": 0.0, "recall@5": 0.0}


@pytest.mark.parametrize(
    ("metrics", "message"),
    [
        (["ndcg@0"], "unknown ranking metric 'ndcg@0'"),
        (["P10"], "unknown ranking metric 'P10'"),
        ([], "at least one metric"),
        (["map", "map"], "listed twice"),
    ],
)
def test_bad_metric_names(metrics, message):
    with pytest.raises(ConfigError, match=message):
        evaluate_ranking({"q": {"a": 1}}, {"q": ["a"]}, metrics)


def test_trec_files_round_trip_and_errors(tmp_path):
    qrels_file = tmp_path / "qrels.txt"
    write_qrels(qrels_file, {"1": {"d1": 1, "d2": 0}, "2": {"d3": 2.5}})
    with pytest.warns(UserWarning, match=r"line 3: grade '2.5' read as 2, as trec_eval"):
        assert load_qrels(qrels_file) == {"1": {"d1": 1, "d2": 0}, "2": {"d3": 2}}
    run_file = tmp_path / "run.txt"
    run_file.write_text("1 Q0 d1 1 2.5 bm25\n1 Q0 d2 2 1.5 bm25\n")
    assert load_run(run_file) == {"1": {"d1": 2.5, "d2": 1.5}}
    run_file.write_text("1 Q0 d1 1 2.5 bm25\n1 Q0 d1 2 1.5 other\n")
    run = load_run(run_file)  # kept aside: trec_eval refuses it only where it is evaluated
    assert run == {"1": {"d1": 2.5}} and run.duplicates == {"1": {"d1": [1.5]}}
    assert run.runid == "other"  # the last line's tag, as trec_eval
    with pytest.raises(DatasetError, match="'d1' is listed twice for query '1' within"):
        evaluate_ranking({"1": {"d1": 1}}, run, ["map"])
    assert evaluate_ranking({"1": {"d1": 1}}, run, ["map"], max_docs=1).means == {"map": 1.0}
    qrels_file.write_text("1 0 d1 1\n1 0 d1 0\n")
    with pytest.raises(DatasetError, match="line 2: document 'd1' is judged twice"):
        load_qrels(qrels_file)
    qrels_file.write_text("1 0 d1 x\n")
    with pytest.raises(DatasetError, match="line 1: grade 'x' is not an integer"):
        load_qrels(qrels_file)
    run_file.write_text("1 Q0 d1 1 high bm25\n")
    with pytest.raises(DatasetError, match="line 1: score 'high' is not a number"):
        load_run(run_file)
    qrels_file.write_text("1 0 d1\n")
    with pytest.raises(DatasetError, match="line 1: a qrels line has 4 fields"):
        load_qrels(qrels_file)


def test_the_t_test_equals_scipy_and_the_others_are_sound():
    from scipy import stats

    rng = np.random.default_rng(3)
    a = rng.uniform(0, 1, 60)
    b = np.clip(a + rng.normal(0.05, 0.1, 60), 0, 1)
    test = paired_test(a, b, resamples=4000, seed=1)
    scipy_test = stats.ttest_rel(b, a)
    assert test.t_statistic == scipy_test.statistic and test.p_t == scipy_test.pvalue
    assert test.delta == pytest.approx(float((b - a).mean()), abs=1e-15)
    assert test.ci_low < test.delta < test.ci_high
    assert test.bootstrap_low < test.delta < test.bootstrap_high
    assert test == paired_test(a, b, resamples=4000, seed=1)  # the seed fixes it
    # with a clear effect every test agrees; with none, none rejects
    assert max(test.p_t, test.p_permutation, test.p_bootstrap) < 0.01
    null = paired_test(a, a + rng.normal(0, 0.1, 60), resamples=4000, seed=1)
    assert min(null.p_t, null.p_permutation, null.p_bootstrap) > 0.05


def test_the_randomization_test_approaches_the_exact_permutation_p_value():
    d = np.array([0.3, -0.1, 0.2, 0.25, 0.05, -0.05, 0.4, 0.1, -0.2, 0.15])
    observed = abs(d.mean())
    flips = np.array(list(itertools.product([-1, 1], repeat=len(d))))
    exact = float(np.mean(np.abs((flips * d).mean(axis=1)) >= observed - 1e-12))
    test = paired_test(np.zeros(10), d, resamples=20000, seed=0)
    assert test.p_permutation == pytest.approx(exact, abs=0.01)


def test_holm_bonferroni():
    assert holm([0.01, 0.04, 0.03, None]) == [0.03, 0.06, 0.06, None]
    assert holm([0.5, 0.6]) == [1.0, 1.0]


def test_compare_rankings_pairs_queries_and_adjusts_across_metrics():
    qrels = {str(q): {"a": 1, "b": 1} for q in range(30)}
    worse = {str(q): ["x", "a", "b"] for q in range(30)}
    better = {str(q): ["a", "b", "x"] for q in range(25)}
    a = evaluate_ranking(qrels, worse, ["mrr", "P_1"])
    b = evaluate_ranking(qrels, better, ["mrr", "P_1"])
    comparison = compare_rankings(a, b, resamples=2000)
    assert comparison.n_compared == 25
    assert comparison.only_in_baseline == ["25", "26", "27", "28", "29"]
    mrr = comparison.metrics["mrr"]
    assert mrr.delta == 0.5 and mrr.n == 25
    assert mrr.p_permutation == pytest.approx(1 / 2001)  # every flip gives a smaller |mean|
    assert mrr.p_permutation_holm == pytest.approx(2 / 2001)
    assert "Holm-Bonferroni" in comparison.table()
    with pytest.raises(ConfigError, match="share no metric"):
        compare_rankings(a, evaluate_ranking(qrels, better, ["map"]))


def test_both_sort_paths_agree_with_the_scorers():
    rng = random.Random(11)
    qrels, run = {}, {}
    for q in range(12):  # one long ranking among short ones: the lexsort path
        docs = [f"d{i}" for i in range(400)]
        qrels[str(q)] = {d: rng.choice([0, 1, 2]) for d in rng.sample(docs, 30)}
        size = 400 if q == 0 else rng.randint(1, 6)
        run[str(q)] = {d: float(rng.randint(0, 3)) for d in rng.sample(docs[:60], min(size, 60))}
    run["0"] = {f"d{i}": float(rng.randint(0, 3)) for i in range(400)}
    result = evaluate_ranking(qrels, run, ["ndcg", "map", "mrr"])
    for metric in ("ndcg", "map", "mrr"):
        scorer = create_ranking_scorer(metric)
        for q, ranking in run.items():
            if not any(g > 0 for g in qrels[q].values()):
                continue
            ranked = sorted(ranking, key=lambda d: (ranking[d], d), reverse=True)
            value = scorer.run(
                context=[{"id": d, "text": ""} for d in ranked], reference_context_ids=qrels[q]
            ).score
            assert value == result.per_query[q][metric], (metric, q)


def test_tie_order_follows_strcmp_for_long_and_non_ascii_ids():
    long_b, long_c = "a" * 20 + "b", "a" * 20 + "c"
    run = {"q": {"z": 1.0, long_b: 1.0, "é": 1.0, long_c: 1.0}}
    expected = ["é", "z", long_c, long_b]  # UTF-8 bytes, descending
    for rank, doc in enumerate(expected, start=1):
        result = evaluate_ranking({"q": {doc: 1, "other": 0}}, run, ["mrr"])
        assert result.per_query["q"]["mrr"] == 1 / rank, doc


def test_per_item_judged_measures_read_negative_grades_as_trec_eval_does():
    """Issue 47 item 5: a negative grade given with the item is "in the pool, unjudged"
    (trec_eval's -1 and -2), not "judged non-relevant"; per item equals evaluate_ranking
    (which equals trec_eval) on seeded queries with negative grades."""
    import random

    from scorers import create_ranking_scorer, evaluate_ranking

    rng = random.Random(47)
    metrics = ["infAP", "bpref", "map", "ndcg@10", "P_5"]
    scorers = {m: create_ranking_scorer(m) for m in metrics}
    differing = 0
    for q in range(200):
        docs = [f"d{i}" for i in range(12)]
        grades = {d: rng.choice([-2, -1, 0, 0, 1, 2]) for d in rng.sample(docs, 8)}
        if not any(g > 0 for g in grades.values()):
            grades[docs[0]] = 1
        ranked = rng.sample(docs, 10)
        expected = evaluate_ranking({"q": grades}, {"q": ranked}, metrics).per_query["q"]
        run = {"input": "q", "context": [{"id": d, "text": d} for d in ranked],
               "reference_context_ids": grades}  # fmt: skip
        many = {m: s.run_many([run])[0].score for m, s in scorers.items()}  # the fast path
        for metric, scorer in scorers.items():
            one = scorer.run(**run).score  # the steps
            assert one == pytest.approx(expected[metric], abs=1e-12), (q, metric)
            assert many[metric] == pytest.approx(expected[metric], abs=1e-12), (q, metric)
            differing += one != expected[metric]
    assert differing == 0


def test_a_changes_range_comes_from_the_measure_table():
    """compare_rankings cuts a change's intervals to [-1, 1] only for measures whose
    per-query values lie in [0, 1] (the table's ``per_item``): not for ``gm_map``, whose
    per-query values are logs, nor for counts; a hand-kept list had both wrong."""
    from scorers._ranking._compare import difference_bounds

    for unit in ("ndcg@10", "mrr", "P_10", "map", "hit_rate@5", "iprec_at_recall_0.10"):
        assert difference_bounds(unit) == (-1.0, 1.0), unit
    for other in ("gm_map", "gm_bpref", "num_rel", "utility", "dcg", "P_avgjg", "unknown"):
        assert difference_bounds(other) is None, other
    found = evaluate_ranking({"1": {"a": 1}, "2": {"b": 1}}, {"1": ["x", "a"], "2": ["b"]},
                             ["gm_map"])  # fmt: skip
    assert min(found.columns["gm_map"]) < -0.5  # log(0.5): outside [0, 1]
