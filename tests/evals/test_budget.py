"""max_cost: no model call starts once the run would pass its cap; resume continues."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals import read_results, run_evals
from evals.cli import main
from evals.testing import FakeLLMServer
from scorers import (
    BudgetExceededError,
    ConfigError,
    JudgeSetupError,
    create_context_recall_scorer,
)

PRICE = {"input_cost_per_token": 1.5e-7, "output_cost_per_token": 6e-7}
ITEMS = [
    {
        "id": str(i),
        "input": f"q{i}",
        "ground_truth": f"Einstein was born in Ulm. Fact {i}.",
        "context": ["Einstein was born in Ulm in 1879."],
    }
    for i in range(10)
]


def test_the_cap_stops_new_calls_and_resume_continues(tmp_path: Path):
    out = tmp_path / "r.jsonl"
    with FakeLLMServer() as server:
        judge = server.judge(max_tokens=100, **PRICE)
        recall = create_context_recall_scorer(judge)
        one = run_evals(ITEMS[:1], [recall], progress=False).summary.cost
        assert one and one > 0
        calls_before = server.call_count
        with pytest.raises(BudgetExceededError, match=r"max_cost \$.* reached") as info:
            run_evals(ITEMS, [recall], concurrency=1, results_path=out, max_cost=3.5 * one)
        assert f"finished items are in {out}" in str(info.value)
        assert info.value.spent <= 3.5 * one
        kept = read_results(out)
        assert 1 <= len(kept) < 10 and all(r.error is None for r in kept)
        assert server.call_count - calls_before <= 2 * len(kept) + 1
        resumed = run_evals(ITEMS, [recall], results_path=out, resume=True, max_cost=1.0)
        assert resumed.summary.resumed_items == len(kept) and resumed.summary.items == 10
        assert resumed.summary.item_errors == 0


def test_max_cost_needs_a_price_and_a_positive_cap():
    with FakeLLMServer() as server:
        recall = create_context_recall_scorer(server.judge(model="openai/unpriced-model"))
        with pytest.raises(JudgeSetupError, match="max_cost needs the price"):
            run_evals(ITEMS[:3], [recall], max_cost=1.0, progress=False)
        assert server.call_count == 0
    with pytest.raises(ConfigError, match="max_cost must be a finite number > 0"):
        run_evals(ITEMS, [recall], max_cost=0)
    assert main(["run", "x.jsonl", "--scorer", "mrr", "--max-cost", "-1"]) == 2


@pytest.mark.parametrize("cap_in_items", [2.5, 3.5, 6.0])
def test_a_tight_cap_at_concurrency_finishes_every_item_it_starts(tmp_path: Path, cap_in_items):
    """Issue 25 item 6: at concurrency 4 a two-call scorer spent the cap on first calls
    and finished nothing. Now an item starts only when the started ones can finish."""
    out = tmp_path / "r.jsonl"
    with FakeLLMServer() as server:
        recall = create_context_recall_scorer(server.judge(max_tokens=100, **PRICE))
        one = run_evals(ITEMS[:1], [recall], progress=False).summary.cost
        before = server.call_count
        with pytest.raises(BudgetExceededError, match="every started item finished") as info:
            run_evals(ITEMS, [recall], concurrency=4, results_path=out, max_cost=cap_in_items * one)
        kept = read_results(out)
        assert len(kept) >= 1 and all(r.error is None for r in kept)
        assert server.call_count - before == 2 * len(kept)  # no call of an unfinished item
        assert info.value.spent <= cap_in_items * one
