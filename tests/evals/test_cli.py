from __future__ import annotations

import json
import subprocess
import sys

import pytest

from evals.cli import main
from evals.testing import FakeLLMServer

from ._lines import item_lines

ROWS = [
    {
        "id": "a",
        "input": "q1",
        "ground_truth": "Einstein was born in Ulm.",
        "context": [{"id": "1", "text": "Einstein was born in Ulm."}, {"id": "9", "text": "noise"}],
        "reference_context_ids": ["1"],
    },
    {
        "id": "b",
        "input": "q2",
        "context": [{"id": "2", "text": "x"}],
        "reference_context_ids": ["3"],
    },
]


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "data.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS))
    return path


def test_run_table_and_thresholds(data, capsys):
    code = main(
        [
            "run",
            str(data),
            "--scorer",
            "id-context-recall,mrr",
            "--no-progress",
            "--threshold",
            "id-context-recall=0.5",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "id-context-recall" in out and "mrr" in out and "threshold id-context-recall" in out
    code = main(
        [
            "run",
            str(data),
            "--scorer",
            "id-context-recall",
            "--threshold",
            "id-context-recall=0.6",
            "--no-progress",
        ]
    )
    assert code == 1 and "FAILED" in capsys.readouterr().out


def test_run_json_format_and_results_file(data, tmp_path, capsys):
    out_file = tmp_path / "out.jsonl"
    code = main(
        [
            "run",
            str(data),
            "--scorer",
            "ndcg@10",
            "--format",
            "json",
            "--out",
            str(out_file),
            "--no-progress",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["scores"] == {"ndcg@10": 0.5}
    assert len(item_lines(out_file)) == 2
    code = main(
        [
            "run",
            str(data),
            "--scorer",
            "ndcg@10",
            "--out",
            str(out_file),
            "--resume",
            "--format",
            "json",
            "--no-progress",
        ]
    )
    assert json.loads(capsys.readouterr().out)["summary"]["resumed_items"] == 2


@pytest.mark.slow
@pytest.mark.parametrize("helpers", [[], ["--client-processes", "1"]], ids=["in-process", "helper"])
def test_llm_scorers_with_a_model(data, capsys, monkeypatch, helpers):
    with FakeLLMServer() as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
        code = main(
            [
                "run",
                str(data),
                "--scorer",
                "context-recall",
                "--scorer",
                "context-precision",
                "--model",
                "openai/fake",
                "--api-base",
                server.url,
                "--no-progress",
                "--format",
                "json",
                "--no-cache",
                *helpers,
            ]
        )
        assert server.call_count > 0
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert report["scores"] == {"context-recall": 1.0, "context-precision": 1.0}
    assert report["summary"]["scorers"]["context-recall"]["n_skipped"] == 1


def test_item_errors_exit_nonzero(tmp_path, capsys):
    path = tmp_path / "d.jsonl"
    path.write_text(
        json.dumps({"input": "q", "context": ["no id"], "reference_context_ids": ["1"]})
    )
    assert main(["run", str(path), "--scorer", "id-context-recall", "--no-progress"]) == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scorer", "nope"], "unknown scorer id 'nope'"),
        (["--scorer", "context-recall"], "needs a judge model"),
        (["--scorer", "mrr", "--threshold", "mrr"], "--threshold takes ID=VALUE"),
        (["--scorer", "mrr", "--target", "nomodule:fn"], "cannot load target"),
    ],
)
def test_usage_errors_exit_2(data, capsys, monkeypatch, args, message):
    monkeypatch.delenv("SCOREKIT_MODEL", raising=False)
    assert main(["run", str(data), *args, "--no-progress"]) == 2
    assert message in capsys.readouterr().err


def test_bad_data_exits_2_naming_the_row(tmp_path, capsys):
    path = tmp_path / "d.jsonl"
    path.write_text('{"input": "q"}\n{"ground_truth": "x"}\n')
    assert main(["run", str(path), "--scorer", "mrr"]) == 2
    assert "d.jsonl line 2: field 'input' is required" in capsys.readouterr().err


def test_target_module_callable(data, tmp_path, capsys, monkeypatch):
    (tmp_path / "my_target.py").write_text(
        "def answer(question):\n"
        "    return {'output': 'x', 'context': [{'id': '1', 'text': 'Einstein'}]}\n"
    )
    monkeypatch.chdir(tmp_path)
    code = main(
        [
            "run",
            str(data),
            "--scorer",
            "id-context-recall",
            "--target",
            "my_target:answer",
            "--format",
            "json",
            "--no-progress",
        ]
    )
    assert code == 0
    assert json.loads(capsys.readouterr().out)["scores"] == {"id-context-recall": 0.5}


def test_scorers_listing(capsys):
    assert main(["scorers"]) == 0
    out = capsys.readouterr().out
    for name in ("context-recall", "non-llm-context-precision", "ndcg@10", "tool_results"):
        assert name in out


@pytest.mark.slow
def test_demo_runs_without_a_key_as_a_console_script():
    proc = subprocess.run(
        [sys.executable, "-m", "evals.cli", "demo", "--no-progress"],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "", "SCOREKIT_CACHE_DIR": "/tmp/scorekit-test-cache"},
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:2] == ["scorer", "mean"]
    assert any(line.startswith("id-context-recall") for line in lines)
    assert "items 28 (errors 0" in proc.stdout


@pytest.mark.slow
def test_demo_with_a_model_adds_the_llm_scorers(capsys, monkeypatch):
    monkeypatch.delenv("SCOREKIT_MODEL", raising=False)
    with FakeLLMServer() as server:
        code = main(
            [
                "demo",
                "--model",
                "openai/fake",
                "--api-base",
                server.url,
                "--no-cache",
                "--no-progress",
                "--format",
                "json",
            ]
        )
        calls = server.call_count
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert {"context-recall", "context-precision", "context-relevance", "id-context-recall"} <= set(
        report["scores"]
    )
    assert calls == 28 * 4  # claims + verdicts + chunk verdicts + relevance per question


SLOW_TARGET = """
import time


def slow(question):
    time.sleep(0.05)
    return {"output": question, "context": [{"id": "1", "text": question}]}
"""


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT delivery is POSIX")
def test_ctrl_c_stops_cleanly_keeping_finished_items(tmp_path):
    import signal
    import time

    data = tmp_path / "d.jsonl"
    data.write_text(
        "\n".join(
            json.dumps({"id": str(i), "input": f"q{i}", "reference_context_ids": ["1"]})
            for i in range(200)
        )
    )
    (tmp_path / "slow_target.py").write_text(SLOW_TARGET)
    out = tmp_path / "out.jsonl"
    command = [
        *(sys.executable, "-m", "evals.cli", "run", str(data), "--scorer", "id-context-recall"),
        *("--target", "slow_target:slow", "--out", str(out), "--no-progress"),
    ]
    proc = subprocess.Popen(
        [*command, "--concurrency", "2"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (not out.exists() or out.read_text().count("\n") < 5):
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "interrupted; finished items are in --out" in err
    lines = item_lines(out)
    assert 5 <= len(lines) < 200
    assert all(json.loads(line)["error"] is None for line in lines)
    code = subprocess.run(
        [*command, "--resume", "--concurrency", "8", "--format", "json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert code.returncode == 0, code.stderr
    assert json.loads(code.stdout)["summary"]["resumed_items"] == len(lines)
    ids = [json.loads(line)["item"]["id"] for line in item_lines(out)]
    assert sorted(ids, key=int) == [str(i) for i in range(200)]


def test_target_as_a_file_path(data, tmp_path, capsys, monkeypatch):
    """``./my_rag.py:retrieve`` as pytest and uvicorn users write it (issue 45, item 8)."""
    folder = tmp_path / "app"
    folder.mkdir()
    (folder / "helpers_for_rag.py").write_text("CHUNKS = [{'id': '1', 'text': 'Einstein'}]\n")
    (folder / "my_rag_by_path.py").write_text(
        "from helpers_for_rag import CHUNKS\n"
        "def retrieve(question):\n"
        "    return {'output': 'x', 'context': CHUNKS}\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    args = ["run", str(data), "--scorer", "id-context-recall", "--format", "json", "--no-progress"]
    assert main([*args, "--target", "./app/my_rag_by_path.py:retrieve"]) == 0
    assert json.loads(capsys.readouterr().out)["scores"] == {"id-context-recall": 0.5}


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("./missing.py:retrieve", "./missing.py is not a Python file (give path/to/file.py)"),
        ("./notes.txt:retrieve", "./notes.txt is not a Python file"),
        (".relative:retrieve", "give a module name or a path/to/file.py"),
        ("./broken_rag.py:retrieve", "NameError: name 'undefined_name' is not defined ("),
        ("./broken_rag.py:nothing", "has no attribute 'nothing'"),
    ],
)
def test_a_bad_target_is_one_line_and_exit_2(data, tmp_path, capsys, monkeypatch, spec, message):
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "broken_rag.py").write_text(
        "def nothing_here():\n    pass\n\nif True:\n    undefined_name\n"
        if "retrieve" in spec
        else "x = 1\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, "broken_rag", raising=False)
    assert main(["run", str(data), "--scorer", "mrr", "--target", spec, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
