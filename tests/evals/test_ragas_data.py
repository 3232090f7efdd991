"""Ragas users' data as they have it: 0.1 columns, pandas CSVs, Parquet, DatasetDicts;
facade metrics in run_evals; a wide DataFrame."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals import load_dataset, run_evals
from scorers import DatasetError
from scorers.ragas import IDBasedContextRecall, NonLLMContextPrecisionWithReference

pandas = pytest.importorskip("pandas")

ROWS = [
    {
        "user_input": "Where is the Eiffel Tower?",
        "retrieved_contexts": ["The Eiffel Tower is in Paris.", "Rome's food"],
        "reference_contexts": ["The Eiffel Tower is in Paris."],
        "retrieved_context_ids": ["d1", "d2"],
        "reference_context_ids": ["d1", "d3"],
    },
    {
        "question": "What's Rome's river?",  # Ragas 0.1 names
        "contexts": ["The Tiber runs through Rome."],
        "ground_truths": ["The Tiber.", "Il Tevere."],
    },
]


def test_ground_truths_are_joined_with_a_note():
    _, second = load_dataset(ROWS)
    assert (
        second.input == "What's Rome's river?" and second.ground_truth == "The Tiber.\nIl Tevere."
    )
    assert second.metadata == {
        "ground_truths_note": "ground_truths: 2 answers joined, one per line"
    }
    assert load_dataset([{"input": "q", "ground_truths": ["only"]}])[0].ground_truth == "only"
    with pytest.raises(DatasetError, match="ground_truths' must be a non-empty list"):
        load_dataset([{"input": "q", "ground_truths": []}])
    with pytest.raises(DatasetError, match="'ground_truth' and 'ground_truths' both give"):
        load_dataset([{"input": "q", "ground_truth": "a", "ground_truths": ["b"]}])


def test_a_csv_written_by_pandas_reads_its_python_lists(tmp_path: Path):
    path = tmp_path / "ragas.csv"
    pandas.DataFrame(ROWS).to_csv(path, index=False)
    assert "['The Eiffel Tower is in Paris.', " in path.read_text()  # a Python repr
    first, second = load_dataset(path)
    assert [c.text for c in first.context] == ["The Eiffel Tower is in Paris.", "Rome's food"]
    assert [c.id for c in first.context] == ["d1", "d2"]
    assert second.ground_truth == "The Tiber.\nIl Tevere."
    bad = tmp_path / "bad.csv"
    bad.write_text('input,context\nq,"[\'unclosed"\n')
    with pytest.raises(DatasetError, match="neither JSON nor a Python list literal"):
        load_dataset(bad)
    code = tmp_path / "code.csv"
    code.write_text("input,context\nq,\"[__import__('os').getcwd()]\"\n")
    with pytest.raises(DatasetError, match="field 'context'"):
        load_dataset(code)  # literal_eval runs nothing


def test_parquet_files_load(tmp_path: Path):
    pytest.importorskip("pyarrow")
    path = tmp_path / "ragas.parquet"
    pandas.DataFrame(ROWS).to_parquet(path)
    assert load_dataset(path) == load_dataset(ROWS)
    broken = tmp_path / "broken.parquet"
    broken.write_text("not parquet")
    with pytest.raises(DatasetError, match="not a readable Parquet file"):
        load_dataset(broken)


def test_a_datasetdict_names_its_splits():
    datasets = pytest.importorskip("datasets")
    split = datasets.Dataset.from_list(ROWS[:1])
    with pytest.raises(DatasetError, match=r"DatasetDict with splits \['train', 'test'\]"):
        load_dataset(datasets.DatasetDict({"train": split, "test": split}))
    assert len(load_dataset(datasets.DatasetDict({"test": split})["test"])) == 1


def test_facade_metrics_run_in_run_evals_under_their_ragas_names():
    metrics = [IDBasedContextRecall(), NonLLMContextPrecisionWithReference()]
    result = run_evals(ROWS[:1], metrics, progress=False)
    assert result.scores == {
        "id_based_context_recall": 0.5,
        "non_llm_context_precision_with_reference": 0.9999999999,  # Ragas' value
    }
    wide = result.to_pandas(wide=True)
    assert len(wide) == 1 and wide.loc[0, "id_based_context_recall"] == 0.5
    assert list(wide.columns)[-2:] == list(result.scores)
    long = result.to_pandas()
    assert len(long) == 2  # one row per item x scorer, as before
