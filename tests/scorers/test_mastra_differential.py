"""Context relevance against @mastra/evals 1.10's createContextRelevanceScorerLLM, on the
values Mastra itself computed (benchmarks/differential/mastra_diff.py ran it under Node
on the same judge answers and stored them in data/mastra110.json)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

from evals.testing import FakeLLMServer
from scorers import create_context_relevance_scorer

FIXTURE = json.loads((Path(__file__).parent / "data/mastra110.json").read_text())
CASES = list(zip(FIXTURE["cases"], FIXTURE["results"], strict=True))


def mastra_round(value: float) -> float:
    """JavaScript's Math.round((value + Number.EPSILON) * 100) / 100, as Mastra rounds."""
    return math.floor((value + sys.float_info.epsilon) * 100 + 0.5) / 100


@pytest.fixture(scope="module")
def judge():
    with FakeLLMServer() as server:  # the rule judge: the rule Mastra's side was answered by
        yield server.judge(cache=False)


def ours(judge, case):
    options = {"context": case["context"], "scale": float(case["scale"])}
    if case.get("penalties"):
        options["penalties"] = case["penalties"]
    scorer = create_context_relevance_scorer(judge, options)
    return scorer.run(input=case["question"], output=case["response"] or None)


def test_the_fixture_is_mastra_s_and_large_enough():
    assert FIXTURE["mastra"].startswith("1.10.")
    answered = [c for c, _ in CASES if c["response"]]
    assert len(answered) >= 100


@pytest.mark.parametrize("k", range(len(CASES)))
def test_the_same_verdicts_give_mastra_s_score(judge, k):
    case, theirs = CASES[k]
    result = ours(judge, case)
    verdicts = result.details["verdicts"]
    evaluations = theirs["analyze"]["evaluations"]
    assert [v["relevance"] for v in verdicts["verdicts"]] == [
        e["relevanceLevel"] for e in evaluations
    ]
    assert verdicts["missing"] == theirs["analyze"]["missingContext"]
    if case["response"]:
        assert [v["used"] for v in verdicts["verdicts"]] == [e["wasUsed"] for e in evaluations]
        # Mastra rounds its score to two decimals; scorekit keeps it exact (docs/migrating.md)
        assert mastra_round(result.score) == theirs["score"], (result.score, theirs["score"])
    else:  # a retriever alone: no usage question, no usage penalty (docs/migrating.md)
        unused_high = sum(e["relevanceLevel"] == "high" for e in evaluations)
        assert result.score > theirs["score"] and unused_high > 0
        levels = {"high": 1.0, "medium": 0.7, "low": 0.3, "none": 0.0}
        base = sum(levels[e["relevanceLevel"]] for e in evaluations) / len(evaluations)
        mastra = max(0.0, base - unused_high * 0.1 - min(len(verdicts["missing"]) * 0.15, 0.5))
        assert mastra_round(mastra * case["scale"]) == theirs["score"]
