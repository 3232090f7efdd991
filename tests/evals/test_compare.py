from __future__ import annotations

import json

import pytest

from evals import compare_runs, read_results, run_evals
from evals.cli import main
from scorers import ConfigError, create_id_context_recall_scorer, create_scorer

DATA = [{"id": str(i), "input": f"q{i}", "reference_context_ids": ["a", "b"]} for i in range(5)]


def retriever(hits_by_item):
    def target(question):
        return {"output": "x", "context": [{"id": d, "text": d} for d in hits_by_item[question]]}

    return target


BASE = {"q0": ["a"], "q1": ["a", "b"], "q2": [], "q3": ["b"], "q4": ["a"]}
CAND = {"q0": ["a", "b"], "q1": ["a", "b"], "q2": ["a"], "q3": [], "q4": ["a", "b"]}


def test_paired_comparison_of_two_runs(tmp_path):
    recall = create_id_context_recall_scorer()
    base = run_evals(DATA, [recall], retriever(BASE), results_path=tmp_path / "base.jsonl")
    cand = run_evals(
        [*DATA[:4], {"id": "new", "input": "q4", "reference_context_ids": ["a"]}],
        [recall],
        retriever(CAND),
        results_path=tmp_path / "cand.jsonl",
    )
    comparison = compare_runs(tmp_path / "base.jsonl", tmp_path / "cand.jsonl")
    assert comparison == compare_runs(base, cand)
    delta = comparison.scorers["id-context-recall"]
    base_scores, cand_scores = [0.5, 1.0, 0.0, 0.5], [1.0, 1.0, 0.5, 0.0]
    assert delta.n_paired == 4
    assert delta.baseline_mean == sum(base_scores) / 4
    assert delta.candidate_mean == sum(cand_scores) / 4
    assert delta.delta == pytest.approx((sum(cand_scores) - sum(base_scores)) / 4)
    assert (delta.improved, delta.worsened) == (2, 1)
    assert delta.ci_low is None and delta.p_t is None  # 4 pairs: no test
    assert delta.note == "n = 4: too few paired items for a test (6 needed)"
    assert (comparison.only_in_baseline, comparison.only_in_candidate) == (["4"], ["new"])
    assert "id-context-recall" in comparison.table() and "unpaired items" in comparison.table()
    assert len(read_results(tmp_path / "base.jsonl")) == 5
    with pytest.raises(ConfigError, match="does not exist"):
        read_results(tmp_path / "missing.jsonl")


def test_skipped_items_are_not_paired():
    half = create_scorer(id="s").generate_score(
        lambda run, results: 0.5 if run.input != "q0" else 1.0
    )
    a = run_evals(DATA, [half])
    b = run_evals(DATA, [half])
    delta = compare_runs(a, b).scorers["s"]
    assert (delta.delta, delta.n_paired, delta.improved, delta.worsened) == (0.0, 5, 0, 0)


def test_compare_cli_and_max_drop(tmp_path, capsys):
    recall = create_id_context_recall_scorer()
    data = [*DATA, *({**row, "id": row["id"] + "b"} for row in DATA)]  # 10 pairs: a test
    run_evals(data, [recall], retriever(CAND), results_path=tmp_path / "good.jsonl")
    run_evals(data, [recall], retriever(BASE), results_path=tmp_path / "worse.jsonl")
    good, worse = str(tmp_path / "good.jsonl"), str(tmp_path / "worse.jsonl")
    assert main(["compare", worse, good, "--max-drop", "id-context-recall=0.05"]) == 0
    assert "+0.200" in capsys.readouterr().out
    assert (
        main(["compare", good, worse, "--max-drop", "id-context-recall=0.05", "--format", "json"])
        == 1
    )
    report = json.loads(capsys.readouterr().out)
    assert report["failed"] == ["id-context-recall"]
    assert report["scorers"]["id-context-recall"]["delta"] == pytest.approx(-0.2)
    assert main(["compare", good, str(tmp_path / "nope.jsonl")]) == 2
    few = str(tmp_path / "few.jsonl")
    run_evals(DATA, [recall], retriever(CAND), results_path=few)  # 5 pairs: no test
    assert main(["compare", few, few, "--max-drop", "id-context-recall=0.05"]) == 4
    assert "UNDECIDED, fails (n = 5: too few paired items for a test (6 needed))" in (
        capsys.readouterr().out
    )


def test_compare_refuses_runs_of_differently_scaled_scorers(tmp_path, capsys):
    """Issue 25 item 2: a baseline at scale 1 and a candidate at 100 gave delta +75.5,
    p = 0.0000 and a passing --max-drop (exit 0)."""
    base, cand = tmp_path / "base.jsonl", tmp_path / "cand.jsonl"
    run_evals(DATA, [create_id_context_recall_scorer()], retriever(BASE), results_path=base)
    hundred = create_id_context_recall_scorer({"scale": 100})
    run_evals(DATA, [hundred], retriever(CAND), results_path=cand)
    with pytest.raises(ConfigError, match=r"id-context-recall: scale 1 vs 100"):
        compare_runs(base, cand)
    code = main(["compare", str(base), str(cand), "--max-drop", "id-context-recall=0.1"])
    assert code == 2
    assert "scale 1 vs 100" in capsys.readouterr().err


def test_compare_refuses_other_options_and_names_them(tmp_path):
    base = run_evals(DATA, [create_id_context_recall_scorer()], retriever(BASE))
    korean = create_id_context_recall_scorer({"language": "ko"})
    cand = run_evals(DATA, [korean], retriever(CAND))
    with pytest.raises(ConfigError, match=r"options language='auto' vs 'ko'"):
        compare_runs(base, cand)


def test_compare_of_files_without_headers_still_refuses_other_scales(tmp_path):
    """Files written before the header line record scales per item: those are checked."""
    base, cand = tmp_path / "base.jsonl", tmp_path / "cand.jsonl"
    run_evals(DATA, [create_id_context_recall_scorer()], retriever(BASE), results_path=base)
    hundred = create_id_context_recall_scorer({"scale": 100})
    run_evals(DATA, [hundred], retriever(CAND), results_path=cand)
    for path in (base, cand):
        lines = path.read_text().splitlines(keepends=True)
        path.write_text("".join(line for line in lines if not line.startswith('{"run":')))
    assert read_results(base).header is None
    with pytest.raises(ConfigError, match=r"scale 1 vs 100"):
        compare_runs(base, cand)
    same = tmp_path / "same.jsonl"
    run_evals(DATA, [create_id_context_recall_scorer()], retriever(CAND), results_path=same)
    assert compare_runs(base, same).scorers["id-context-recall"].n_paired == 5


def test_another_judge_is_compared_with_a_warning(tmp_path, capsys):
    from evals.testing import FakeLLMServer
    from scorers import create_context_recall_scorer

    data = [
        {"id": str(i), "input": "q", "ground_truth": "Paris is in France.", "context": ["Paris"]}
        for i in range(3)
    ]
    base, cand = tmp_path / "base.jsonl", tmp_path / "cand.jsonl"
    with FakeLLMServer() as server:
        small = create_context_recall_scorer(server.judge("openai/small"))
        large = create_context_recall_scorer(server.judge("openai/large"))
        run_evals(data, [small], results_path=base)
        run_evals(data, [large], results_path=cand)
    comparison = compare_runs(base, cand)
    assert comparison.warnings == ["context-recall: judge openai/small vs openai/large"]
    assert main(["compare", str(base), str(cand)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("warning: the runs differ in context-recall: judge openai/small vs")


def test_compare_reports_the_candidates_thresholds_from_its_file(tmp_path, capsys):
    base, cand = tmp_path / "base.jsonl", tmp_path / "cand.jsonl"
    recall = create_id_context_recall_scorer()
    run_evals(DATA, [recall], retriever(BASE), results_path=base)
    gate = {"id-context-recall": 0.8}
    run_evals(DATA, [recall], retriever(CAND), results_path=cand, thresholds=gate)
    assert [g.passed for g in read_results(cand).gates()] == [False]  # mean 0.7
    assert main(["compare", str(base), str(cand)]) == 1  # its own gate counts, as live
    out = capsys.readouterr().out
    assert "candidate threshold id-context-recall >= 0.8: FAILED (mean 0.700 < 0.8)" in out
    assert main(["compare", str(base), str(cand), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["candidate_gates"][0]["why"] == "mean 0.700 < 0.8"
    assert report["failed"] == ["candidate threshold id-context-recall"]
    assert report["exit_code"] == 1


def test_many_runs_against_one_baseline_holm_adjusted_across_runs_and_scorers(tmp_path, capsys):
    from evals import RunsComparison
    from scorers import create_id_context_precision_scorer, holm

    data = [
        {"id": str(i), "input": f"q{i}", "reference_context_ids": ["a", "b"]} for i in range(30)
    ]
    pick = {"base": ["c", "a"], "same": ["c", "a"], "better": ["a", "b"], "worse": ["c", "d"]}
    scorers = [create_id_context_recall_scorer(), create_id_context_precision_scorer()]
    paths = []
    for name, docs in pick.items():
        retrieved = {f"q{i}": docs if i % 3 else ["a"] for i in range(30)}
        run_evals(data, scorers, retriever(retrieved), results_path=tmp_path / f"{name}.jsonl")
        paths.append(tmp_path / f"{name}.jsonl")
    found = compare_runs(*paths)
    assert isinstance(found, RunsComparison)
    assert found.baseline == "base" and found.candidates == ["same", "better", "worse"]
    rows = {r.run: r for r in found.scorers["id-context-recall"]}
    assert rows["base"].delta is None and rows["same"].delta == 0.0
    assert rows["better"].delta > 0 and rows["better"].significant
    assert rows["worse"].delta < 0 and rows["worse"].significant
    assert not rows["same"].significant
    assert found.best("id-context-recall") == "better"
    cells = [found.pairs[name].scorers[sid] for name in found.candidates for sid in found.scorers]
    assert [c.p_permutation_holm for c in cells] == holm([c.p_permutation for c in cells])
    table = found.table()
    assert "id-context-precision" in table and "best" in table and "*" in table

    assert main(["compare", *map(str, paths), "--max-drop", "id-context-recall=0.1"]) == 1
    out = capsys.readouterr().out
    assert "worse: id-context-recall max drop 0.1: FAILED (dropped by 0.333 > 0.1" in out
    page = tmp_path / "runs.html"
    assert main(["compare", *map(str, paths), "--format", "json", "--html", str(page)]) == 0
    report = json.loads(capsys.readouterr().out)
    text = page.read_text()
    assert text.count("<table class='runs'") == 2 and "better</td>" in text
    assert found.html() in text and "<tr class='best'><td>better</td>" in text
    assert report["candidates"] == ["same", "better", "worse"] and report["failed"] == []
    with pytest.raises(ConfigError, match="names has 2 entries for 4 runs"):
        compare_runs(*paths, names=["a", "b"])
