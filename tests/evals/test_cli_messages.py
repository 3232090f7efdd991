"""What the command line says: one line on Ctrl-C, whole skip reasons, typos named with
what was meant, UNDECIDED where nothing was scored, no made-up detectable change."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from evals import run_evals
from evals.cli import main
from evals.testing import FakeLLMServer
from scorers import create_non_llm_context_recall_scorer, create_scorer

ROWS = [
    {"id": str(i), "input": "Where was Einstein born?", "ground_truth": "Einstein was born in Ulm.",
     "context": ["Einstein was born in Ulm."]}
    for i in range(20)
]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("after", [1.5, 5.0])
def test_ctrl_c_in_the_first_seconds_of_an_llm_run_is_one_line(tmp_path, after):
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    with FakeLLMServer(latency=1.0) as server:
        proc = subprocess.Popen(
            [sys.executable, "-m", "evals.cli", "run", str(data), "--scorer", "context-recall",
             "--model", "openai/fake-judge", "--api-base", server.url, "--no-progress",
             "--no-cache", "--out", str(tmp_path / "r.jsonl")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        time.sleep(after)  # 1.5 s: litellm is still being imported; 5 s: calls in flight
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130
    assert [line for line in err.splitlines() if line.strip()] == [
        "scorekit: interrupted; finished items are in --out"
    ], err


def test_the_console_script_is_one_line_on_ctrl_c_while_it_imports(monkeypatch, capsys):
    import builtins

    import evals._entry as entry

    real = builtins.__import__

    def interrupted(name, *args, **kwargs):
        if name == "cli":
            raise KeyboardInterrupt
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", interrupted)
    monkeypatch.delitem(sys.modules, "evals.cli", raising=False)
    assert entry.main() == 130
    assert capsys.readouterr().err == "\nscorekit: interrupted\n"


def test_skip_reasons_are_whole(tmp_path, capsys):
    data = tmp_path / "ids.jsonl"
    data.write_text(json.dumps({"id": "1", "input": "q", "retrieved_context_ids": ["a"],
                                "reference_contexts": ["x"]}) + "\n")  # fmt: skip
    assert main(["run", str(data), "--scorer", "non-llm-context-recall", "--no-progress"]) == 4
    err = capsys.readouterr().err
    assert "give context chunks with text to score it" in err, err
    assert "…" not in err


def test_a_mistyped_column_or_flag_is_named_with_what_was_meant(tmp_path, capsys):
    data = tmp_path / "typo.jsonl"
    data.write_text(
        json.dumps({"id": "1", "qestion": "Where?", "reference_context_ids": ["a"]}) + "\n"
        + json.dumps({"id": "2", "input": "Why?", "refrence_context_ids": ["a"], "colour": "red"})
        + "\n"
    )  # fmt: skip
    assert main(["run", str(data), "--scorer", "mrr", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "field 'input' is required (is 'qestion' it? rename it to 'input')" in err
    assert "'refrence_context_ids' (did you mean 'reference_context_ids'?), 'colour'" in err
    assert err.count("known fields:") == 1
    csv = tmp_path / "typo.csv"
    csv.write_text("id,qestion,colour,reference_context_ids\n1,Where?,red,a\n2,Why?,blue,a\n")
    assert main(["run", str(csv), "--scorer", "mrr", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("columns 'qestion' (did you mean 'input'?), 'colour' are not scorekit") == 1
    with pytest.raises(SystemExit) as exit_:
        main(["run", str(data), "--scorer", "mrr", "--concurency", "3"])
    assert exit_.value.code == 2
    assert "--concurency: did you mean --concurrency?" in capsys.readouterr().err


def test_a_threshold_over_nothing_scored_reads_undecided_everywhere(tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    data.write_text(
        json.dumps({"id": "1", "input": "q", "context": [{"id": "a", "text": "x"}]}) + "\n"
    )
    out = tmp_path / "r.jsonl"
    code = main(["run", str(data), "--scorer", "id-context-recall", "--threshold",
                 "id-context-recall=0.5", "--no-progress", "--out", str(out)])  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 4
    assert "threshold id-context-recall >= 0.5: UNDECIDED, fails" in printed
    assert "FAILED" not in printed
    assert main(["report", str(out), "--output", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text()
    assert "UNDECIDED" in page and "FAILED" not in page


def test_a_scorer_whose_items_all_scored_alike_has_no_detectable_change():
    same = create_scorer(id="same").generate_score(lambda run, results: 1.0)
    result = run_evals([{"id": str(i), "input": "q"} for i in range(10)], [same], progress="none")
    assert result.summary.scorers["same"].detectable is None
    line = next(x for x in result.table().splitlines() if x.startswith("same"))
    assert line.rstrip().endswith("-") and "0.000" not in line.split()[-1]
    varied = run_evals(
        [{"id": str(i), "input": "q", "reference_contexts": ["Ulm"],
          "context": ["Ulm" if i % 2 else "Paris"]} for i in range(10)],
        [create_non_llm_context_recall_scorer()], progress="none",
    )  # fmt: skip
    assert varied.summary.scorers["non-llm-context-recall"].detectable > 0
