"""`scorekit trec` prints as trec_eval does; `compare` reports p-values."""

from __future__ import annotations

import json

import pytest

from evals import compare_runs, run_evals
from evals.cli import main
from scorers import create_scorer
from tests.conftest import SHARED_DATA


@pytest.fixture
def trec_files():
    folder = SHARED_DATA / "trec_eval"
    if not folder.is_dir():
        pytest.skip(f"trec_eval test files not found at {folder} (../shared/data is absent)")
    return folder


def test_trec_prints_trec_eval_lines(trec_files, capsys):
    qrels, run = str(trec_files / "qrels.test"), str(trec_files / "results.test")
    assert main(["trec", qrels, run, "-m", "map", "-m", "P_10", "-m", "ndcg_cut_10", "-q"]) == 0
    lines = capsys.readouterr().out.splitlines()
    expected = {}
    for line in (trec_files / "out.test.aq").read_text().splitlines():
        measure, query, value = line.split()
        expected[(measure, query)] = value
    printed = [line.split("\t") for line in lines]
    assert [p[0].strip() for p in printed[:3]] == ["map", "P_10", "ndcg_cut_10"]
    for measure, query, value in printed:
        assert value == expected[(measure.strip(), query)]
    assert [p[1] for p in printed[-3:]] == ["all"] * 3  # as trec_eval: only what -m names


def test_no_m_prints_trec_evals_default_set_byte_for_byte(trec_files, capsys):
    qrels, run = str(trec_files / "qrels.test"), str(trec_files / "results.test")
    assert main(["trec", qrels, run]) == 0
    assert capsys.readouterr().out == (trec_files / "out.test").read_text()
    assert main(["trec", qrels, run, "-m", "official"]) == 0
    assert capsys.readouterr().out == (trec_files / "out.test").read_text()


def test_all_trec_with_and_without_q_matches_trec_eval(trec_files, capsys):
    qrels, run = str(trec_files / "qrels.test"), str(trec_files / "results.test")
    for flags, expected in (
        (["-m", "all_trec"], "out.test.a"),
        (["-m", "all_trec", "-q"], "out.test.aq"),
    ):
        assert main(["trec", qrels, run, *flags]) == 0
        out, err = capsys.readouterr()
        assert out == (trec_files / expected).read_text()  # byte for byte, every measure
        assert err == ""


def test_families_comma_lists_and_max_docs(trec_files, capsys):
    qrels, run = str(trec_files / "qrels.test"), str(trec_files / "results.test")
    assert (
        main(["trec", qrels, run, "-m", "P.5,10", "-m", "map,bpref", "-m", "iprec_at_recall.0.5"])
        == 0
    )
    names = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert names == ["map", "bpref", "iprec_at_recall_0.50", "P_5", "P_10"]  # trec_eval's order
    assert main(["trec", qrels, run, "-m", "map", "-m", "map_cut.100", "-M", "100"]) == 0
    (_, _, top100), (_, _, cut100) = (line.split() for line in capsys.readouterr().out.splitlines())
    assert top100 == cut100 == "0.1622"  # only the top 100 of each query are evaluated
    assert main(["trec", qrels, run, "-m", "P.5", "-M", "0"]) == 0  # empty rankings
    assert capsys.readouterr().out.split() == ["P_5", "all", "0.0000"]


def test_runs_and_qrels_as_trec_eval_reads_them(tmp_path, capsys):
    qrels = tmp_path / "q.txt"
    qrels.write_text("# judged by two assessors\n1 0 a 1\n1 0 b 0\n")
    run = tmp_path / "r.run"
    run.write_text("# BM25, k1=0.9\n1 Q0 a 1 2.0 bm25 extra fields ignored\n1 Q0 b 2 1.0 bm25\n")
    assert main(["trec", str(qrels), str(run), "-m", "runid", "-m", "num_ret", "-m", "P_1"]) == 0
    assert capsys.readouterr().out.split() == [
        "runid",
        "all",
        "bm25",
        "num_ret",
        "all",
        "2",
        "P_1",
        "all",
        "1.0000",
    ]


def test_trec_json_missing_queries_and_compare(tmp_path, capsys):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 d{q} 1\n" for q in range(12)))
    base = tmp_path / "base.run"
    base.write_text("".join(f"{q} Q0 x 1 2.0 b\n{q} Q0 d{q} 2 1.0 b\n" for q in range(10)))
    better = tmp_path / "better.run"
    better.write_text("".join(f"{q} Q0 d{q} 1 2.0 c\n" for q in range(10)))
    # as trec_eval 10: a judged query the run does not rank stops the evaluation...
    assert main(["trec", str(qrels), str(base), "-m", "mrr", "--format", "json"]) == 2
    error = json.loads(capsys.readouterr().out)["error"]["message"]
    assert "query '10' has judgements" in error and "Pass -c" in error
    # ...unless -c counts it as 0
    assert main(["trec", str(qrels), str(base), "-m", "mrr", "-c", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["means"] == {"mrr": 0.5 * 10 / 12} and report["n_queries"] == 12
    assert report["missing_from_run"] == ["10", "11"]
    assert main(["trec", str(qrels), str(base), "-m", "mrr", "-c"]) == 0
    assert "mrr                   \tall\t0.4167" in capsys.readouterr().out
    args = ["trec", str(qrels), str(base), "-m", "mrr", "-c", "--compare", str(better)]
    assert main([*args, "--resamples", "999"]) == 0
    out = capsys.readouterr().out
    assert "+0.4167" in out and "999 resamples, seed 0" in out
    assert main(["trec", str(qrels), str(base), "-m", "nope"]) == 2


def test_compare_runs_p_values_equal_scipy(tmp_path, capsys):
    from scipy import stats

    values_a = [0.1, 0.4, 0.35, 0.8, 0.5, 0.6, 0.2, 0.9]
    values_b = [0.3, 0.5, 0.3, 0.9, 0.7, 0.6, 0.4, 1.0]

    def scorer(values):
        return create_scorer(id="s").generate_score(lambda run, results: values[int(run.input)])

    data = [{"id": str(i), "input": str(i)} for i in range(8)]
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    run_evals(data, [scorer(values_a)], results_path=a)
    run_evals(data, [scorer(values_b)], results_path=b)
    delta = compare_runs(a, b, resamples=5000, seed=3).scorers["s"]
    assert delta.p_t == stats.ttest_rel(values_b, values_a).pvalue
    assert delta.p_t_holm == delta.p_t  # one scorer: nothing to adjust
    assert 0 < delta.p_permutation < 0.1 and 0 < delta.p_bootstrap < 0.1
    assert main(["compare", str(a), str(b), "--resamples", "5000", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert f"{delta.p_t:.4f}" in out and "5,000 resamples, seed 3" in out


def test_a_run_on_stdin_and_levels_read_as_trec_eval_reads_them(tmp_path, capsys, monkeypatch):
    import io

    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 2\n1 0 b 1\n")
    stdin = io.TextIOWrapper(io.BytesIO(b"1 Q0 b 1 2.0 first\n1 Q0 a 2 1.0 last\n"))
    monkeypatch.setattr("sys.stdin", stdin)
    assert main(["trec", str(qrels), "-", "-m", "runid", "-m", "P.1", "-l", "2.7"]) == 0
    out, err = capsys.readouterr()
    assert out.split() == ["runid", "all", "last", "P_1", "all", "0.0000"]  # -l 2: only a
    assert "-l 2.7 read as 2" in err
