"""estimate_run: the calls and prompt tokens of a real run, without calling a model."""

from __future__ import annotations

import json

import pytest

from evals import estimate_run, run_evals
from evals.cli import main
from evals.testing import FakeLLMServer
from scorers import (
    create_context_precision_scorer,
    create_context_recall_scorer,
    create_id_context_recall_scorer,
)

PRICE = {"input_cost_per_token": 1.5e-7, "output_cost_per_token": 6e-7}
ITEMS = [
    {
        "id": str(i),
        "input": f"Where was Einstein born? ({i})",
        "ground_truth": "Einstein was born in Ulm. He won the Nobel Prize." if i % 3 else None,
        "context": [
            {"id": "a", "text": "Einstein was born in Ulm in 1879."},
            {"id": "b", "text": f"Noise {i}."},
        ],
        "reference_context_ids": ["a"],
    }
    for i in range(9)
]


def words(model, messages):  # the fake server's own count: whitespace words
    return sum(len(str(m.get("content") or "").split()) for m in messages)


def test_calls_and_tokens_match_a_real_run_without_calling_the_model():
    with FakeLLMServer() as server:
        judge = server.judge(**PRICE)
        scorers = [
            create_context_recall_scorer(judge),
            create_context_precision_scorer(judge, {"per_chunk": True}),
            create_id_context_recall_scorer(),
        ]
        estimate = estimate_run(ITEMS, scorers, token_counter=words)
        assert server.call_count == 0  # nothing was sent
        real = run_evals(ITEMS, scorers, progress=False)
    # 6 items have a ground truth: recall 2 calls, precision 2 (one per chunk)
    assert (
        estimate.scorers["context-recall"].calls
        == real.summary.scorers["context-recall"].model_calls
        == 12
    )
    assert (
        estimate.scorers["context-precision"].calls
        == real.summary.scorers["context-precision"].model_calls
        == 12
    )
    assert estimate.scorers["id-context-recall"].calls == 0
    assert estimate.prompt_tokens == real.summary.prompt_tokens  # the same prompts, the same count
    assert estimate.completion_tokens == real.summary.completion_tokens
    assert estimate.cost is not None and abs(estimate.cost - real.summary.cost) < 1e-12
    assert "24 model calls" in estimate.table() and "no model was called" in estimate.table()


@pytest.mark.slow
def test_litellm_counts_tokens_by_default_and_the_cli_estimates(tmp_path, capsys, monkeypatch):
    with FakeLLMServer() as server:
        judge = server.judge(**PRICE, requests_per_minute=60)
        estimate = estimate_run(ITEMS, [create_context_recall_scorer(judge)], latency_s=0.5)
    assert estimate.calls == 12 and estimate.prompt_tokens > 0
    assert estimate.wall_time_s >= 12.0  # 12 calls at 60 a minute
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ITEMS))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    args = ["run", str(data), "--scorer", "context-recall", "--model", "openai/gpt-4o-mini"]
    assert main([*args, "--estimate", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["calls"] == 12 and report["cost"] > 0  # litellm knows gpt-4o-mini's price
