"""Context relevance (Mastra's createContextRelevanceScorerLLM): the formula, its
options, the edges, judges that misbehave, the reason, and where the scorer goes."""

from __future__ import annotations

import json

import pytest

from evals.testing import FakeLLMServer
from scorers import (
    ConfigError,
    create_context_relevance_scorer,
    scorer_by_id,
    scorer_ids,
)

Q = "Where was Einstein born?"
CHUNKS = ["Einstein was born in Ulm.", "Paris is in France.", "Einstein liked the violin."]


def verdicts(*levels, used=None, missing=()):
    out = []
    for i, level in enumerate(levels):
        v = {"context_index": i, "relevance": level, "reason": f"r{i}"}
        if used is not None:
            v["used"] = used[i]
        out.append(v)
    return {"verdicts": out, "missing": list(missing)}


def test_the_formula_in_mastra_s_order(fake_llm_server: FakeLLMServer):
    fake_llm_server.script(verdicts("high", "none", "medium", used=[False, False, True],
                                    missing=["the year"]))  # fmt: skip
    scorer = create_context_relevance_scorer(
        fake_llm_server.judge(), {"context": CHUNKS, "scale": 10}
    )
    result = scorer.run(input=Q, output="In Ulm.")
    base = (1.0 + 0.0 + 0.7) / 3
    assert result.score == max(0.0, base - 1 * 0.1 - min(1 * 0.15, 0.5)) * 10
    assert result.status == "scored" and fake_llm_server.call_count == 1
    assert "Penalty 0.1: 1 highly relevant chunk(s) not used" in result.reason
    assert (
        "Penalty 0.15: 1 piece(s) of information" in result.reason and "the year" in result.reason
    )
    assert '#1 high, not used: "Einstein was born in Ulm."' in result.reason
    assert "#2 none, not used" in result.reason and "#3 medium, used" in result.reason
    prompt = fake_llm_server.requests[0].prompt
    assert "<answer>" in prompt and '"used": true or false' in prompt


def test_penalties_take_mastra_s_names_and_cap(fake_llm_server: FakeLLMServer):
    fake_llm_server.script(verdicts("high", "high", "low", used=[False, False, False],
                                    missing=["a", "b", "c", "d"]))  # fmt: skip
    options = {"context": CHUNKS, "penalties": {"unusedHighRelevanceContext": 0.05,
                                                "missing_context_per_item": 0.2,
                                                "maxMissingContextPenalty": 0.3}}  # fmt: skip
    result = create_context_relevance_scorer(fake_llm_server.judge(), options).run(
        input=Q, output="Something."
    )
    assert result.score == max(0.0, (1 + 1 + 0.3) / 3 - 2 * 0.05 - min(4 * 0.2, 0.3))
    with pytest.raises(ConfigError, match="penalties"):
        create_context_relevance_scorer("openai/x", {"penalties": {"unused": 0.1}})
    with pytest.raises(ConfigError):
        create_context_relevance_scorer("openai/x", {"penalties": {"missing_context_per_item": 2}})


def test_a_retriever_alone_is_not_asked_about_use(fake_llm_server: FakeLLMServer):
    fake_llm_server.script(verdicts("high", "high", "none"))
    scorer = create_context_relevance_scorer(fake_llm_server.judge(), {"context": CHUNKS})
    result = scorer.run(input=Q)  # no output: a retriever scored on its own
    assert result.score == pytest.approx(2 / 3) and result.score == (1 + 1 + 0) / 3
    prompt = fake_llm_server.requests[0].prompt
    assert "<answer>" not in prompt and '"used": true or false' not in prompt
    assert "not used" not in result.reason


def test_edges_cost_no_call(fake_llm_server: FakeLLMServer):
    judge = fake_llm_server.judge()
    for question in (None, "", "   "):
        skipped = create_context_relevance_scorer(judge, {"context": CHUNKS}).run(input=question)
        assert (skipped.status, skipped.score) == ("skipped", 0.0)
        assert "no question" in skipped.reason
    empty = create_context_relevance_scorer(judge, {"context_extractor": lambda i, o: []})
    result = empty.run(input=Q, output="x")
    assert (result.status, result.score) == ("scored", 0.0)
    assert "no context was retrieved" in result.reason
    assert fake_llm_server.call_count == 0
    with pytest.raises(ConfigError):
        create_context_relevance_scorer(judge, {"context": []})


def test_a_judge_that_drops_use_or_renumbers_is_repaired(fake_llm_server: FakeLLMServer):
    fake_llm_server.script(
        verdicts("high", "none", "low"),  # "used" left out although there is a response
        "Here you go: " + json.dumps(verdicts("high", "none", "low", used=[True, False, False])),
    )
    scorer = create_context_relevance_scorer(fake_llm_server.judge(), {"context": CHUNKS})
    assert scorer.run(input=Q, output="In Ulm.").score == pytest.approx((1 + 0 + 0.3) / 3)
    assert fake_llm_server.call_count == 2
    assert 'give "used"' in fake_llm_server.requests[1].prompt
    fake_llm_server.reset()
    twice = verdicts("high", "none", "low", used=[True, False, False])
    twice["verdicts"][2]["context_index"] = 1  # a repeated index, index 2 missing
    fake_llm_server.script(twice, verdicts("Irrelevant", "None", "LOW", used=[True, False, False]))
    result = scorer.run(input=Q, output="In Ulm.")
    assert result.score == pytest.approx(0.3 / 3)  # levels read case-insensitively
    assert "missing context_index [2]" in fake_llm_server.requests[1].prompt


def test_reasons_in_the_question_s_language(fake_llm_server: FakeLLMServer):
    fake_llm_server.script(verdicts("high", used=[True]))
    scorer = create_context_relevance_scorer(
        fake_llm_server.judge(), {"context": ["아인슈타인은 울름에서 태어났다."]}
    )
    result = scorer.run(input="아인슈타인은 어디에서 태어났나요?", output="울름.")
    assert result.reason.startswith("컨텍스트 관련성 1") and "높음" in result.reason
    assert "Korean" in fake_llm_server.requests[0].prompt


def test_registered_listed_cached_and_run_by_id(tmp_path, monkeypatch):
    assert "context-relevance" in scorer_ids()
    monkeypatch.setenv("SCOREKIT_CACHE_DIR", str(tmp_path))
    with FakeLLMServer() as server:
        scorer = scorer_by_id("context-relevance", server.judge(cache=True), {"context": CHUNKS})
        first = scorer.run(input=Q, output="Einstein was born in Ulm.")
        again = scorer.run(input=Q, output="Einstein was born in Ulm.")
        assert server.call_count == 1 and again.judge_calls[0].cached
    assert first.score == again.score and first.score > 0
    assert first.judge_calls[0].prompt_tokens > 0
