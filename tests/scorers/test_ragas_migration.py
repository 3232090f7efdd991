"""What a Ragas user types first works: legacy names, distance_measure, evaluate()."""

from __future__ import annotations

import math

import pytest

from evals.testing import FakeLLMServer
from scorers import ConfigError
from scorers.ragas import (
    ContextPrecisionWithoutReference,
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
    for collections in (ContextRecall, ContextPrecisionWithoutReference):  # issue 56.13:
        with pytest.raises(ConfigError, match="needs an llm when it is built"):  # as Ragas'
            collections(llm=None)  # ValueError ("Collections metrics only support ...")


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


def test_ragas_module_paths_and_names_import():
    import importlib

    for path, names in {
        "scorers.ragas.metrics": ["LLMContextRecall", "ContextRecall", "context_recall"],
        "scorers.ragas.metrics.collections": ["ContextRecall", "ContextPrecision"],
        "scorers.ragas.dataset_schema": ["SingleTurnSample", "EvaluationDataset"],
        "scorers.ragas.llms": ["llm_factory"],
        "scorers.ragas.run_config": ["RunConfig"],
        "scorers.ragas.evaluation": ["evaluate", "aevaluate"],
    }.items():
        module = importlib.import_module(path)
        assert all(hasattr(module, name) for name in names), path
    from scorers.ragas import metrics

    assert metrics.context_recall.llm is None and metrics.context_recall.name == "context_recall"
    assert metrics.context_precision.name == "context_precision"


def test_foreign_samples_positional_ascore_and_evaluate_keywords():
    from pydantic import BaseModel

    class RagasSample(BaseModel):  # Ragas' own SingleTurnSample has more fields
        user_input: str | None = None
        retrieved_context_ids: list[str] | None = None
        reference_context_ids: list[str] | None = None
        rubrics: dict[str, str] | None = None

    sample = RagasSample(retrieved_context_ids=["a", "b"], reference_context_ids=["a"])
    assert IDBasedContextRecall().single_turn_score(sample) == 1.0
    assert IDBasedContextRecall().score(["a"], ["a", "b"]).value == 0.5  # positional
    from scorers.ragas import EvaluationDataset, RunConfig

    data = EvaluationDataset.from_list(
        [{"ids": ["a"], "gold": ["a", "b"]}, {"ids": [], "gold": ["a"]}]
    )
    result = evaluate(
        data,
        metrics=[IDBasedContextRecall()],
        column_map={"retrieved_context_ids": "ids", "reference_context_ids": "gold"},
        show_progress=False,
        batch_size=2,
        run_config=RunConfig(max_workers=2, timeout=30),
        raise_exceptions=False,
        experiment_name="x",
    )
    assert result["id_based_context_recall"] == [0.5, 0.0]  # an empty retrieval scores 0
    assert result.total_tokens().input_tokens == 0 and result.total_cost(1e-6) == 0.0
    with pytest.raises(ValueError, match="retrieved_context_ids is None"):
        evaluate(
            [{"reference_context_ids": ["a"]}], [IDBasedContextRecall()], raise_exceptions=True
        )
    with pytest.raises(TypeError, match="unexpected keyword"):
        evaluate(data, [IDBasedContextRecall()], no_such_option=1)


def test_the_judge_cache_is_off_unless_asked_and_tokens_are_counted():
    from types import SimpleNamespace

    from scorers.ragas import llm_factory

    with FakeLLMServer() as server:
        client = SimpleNamespace(base_url=server.url, api_key="sk-fake")
        llm = llm_factory("fake-judge", client=client, retry_backoff=0.01)
        for _ in range(2):
            result = evaluate([SAMPLE], metrics=[LLMContextRecall()], llm=llm)
        assert server.call_count == 4  # two calls per run, none from a cache (as Ragas)
        usage = result.total_tokens()
        assert usage.input_tokens > 0 and usage.output_tokens > 0
        assert (
            result.total_cost(1e-6, 2e-6) == usage.input_tokens * 1e-6 + usage.output_tokens * 2e-6
        )
        cached = llm_factory("fake-judge", client=client, cache=True, retry_backoff=0.01)
        assert cached.cache is not None


def test_distance_measure_set_after_construction_takes_effect():
    fields = {"retrieved_contexts": ["MARTHA"], "reference_contexts": ["MARHTA"]}
    metric = NonLLMContextRecall(threshold=0.9)
    assert metric.score(**fields).value == 0.0  # Levenshtein 0.667
    metric.distance_measure = DistanceMeasure.JARO  # Ragas' own way
    assert metric.score(**fields).value == 1.0  # Jaro 0.944
    metric.threshold = 0.95
    assert metric.score(**fields).value == 0.0


def test_ragas_rows_are_read_one_way_by_the_facade_and_the_loader():
    import pytest

    from evals import load_dataset
    from scorers import DatasetError
    from scorers.ragas import IDBasedContextRecall, evaluate, normalize_row

    row = {"question": "q", "contexts": ["c"], "ground_truths": ["a", "b"]}
    assert normalize_row(row, "ragas") == (
        {"user_input": "q", "retrieved_contexts": ["c"], "reference": "a\nb"},
        ["ground_truths: 2 answers joined, one per line"],
    )
    assert normalize_row(row)[0] == {"input": "q", "context": ["c"], "ground_truth": "a\nb"}
    item = load_dataset([row])[0]
    assert item.ground_truth == "a\nb" and item.metadata["ground_truths_note"].startswith("ground")
    for bad in ([], [1]):
        with pytest.raises(DatasetError, match="ground_truths' must be a non-empty list"):
            load_dataset([{"question": "q", "ground_truths": bad}])
        with pytest.raises(DatasetError, match="sample 0: field 'ground_truths'"):
            evaluate(
                [
                    {
                        "retrieved_context_ids": ["a"],
                        "reference_context_ids": ["a"],
                        "ground_truths": bad,
                    }
                ],
                metrics=[IDBasedContextRecall()],
                show_progress=False,
            )  # before: silently "" in the facade, an error in the loader
    with pytest.raises(DatasetError, match="both give 'user_input'"):
        normalize_row({"question": "a", "user_input": "b"}, "ragas")


def test_evaluate_gives_its_llm_to_04_metrics_built_without_one():
    """Issue 47 item 7: ``evaluate(dataset, metrics=[ContextRecall()], llm=llm)``, Ragas'
    most common pattern (``from ragas.metrics import ContextRecall``: the legacy metrics),
    raised ``ContextRecall needs llm=`` at construction. The collections metrics of
    ``ragas.metrics.collections`` refuse it, as Ragas 0.4.3's do (issue 56.13)."""
    from scorers.ragas import metrics as legacy

    samples = [{**SAMPLE, "response": "Paris."}]
    metrics = [legacy.ContextRecall(), legacy.ContextPrecision(), legacy.ContextUtilization()]
    with FakeLLMServer() as server:
        result = evaluate(samples, metrics=metrics, llm=server.judge())
    assert set(result.means) == {m.name for m in metrics}
    assert result["context_recall"] == [1.0]
    with pytest.raises(ConfigError, match="has no llm: pass evaluate"):
        evaluate(samples, metrics=[legacy.ContextRecall()])
    with pytest.raises(ConfigError, match="needs an llm when it is built"):
        evaluate(samples, metrics=[ContextRecall()], llm=server.judge())


def test_blank_and_whitespace_texts_give_no_number_and_only_empty_is_refused():
    """Issue 47 items 8-9: Ragas 0.4 refuses only ``""``; whitespace gives NaN for recall
    (as Ragas); a blank reference or response gives LLM precision NaN with a reason
    (Ragas asks its model about nothing; the facade never scores a question not asked)."""
    from scorers.ragas import ContextPrecision, ContextUtilization

    with FakeLLMServer() as server:
        judge = server.judge()
        recall = ContextRecall(llm=judge).score(
            user_input="q", retrieved_contexts=["Paris is in France."], reference=" \n"
        )
        assert math.isnan(recall.value)
        precision = ContextPrecision(llm=judge).score(
            user_input="q", reference="  ", retrieved_contexts=["Paris is in France."]
        )
        used = ContextUtilization(llm=judge).score(
            user_input="q", response="  ", retrieved_contexts=["Paris is in France."]
        )
        legacy = LLMContextRecall(llm=judge)
        assert server.call_count == 0
    assert math.isnan(precision.value) and "no question was asked" in precision.reason
    assert math.isnan(used.value) and "The response is blank" in used.reason
    with pytest.raises(ValueError, match="reference is empty"):
        ContextRecall(llm=judge).score(user_input="q", retrieved_contexts=["x"], reference="")
    assert legacy.name == "context_recall"
