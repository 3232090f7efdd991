from __future__ import annotations

import json

import pytest

from evals import DatasetError, EvalItem, load_dataset
from scorers import Chunk


def test_jsonl_json_and_csv_load_the_same_items(tmp_path):
    rows = [
        {
            "id": "a",
            "input": "q1",
            "groundTruth": "g1",
            "reference_context_ids": [1, "2"],
            "context": [{"id": 1, "text": "t1"}, "t2"],
        },
        {"input": "q2", "ground_truth": "g2", "reference_contexts": ["r"], "metadata": {"k": 1}},
    ]
    jsonl = tmp_path / "d.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n")
    as_json = tmp_path / "d.json"
    as_json.write_text(json.dumps({"items": rows}))
    csv_file = tmp_path / "d.csv"
    csv_file.write_text(
        "id,input,groundTruth,reference_context_ids,context,reference_contexts,metadata\n"
        'a,q1,g1,"[1, ""2""]","[{""id"": 1, ""text"": ""t1""}, ""t2""]",,\n'
        ',q2,g2,,,"[""r""]","{""k"": 1}"\n'
    )
    expected = [
        EvalItem(
            id="a",
            input="q1",
            ground_truth="g1",
            reference_context_ids=["1", "2"],
            context=[Chunk(id="1", text="t1"), Chunk(text="t2")],
        ),
        EvalItem(
            id="2", input="q2", ground_truth="g2", reference_contexts=["r"], metadata={"k": 1}
        ),
    ]
    for source in (jsonl, as_json, csv_file, rows):
        assert load_dataset(source) == expected


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"input": "q"}\n{"ground_truth": "g"}\n', "d.jsonl line 2: field 'input' is required"),
        (
            '{"input": "q"}\n{"input": "q", "reference_contexts": "one"}\n',
            "d.jsonl line 2: field 'reference_contexts'",
        ),
        ('{"input": "q", "ground_truth": true}\n', "d.jsonl line 1: field 'ground_truth'"),
        ('{"input": "q"}\n{"input": \n', "d.jsonl line 2: invalid JSON"),
        ('{"input": "q", "anwser": "x"}\n', "d.jsonl line 1: unknown field 'anwser'"),
        ('{"id": 1, "input": "q"}\n{"id": "1", "input": "r"}\n', "duplicate id '1'"),
        ('["not", "an", "object"]\n', "d.jsonl line 1: expected an object"),
    ],
)
def test_bad_rows_name_the_row_and_field(tmp_path, content, message):
    path = tmp_path / "d.jsonl"
    path.write_text(content)
    with pytest.raises(DatasetError) as info:
        load_dataset(path)
    assert message in str(info.value)


def test_bad_files(tmp_path):
    with pytest.raises(DatasetError, match="does not exist"):
        load_dataset(tmp_path / "missing.jsonl")
    (tmp_path / "d.txt").write_text("x")
    with pytest.raises(DatasetError, match="unsupported data file type"):
        load_dataset(tmp_path / "d.txt")
    (tmp_path / "d.csv").write_text('input,context\nq,"[not json"\n')
    with pytest.raises(
        DatasetError,
        match=r"d\.csv line 2: field 'context' starts like a list but is neither JSON nor a Python list literal",
    ):
        load_dataset(tmp_path / "d.csv")
    with pytest.raises(DatasetError, match="not a single dict"):
        load_dataset({"input": "q"})
