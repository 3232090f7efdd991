"""DataFrames, short reprs and notebook HTML; assert_score and the pytest plugin."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from evals import compare_runs, read_results, run_evals
from evals._run._progress import Progress
from evals.testing import FakeLLMServer, aassert_score, assert_score
from scorers import create_context_recall_scorer, create_id_context_recall_scorer, create_scorer

ROWS = [
    {
        "id": "a",
        "input": "q1",
        "ground_truth": "g",
        "context": [{"id": "1", "text": "one"}, {"id": "2", "text": "two"}],
        "reference_context_ids": ["1"],
        "metadata": {"split": "dev"},
    },
    {"id": "b", "input": "q2", "context": [{"id": "3", "text": "x"}]},
]


def flaky(question):
    if question == "q2":
        raise RuntimeError("index offline")
    return {"output": "answer", "context": [{"id": "1", "text": "one"}]}


def test_to_pandas_has_a_row_per_item_and_scorer(tmp_path):
    pd = pytest.importorskip("pandas")
    out = tmp_path / "r.jsonl"
    scorers = [
        create_id_context_recall_scorer(),
        create_scorer(id="half").generate_score(lambda r, s: 0.5),
    ]
    result = run_evals(ROWS, scorers, flaky, results_path=out)
    frame = result.to_pandas()
    assert isinstance(frame, pd.DataFrame) and len(frame) == 4
    assert list(frame.columns[:6]) == ["id", "scorer", "score", "status", "reason", "error"]
    row = frame[(frame.id == "a") & (frame.scorer == "id-context-recall")].iloc[0]
    assert row.score == 1.0 and row.status == "scored" and row.output == "answer"
    assert row.context == ["one"] and row.metadata == {"split": "dev"}
    failed = frame[frame.id == "b"]
    assert set(failed.status) == {"error"} and failed.score.isna().all()
    assert set(failed.error) == {"RuntimeError: index offline"}
    from_file = read_results(out).to_pandas()
    assert sorted(from_file.id) == sorted(frame.id) and len(from_file) == 4


def test_reprs_are_short_and_html_shows_the_summary():
    with FakeLLMServer() as server:
        recall = create_context_recall_scorer(server.judge())
        result = run_evals(
            [
                {
                    "input": "q",
                    "ground_truth": "Einstein was born in Ulm. He liked sailing.",
                    "context": ["Einstein was born in Ulm in 1879."],
                }
            ]
            * 4,
            [recall],
            progress=False,
        )
    text = repr(result)
    assert len(text) < 200 and text.startswith(
        "EvalResult(items=4, errors=0, scores={'context-recall': 0.5}"
    )
    assert (
        "<table id='summary'>" in result._repr_html_() and "context-recall" in result._repr_html_()
    )
    score = result.items[0].scorer_results["context-recall"]
    assert len(repr(score)) < 220 and "score=0.5" in repr(score)
    page = score._repr_html_()
    assert "Einstein was born in Ulm." in page and "<th>claim</th>" in page
    comparison = compare_runs(result, result, resamples=100)
    assert repr(comparison).startswith("RunComparison(deltas={'context-recall': 0.0}")
    assert "<table id='comparison'>" in comparison._repr_html_()


def test_progress_rates_count_from_the_first_finished_item():
    bar = Progress(10, enabled=False)
    bar.advance()
    assert bar.rate() is None  # one item says nothing about the pace
    bar._first = 100.0  # the first item finished at t = 100 (after any warm-up)
    bar.advance()
    bar.advance()
    assert bar.rate(now=102.0) == 1.0  # 2 items in the 2 s after the first


def test_assert_score_passes_and_fails_with_the_reason():
    recall = create_id_context_recall_scorer()
    ok = assert_score(
        recall, min_score=0.5, context=[{"id": "1", "text": ""}], reference_context_ids=["1", "2"]
    )
    assert ok.score == 0.5
    with pytest.raises(AssertionError) as info:
        assert_score(
            recall,
            min_score=0.9,
            context=[{"id": "1", "text": ""}],
            reference_context_ids=["1", "2"],
        )
    message = str(info.value)
    assert "score 0.5 < min_score 0.9" in message and "reason:" in message and "2" in message
    with pytest.raises(AssertionError, match="was skipped"):
        assert_score(recall, min_score=0.1, context=[{"id": "1", "text": ""}])
    assert (
        assert_score(recall, allow_skipped=True, context=[{"id": "1", "text": ""}]).status
        == "skipped"
    )


@pytest.mark.anyio
async def test_the_async_twin():
    recall = create_id_context_recall_scorer()
    result = await aassert_score(
        recall, min_score=1, context=[{"id": "1", "text": ""}], reference_context_ids=["1"]
    )
    assert result.score == 1.0


SUITE = """
from evals.testing import assert_score
from scorers import create_id_context_recall_scorer

recall = create_id_context_recall_scorer()

def test_good():
    assert_score(recall, min_score=0.5, context=[{"id": "1", "text": "a"}], reference_context_ids=["1"])

def test_bad():
    assert_score(recall, min_score=0.9, context=[{"id": "1", "text": "a"}], reference_context_ids=["1", "2"])
"""


@pytest.mark.slow
def test_the_plugin_prints_a_table_and_writes_a_results_file(tmp_path):
    (tmp_path / "test_suite.py").write_text(textwrap.dedent(SUITE))
    results = tmp_path / "scores.jsonl"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            str(tmp_path / "test_suite.py"),
            "--scorekit-results",
            str(results),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "scorekit scores" in proc.stdout
    row = next(line for line in proc.stdout.splitlines() if line.startswith("id-context-recall"))
    assert row.split()[1:4] == ["2", "1", "0.750"]
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    passed = {line["item"]["metadata"]["passed"]: line["item"]["id"] for line in lines}
    assert len(lines) == 2 and set(passed) == {True, False}  # in the order the tests ran
    kept = {r.item.id: r.scorer_results["id-context-recall"].score for r in read_results(results)}
    assert (kept[passed[True]], kept[passed[False]]) == (1.0, 0.5)


def test_the_plugin_imports_nothing_heavy():
    code = (
        "import sys, evals.testing._plugin\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] in "
        "('scorers', 'litellm', 'pydantic', 'numpy', 'anyio', 'pandas')]\n"
        "print(heavy)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "[]", proc.stdout + proc.stderr


def test_to_pandas_without_pandas_says_how_to_install_it(monkeypatch):
    from scorers import ConfigError

    result = run_evals(ROWS[:1], [create_id_context_recall_scorer()], progress=False)
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now fails
    with pytest.raises(ConfigError, match=r"pip install 'scorekit\[pandas\]'"):
        result.to_pandas()


def test_a_notebook_gets_a_tqdm_bar_whose_rate_starts_after_the_first_item(monkeypatch):
    import evals._run._progress as progress

    monkeypatch.setattr(progress, "in_notebook", lambda: True)
    bar = progress.Progress(3)
    assert bar.enabled and bar._widget is not None
    for _ in range(3):
        bar.advance()
    assert bar._widget.n == 3 and bar._widget.total == 3
    bar.close()


SEVEN = """
import pytest
from evals.testing import assert_score
from scorers import create_id_context_recall_scorer

recall = create_id_context_recall_scorer()

@pytest.mark.scorekit
@pytest.mark.parametrize("n", range(5))
def test_many(n):
    assert_score(recall, min_score=0.5, context=[{"id": "1", "text": "a"}], reference_context_ids=["1"])

def test_two():
    assert_score(recall, min_score=0.5, context=[{"id": "1", "text": "a"}], reference_context_ids=["1"])
    assert_score(recall, min_score=0.9, context=[{"id": "1", "text": "a"}], reference_context_ids=["1", "2"])
"""


def _pytest(tmp_path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", *flags],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=180,
    )


@pytest.mark.slow
def test_xdist_workers_records_reach_the_table_and_the_results_file(tmp_path):
    """Issue 27: with -n 2, 5 of 7 and 4 of 7 records were kept in two runs."""
    pytest.importorskip("xdist")
    (tmp_path / "test_seven.py").write_text(SEVEN)
    results = tmp_path / "scores.jsonl"
    proc = _pytest(tmp_path, "-n", "2", "test_seven.py", "--scorekit-results", str(results))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    row = next(line for line in proc.stdout.splitlines() if line.startswith("id-context-recall"))
    assert row.split()[1:3] == ["7", "6"]  # asserts, passed
    assert len(results.read_text().splitlines()) == 7
    assert "test_seven.py::test_two\n" in proc.stdout
    assert "FAILED" in proc.stdout.split("test_seven.py::test_two\n", 1)[1].splitlines()[1]
    marked = _pytest(tmp_path, "-n", "2", "-m", "scorekit", "test_seven.py")
    assert marked.returncode == 0 and "5 passed" in marked.stdout
    row = next(line for line in marked.stdout.splitlines() if line.startswith("id-context-recall"))
    assert row.split()[1:3] == ["5", "5"]


@pytest.mark.slow
def test_a_failing_assert_score_shows_its_message_not_scorekits_source(tmp_path):
    (tmp_path / "test_suite.py").write_text(textwrap.dedent(SUITE))
    proc = _pytest(tmp_path, "test_suite.py")
    failure = proc.stdout.split("test_bad", 1)[1]
    assert "id-context-recall: score 0.5 < min_score 0.9" in failure
    assert "problems.append" not in failure and "def _check" not in failure
    assert "run_sync" not in failure  # before: ~35 lines of scorekit's source
