"""The run summary's table and its client-bound note."""

from __future__ import annotations

import time

from evals import run_evals
from evals._report import RunSummary, format_table
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
