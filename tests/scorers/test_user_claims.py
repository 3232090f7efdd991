"""User-given claims: context recall judges them and skips the extraction call."""

from __future__ import annotations

import pytest

from evals import load_dataset, run_evals
from evals.testing import FakeLLMServer
from scorers import ConfigError, create_context_recall_scorer

CONTEXT = ["Einstein was born in Ulm in 1879.", "He developed the theory of relativity."]


def test_given_claims_skip_extraction_and_need_no_ground_truth():
    with FakeLLMServer() as server:
        recall = create_context_recall_scorer(server.judge())
        result = recall.run(
            context=CONTEXT,
            claims=["Einstein was born in Ulm.", "Einstein played the violin in concerts."],
        )
        assert server.call_count == 1  # only the verdicts
        assert [
            r.body["messages"][-1]["content"].count("<claim index=") for r in server.requests
        ] == [2]
    assert result.status == "scored" and result.score == 0.5
    assert result.details["claims"] is None  # nothing was extracted
    assert result.details["claims_used"] == {
        "claims": ["Einstein was born in Ulm.", "Einstein played the violin in concerts."]
    }
    assert 'Missing:\n  [1] "Einstein played the violin in concerts."' in result.reason


def test_claims_win_over_the_ground_truth_and_travel_with_items():
    rows = [
        {
            "input": "q",
            "ground_truth": "Something else entirely.",
            "claims": ["Einstein was born in Ulm."],
            "context": CONTEXT,
        }
    ]
    assert load_dataset(rows)[0].claims == ["Einstein was born in Ulm."]
    with FakeLLMServer() as server:
        result = run_evals(rows, [create_context_recall_scorer(server.judge())], progress=False)
        assert server.call_count == 1
    assert result.scores == {"context-recall": 1.0}


def test_empty_or_blank_claims():
    with FakeLLMServer() as server:
        recall = create_context_recall_scorer(server.judge())
        empty = recall.run(context=CONTEXT, claims=[])
        assert empty.status == "skipped" and "empty list of claims" in empty.reason
        assert server.call_count == 0
    with pytest.raises(ConfigError, match="claims must be non-empty strings"):
        recall.run(context=CONTEXT, claims=["  "])
