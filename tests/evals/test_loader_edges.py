"""Loaders read what users have, or name the row and field (issue 34, items 7 and 8)."""

from __future__ import annotations

import pytest

from evals import load_dataset, read_results, run_evals
from scorers import DatasetError, create_id_context_recall_scorer, create_ranking_scorer


class BadStr:
    def __str__(self):
        raise RuntimeError("no text")


@pytest.mark.parametrize(
    ("row", "says"),
    [
        ({"input": "q", "metadata": {"blob": b"\xff\xfe"}}, "field 'metadata.blob' holds 2 bytes"),
        ({"input": b"\xff"}, "field 'input' holds 1 bytes"),
        ({"input": "q", "reference_context_ids": {"a": None}}, "grade of id 'a' is None"),
        ({"input": "q", "reference_context_ids": ["a", {"id": "b"}]}, "item 1 is a dict"),
        ({"input": "q", "reference_context_ids": [BadStr()]}, "cannot be read as text"),
        ({"input": "q", "id": BadStr()}, "field 'id'"),
        ({"input": "q", "metadata": {"x": BadStr()}}, "field 'metadata.x' holds a BadStr"),
    ],
)
def test_values_that_cannot_be_stored_or_read_are_refused_naming_row_and_field(row, says):
    with pytest.raises(DatasetError, match="item 1: .*" + says.replace("(", r"\(")):
        load_dataset([row])


def test_refused_bytes_never_reach_the_results_file(tmp_path):
    rows = [{"id": "a", "input": "q", "metadata": {"blob": b"\xff"}, "context": ["x"]}]
    with pytest.raises(DatasetError, match="bytes"):
        run_evals(rows, [create_id_context_recall_scorer()], results_path=tmp_path / "r.jsonl")
    assert not (tmp_path / "r.jsonl").exists() or not read_results(tmp_path / "r.jsonl")


def test_a_parquet_map_column_is_graded_ids(tmp_path):
    pa = pytest.importorskip("pyarrow", reason="pip install 'scorekit[parquet]'")
    import pyarrow.parquet as pq

    table = pa.table(
        {
            "input": ["q"],
            "reference_context_ids": pa.array([[("a", 2)]], type=pa.map_(pa.string(), pa.int64())),
            "context": [[{"id": "a", "text": "x"}]],
        }
    )
    pq.write_table(table, tmp_path / "d.parquet")
    item = load_dataset(tmp_path / "d.parquet")[0]
    assert item.reference_context_ids == {"a": 2.0}  # was the id "('a', 2)"
    result = run_evals(tmp_path / "d.parquet", [create_ranking_scorer("ndcg@10")], progress=False)
    assert result.scores == {"ndcg@10": 1.0}


def test_pairs_from_python_are_graded_ids_too():
    assert load_dataset([{"input": "q", "reference_context_ids": [("a", 2), ("b", 0)]}])[
        0
    ].reference_context_ids == {"a": 2.0, "b": 0.0}


def test_a_long_csv_cell_loads(tmp_path):
    text = "x" * 200_000
    (tmp_path / "d.csv").write_text(f"input,ground_truth\nq,{text}\n", encoding="utf-8")
    assert load_dataset(tmp_path / "d.csv")[0].ground_truth == text


def test_a_deeply_nested_csv_list_is_a_dataset_error(tmp_path):
    deep = "[" * 100_000 + "]" * 100_000
    (tmp_path / "d.csv").write_text(f"input,context\nq,{deep}\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"d.csv line 2: field 'context' is nested more"):
        load_dataset(tmp_path / "d.csv")
