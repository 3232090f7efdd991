"""A gate never passes on a candidate that failed, nor on another run's numbers."""

from __future__ import annotations

import json

from evals import compare_runs, run_evals
from evals.cli import main
from scorers import create_ranking_scorer

DATA = [
    {"id": f"q{i:02d}", "input": f"question {i}", "reference_context_ids": [f"d{i}", f"e{i}"]}
    for i in range(28)
]


def good(question: str):
    i = int(question.split()[1])
    return {"output": "x", "context": [{"id": f"d{i}", "text": "t"}, {"id": "z", "text": "t"}]}


def flaky(question: str):
    i = int(question.split()[1])
    if i >= 9:
        raise RuntimeError(f"index offline for {question}")
    return good(question)


def test_a_candidate_that_errored_on_most_items_does_not_pass_max_drop(tmp_path, capsys):
    mrr = create_ranking_scorer("mrr")
    base, cand = tmp_path / "base.jsonl", tmp_path / "cand.jsonl"
    run_evals(DATA, [mrr], good, results_path=base, progress="none")
    run_evals(DATA, [mrr], flaky, results_path=cand, progress="none")
    delta = compare_runs(base, cand).scorers["mrr"]
    assert (delta.n_paired, delta.n_baseline, delta.candidate_lost) == (9, 28, {"errored": 19})
    code = main(["compare", str(base), str(cand), "--max-drop", "mrr=0.05"])
    out = capsys.readouterr().out
    assert code == 4, out
    assert "mrr max drop 0.05: UNDECIDED, fails (the candidate did not score 19 of the 28" in out
    assert "index offline" in out
    code = main(["compare", str(base), str(cand), "--max-drop", "mrr=0.05", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    (gate,) = report["gates"]
    assert code == 4 and report["exit_code"] == 4 and not gate["passed"] and not gate["decided"]
    assert report["scorers"]["mrr"]["candidate_lost"] == {"errored": 19}


def test_a_candidate_killed_part_way_does_not_pass(tmp_path, capsys):
    mrr = create_ranking_scorer("mrr")
    base, cand = tmp_path / "base.jsonl", tmp_path / "cand.jsonl"
    run_evals(DATA, [mrr], good, results_path=base, progress="none")
    lines = base.read_text().splitlines(keepends=True)
    cand.write_text("".join(lines[:8]))  # the header and 7 items: killed after 7
    assert main(["compare", str(base), str(cand), "--max-drop", "mrr=0.05"]) == 4
    out = capsys.readouterr().out
    assert "did not score 21 of the 28 items the baseline scored (21 missing)" in out
    assert main(["compare", str(base), str(base), "--max-drop", "mrr=0.05"]) == 0
    capsys.readouterr()


def test_a_drop_on_the_survivors_fails_outright(tmp_path, capsys):
    mrr = create_ranking_scorer("mrr")
    base, cand = tmp_path / "base.jsonl", tmp_path / "cand.jsonl"
    run_evals(DATA, [mrr], good, results_path=base, progress="none")

    def worse(question: str):
        found = flaky(question)
        found["context"].reverse()
        return found

    run_evals(DATA, [mrr], worse, results_path=cand, progress="none")
    assert main(["compare", str(base), str(cand), "--max-drop", "mrr=0.05"]) == 1
    out = capsys.readouterr().out
    assert "FAILED (dropped by 0.500 > 0.05 over 9 paired items; the candidate did not" in out


def test_many_candidates_each_with_its_own_thresholds(tmp_path, capsys):
    mrr = create_ranking_scorer("mrr")
    base, a, b = (tmp_path / f"{n}.jsonl" for n in ("base", "a", "b"))
    run_evals(DATA, [mrr], good, results_path=base, progress="none")
    run_evals(DATA, [mrr], good, results_path=a, progress="none", thresholds={"mrr": 0.9})
    run_evals(DATA, [mrr], good, results_path=b, progress="none", thresholds={"mrr": 1.0})
    assert main(["compare", str(base), str(a), str(b)]) == 0
    capsys.readouterr()
    run_evals(DATA, [mrr], flaky, results_path=tmp_path / "c.jsonl", progress="none",
              thresholds={"mrr": 0.9}, min_scored=1.0)  # fmt: skip
    code = main(["compare", str(base), str(a), str(tmp_path / "c.jsonl"), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and report["failed"] == ["c: candidate threshold mrr"]


def test_resume_refuses_another_runs_file(tmp_path, capsys, monkeypatch):
    import shutil
    import sys

    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in DATA))
    (tmp_path / "good_rag.py").write_text(
        "def retrieve(question):\n"
        "    i = question.split()[1]\n"
        "    return {'output': 'x', 'context': [{'id': 'd' + i, 'text': 't'}]}\n"
    )
    (tmp_path / "boom_rag.py").write_text(
        "def retrieve(question):\n    raise RuntimeError('boom')\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    base = ["run", str(data), "--scorer", "mrr", "--no-progress"]
    assert main([*base, "--target", "good_rag:retrieve", "--out", "run.jsonl"]) == 0
    header = json.loads((tmp_path / "run.jsonl").read_text().splitlines()[0])["run"]
    assert header["target"] == "good_rag:retrieve"
    assert header["data"]["name"] == "data.jsonl" and len(header["data"]["sha256"]) == 64
    capsys.readouterr()
    shutil.copy(tmp_path / "run.jsonl", tmp_path / "copy.jsonl")
    code = main([*base, "--target", "boom_rag:retrieve", "--out", "copy.jsonl", "--resume"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "written by a run of another target: good_rag:retrieve, this run's is " in err
    assert "boom_rag:retrieve" in err
    other = tmp_path / "other.jsonl"
    other.write_text(
        "".join(json.dumps({**row, "input": row["input"] + "?"}) + "\n" for row in DATA)
    )
    code = main(["run", str(other), "--scorer", "mrr", "--no-progress",
                 "--target", "good_rag:retrieve", "--out", "copy.jsonl", "--resume"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "another data set: data.jsonl (sha256 " in err and "other.jsonl" in err
    moved = tmp_path / "moved.jsonl"
    shutil.copy(data, moved)  # the same data under another name is the same data
    code = main(["run", str(moved), "--scorer", "mrr", "--no-progress", "--format", "json",
                 "--target", "good_rag:retrieve", "--out", "copy.jsonl", "--resume"])  # fmt: skip
    assert code == 0 and json.loads(capsys.readouterr().out)["summary"]["resumed_items"] == 28
