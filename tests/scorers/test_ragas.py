"""The Ragas facade reproduces Ragas 0.4's documented values, quirks included."""

from __future__ import annotations

import math

import openai
import pytest

from evals.testing import FakeLLMServer
from scorers import ConfigError, Judge
from scorers.ragas import (
    ContextPrecision,
    ContextPrecisionWithoutReference,
    ContextPrecisionWithReference,
    ContextRecall,
    ContextUtilization,
    IDBasedContextPrecision,
    IDBasedContextRecall,
    LLMContextRecall,
    MetricResult,
    NonLLMContextPrecisionWithReference,
    NonLLMContextRecall,
    SingleTurnSample,
    llm_factory,
)

PARIS = "Paris is the capital of France."
EIFFEL = "The Eiffel Tower is one of the most famous landmarks in Paris."


def test_id_based_documented_values():
    recall = IDBasedContextRecall().score(
        retrieved_context_ids=["doc_1", "doc_2", "doc_3"],
        reference_context_ids=["doc_1", "doc_4", "doc_5", "doc_6"],
    )
    assert recall.value == 0.25 and float(recall) == 0.25 and recall == 0.25
    precision = IDBasedContextPrecision().score(
        retrieved_context_ids=["doc_1", "doc_2", "doc_3", "doc_4"],
        reference_context_ids=["doc_1", "doc_4"],
    )
    assert precision.value == 0.5
    # str(id) sets: ints match strings; precision deduplicates and ignores order
    dup = IDBasedContextPrecision().score(
        retrieved_context_ids=[4, "1", 1, "4", 9], reference_context_ids=["1", "4"]
    )
    assert dup.value == 2 / 3


def test_non_llm_documented_values_and_quirks():
    sample = SingleTurnSample(retrieved_contexts=[PARIS], reference_contexts=[PARIS, EIFFEL])
    assert NonLLMContextRecall().single_turn_score(sample) == 0.5
    one_relevant = SingleTurnSample(
        retrieved_contexts=["The Eiffel Tower is located in Paris."],
        reference_contexts=[PARIS, EIFFEL],
    )
    assert NonLLMContextPrecisionWithReference().single_turn_score(one_relevant) == 0.9999999999
    # similarity exactly 0.5: Ragas' recall needs > 0.5, its precision >= 0.5
    at_threshold = {"retrieved_contexts": ["abef"], "reference_contexts": ["abcd"]}
    assert NonLLMContextRecall().score(**at_threshold).value == 0.0
    assert NonLLMContextPrecisionWithReference().score(**at_threshold).value == 1 / (1 + 1e-10)
    result = NonLLMContextRecall().score(**at_threshold)
    assert result.native.score == 1.0  # the native scorer counts >=
    assert "strictly above 0.5" in result.reason
    # no normalisation: case matters
    assert (
        NonLLMContextRecall(threshold=0.99)
        .score(retrieved_contexts=["PARIS"], reference_contexts=["paris"])
        .value
        == 0.0
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"retrieved_contexts": [], "reference_contexts": ["a"]}, "retrieved_contexts is empty"),
        ({"retrieved_contexts": ["a"], "reference_contexts": None}, "reference_contexts is None"),
        ({"retrieved_contexts": "a", "reference_contexts": ["a"]}, "must be a list"),
    ],
)
def test_clear_value_errors_where_ragas_crashes(kwargs, message):
    with pytest.raises(ValueError, match=message):
        NonLLMContextRecall().score(**kwargs)
    with pytest.raises(TypeError, match="unexpected"):
        NonLLMContextRecall().score(retrieved_contexts=["a"], reference_contexts=["a"], x=1)


def test_llm_metrics_through_the_fake_server():
    with FakeLLMServer() as server:
        judge = server.judge()
        recall = ContextRecall(llm=judge).score(
            user_input="Where is the Eiffel Tower located?",
            retrieved_contexts=["The Eiffel Tower is located in Paris."],
            reference="The Eiffel Tower is located in Paris.",
        )
        assert recall.value == 1.0 and "1 of 1" in recall.reason
        for metric in (ContextPrecision(llm=judge), ContextPrecisionWithReference(llm=judge)):
            result = metric.score(
                user_input="Where is the Eiffel Tower located?",
                reference="The Eiffel Tower is located in Paris.",
                retrieved_contexts=["The Eiffel Tower is located in Paris.", "Berlin is big."],
            )
            assert result.value == 0.9999999999  # one relevant chunk, Ragas' + 1e-10
            assert result.native.score == 1.0
        for metric in (ContextUtilization(llm=judge), ContextPrecisionWithoutReference(llm=judge)):
            result = metric.score(
                user_input="Where is the Eiffel Tower located?",
                response="The Eiffel Tower is located in Paris.",
                retrieved_contexts=["Berlin is big.", "The Eiffel Tower is located in Paris."],
            )
            assert result.value == pytest.approx(0.5 / (1 + 1e-10), abs=0)
        server.script({"claims": []})
        nan = ContextRecall(llm=judge).score(
            user_input="q", retrieved_contexts=["x"], reference="Hmm."
        )
        assert math.isnan(nan.value)  # zero claims -> NaN, as in Ragas


def test_llm_factory_with_an_openai_client_and_legacy_sample():
    with FakeLLMServer() as server:
        client = openai.AsyncOpenAI(base_url=server.url, api_key="sk-from-client")
        llm = llm_factory("gpt-4o-mini", client=client, cache=False)
        assert isinstance(llm, Judge) and llm.model == "openai/gpt-4o-mini"
        sample = SingleTurnSample(
            user_input="Where is the Eiffel Tower located?",
            retrieved_contexts=["The Eiffel Tower is located in Paris."],
            reference="The Eiffel Tower is located in Paris.",
        )
        assert ContextRecall(llm=llm).single_turn_score(sample) == 1.0
        assert server.requests[0].headers["authorization"] == "Bearer sk-from-client"
    assert llm_factory("gpt-4o-mini", cache=False).model == "openai/gpt-4o-mini"
    assert llm_factory("anthropic/claude-3-5-haiku", cache=False).model.startswith("anthropic/")
    with pytest.raises(ConfigError, match="needs an llm when it is built"):
        ContextRecall()  # a collections metric, as Ragas 0.4.3's ValueError
    with pytest.raises(ConfigError, match="has no llm"):
        LLMContextRecall().single_turn_score(sample)  # evaluate(llm=...) may give it


@pytest.mark.anyio
async def test_async_batch_score_with_bounded_concurrency_and_per_item_errors():
    metric = IDBasedContextRecall()
    results = await metric.abatch_score(
        [
            {"retrieved_context_ids": ["a"], "reference_context_ids": ["a", "b"]},
            {"retrieved_context_ids": None, "reference_context_ids": ["a"]},
            {"retrieved_context_ids": ["b"], "reference_context_ids": ["b"]},
        ],
        concurrency=2,
    )
    assert [r.value for r in results[::2]] == [0.5, 1.0]
    assert math.isnan(results[1].value) and "retrieved_context_ids is None" in results[1].error
    assert isinstance(results[0], MetricResult) and results[0] < 1 and results[2] >= 1
    assert (
        await metric.single_turn_ascore(
            {"retrieved_context_ids": [1], "reference_context_ids": ["1"]}
        )
        == 1.0
    )


def test_context_precision_survives_a_judge_that_numbers_each_chunk_zero():
    """Ragas' ContextPrecision judges chunk by chunk; small models answer index 0."""
    import json

    from scorers import ScriptedTransport

    def judge_chunk(request) -> str:
        useful = "Paris" in request.prompt.split("<context>")[1]
        verdict = {"context_index": 0, "verdict": "yes" if useful else "no", "reason": "r"}
        return json.dumps({"verdicts": [verdict]})

    transport = ScriptedTransport(judge_chunk)
    judge = Judge("scripted/judge", transport=transport, cache=False)
    result = ContextPrecision(llm=judge).score(
        user_input="Where is the Eiffel Tower located?",
        reference="The Eiffel Tower is located in Paris.",
        retrieved_contexts=["Berlin is big.", "The Eiffel Tower is in Paris.", "Rome."],
    )
    assert result.native.score == 0.5 and len(transport.requests) == 3


def test_evaluate_runs_every_metric_in_one_engine_run_so_their_calls_interleave():
    from scorers.ragas import LLMContextPrecisionWithReference, LLMContextRecall, evaluate

    samples = [
        {
            "user_input": f"Where was Einstein born? ({i})",
            "reference": "Einstein was born in Ulm.",
            "retrieved_contexts": ["Einstein was born in Ulm in 1879.", f"Noise {i}."],
        }
        for i in range(12)
    ]
    with FakeLLMServer(latency=0.02) as server:
        judge = server.judge()
        metrics = [LLMContextRecall(llm=judge), LLMContextPrecisionWithReference(llm=judge)]
        result = evaluate(samples, metrics=metrics, concurrency=2, show_progress=False)
        steps = [r.body["messages"][-1]["content"] for r in server.requests]
    recall = [i for i, text in enumerate(steps) if "claim" in text.lower()]
    precision = [i for i, text in enumerate(steps) if i not in recall]
    assert recall and precision
    assert min(precision) < max(recall)  # before: every recall call came first
    assert result["context_recall"] == [1.0] * 12 and len(result.scores) == 12
    failed = evaluate(
        [{"user_input": "q", "reference": None, "retrieved_contexts": ["x"]}],
        metrics=[LLMContextRecall(llm=judge)],
        show_progress=False,
    )
    assert math.isnan(failed.scores[0]["context_recall"])  # a bad sample is NaN, not a crash
