"""samples=k: the verdict step sampled k times, the majority kept, the noise reported."""

from __future__ import annotations

import pytest

from evals import run_evals
from evals.testing import FakeLLMServer
from scorers import (
    ConfigError,
    JudgeCache,
    create_context_precision_scorer,
    create_context_recall_scorer,
)

CONTEXT = ["Einstein was born in Ulm in 1879.", "Paris is in France."]


def verdicts(*answers: str) -> dict:
    return {
        "verdicts": [{"claim_index": i, "verdict": a, "reason": "r"} for i, a in enumerate(answers)]
    }


def test_majority_agreement_and_sample_scores(tmp_path):
    cache = JudgeCache(tmp_path / "c.sqlite")
    with FakeLLMServer() as server:
        server.script(
            {"claims": ["A", "B"]},
            verdicts("yes", "yes"),
            verdicts("yes", "no"),
            verdicts("no", "no"),
        )
        recall = create_context_recall_scorer(server.judge(cache=cache), {"samples": 3})
        result = recall.run(ground_truth="A. B.", context=CONTEXT)
        assert server.call_count == 4  # claims once, verdicts three times
        again = recall.run(ground_truth="A. B.", context=CONTEXT)
        assert server.call_count == 4 and all(c.cached for c in again.judge_calls)
    assert result.score == 0.5  # claim 0: 2 of 3 yes; claim 1: 1 of 3
    sampling = result.details["sampling"]
    assert sampling["samples"] == 3 and sampling["agreement"] == pytest.approx(2 / 3)
    assert sampling["per_verdict_agreement"] == pytest.approx([2 / 3, 2 / 3])
    assert sorted(sampling["sample_scores"]) == [0.0, 0.5, 1.0] and sampling["spread"] == 1.0
    assert len(result.details["samples"]["verdicts"]) == 3
    assert again.score == result.score


def test_the_run_summary_reports_judge_agreement_and_a_wider_interval():
    with FakeLLMServer() as server:
        server.script(
            {"claims": ["A", "B"]},
            verdicts("yes", "yes"),
            verdicts("yes", "no"),
            verdicts("no", "no"),
            {"claims": ["C"]},
            verdicts("yes"),
            verdicts("yes"),
            verdicts("yes"),
            {"claims": ["D"]},
            verdicts("no"),
            verdicts("yes"),
            verdicts("no"),
        )
        recall = create_context_recall_scorer(server.judge(), {"samples": 3})
        rows = [{"input": f"q{i}", "ground_truth": "x.", "context": CONTEXT} for i in range(3)]
        result = run_evals(rows, [recall], concurrency=1, progress=False)
    s = result.summary.scorers["context-recall"]
    assert s.judge_agreement == pytest.approx((2 / 3 + 1 + 2 / 3) / 3)
    assert s.ci_low_judge is not None and s.ci_low_judge <= s.mean <= s.ci_high_judge
    assert "judge agreement 0.778 across samples" in result.table()


def test_precision_samples_per_chunk_too():
    with FakeLLMServer() as server:
        precision = create_context_precision_scorer(
            server.judge(), {"samples": 3, "per_chunk": True}
        )
        result = precision.run(ground_truth="Einstein was born in Ulm.", context=CONTEXT)
        assert server.call_count == 6  # 2 chunks × 3 samples
    assert result.score == 1.0 and result.details["sampling"]["agreement"] == 1.0


def test_samples_must_be_odd():
    with pytest.raises(ConfigError, match="samples must be odd"):
        create_context_recall_scorer("openai/m", {"samples": 2})
    with pytest.raises(ConfigError, match="greater than or equal to 1"):
        create_context_precision_scorer("openai/m", {"samples": 0})
