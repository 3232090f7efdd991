"""A run read back from its results file reads like the run (issue 45, item 11)."""

from __future__ import annotations

import inspect

import pytest

from evals import EvalResult, ResultList, RunView, read_results, run_evals
from scorers import create_id_context_recall_scorer, create_ranking_scorer

ROWS = [
    {
        "id": f"q{i}",
        "input": f"question {i}",
        "context": [{"id": f"d{i % 3}", "text": "x"}, {"id": "d9", "text": "y"}],
        "reference_context_ids": [f"d{i % 2}"],
        "metadata": {"topic": ["a", "b"][i % 2]},
    }
    for i in range(8)
]


def flaky(question: str) -> dict:
    if question.endswith("5"):
        raise RuntimeError("index offline")
    return {"output": "x", "context": [{"id": "d0", "text": "x"}]}


@pytest.fixture
def both(tmp_path):
    path = tmp_path / "run.jsonl"
    scorers = [create_id_context_recall_scorer(), create_ranking_scorer("mrr")]
    run = run_evals(
        ROWS, scorers, flaky, results_path=path, thresholds={"mrr": 0.9}, progress=False
    )
    return run, read_results(path)


def test_the_reading_api_is_one_and_the_same():
    reading = {name for name, _ in inspect.getmembers(RunView) if not name.startswith("__")}
    assert {
        "table",
        "summary_by",
        "errors",
        "gates",
        "item_status",
        "to_pandas",
        "to_html",
    } <= reading
    for name in reading:
        assert getattr(EvalResult, name) is getattr(RunView, name) or name == "_all_items"
        assert getattr(ResultList, name) is getattr(RunView, name) or name == "_all_items"


def test_a_run_read_back_gives_the_runs_numbers(both):
    run, back = both
    assert isinstance(back, list) and sorted(r.item.id for r in back) == [f"q{i}" for i in range(8)]
    assert back.scores == run.scores and back.passed is run.passed is False
    assert back.failed_thresholds == run.failed_thresholds == ["mrr"]
    assert back.thresholds == {"mrr": 0.9}
    assert back.table().splitlines()[:3] == run.table().splitlines()[:3]
    assert back.summary_by("topic") == run.summary_by("topic")
    assert [e.message for e in back.errors()] == [e.message for e in run.errors()]
    assert len(back.errors()) == 1 and "index offline" in back.errors()[0].message
    assert [g.model_dump() for g in back.gates()] == [g.model_dump() for g in run.gates()]
    assert back.item_status("q1", "mrr") == run.item_status("q1", "mrr")
    assert "ResultList(items=8" in repr(back) and len(repr(back)) < 200


def test_a_run_read_back_writes_the_same_report(both, tmp_path):
    run, back = both
    mine = run.to_html(tmp_path / "run.html").read_text()
    theirs = back.to_html(tmp_path / "back.html", baseline=run).read_text()
    assert "index offline" in mine and "index offline" in theirs
    pandas = pytest.importorskip("pandas")
    assert isinstance(back.to_pandas(), pandas.DataFrame)
    wide = [r.to_pandas(wide=True).set_index("id")["mrr"].sort_index() for r in (back, run)]
    assert wide[0].equals(wide[1])  # the file holds items in the order they finished


def test_a_read_back_run_summarises_once_and_again_when_its_items_change(both):
    run, back = both
    assert back.summary is back.summary  # table(), passed, gates() share one summary
    first = back.summary.items
    back.append(
        run.items[0].model_copy(update={"item": run.items[0].item.model_copy(update={"id": "q99"})})
    )
    assert back.summary.items == first + 1
