"""Judge(client_processes=N): model calls in helper processes, through real HTTP."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from evals import Agent
from evals.testing import FakeLLMServer, FakeResponse, Fault, rule_based_judge
from scorers import (
    ConfigError,
    Judge,
    JudgeAPIError,
    JudgeError,
    create_context_recall_scorer,
)
from scorers._model import _process
from scorers._sync import run_sync

CONTEXT = ["Albert Einstein was born on 14 March 1879 in Ulm."]


@pytest.fixture(scope="module")
def server():
    with FakeLLMServer() as fake:
        yield fake


def _helper_judge(server: FakeLLMServer, **options) -> Judge:
    """A judge on the fake server with one helper process of its own."""
    return Judge(
        "openai/fake",
        api_base=server.url,
        api_key="sk-test",
        cache=False,
        client_processes=1,
        retry_backoff=0.01,
        **options,
    )


@pytest.fixture(scope="module")
def judge(server):
    helper_judge = _helper_judge(server, timeout=2, max_retries=1)
    yield helper_judge
    helper_judge.close()


@pytest.fixture(autouse=True)
def _fresh(server):
    server.reset()
    server.handler = rule_based_judge


@pytest.mark.slow
def test_scores_retries_and_fast_failures_through_a_helper(server, judge):
    scorer = create_context_recall_scorer(judge, {"context": CONTEXT})
    result = scorer.run(ground_truth="Einstein was born in Ulm. He liked sailing.")
    assert result.score == 0.5 and [c.attempts for c in result.judge_calls] == [1, 1]
    assert result.judge_calls[0].prompt_tokens > 0
    server.script(Fault.rate_limit(retry_after=0.05))
    result = scorer.run(ground_truth="Einstein was born in Ulm.")
    assert result.score == 1.0 and result.judge_calls[0].attempts == 2
    server.handler = lambda request: Fault.unauthorized()
    with pytest.raises(JudgeAPIError, match="HTTP 401") as info:
        scorer.run(ground_truth="Einstein was born in Ulm.")
    assert info.value.status_code == 401


@pytest.mark.slow
def test_a_timed_out_call_is_cancelled_and_the_helper_keeps_serving(server, judge):
    server.script(Fault.hang(30), Fault.hang(30))
    scorer = create_context_recall_scorer(judge, {"context": CONTEXT})
    with pytest.raises(JudgeAPIError, match="timed out after 2 s on each of 2 attempts"):
        scorer.run(ground_truth="Einstein was born in Ulm.")
    assert scorer.run(ground_truth="Einstein was born in Ulm.").score == 1.0


@pytest.mark.slow
def test_agent_tool_calls_through_a_helper(server, judge):
    def answer(request):
        if request.messages[-1]["role"] == "user":
            return FakeResponse(tool_calls=[{"name": "lookup", "arguments": {"key": "ulm"}}])
        return FakeResponse(content="Found: " + request.messages[-1]["content"])

    def lookup(key: str) -> str:
        """Look a key up."""
        return f"value of {key}"

    server.handler = answer
    output = Agent("a", judge, tools=[lookup]).generate("find ulm")
    assert output.text == "Found: value of ulm" and output.steps == 2


def _kill_when_in_flight(server: FakeLLMServer, judge: Judge) -> threading.Thread:
    """Kill the judge's (only) helper once the server holds a request from it."""

    def kill() -> None:
        while not server.requests:
            time.sleep(0.01)
        os.kill(judge.transport._workers[0].proc.pid, signal.SIGKILL)

    thread = threading.Thread(target=kill, daemon=True)
    thread.start()
    return thread


@pytest.fixture
def own_judge(server):
    """A judge with a helper of its own, for tests that kill it."""
    fresh = _helper_judge(server)
    yield fresh
    fresh.close()


@pytest.mark.slow
def test_a_helper_that_dies_mid_call_is_replaced_and_the_call_retried(server, own_judge):
    server.script(FakeResponse(content='{"claims": ["Einstein was born in Ulm."]}', delay=30))
    killer = _kill_when_in_flight(server, own_judge)
    scorer = create_context_recall_scorer(own_judge, {"context": CONTEXT})
    result = scorer.run(ground_truth="Einstein was born in Ulm.")
    killer.join()
    assert result.score == 1.0
    assert result.judge_calls[0].attempts == 2  # the lost call, then its retry
    assert own_judge.transport.restarts == 1


@pytest.mark.slow
def test_helpers_that_keep_exiting_give_up_with_a_clear_error(server, own_judge, monkeypatch):
    monkeypatch.setattr(_process, "MAX_RESTARTS", 0)
    server.script(FakeResponse(content='{"claims": []}', delay=30))
    _kill_when_in_flight(server, own_judge)
    with pytest.raises(JudgeError, match="keep exiting") as info:
        run_sync(lambda: own_judge.chat([{"role": "user", "content": "hi"}]))
    assert not isinstance(info.value, JudgeAPIError)


def test_bad_client_processes():
    with pytest.raises(ConfigError, match="client_processes"):
        Judge("openai/x", client_processes=-1)
