"""The CLI says what happened: errors by kind, distinct exit codes, flags by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.cli import main
from evals.testing import FakeLLMServer

from ._lines import item_lines

ROWS = [
    {
        "id": f"q{i}",
        "input": f"question {i}",
        "ground_truth": "Einstein was born in Ulm.",
        "context": [{"id": "1", "text": "Einstein was born in Ulm."}, {"id": "9", "text": "noise"}],
        "reference_context_ids": ["1"],
    }
    for i in range(5)
]
FLAKY_TARGET = """
def answer(question):
    if question.endswith(("1", "3")):
        raise ValueError(f"index offline for {question}")
    return {"output": "x", "context": [{"id": "1", "text": "Einstein was born in Ulm."}]}
"""


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return path


@pytest.fixture
def flaky(tmp_path: Path, monkeypatch) -> str:
    (tmp_path / "flaky_target.py").write_text(FLAKY_TARGET)
    monkeypatch.chdir(tmp_path)
    return "flaky_target:answer"


def run(*args: str) -> int:
    return main(["run", *args, "--no-progress"])


def test_errors_are_grouped_on_stderr_and_exit_3(data, flaky, capsys):
    code = run(str(data), "--scorer", "id-context-recall,mrr", "--target", flaky)
    out, err = capsys.readouterr()
    assert code == 3
    assert "items 5 (errors 2" in out
    assert "errors: 2 on 2 item(s)" in err
    assert "ValueError in target × 2" in err
    assert "item 'q1': ValueError: index offline for question 1" in err
    # a failed target counts against every scorer
    row = next(line for line in out.splitlines() if line.startswith("id-context-recall"))
    assert row.split()[-3] == "2"  # the error column


def test_json_has_every_error_and_per_scorer_counts(data, flaky, capsys):
    code = run(str(data), "--scorer", "id-context-recall", "--target", flaky, "--format", "json")
    report = json.loads(capsys.readouterr().out)
    assert code == 3 and report["exit_code"] == 3
    assert [(e["item_id"], e["phase"], e["kind"]) for e in report["errors"]] == [
        ("q1", "target", "ValueError"),
        ("q3", "target", "ValueError"),
    ]
    counts = report["summary"]["scorers"]["id-context-recall"]
    assert (counts["n_scored"], counts["n_error"]) == (3, 2)


def test_scorer_errors_name_the_scorer(tmp_path, capsys):
    path = tmp_path / "d.jsonl"
    path.write_text(
        json.dumps({"input": "q", "context": ["no id"], "reference_context_ids": ["1"]})
    )
    assert run(str(path), "--scorer", "id-context-recall") == 3
    err = capsys.readouterr().err
    assert "in score × 1" in err and "item '1', scorer id-context-recall:" in err


def test_exit_codes_pass_threshold_and_min_scored(tmp_path, data, capsys):
    assert (
        run(
            str(data), "--scorer", "id-context-precision", "--threshold", "id-context-precision=0.5"
        )
        == 0
    )
    assert (
        run(
            str(data), "--scorer", "id-context-precision", "--threshold", "id-context-precision=0.6"
        )
        == 1
    )
    rows = [*ROWS[:2], {**ROWS[2], "ground_truth": None, "reference_context_ids": None}]
    partial = tmp_path / "partial.jsonl"
    partial.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert run(str(partial), "--scorer", "mrr", "--threshold", "mrr=0.5") == 0
    capsys.readouterr()
    assert run(str(partial), "--scorer", "mrr", "--threshold", "mrr=0.5", "--min-scored", "1") == 1
    assert "scored 2/3, needs 100% scored" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--resume"], "--resume needs --out FILE"),
        (["--concurrency", "0"], "--concurrency must be an integer >= 1; got 0"),
        (["--threshold", "mrr=nan"], "--threshold mrr= needs a finite number"),
        (["--min-scored", "1.5"], "--min-scored must be a share between 0 and 1"),
        (["--limit", "0"], "--limit must be an integer >= 1"),
        (["--item-timeout", "-1"], "--item-timeout must be a finite number > 0"),
        (["--option", "mrr"], "--option takes SCORER.KEY=VALUE"),
        (["--option", "ndcg@3.scale=2"], "--option names ['ndcg@3'], which are not among"),
        (["--option", "mrr.scale=0"], "option 'scale': Input should be greater than 0"),
        (["--option", "judge.temperature=0"], "--option judge.* needs a judge: pass --model"),
    ],
)
def test_flag_errors_use_flag_names_and_exit_2(data, capsys, monkeypatch, args, message):
    monkeypatch.delenv("SCOREKIT_MODEL", raising=False)
    assert run(str(data), "--scorer", "mrr", *args) == 2
    assert message in capsys.readouterr().err


def test_out_errors(tmp_path, data, capsys):
    assert run(str(data), "--scorer", "mrr", "--out", str(tmp_path)) == 2
    assert "is a directory; give a file path" in capsys.readouterr().err
    blocker = tmp_path / "plain-file"
    blocker.write_text("x")
    assert run(str(data), "--scorer", "mrr", "--out", str(blocker / "r.jsonl")) == 2
    assert "cannot write results file" in capsys.readouterr().err
    out = tmp_path / "r.jsonl"
    assert run(str(data), "--scorer", "mrr", "--out", str(out)) == 0
    assert run(str(data), "--scorer", "mrr", "--out", str(out)) == 2
    assert "add --resume to continue it" in capsys.readouterr().err


def test_version_and_limit(data, capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0 and capsys.readouterr().out.startswith("scorekit ")
    assert run(str(data), "--scorer", "mrr", "--limit", "2") == 0
    assert "items 2 (" in capsys.readouterr().out


def test_options_reach_scorers_and_judge(data, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    out = tmp_path / "r.jsonl"
    with FakeLLMServer() as server:
        base = [str(data), "--scorer", "context-precision", "--model", "openai/fake"]
        base += ["--api-base", server.url, "--no-cache", "--limit", "1"]
        assert run(*base) == 0
        assert server.call_count == 1  # one call for the whole list
        args = [*base, "--option", "context-precision.per_chunk=true"]
        args += ["--option", "judge.temperature=0.5", "--out", str(out), "--no-prompts"]
        assert run(*args) == 0
        assert server.call_count == 1 + 2  # one call per chunk
        assert server.requests[-1].body["temperature"] == 0.5
        assert run(*base, "--option", "judge.temprature=1") == 2
    assert "temperature" in capsys.readouterr().err  # the closest name is suggested
    line = json.loads(item_lines(out)[0])
    result = line["scorer_results"]["context-precision"]
    assert "prompts" not in result["details"]
    assert all(not call.get("messages") for call in result["judge_calls"])


def test_compare_refuses_data_files_and_runs_without_a_common_scorer(data, tmp_path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert run(str(data), "--scorer", "mrr", "--out", str(a)) == 0
    assert run(str(data), "--scorer", "ndcg@3", "--out", str(b)) == 0
    capsys.readouterr()
    assert main(["compare", str(data), str(a)]) == 2
    assert "is not a scorekit results file (line 1" in capsys.readouterr().err
    assert main(["compare", str(a), str(b)]) == 2
    assert "no scorer in common (baseline: ['mrr']; candidate: ['ndcg@3'])" in (
        capsys.readouterr().err
    )
    assert main(["compare", str(a), str(tmp_path / "missing.jsonl")]) == 2
    assert main(["compare", str(a), str(a)]) == 0
