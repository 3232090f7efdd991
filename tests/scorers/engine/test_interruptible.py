"""item_timeout and cancellation reach model-free scorers too (issue 34, item 14)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import anyio
import pytest

from evals import run_evals
from scorers import create_non_llm_context_recall_scorer, create_scorer

HUGE = "abcdefghij" * 20_000  # 4 x 4 similarities of 200k-character texts: ~20 s of C work
LONG = "abcdefghij" * 10_000  # 2 x 2 of 100k characters: about a second


def slow_data(n_slow=1, n_fast=5):
    rows = [{"id": f"fast{i}", "input": "q", "context": ["Ulm."], "reference_contexts": ["Ulm."]}
            for i in range(n_fast)]  # fmt: skip
    rows += [{"id": f"slow{i}", "input": "q", "context": [LONG[::-1]] * 2,
              "reference_contexts": [LONG] * 2} for i in range(n_slow)]  # fmt: skip
    return rows


@pytest.mark.slow
def test_item_timeout_cuts_off_a_slow_fast_path_item_only():
    result = run_evals(slow_data(), [create_non_llm_context_recall_scorer()],
                       item_timeout=0.2, progress=False)  # fmt: skip
    errors = {i.item.id: i.error.phase for i in result.items if i.error}
    assert errors == {"slow0": "timeout"}  # was scored: the timeout never reached it
    assert result.summary.scorers["non-llm-context-recall"].n_scored == 5


def sleepy(run, results):
    time.sleep(60 if run.input == "slow" else 0)
    return 1.0


@pytest.mark.slow
def test_item_timeout_cuts_off_a_slow_custom_model_free_step():
    scorer = create_scorer(id="sleepy").generate_score(sleepy)
    data = [{"id": "a", "input": "fast"}, {"id": "b", "input": "slow"}, {"id": "c", "input": "x"}]
    result = run_evals(data, [scorer], item_timeout=0.5, progress=False)
    assert {i.item.id: (i.error.phase if i.error else None) for i in result.items} == {
        "a": None, "b": "timeout", "c": None}  # fmt: skip


async def async_extractor(input, output):
    await anyio.sleep(0)
    return ["Ulm."]


def test_a_scorer_whose_steps_await_the_loop_still_runs_under_a_timeout():
    scorer = create_non_llm_context_recall_scorer({"context_extractor": async_extractor})
    data = [{"id": str(i), "input": "q", "reference_contexts": ["Ulm."]} for i in range(3)]
    result = run_evals(data, [scorer], item_timeout=5, progress=False)
    assert result.scores == {"non-llm-context-recall": 1.0}


FAST_PATH_RUN = f"""
from scorers import create_non_llm_context_recall_scorer
HUGE = {HUGE[:10]!r} * 20_000
rows = [{{"id": str(i), "input": "q", "context": [HUGE[::-1]] * 4,
          "reference_contexts": [HUGE] * 4}} for i in range(50)]
scorers = [create_non_llm_context_recall_scorer()]
"""
CUSTOM_STEP_RUN = """
import time
from scorers import create_scorer
rows = [{"id": str(i), "input": "q"} for i in range(50)]
scorers = [create_scorer(id="slow").generate_score(lambda run, results: time.sleep(120) or 1.0)]
"""
INTERRUPTED = """
from evals import run_evals
try:
    print("started", flush=True)
    run_evals(rows, scorers, progress=False)
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("setup", [FAST_PATH_RUN, CUSTOM_STEP_RUN], ids=["fast-path", "custom"])
def test_ctrl_c_stops_a_model_free_run_in_seconds_not_minutes(setup):
    code = textwrap.dedent(setup) + textwrap.dedent(INTERRUPTED)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "started"
        time.sleep(1.5)
        os.kill(proc.pid, signal.SIGINT)
        # what is left takes minutes (a sleep of 120 s per item): only an interrupted run
        # ends within this bound, however loaded the machine
        proc.wait(timeout=100)
        assert "interrupted" in proc.stdout.read()
    finally:
        proc.kill()
