"""Model calls inside runs, over real HTTP: a broken setup stops the run, limits hold,
every request is counted, secrets stay out of the results."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evals import Agent, read_results, run_evals
from evals.cli import main
from evals.testing import FakeLLMServer, FakeResponse, Fault, rule_based_judge
from scorers import (
    JudgeAuthError,
    JudgeSetupError,
    create_context_precision_scorer,
    create_context_recall_scorer,
)

# gpt-4o-mini's list price, declared so cost is known for a model litellm cannot price
PRICE = {"input_cost_per_token": 1.5e-7, "output_cost_per_token": 6e-7}


def items(n: int) -> list[dict]:
    return [
        {
            "id": str(i),
            "input": f"question {i}",
            "ground_truth": f"Einstein was born in Ulm. Fact {i} is unsupported.",
            "context": ["Einstein was born in Ulm in 1879.", f"Unrelated passage {i}."],
        }
        for i in range(n)
    ]


def scorers_for(judge):
    return [create_context_recall_scorer(judge), create_context_precision_scorer(judge)]


@pytest.mark.slow
def test_a_401_stops_the_run_at_once_keeping_finished_items(tmp_path: Path):
    out = tmp_path / "results.jsonl"
    with FakeLLMServer() as server:
        judge = server.judge()
        # 3 items (3 calls each) answer; then the key is "revoked"
        server.script(*([rule_based_judge] * 9))
        server.handler = lambda request: Fault.unauthorized()
        with pytest.raises(JudgeAuthError, match="HTTP 401") as info:
            run_evals(items(40), scorers_for(judge), concurrency=1, results_path=out)
        assert server.call_count <= 9 + 2  # the failing item's calls, nothing more
        assert "stopped" in str(info.value) and str(out) in str(info.value)
        assert [r.item.id for r in read_results(out)] == ["0", "1", "2"]
        server.handler = rule_based_judge  # the key is fixed: resume finishes the rest
        result = run_evals(items(40), scorers_for(judge), results_path=out, resume=True)
        assert result.summary.resumed_items == 3 and result.summary.item_errors == 0


def test_a_401_at_full_concurrency_sends_one_wave_only():
    with FakeLLMServer(latency=0.02) as server:
        server.handler = lambda request: Fault.unauthorized()
        with pytest.raises(JudgeAuthError):
            run_evals(items(40), scorers_for(server.judge()), concurrency=8)
        assert server.call_count <= 16  # one first call per scorer per item in flight


def test_the_cli_prints_a_setup_error_as_one_line_and_exits_2(tmp_path, capsys):
    data = tmp_path / "data.jsonl"
    data.write_text("\n".join(json.dumps(i) for i in items(24)))
    with FakeLLMServer() as server:
        server.handler = lambda request: Fault.unauthorized()
        argv = ["run", str(data), "--scorer", "context-recall", "--no-progress"]
        code = main([*argv, "--model", "openai/fake", "--api-base", server.url, "--no-cache"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "401" in err and "API key" in err


def test_the_cli_without_a_key_fails_with_one_line(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    data = tmp_path / "data.jsonl"
    data.write_text("\n".join(json.dumps(i) for i in items(24)))
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "evals.cli", "run", str(data)),
            *("--scorer", "context-recall", "--model", "openai/gpt-4o-mini"),
            *("--no-progress", "--no-cache"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "OPENAI_API_KEY" in proc.stderr


def test_an_unknown_model_stops_the_run_too():
    with FakeLLMServer() as server:
        server.handler = lambda request: FakeResponse(
            status=404, error_body={"error": {"message": "model not found"}}
        )
        with pytest.raises(JudgeSetupError, match="does not know this model"):
            run_evals(items(10), scorers_for(server.judge()))
        assert server.call_count <= 16


@pytest.mark.parametrize(
    ("judge_cap", "run_cap", "expected"), [(4, None, 4), (4, 2, 2), (None, 3, 3)]
)
@pytest.mark.slow
def test_the_smaller_of_the_judge_and_run_caps_holds(judge_cap, run_cap, expected):
    with FakeLLMServer(latency=0.05) as server:
        judge = server.judge(max_concurrency=judge_cap)
        run_evals(items(24), scorers_for(judge), concurrency=32, model_concurrency=run_cap)
        assert server.max_in_flight == expected


@pytest.mark.slow
def test_an_agents_own_calls_keep_its_judge_cap():
    with FakeLLMServer(latency=0.05) as agent_server, FakeLLMServer() as judge_server:
        agent_server.handler = lambda request: FakeResponse(content="an answer")
        agent = Agent(name="a", model=agent_server.judge(max_concurrency=2), instructions="a")
        result = run_evals(
            [{"id": str(i), "input": f"q{i}", "ground_truth": "x"} for i in range(10)],
            [create_context_recall_scorer(judge_server.judge(), {"context": ["x"]})],
            target=agent,
            concurrency=10,
            model_concurrency=100,
        )
        assert agent_server.max_in_flight == 2
        assert result.summary.target.model_calls == agent_server.call_count == 10
        assert result.summary.model_calls == 10 + judge_server.call_count


@pytest.mark.slow
def test_the_summary_counts_exactly_the_requests_the_server_saw():
    with FakeLLMServer() as server:
        judge = server.judge(max_retries=2, **PRICE)
        faults = []
        for i in range(12):
            kind = i % 4
            if kind == 0:  # a 500 then a good answer: a retry
                faults += [Fault.server_error(), rule_based_judge]
            elif kind == 1:  # malformed then repaired
                faults += [Fault.malformed(), rule_based_judge]
            elif kind == 2:  # malformed twice: the scorer run fails after two calls
                faults += [Fault.malformed(), Fault.malformed()]
            else:
                faults += [rule_based_judge]
        server.script(*faults)
        result = run_evals(items(16), scorers_for(judge), concurrency=1)
        summary = result.summary
        assert summary.item_errors > 0  # some scorer runs failed; their calls still count
        assert summary.model_calls == server.call_count
        assert summary.prompt_tokens == server.prompt_tokens
        assert summary.completion_tokens == server.completion_tokens
        expected = server.prompt_tokens * 1.5e-7 + server.completion_tokens * 6e-7
        assert summary.cost == pytest.approx(expected)
        per_scorer = sum(s.model_calls for s in summary.scorers.values())
        assert per_scorer == server.call_count
        failed = [r for i in result.items for r in i.scorer_results.values() if r.status == "error"]
        assert failed and all(r.judge_calls for r in failed)


@pytest.mark.slow
def test_calls_of_timed_out_items_are_counted():
    with FakeLLMServer() as server:
        server.script(rule_based_judge, Fault.hang(5))  # claims, then a hanging verdict call
        judge = server.judge(timeout=10)
        scorer = create_context_recall_scorer(judge)
        result = run_evals(items(1), [scorer], item_timeout=0.5)
        assert result.items[0].error is not None and result.items[0].error.phase == "timeout"
        assert result.summary.model_calls == server.call_count == 2


def test_a_provider_that_echoes_the_key_does_not_get_it_into_the_results(tmp_path):
    secret = "sk-echoed-secret-987654"
    out = tmp_path / "results.jsonl"
    with FakeLLMServer() as server:
        server.handler = lambda request: Fault.bad_request(
            f"bad request from key {request.headers.get('authorization', '')}"
        )
        judge = server.judge(api_key=secret)
        result = run_evals(items(2), [create_context_recall_scorer(judge)], results_path=out)
    assert result.summary.item_errors == 2
    text = out.read_text()
    assert secret not in text and "[redacted]" in text


@pytest.mark.slow
def test_no_litellm_logging_tracebacks_at_concurrency_256(tmp_path):
    code = (
        "from evals import run_evals\n"
        "from evals.testing import FakeLLMServer\n"
        "from scorers import create_context_precision_scorer, create_context_recall_scorer\n"
        "items = [{'id': str(i), 'input': 'q', 'ground_truth': 'Paris is in France. It is big.',"
        " 'context': ['Paris is in France.', 'x']} for i in range(192)]\n"
        "with FakeLLMServer(latency=0.05) as server:\n"
        "    judge = server.judge()\n"
        "    scorers = [create_context_recall_scorer(judge), create_context_precision_scorer(judge)]\n"
        "    result = run_evals(items, scorers, concurrency=256, model_concurrency=256,"
        " progress=False)\n"
        "    print(server.call_count, result.summary.model_calls)\n"
    )
    # a small logging queue: litellm's own worker then re-runs coroutines it already ran
    env = {**os.environ, "LOGGING_WORKER_MAX_QUEUE_SIZE": "16"}
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["576", "576"]
    assert proc.stderr == ""
