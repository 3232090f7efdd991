"""What a Ragas user types first works: legacy names, distance_measure, evaluate()."""

from __future__ import annotations

import math

import pytest

from evals.testing import FakeLLMServer
from scorers import ConfigError
from scorers.ragas import (
    ContextRecall,
    DistanceMeasure,
    EvaluationResult,
    IDBasedContextRecall,
    LLMContextPrecisionWithoutReference,
    LLMContextPrecisionWithReference,
    LLMContextRecall,
    NonLLMContextPrecisionWithReference,
    NonLLMContextRecall,
    SingleTurnSample,
    evaluate,
)

SAMPLE = {
    "user_input": "Where is the Eiffel Tower located?",
    "retrieved_contexts": ["The Eiffel Tower is located in Paris."],
    "reference": "The Eiffel Tower is located in Paris.",
    "response": "It is in Paris.",
}


@pytest.mark.anyio
async def test_legacy_class_names_score_as_the_current_ones():
    with FakeLLMServer() as server:
        judge = server.judge()
        sample = SingleTurnSample(**SAMPLE)
        assert await LLMContextRecall(llm=judge).single_turn_ascore(sample) == 1.0
        with_ref = LLMContextPrecisionWithReference(llm=judge)
        assert await with_ref.single_turn_ascore(sample) == 0.9999999999  # Ragas' + 1e-10
        without = LLMContextPrecisionWithoutReference(llm=judge)
        assert await without.single_turn_ascore(sample) == 0.9999999999
    assert with_ref.name == "llm_context_precision_with_reference"
    assert LLMContextRecall().name == "context_recall"  # its llm may come from evaluate()
    with pytest.raises(ConfigError, match="has no llm"):
        LLMContextRecall().score(**{k: SAMPLE[k] for k in LLMContextRecall.fields})
    with pytest.raises(ConfigError, match="needs llm="):
        ContextRecall()  # the 0.4 names still need it up front


def test_distance_measure_picks_the_string_similarity():
    fields = {"retrieved_contexts": ["MARTHA"], "reference_contexts": ["MARHTA"]}
    # Levenshtein and Hamming: 1 - 2/6 = 0.667; Jaro-Winkler: 0.961
    for measure, expected in [
        (DistanceMeasure.LEVENSHTEIN, 0.0),
        ("hamming", 0.0),
        (DistanceMeasure.JARO, 1.0),
        ("jaro_winkler", 1.0),
    ]:
        metric = NonLLMContextRecall(threshold=0.9, distance_measure=measure)
        assert metric.score(**fields).value == expected, measure
    precision = NonLLMContextPrecisionWithReference(
        threshold=0.9, distance_measure=DistanceMeasure.JARO_WINKLER
    )
    assert precision.score(**fields).value == 0.9999999999
    with pytest.raises(ConfigError, match="distance_measure must be one of"):
        NonLLMContextRecall(distance_measure="cosine")


def test_evaluate_has_ragas_shape_and_takes_the_llm_for_legacy_metrics():
    samples = [
        SAMPLE,
        {**SAMPLE, "retrieved_contexts": ["Rome is in Italy."], "reference": "Paris is in France."},
        {**SAMPLE, "retrieved_contexts": None},  # fails alone: NaN and its error
    ]
    with FakeLLMServer() as server:
        result = evaluate(samples, metrics=[LLMContextRecall()], llm=server.judge())
    assert isinstance(result, EvaluationResult)
    assert result["context_recall"][:2] == [1.0, 0.0] and math.isnan(result["context_recall"][2])
    assert result.means == {"context_recall": 0.5}
    assert repr(result) == "{'context_recall': 0.5000}"
    assert result.scores[0] == {"context_recall": 1.0}
    assert "retrieved_contexts is None" in result.errors()["context_recall"][0][1]
    frame = result.to_pandas()
    assert list(frame.columns) == [*SAMPLE, "context_recall"] and len(frame) == 3


def test_evaluate_reads_ragas_01_columns_and_refuses_a_datasetdict():
    legacy = [
        {
            "question": "q",
            "contexts": ["a", "b"],
            "answer": "x",
            "ground_truths": ["one", "two"],
        }
    ]
    metric = NonLLMContextRecall()
    result = evaluate(legacy, metrics=[IDBasedContextRecall(), metric])
    assert result.samples[0] == {
        "user_input": "q",
        "retrieved_contexts": ["a", "b"],
        "response": "x",
        "reference": "one\ntwo",
    }
    assert math.isnan(result["id_based_context_recall"][0])  # no ids in these samples
    datasets = pytest.importorskip("datasets")
    split = datasets.Dataset.from_list([SAMPLE])
    with pytest.raises(ConfigError, match=r"DatasetDict with splits \['train', 'test'\]"):
        evaluate(datasets.DatasetDict({"train": split, "test": split}), metrics=[metric])
    with pytest.raises(ConfigError, match=r"scorers\.ragas metrics"):
        evaluate([SAMPLE], metrics=["context_recall"])
