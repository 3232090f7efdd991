"""What calls cut off in flight may cost is counted (issue 34, item 15)."""

from __future__ import annotations

import pytest

from evals import run_evals
from evals.testing import FakeLLMServer
from scorers import BudgetExceededError, create_context_recall_scorer

PRICES = {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}
DATA = [
    {"id": f"q{i}", "input": "q", "ground_truth": "Einstein was born in Ulm.", "context": ["Ulm."]}
    for i in range(12)
]


def judge(server, **kwargs):
    return server.judge(timeout=0.2, max_retries=1, retry_backoff=0.01, **PRICES, **kwargs)


@pytest.mark.slow
def test_timed_out_attempts_count_against_max_cost():
    with FakeLLMServer(latency=0.6) as server:  # every attempt is cut off at 0.2 s
        scorer = create_context_recall_scorer(judge(server))
        one = scorer.judge.count_tokens([{"role": "user", "content": "x" * 4000}])
        assert one > 0
        with pytest.raises(BudgetExceededError):
            run_evals(DATA, [scorer], max_cost=0.004, concurrency=2, progress=False)
        sent = len(server.requests)
    # each abandoned attempt is charged at the call's reservation: the cap stops the run
    # after a handful of requests (it never stopped before: failed calls cost 0)
    assert 0 < sent < 2 * len(DATA)


@pytest.mark.slow
def test_a_run_with_failed_calls_still_has_a_cost_at_declared_prices():
    with FakeLLMServer(latency=0.6) as server:
        result = run_evals(DATA[:2], [create_context_recall_scorer(judge(server))], progress=False)
    totals = result.summary.scorers["context-recall"]
    assert result.summary.item_errors == 2
    assert totals.cost is not None and totals.cost > 0  # was None ("n/a")
    assert totals.prompt_tokens > 0  # the prompts that were sent
    call = result.items[0].scorer_results["context-recall"].judge_calls[0]
    assert call.attempts == 2 and call.cost == pytest.approx(call.prompt_tokens * 1e-6)


def test_a_call_refused_by_the_server_costs_nothing():
    from evals.testing import FakeResponse

    with FakeLLMServer(lambda request: FakeResponse(status=400, content="bad")) as server:
        result = run_evals(DATA[:1], [create_context_recall_scorer(judge(server))], progress=False)
    call = result.items[0].scorer_results["context-recall"].judge_calls[0]
    assert (call.cost, call.prompt_tokens) == (0.0, 0)
    assert result.summary.scorers["context-recall"].cost == 0.0


@pytest.mark.slow
def test_calls_cut_off_by_an_item_timeout_keep_their_prompt_tokens_and_cost():
    from scorers import create_context_precision_scorer

    with FakeLLMServer(latency=0.5) as server:
        j = server.judge(**PRICES)
        scorers = [create_context_recall_scorer(j), create_context_precision_scorer(j)]
        result = run_evals(DATA[:1], scorers, item_timeout=0.3, progress=False)
    item = result.items[0]
    assert item.error is not None and item.error.phase == "timeout"
    cut = item.other_calls
    assert len(cut) == 2 and all(c.error == "cancelled" and c.prompt_tokens > 0 for c in cut)
    assert all(c.cost == pytest.approx(c.prompt_tokens * 1e-6) for c in cut)
    assert result.summary.prompt_tokens == sum(c.prompt_tokens for c in cut)  # was 0
