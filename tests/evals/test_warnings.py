"""Warnings name the user's line, from the sync API, the async API and the CLI
(issue 45, item 9)."""

from __future__ import annotations

import inspect
import json
import warnings

import anyio
import pytest

from evals import arun_evals, run_evals
from evals._run._runner import IgnoredColumnsWarning
from evals.cli import main
from scorers import create_id_context_recall_scorer, load_qrels

ROWS = [
    {
        "id": "q1",
        "input": "q",
        "context": [{"id": "d1", "text": "x"}],
        "reference_context_ids": ["d1"],
    }
]


def target(question: str) -> dict:
    return {"output": "x", "context": [{"id": "d1", "text": "x"}]}


def _ours(record: list[warnings.WarningMessage]) -> warnings.WarningMessage:
    found = [w for w in record if issubclass(w.category, IgnoredColumnsWarning)]
    assert len(found) == 1, [str(w.message) for w in record]
    return found[0]


def test_the_sync_api_warns_at_the_callers_line():
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        run_evals(ROWS, [create_id_context_recall_scorer()], target, progress=False)
    warning = _ours(record)
    assert (warning.filename, warning.lineno) == (__file__, line)


def test_the_async_api_warns_at_the_callers_line():
    async def main_coroutine() -> int:
        line = inspect.currentframe().f_lineno + 1
        await arun_evals(ROWS, [create_id_context_recall_scorer()], target, progress=False)
        return line

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        line = anyio.run(main_coroutine)
    warning = _ours(record)
    assert (warning.filename, warning.lineno) == (__file__, line)


def test_a_trec_grade_warning_names_the_callers_line(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 2.5\n")
    with pytest.warns(UserWarning, match="read as 2") as record:
        line = inspect.currentframe().f_lineno + 1
        load_qrels(qrels)
    assert (record[0].filename, record[0].lineno) == (__file__, line)


def test_the_cli_prints_a_warning_as_one_line_in_its_own_words(tmp_path, capsys, monkeypatch):
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(ROWS[0]) + "\n")
    (tmp_path / "my_warned_target.py").write_text(
        "def answer(q):\n    return {'output': 'x', 'context': [{'id': 'd1', 'text': 'x'}]}\n"
    )
    monkeypatch.chdir(tmp_path)
    args = ["run", str(data), "--scorer", "id-context-recall", "--no-progress"]
    assert main([*args, "--target", "my_warned_target:answer"]) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "warning" in line]
    assert lines == [
        "scorekit: warning: the data has 'context' values, and a target is given: the "
        "target's own answer and retrieval are scored, the data's are not used (drop the "
        "--target to score the data's) (IgnoredColumnsWarning)"
    ]
    assert "anyio" not in err and ".py:" not in err


def test_a_warning_from_a_script_run_with_dash_c(tmp_path):
    """``python -c`` scripts (and the docs' blocks) have no source file to show."""
    import subprocess
    import sys

    code = (
        "from evals import run_evals\n"
        "from scorers import create_id_context_recall_scorer\n"
        f"rows = {ROWS!r}\n"
        "run_evals(rows, [create_id_context_recall_scorer()], lambda q: 'answer', progress=False)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-W", "always", "-c", code], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "<string>:4: IgnoredColumnsWarning" in proc.stderr
