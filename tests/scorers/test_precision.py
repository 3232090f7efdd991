from __future__ import annotations

import pytest

from evals.testing import FakeLLMServer
from scorers import (
    average_precision,
    create_context_precision_scorer,
    create_context_utilization_scorer,
)

GT = "Einstein was born in Ulm in 1879."
USEFUL = "Albert Einstein was born in Ulm in 1879."
NOISE = "The Eiffel Tower is in Paris."


def test_average_precision_definition():
    assert average_precision([True, False, True]) == (1 + 2 / 3) / 2
    assert average_precision([False, True]) == 0.5
    assert average_precision([True, True, True]) == 1.0
    assert average_precision([False, False]) == 0.0
    assert average_precision([]) == 0.0


@pytest.mark.parametrize("per_chunk", [False, True])
@pytest.mark.parametrize(
    ("context", "expected"),
    [
        ([USEFUL, NOISE, USEFUL], (1 + 2 / 3) / 2),
        ([NOISE, USEFUL], 0.5),
        ([USEFUL, USEFUL], 1.0),
        ([NOISE, NOISE], 0.0),
    ],
)
def test_exact_precision(fake_llm_server: FakeLLMServer, per_chunk, context, expected):
    scorer = create_context_precision_scorer(
        fake_llm_server.judge(), {"context": context, "per_chunk": per_chunk}
    )
    result = scorer.run(input="Where was Einstein born?", ground_truth=GT)
    assert result.status == "scored"
    assert result.score == expected
    assert fake_llm_server.call_count == (len(context) if per_chunk else 1)
    prompt = fake_llm_server.requests[0].prompt
    assert "<ground_truth>" in prompt and "<answer>" not in prompt


def test_precision_scale_reason_and_matching_by_index(fake_llm_server: FakeLLMServer):
    fake_llm_server.script(
        {
            "verdicts": [  # out of order: matched by context_index, not position
                {"context_index": 2, "verdict": "yes", "reason": "names the city"},
                {"context_index": 0, "verdict": "yes", "reason": "states the birth"},
                {"context_index": 1, "verdict": "no", "reason": "about Paris"},
            ]
        }
    )
    scorer = create_context_precision_scorer(
        fake_llm_server.judge(), {"context": [USEFUL, NOISE, "Ulm"], "scale": 6}
    )
    result = scorer.run(ground_truth=GT)
    assert result.score == 6 * (1 + 2 / 3) / 2
    assert "2 of 3 retrieved chunks were useful for ground truth, at ranks [1, 3]" in result.reason
    assert "#2 not useful" in result.reason and "about Paris" in result.reason


def test_precision_edge_cases(fake_llm_server: FakeLLMServer):
    judge = fake_llm_server.judge()
    skipped = create_context_precision_scorer(judge, {"context": [USEFUL]}).run(ground_truth=None)
    assert (skipped.status, skipped.score) == ("skipped", 0.0)
    empty = create_context_precision_scorer(judge, {"context_extractor": lambda i, o: []})
    result = empty.run(ground_truth=GT)
    assert (result.status, result.score) == ("scored", 0.0)
    assert fake_llm_server.call_count == 0


def test_wrong_chunk_verdict_count_is_repaired(fake_llm_server: FakeLLMServer):
    fake_llm_server.script({"verdicts": [{"context_index": 0, "verdict": "yes"}]})
    scorer = create_context_precision_scorer(fake_llm_server.judge(), {"context": [NOISE, USEFUL]})
    assert scorer.run(ground_truth=GT).score == 0.5
    assert fake_llm_server.call_count == 2
    assert "missing context_index [1]" in fake_llm_server.requests[1].prompt


def test_utilization_is_judged_against_the_response(fake_llm_server: FakeLLMServer):
    scorer = create_context_utilization_scorer(
        fake_llm_server.judge(), {"context": [NOISE, USEFUL]}
    )
    result = scorer.run(input="q", output="Einstein was born in Ulm in 1879.", ground_truth="x")
    assert result.scorer_id == "context-utilization"
    assert result.score == 0.5
    prompt = fake_llm_server.requests[0].prompt
    assert "<answer>" in prompt and "<ground_truth>" not in prompt
    history = [{"role": "user", "content": "q"}, {"role": "assistant", "content": GT}]
    assert scorer.run(output=history).score == 0.5
    for missing in (None, "", []):
        result = scorer.run(input="q", output=missing)
        assert (result.status, result.score) == ("skipped", 0.0)
    assert fake_llm_server.call_count == 2
