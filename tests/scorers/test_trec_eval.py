"""The ranking scorers against trec_eval's own test files and published outputs."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

from scorers import ConfigError, DatasetError, create_ranking_scorer
from tests.conftest import SHARED_DATA

# trec_eval measure name -> our metric name
PATTERNS = [
    (r"P_(\d+)", "precision@{}"),
    (r"recall_(\d+)", "recall@{}"),
    (r"ndcg_cut_(\d+)", "ndcg@{}"),
    (r"success_(\d+)", "hit_rate@{}"),
    (r"map", "map"),
    (r"recip_rank", "mrr"),
    (r"Rprec", "r_precision"),
    (r"ndcg", "ndcg"),
]


def our_metric(measure: str) -> str | None:
    for pattern, template in PATTERNS:
        match = re.fullmatch(pattern, measure)
        if match:
            return template.format(*match.groups())
    return None


def load(folder: Path):
    qrels: dict[str, dict[str, float]] = defaultdict(dict)
    for line in (folder / "qrels.test").read_text().splitlines():
        topic, _, doc, rel = line.split()
        qrels[topic][doc] = float(rel)
    runs: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for line in (folder / "results.test").read_text().splitlines():
        topic, _, doc, _, score, _ = line.split()
        runs[topic].append((float(score), doc))
    ranked = {
        # trec_eval: descending score, ties broken by document id, descending
        topic: [doc for _, doc in sorted(rows, key=lambda r: (r[0], r[1]), reverse=True)]
        for topic, rows in runs.items()
    }
    expected: dict[tuple[str, str], float] = {}
    for line in (folder / "out.test.aq").read_text().splitlines():
        measure, topic, value = line.split()
        metric = our_metric(measure)
        if metric is not None:
            expected[(metric, topic)] = float(value)
    return qrels, ranked, expected


@pytest.fixture(scope="module")
def trec(request):
    folder = SHARED_DATA / "trec_eval"
    if not folder.is_dir():
        pytest.skip(f"trec_eval test files not found at {folder} (../shared/data is absent)")
    return load(folder)


@pytest.mark.slow
def test_all_mapped_measures_match_trec_eval_per_query_and_on_average(trec):
    qrels, ranked, expected = trec
    metrics = sorted({metric for metric, _ in expected})
    assert {"map", "mrr", "r_precision", "precision@10", "ndcg@10", "recall@10"} <= set(metrics)
    checked = 0
    for metric in metrics:
        scorer = create_ranking_scorer(metric)
        values = {}
        for topic, docs in ranked.items():
            result = scorer.run(
                context=[{"id": d, "text": ""} for d in docs], reference_context_ids=qrels[topic]
            )
            values[topic] = result.score
            assert round(result.score, 4) == pytest.approx(expected[(metric, topic)], abs=1e-12), (
                metric,
                topic,
            )
            checked += 1
        mean = sum(values.values()) / len(values)
        assert round(mean, 4) == pytest.approx(expected[(metric, "all")], abs=1e-12), metric
    assert checked >= 3 * 20


def test_published_headline_numbers(trec):
    qrels, ranked, _ = trec

    def mean(metric: str) -> float:
        scorer = create_ranking_scorer(metric)
        scores = [
            scorer.run(
                context=[{"id": d, "text": ""} for d in docs], reference_context_ids=qrels[t]
            ).score
            for t, docs in ranked.items()
        ]
        return round(sum(scores) / len(scores), 4)

    assert (mean("map"), mean("precision@10"), mean("mrr")) == (0.1785, 0.3000, 0.4064)


def test_evaluate_ranking_matches_every_computed_trec_eval_measure(trec):
    """All 97 measures of trec_eval's ``-m all_trec``, per query and on
    the ``all`` line (sums for counts, the geometric mean for gm_map)."""
    from scorers import evaluate_ranking, load_qrels, load_run

    folder = SHARED_DATA / "trec_eval"
    qrels, run = load_qrels(folder / "qrels.test"), load_run(folder / "results.test")
    assert run.runid == "STANDARD"
    expected = {}
    for name in ("out.test.a", "out.test.aq"):
        for line in (folder / name).read_text().splitlines():
            measure, query, value = line.split()
            expected[(measure, query)] = value
    names = [m for m, q in expected if q == "all" and m not in ("runid", "num_q")]
    computed = []
    for name in names:
        try:
            result = evaluate_ranking(qrels, run, [name])
        except ConfigError:
            continue  # a trec_eval measure scorekit does not compute
        computed.append(name)
        for query in ("301", "302", "303", "all"):
            if (name, query) not in expected:
                continue  # gm_map has no per-query line
            value = result.means[name] if query == "all" else result.per_query[query][name]
            shown = str(int(value)) if name.startswith("num_") else f"{value:.4f}"
            assert shown == expected[(name, query)], (name, query)
    assert computed == names and len(names) == 97  # every measure of all_trec
    assert {"bpref", "infAP", "gm_map", "set_F", "iprec_at_recall_0.60"} <= set(computed)


def test_judged_measures_on_a_small_hand_example():
    from scorers import evaluate_ranking

    # ranked: a (rel), x (unjudged), n (judged non-relevant), b (rel); c relevant, unretrieved
    qrels = {"q": {"a": 1, "b": 1, "c": 1, "n": 0, "m": 0}}
    run = {"q": ["a", "x", "n", "b"]}
    names = [
        "bpref",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "num_nonrel_judged_ret",
        "set_P",
        "set_recall",
        "set_F",
        "iprec_at_recall_0.00",
        "iprec_at_recall_1.00",
        "gm_map",
    ]
    means = evaluate_ranking(qrels, run, names).means
    # bpref: a has no judged non-relevant above (1), b has 1 of min(R=3, N=2) = 2 -> 0.5
    assert means["bpref"] == (1.0 + 0.5) / 3
    assert (means["num_ret"], means["num_rel"], means["num_rel_ret"]) == (4, 3, 2)
    assert means["num_nonrel_judged_ret"] == 1  # x is unjudged, not non-relevant
    assert (means["set_P"], means["set_recall"]) == (0.5, 2 / 3)
    assert means["set_F"] == 2 * 0.5 * (2 / 3) / (0.5 + 2 / 3)
    assert means["iprec_at_recall_0.00"] == 1.0 and means["iprec_at_recall_1.00"] == 0.0
    ap = (1 / 1 + 2 / 4) / 3
    assert means["gm_map"] == pytest.approx(ap)
    top = evaluate_ranking(qrels, run, ["num_ret", "P_2", "map"], max_docs=2)
    assert top.means["num_ret"] == 2 and top.means["map"] == 1 / 3
    with pytest.raises(ConfigError, match="max_docs must be an integer >= 0"):
        evaluate_ranking(qrels, run, ["map"], max_docs=-1)


def test_gm_map_floors_a_zero_query_and_to_pandas(tmp_path):
    import math

    from scorers import evaluate_ranking, load_qrels, load_run

    qrels = {"1": {"a": 1}, "2": {"b": 1}}
    run = {"1": ["a"], "2": ["z"]}
    result = evaluate_ranking(qrels, run, ["gm_map", "map"])
    assert result.means["gm_map"] == pytest.approx(math.sqrt(1.0 * 0.00001))
    frame = result.to_pandas()
    assert list(frame.index) == ["1", "2"] and list(frame.columns) == ["gm_map", "map"]
    assert frame.loc["2", "map"] == 0.0
    path = tmp_path / "qrels"
    path.write_text("# comment\n1 0 a 1\n\n  # indented comment\n")
    assert load_qrels(path) == {"1": {"a": 1.0}}
    runfile = tmp_path / "run"
    runfile.write_text("1 Q0 a 1 0.5 tag more fields\n")
    assert load_run(runfile) == {"1": {"a": 0.5}} and load_run(runfile).runid == "tag"


def _trec_eval_by_hand(qrels, run, level=1.0):
    """bpref and infAP as trec_eval's loops compute them, over rankings sorted by score
    then document id, both descending (a slow reference for the vectorised kernel)."""
    out = {}
    for query, judged in qrels.items():
        if query not in run:
            continue
        ranked = [d for _, d in sorted(((s, d) for d, s in run[query].items()), reverse=True)]
        num_rel = sum(g >= level for g in judged.values())
        num_nonrel = sum(0 <= g < level for g in judged.values())
        bpref = inf_ap = 0.0
        nonrel = rel = 0
        for j, doc in enumerate(ranked):
            if doc not in judged:
                continue
            if judged[doc] < level:
                nonrel += 1
                continue
            rel += 1
            bpref += 1.0 - min(nonrel, num_rel) / min(num_nonrel, num_rel) if nonrel else 1.0
            if j == 0:
                inf_ap += 1.0
            else:
                fj = float(j)
                inf_ap += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((rel - 1 + nonrel) / fj) * (
                    (rel - 1 + 0.00001) / (rel - 1 + nonrel + 2 * 0.00001)
                )
        out[query] = (bpref / num_rel if num_rel else 0.0, inf_ap / num_rel if num_rel else 0.0)
    return out


def test_bpref_and_infap_hold_under_heavy_ties_and_unjudged_documents():
    import random

    from scorers import evaluate_ranking

    rng = random.Random(7)
    qrels, run = {}, {}
    for q in range(60):
        docs = [f"d{q}-{i:03d}" for i in range(rng.randint(1, 40))]
        qrels[str(q)] = {d: rng.choice((0, 0, 1, 2)) for d in docs if rng.random() < 0.6}
        if not qrels[str(q)]:
            qrels[str(q)] = {docs[0]: 1}
        run[str(q)] = {d: float(rng.randint(0, 3)) for d in docs}  # many ties
    result = evaluate_ranking(qrels, run, ["bpref", "infAP"])
    for query, (bpref, inf_ap) in _trec_eval_by_hand(qrels, run).items():
        assert result.per_query[query]["bpref"] == pytest.approx(bpref, abs=1e-12), query
        assert result.per_query[query]["infAP"] == pytest.approx(inf_ap, abs=1e-12), query


def test_trec_eval_semantics_in_the_python_api():
    """What the differential tests check through the CLI, named in the API."""
    from scorers import create_ranking_scorer, evaluate_ranking

    qrels = {"1": {"a": 2, "b": 0, "c": -1, "d": 1}, "2": {"e": 1}, "3": {"f": 1}}
    run = {"1": {"a": 3.0, "x": 2.0, "c": 1.5, "b": 1.0, "d": 0.5}, "2": {"e": 1.0}}
    found = evaluate_ranking(qrels, run, ["infAP", "relstring", "num_rel"], missing="zero")
    assert found.relstrings["relstring"] == ["2-.01", "1", ""]  # '.': pooled, unjudged (-1)
    assert found.means["num_rel"] == 4  # -c: every positive judgement, as trec_eval
    level2 = evaluate_ranking(qrels, run, ["num_rel"], missing="zero", relevance_level=2)
    assert level2.columns["num_rel"] == [1, 0, 0] and level2.means["num_rel"] == 4
    assert evaluate_ranking(qrels, run, ["unj_5"], judged_only=True).columns["unj_5"] == [0, 0]
    utility = evaluate_ranking(qrels, run, ["utility_0,0,0,1"], collection_size=100)
    assert utility.columns["utility_0,0,0,1"] == [100 + 2 - 5 - 2, 100 + 1 - 1 - 1]
    with pytest.raises(DatasetError, match="no query has both judgements and a ranking"):
        evaluate_ranking(qrels, {"9": ["a"]}, ["map"])
    for name in ("num_rel", "gm_map", "utility"):
        with pytest.raises(ConfigError, match=r"not a per-item score .*evaluate_ranking"):
            create_ranking_scorer(name)
    context = [{"id": "a", "text": ""}, {"id": "x", "text": ""}, {"id": "b", "text": ""}]
    bpref = create_ranking_scorer("bpref").run(
        input="q", output="", context=context, reference_context_ids={"a": 1, "b": 1, "c": 0}
    )
    assert bpref.score == 1.0  # x is unjudged: bpref skips it (a TypeError before)


def test_gain_measures_of_a_query_with_no_judged_relevant_level_do_not_crash(tmp_path, capsys):
    """Issue 47 item 1: a query whose only judgement is -1 (unjudged) crashed G,
    ndcg_rel and all_trec; trec_eval 10 prints G a 1.0000, G b 0.0000, all 0.5000."""
    from evals.cli import main
    from scorers import evaluate_ranking

    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("a 0 d1 1\nb 0 d1 -1\n")
    run.write_text("a Q0 d1 1 1 r\nb Q0 d1 1 1 r\n")
    found = evaluate_ranking({"a": {"d1": 1}, "b": {"d1": -1}}, {"a": ["d1"], "b": ["d1"]},
                             ["G", "ndcg_rel"])  # fmt: skip
    assert found.per_query["b"] == {"G": 0.0, "ndcg_rel": 0.0} and found.means["G"] == 0.5
    assert main(["trec", "-q", "-m", "G", str(qrels), str(run)]) == 0
    lines = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert lines == [["G", "a", "1.0000"], ["G", "b", "0.0000"], ["G", "all", "0.5000"]]


ODD_IDS = [b"d\xe91", "d\u00a0x".encode(), "d\u3000y".encode(), "d\u2028z".encode(),
           b"d\x1cw", b"d\x85v"]  # fmt: skip


def test_fields_split_at_c_whitespace_only_and_any_byte_is_an_id(tmp_path, capsys):
    """Issue 47 item 2: trec_eval splits on C whitespace and reads any byte; each odd id
    scores as a plain id would, and \\v or \\f separate fields."""
    from evals.cli import main

    qrels = b"".join(b"q1 0 %s %d\n" % (doc, i % 2) for i, doc in enumerate(ODD_IDS))
    run = b"".join(b"q1\vQ0\f%s %d %d r\n" % (doc, i, 10 - i) for i, doc in enumerate(ODD_IDS))
    plain_qrels = b"".join(b"q1 0 p%d %d\n" % (i, i % 2) for i in range(len(ODD_IDS)))
    plain_run = b"".join(b"q1 Q0 p%d %d %d r\n" % (i, i, 10 - i) for i in range(len(ODD_IDS)))
    for name, data in [("q", qrels), ("r", run), ("pq", plain_qrels), ("pr", plain_run)]:
        (tmp_path / name).write_bytes(data)
    assert main(["trec", "-m", "map", "-m", "P_5", str(tmp_path / "q"), str(tmp_path / "r")]) == 0
    odd = capsys.readouterr().out
    assert main(["trec", "-m", "map", "-m", "P_5", str(tmp_path / "pq"), str(tmp_path / "pr")]) == 0
    assert odd == capsys.readouterr().out and "map" in odd
    from scorers import load_qrels

    assert sorted(load_qrels(tmp_path / "q")["q1"]) == sorted(
        d.decode("utf-8", "surrogateescape") for d in ODD_IDS
    )


@pytest.mark.parametrize("score", ["1e400", "-", "0x", "1.5abc", "0x1p3", "nan", "-inf"])
def test_a_score_that_is_not_a_finite_number_is_refused_naming_the_line(tmp_path, score):
    from scorers import load_run

    path = tmp_path / "run"
    path.write_text(f"q1 Q0 d1 1 2 r\nq1 Q0 d2 2 {score} r\n")
    with pytest.raises(DatasetError, match=f"run line 2: score '{re.escape(score)}' is not a"):
        load_run(path)
