"""The run summary's table and its client-bound note."""

from __future__ import annotations

import time

from evals import run_evals
from evals._results import RunSummary, format_table
from scorers import create_scorer


def test_the_table_notes_a_client_bound_run():
    busy = RunSummary(model_calls=300, wall_time_s=4.0, client_cpu_s=2.9)
    assert busy.client_bound
    assert "busy 72% of the run" in format_table(busy)
    assert "client_processes" in format_table(busy)
    for calm in (
        RunSummary(model_calls=300, wall_time_s=4.0, client_cpu_s=1.9),  # under half
        RunSummary(model_calls=0, wall_time_s=4.0, client_cpu_s=3.9),  # no model calls
        RunSummary(model_calls=5, wall_time_s=0.5, client_cpu_s=0.5),  # too short to tell
    ):
        assert not calm.client_bound and "note:" not in format_table(calm)


def test_run_evals_measures_its_cpu():
    def spin(question):
        end = time.process_time() + 0.05
        while time.process_time() < end:
            pass
        return question

    scorer = create_scorer(id="s").generate_score(lambda run, results: 1)
    summary = run_evals([{"input": "q"}] * 4, [scorer], spin, concurrency=1).summary
    assert 0.2 <= summary.client_cpu_s <= summary.wall_time_s + 0.1


def test_summarize_counts_every_status_and_only_this_runs_calls():
    from evals import summarize
    from evals._data import EvalItem
    from evals._results import ItemError, ItemResult
    from scorers import JudgeCall, ScoreResult

    call = JudgeCall(step="s", model="m", prompt_tokens=10, attempts=1)
    sampling = {"agreement": 0.5, "sample_scores": [0.0, 1.0]}

    def result(sid, score, status="scored", calls=(), details=None):
        return ScoreResult(
            scorer_id=sid,
            score=score,
            status=status,
            judge_calls=list(calls),
            details=details or {},
        )

    items = [
        ItemResult(
            item=EvalItem(id="1", input="q"),
            scorer_results={
                "a": result("a", 1.0, calls=[call], details={"sampling": sampling}),
                "b": result("b", 0.0, "skipped"),
            },
        ),
        ItemResult(  # resumed: its scores count, its calls do not
            item=EvalItem(id="2", input="q"),
            scorer_results={"a": result("a", 0.5, calls=[call]), "old": result("old", 0.25)},
        ),
        ItemResult(  # failed before b ran
            item=EvalItem(id="3", input="q"),
            scorer_results={"a": result("a", 0.0, "error")},
            error=ItemError(phase="timeout", message="slow"),
        ),
    ]
    summary = summarize(items, ["a", "b"], 1.0, resumed={"2"}, scales={"a": 2.0})
    a, b, old = summary.scorers["a"], summary.scorers["b"], summary.scorers["old"]
    assert (a.n_scored, a.n_skipped, a.n_error, a.mean) == (2, 0, 1, 0.75)
    assert (b.n_scored, b.n_skipped, b.n_error, b.mean) == (0, 1, 1, None)
    assert (old.n_scored, old.mean) == (1, 0.25)  # a scorer kept from an earlier run only
    assert a.judge_agreement == 0.5
    assert (a.model_calls, a.prompt_tokens, summary.model_calls) == (1, 10, 1)
    assert (summary.items, summary.item_errors, summary.resumed_items) == (3, 1, 1)
