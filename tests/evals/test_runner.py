from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import anyio
import pytest

from evals import (
    AgentOutput,
    EvalItem,
    ItemFailedError,
    TargetOutput,
    arun_evals,
    mean_ci,
    read_results,
    run_evals,
)
from evals.testing import FakeLLMServer
from scorers import (
    ConfigError,
    Judge,
    create_context_recall_scorer,
    create_id_context_precision_scorer,
    create_id_context_recall_scorer,
    create_scorer,
)

from ._lines import item_lines

ITEMS = [
    {
        "id": "a",
        "input": "q",
        "ground_truth": "Einstein was born in Ulm.",
        "context": [{"id": 1, "text": "Einstein was born in Ulm."}, {"id": 2, "text": "x"}],
        "reference_context_ids": [1],
    },
    {
        "id": "b",
        "input": "q",
        "ground_truth": "Mozart wrote operas. Bach wrote fugues.",
        "context": [{"id": 3, "text": "Mozart wrote many operas."}],
        "reference_context_ids": [3, 4],
    },
    {
        "id": "c",
        "input": "q",
        "context": [{"id": 5, "text": "Paris"}],
        "reference_context_ids": [6],
    },  # no ground truth: recall is skipped
]


def test_exact_means_summary_and_hook(fake_llm_server: FakeLLMServer):
    seen = []
    result = run_evals(
        ITEMS,
        [
            create_context_recall_scorer(fake_llm_server.judge()),
            create_id_context_recall_scorer(),
            create_id_context_precision_scorer(),
        ],
        on_item_complete=seen.append,
    )
    assert sorted(r.item.id for r in seen) == ["a", "b", "c"]
    assert result.scores == {
        "context-recall": (1.0 + 0.5) / 2,
        "id-context-recall": (1.0 + 0.5 + 0.0) / 3,
        "id-context-precision": (0.5 + 1.0 + 0.0) / 3,
    }
    recall = result.summary.scorers["context-recall"]
    assert (recall.n_scored, recall.n_skipped, recall.n_error) == (2, 1, 0)
    assert recall.model_calls == fake_llm_server.call_count == 4
    assert result.summary.prompt_tokens + result.summary.completion_tokens == (
        fake_llm_server.prompt_tokens + fake_llm_server.completion_tokens
    )
    assert result.summary.cost is None  # the fake model has no known price
    assert [i.item.id for i in result.items] == ["a", "b", "c"]
    assert result.passed is None
    assert "context-recall" in result.table()


def test_mean_ci_is_a_student_t_interval():
    mean, low, high = mean_ci([0.0, 1.0, 1.0, 0.0])
    half = 3.182446 * (1 / 3) ** 0.5 / 2  # t(0.975, 3 degrees of freedom)
    assert (mean, low, high) == (0.5, pytest.approx(0.5 - half), pytest.approx(0.5 + half))
    assert mean_ci([0.7]) == (0.7, None, None) and mean_ci([]) == (None, None, None)


def test_the_one_t_quantile_is_scipys_to_the_sixth_decimal():
    from scipy import stats

    from scorers import t_critical_95

    for df in [*range(1, 200), 500, 10_000]:
        assert t_critical_95(df) == pytest.approx(float(stats.t.ppf(0.975, df)), abs=6e-7)


def test_a_scorers_interval_stays_inside_zero_to_scale():
    mean, low, high = mean_ci([1.0, 1.0, 0.8], bounds=(0.0, 1.0))
    half = 4.303 * (0.0133333 / 3) ** 0.5
    assert high == 1.0 and low == pytest.approx(mean - half, abs=1e-3)
    assert mean_ci([1.0, 0.8, 1.0])[2] > 1.0  # the unbounded interval would pass 1
    scores = iter([10.0, 10.0, 8.0])
    scorer = create_scorer(id="s", scale=10).generate_score(lambda run, results: next(scores) / 10)
    summary = run_evals([{"input": "q"}] * 3, [scorer], concurrency=1).summary.scorers["s"]
    assert (summary.mean, summary.ci_high) == (pytest.approx(28 / 3), 10.0)


@pytest.mark.anyio
async def test_async_hook_and_async_target_isolated_failures():
    calls = []

    async def hook(result):
        calls.append(result.item.id)

    async def target(question):
        if question == "boom":
            raise RuntimeError("retriever down")
        return TargetOutput(output="ok", context=[{"id": "1", "text": "t"}])

    def flaky_score(run, results):
        if run.run_id == "2":
            raise ValueError("scorer bug")
        return 1.0

    flaky = create_scorer(id="flaky").generate_score(flaky_score)
    data = [
        {"input": "fine", "reference_context_ids": ["1"]},
        {"input": "fine2"},
        {"input": "boom"},
    ]
    result = await arun_evals(
        data, [flaky, create_id_context_recall_scorer()], target, on_item_complete=hook
    )
    assert sorted(calls) == ["1", "2", "3"]
    first, second, third = result.items
    assert first.error is None and first.scorer_results["id-context-recall"].score == 1.0
    assert second.error.phase == "score" and second.error.scorer_id == "flaky"
    assert "scorer bug" in second.scorer_results["flaky"].error
    assert second.scorer_results["id-context-recall"].status == "skipped"
    assert third.error.phase == "target" and "retriever down" in third.error.message
    assert third.scorer_results == {}
    assert result.summary.item_errors == 2
    assert result.scores == {"flaky": 1.0, "id-context-recall": 1.0}


def test_fail_fast_stops_at_the_first_failure(tmp_path):
    def target(question):
        if question == "bad":
            raise RuntimeError("nope")
        return "fine"

    data = [{"input": "bad"}] + [{"input": f"q{i}"} for i in range(20)]
    scorer = create_scorer(id="one").generate_score(lambda run, results: 1)
    with pytest.raises(ItemFailedError, match="item '1' failed in phase target"):
        run_evals(
            data, [scorer], target, fail_fast=True, concurrency=1, results_path=tmp_path / "r.jsonl"
        )
    lines = item_lines(tmp_path / "r.jsonl")
    assert json.loads(lines[0])["error"]["phase"] == "target"
    assert len(lines) < 21


def test_message_history_output_feeds_context_extractors():
    history = [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps([{"id": "7", "text": "t"}])},
        {"role": "assistant", "content": "answer"},
    ]
    scorer = create_id_context_recall_scorer({"context_extractor": "tool_results"})
    result = run_evals(
        [{"input": "q", "reference_context_ids": ["7"]}],
        [scorer],
        lambda q: AgentOutput(text="answer", messages=history),
    )
    assert result.scores == {"id-context-recall": 1.0}


def test_thresholds_and_timeouts():
    scorer = create_scorer(id="half").generate_score(lambda run, results: 0.5)
    result = run_evals([{"input": "q"}], [scorer], thresholds={"half": 0.4})
    assert result.passed is True
    result = run_evals([{"input": "q"}], [scorer], thresholds={"half": 0.6})
    assert (result.passed, result.failed_thresholds) == (False, ["half"])
    assert "threshold half >= 0.6: FAILED" in result.table()
    with pytest.raises(ConfigError, match="unknown scorers"):
        run_evals([{"input": "q"}], [scorer], thresholds={"nope": 1})

    async def slow(question):
        await anyio.sleep(5 if question == "slow" else 0)
        return "x"

    result = run_evals([{"input": "slow"}, {"input": "fast"}], [scorer], slow, item_timeout=0.2)
    assert result.items[0].error.phase == "timeout"
    assert result.items[1].error is None


def test_items_run_concurrently_up_to_the_limit():
    active, peak, lock = [0], [0], threading.Lock()

    def target(question):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.05)
        with lock:
            active[0] -= 1
        return question

    scorer = create_scorer(id="s").generate_score(lambda run, results: 1)
    run_evals([{"input": str(i)} for i in range(12)], [scorer], target, concurrency=4)
    assert peak[0] == 4


def test_resume_skips_finished_items_and_tolerates_a_truncated_line(tmp_path):
    path = tmp_path / "results.jsonl"
    data = [
        {
            "id": str(i),
            "input": "q",
            "ground_truth": "Einstein was born in Ulm.",
            "context": ["Einstein was born in Ulm."],
        }
        for i in range(6)
    ]
    with FakeLLMServer() as server:
        scorer = create_context_recall_scorer(server.judge())
        run_evals(data[:4], [scorer], results_path=path)
        assert server.call_count == 8
        lines = path.read_text().splitlines(keepends=True)  # a header, then 4 items
        path.write_text("".join(lines[:4]) + lines[4][: len(lines[4]) // 2])  # crash mid-line
        with pytest.raises(ConfigError, match="already exists"):
            run_evals(data, [scorer], results_path=path)
        result = run_evals(data, [scorer], results_path=path, resume=True)
        assert server.call_count == 8 + 3 * 2  # items 3, 4, 5 only
    assert result.summary.resumed_items == 3
    assert result.summary.model_calls == 6  # only this invocation's calls are counted
    assert result.scores == {"context-recall": 1.0}
    ids = [json.loads(line)["item"]["id"] for line in item_lines(path)]
    assert sorted(ids) == ["0", "1", "2", "3", "4", "5"]


def test_resume_reruns_items_that_failed_before(tmp_path):
    path = tmp_path / "r.jsonl"
    attempts = []

    def target(question):
        attempts.append(question)
        if len(attempts) == 1:
            raise RuntimeError("transient")
        return question

    scorer = create_scorer(id="s").generate_score(lambda run, results: 1)
    first = run_evals([{"id": "x", "input": "q"}], [scorer], target, results_path=path)
    assert first.summary.item_errors == 1
    second = run_evals(
        [{"id": "x", "input": "q"}], [scorer], target, results_path=path, resume=True
    )
    assert second.summary.item_errors == 0 and len(attempts) == 2


def test_resume_reruns_changed_items_and_scores_a_new_scorer_on_kept_outputs(tmp_path):
    path = tmp_path / "r.jsonl"
    seen: list[str] = []

    def target(question):
        seen.append(question)
        return question

    first = create_scorer(id="first").generate_score(lambda run, results: 1)
    second = create_scorer(id="second").generate_score(lambda run, results: 0.5)
    data = [{"id": str(i), "input": f"q{i}", "ground_truth": "g"} for i in range(3)]
    run_evals(data, [first, second], target, results_path=path)
    assert sorted(seen) == ["q0", "q1", "q2"]

    seen.clear()
    edited = [*data[:2], {**data[2], "ground_truth": "edited"}]
    result = run_evals(edited, [first, second], target, results_path=path, resume=True)
    assert seen == ["q2"]  # same id, new content: judged again
    assert result.summary.resumed_items == 2
    assert result.items[2].item.ground_truth == "edited"

    seen.clear()
    result = run_evals(edited, [first], target, results_path=path, resume=True)
    assert seen == []  # a scorer dropped: nothing to run, its results left out
    assert all(list(item.scorer_results) == ["first"] for item in result.items)

    third = create_scorer(id="third").generate_score(lambda run, results: 0.25)
    result = run_evals(edited, [first, third], target, results_path=path, resume=True)
    assert seen == []  # a scorer added: only it runs, on the kept target outputs
    assert result.scores == {"first": 1.0, "third": 0.25}
    assert result.summary.rescored_items == 3 and result.summary.rescored_for_config == 0
    kept = read_results(path)
    assert sorted(r.item.id for r in kept) == ["0", "1", "2"]  # the last line per id wins
    assert all(sorted(r.scorer_results) == ["first", "third"] for r in kept)


KILL_SCRIPT = """
import sys, time
from evals import run_evals
from scorers import create_scorer

def target(question):
    time.sleep(0.02)
    return question

scorer = create_scorer(id="s").generate_score(lambda run, results: 1)
data = [{"id": str(i), "input": str(i)} for i in range(60)]
run_evals(data, [scorer], target, concurrency=2, results_path=sys.argv[1], resume=True)
"""


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_sigkill_mid_run_then_resume_keeps_every_item_exactly_once(tmp_path):
    path = tmp_path / "results.jsonl"
    script = tmp_path / "job.py"
    script.write_text(KILL_SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen([sys.executable, str(script), str(path)], env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().count("\n") >= 10:
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    written = path.read_text().count("\n")
    assert 10 <= written < 60
    subprocess.run([sys.executable, str(script), str(path)], env=env, check=True, timeout=60)
    ids = [json.loads(line)["item"]["id"] for line in item_lines(path)]
    assert sorted(ids, key=int) == [str(i) for i in range(60)]


def test_scorers_must_have_distinct_ids():
    a = create_scorer(id="same").generate_score(lambda r, s: 1)
    with pytest.raises(ConfigError, match="share the id"):
        run_evals([{"input": "q"}], [a, a])
    result = run_evals([EvalItem(input="q")], {"first": a, "second": a})
    assert result.scores == {"first": 1.0, "second": 1.0}


def test_rerun_of_an_unchanged_eval_makes_zero_model_calls_and_costs_add_up(tmp_path):
    data = [
        {
            "input": "q",
            "ground_truth": "Einstein was born in Ulm.",
            "context": ["Einstein was born in Ulm."],
        }
    ]
    with FakeLLMServer() as server:
        # a model litellm has a price for, served by the fake server
        judge = Judge(
            "openai/gpt-4o-mini", api_base=server.url, api_key="sk-x", cache=tmp_path / "cache"
        )
        first = run_evals(data, [create_context_recall_scorer(judge)])
        second = run_evals(data, [create_context_recall_scorer(judge)])
        assert server.call_count == 2
    calls = first.items[0].scorer_results["context-recall"].judge_calls
    assert all(isinstance(c.cost, float) and c.cost > 0 for c in calls)
    assert first.summary.cost == pytest.approx(sum(c.cost for c in calls))
    assert (second.summary.model_calls, second.summary.cached_calls) == (0, 2)
    assert second.summary.cost == 0.0 and second.scores == first.scores
