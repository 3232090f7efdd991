"""What users' data looks like: Ragas names, DataFrames, BOMs, bad bytes, odd values."""

from __future__ import annotations

import json

import pytest

from evals import DatasetError, EvalItem, load_dataset, run_evals
from scorers import (
    Chunk,
    ConfigError,
    create_id_context_recall_scorer,
    create_non_llm_context_recall_scorer,
)

RAGAS_ROW = {
    "user_input": "Where is the Eiffel Tower?",
    "response": "In Paris.",
    "reference": "The Eiffel Tower is in Paris.",
    "retrieved_contexts": ["The Eiffel Tower is in Paris.", "Berlin is in Germany."],
    "reference_contexts": ["The Eiffel Tower is located in Paris."],
}
EXPECTED = EvalItem(
    id="1",
    input="Where is the Eiffel Tower?",
    output="In Paris.",
    ground_truth="The Eiffel Tower is in Paris.",
    context=[Chunk(text="The Eiffel Tower is in Paris."), Chunk(text="Berlin is in Germany.")],
    reference_contexts=["The Eiffel Tower is located in Paris."],
)


def test_lone_surrogate_is_a_dataset_error_naming_file_row_and_field(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text('{"input": "q"}\n{"input": "q", "ground_truth": "bad \\ud800 text"}\n')
    with pytest.raises(DatasetError, match=r"d\.jsonl line 2: field 'ground_truth' holds a lone"):
        load_dataset(path)
    with pytest.raises(DatasetError, match=r"item 1: field 'context\[0\]' holds a lone"):
        load_dataset([{"input": "q", "context": ["\udfff"]}])


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ({"context": [{"id": "d\ud800", "text": "t"}]}, r"context\[0\]\.id"),
        ({"context": [{"id": "d", "text": "t", "metadata": {"s": "\udc00"}}]}, r"context\[0\]"),
        ({"reference_context_ids": ["a", "b\udfff"]}, r"reference_context_ids\[1\]"),
        ({"reference_contexts": ["ok", "\ud800"]}, r"reference_contexts\[1\]"),
        ({"claims": ["\ud800"]}, r"claims\[0\]"),
        ({"metadata": {"k": ["\ud800"]}}, r"metadata\.k\[0\]"),
        ({"output": {"text": "\ud800"}}, r"output\.text"),
    ],
)
def test_a_lone_surrogate_in_any_typed_or_free_field_is_named(row, field):
    with pytest.raises(DatasetError, match=rf"item 1: field '{field}.*lone surrogate"):
        load_dataset([{"input": "q", **row}])


def test_non_ascii_text_and_emoji_are_stored_as_they_are():
    row = {
        "input": "¿Dónde? 😀",
        "context": [{"id": "ü-1", "text": "Ça va 😀", "metadata": {"k": "日本"}}],
        "reference_contexts": ["東京"],
        "reference_context_ids": {"ü-1": 2},
    }
    (item,) = load_dataset([row])
    assert item.context[0].text == "Ça va 😀" and item.reference_context_ids == {"ü-1": 2.0}


def test_nan_and_infinity_are_refused_in_any_field():
    with pytest.raises(DatasetError, match=r"field 'context\[0\]\.text' is nan"):
        load_dataset([{"input": "q", "context": [{"id": "d1", "text": float("nan")}]}])
    with pytest.raises(DatasetError, match=r"field 'input' is inf"):
        load_dataset([{"input": float("inf")}])
    with pytest.raises(DatasetError, match=r"field 'reference_context_ids.d1' is nan"):
        load_dataset([{"input": "q", "reference_context_ids": {"d1": float("nan")}}])
    with pytest.raises(DatasetError, match=r"field 'metadata.score' is -inf"):
        load_dataset([{"input": "q", "metadata": {"score": float("-inf")}}])
    with pytest.raises(ConfigError, match="a chunk's text: nan is not a text"):
        create_non_llm_context_recall_scorer({"context": [{"text": float("nan")}]})


def test_a_single_dict_as_context_is_one_chunk_never_its_keys():
    items = load_dataset([{"input": "q", "context": {"id": "d1", "text": "Paris"}}])
    assert items[0].context == [Chunk(id="d1", text="Paris")]
    with pytest.raises(DatasetError, match="single dict without a 'text'"):
        load_dataset([{"input": "q", "context": {"id": "d1", "body": "Paris"}}])
    scorer = create_non_llm_context_recall_scorer({"context": {"id": "d1", "text": "Paris"}})
    result = scorer.run(output="x", reference_contexts=["Paris"])
    assert result.score == 1.0
    scorer = create_id_context_recall_scorer({"context": {"id": "d1", "text": "Paris"}})
    assert scorer.run(output="x", reference_context_ids=["d1"]).score == 1.0


def test_ragas_rows_load_from_python_jsonl_json_and_csv(tmp_path):
    jsonl = tmp_path / "r.jsonl"
    jsonl.write_text(json.dumps(RAGAS_ROW) + "\n")
    as_json = tmp_path / "r.json"
    as_json.write_text(json.dumps([RAGAS_ROW]))
    csv_file = tmp_path / "r.csv"
    csv_file.write_text(
        "user_input,response,reference,retrieved_contexts,reference_contexts\n"
        "Where is the Eiffel Tower?,In Paris.,The Eiffel Tower is in Paris.,"
        '"[""The Eiffel Tower is in Paris."", ""Berlin is in Germany.""]",'
        "The Eiffel Tower is located in Paris.\n"
    )
    for source in ([RAGAS_ROW], jsonl, as_json, csv_file):
        assert load_dataset(source) == [EXPECTED]


def test_ragas_ids_pair_with_texts_and_other_ragas_fields_go_to_metadata():
    row = {
        "question": "q",
        "answer": "a",
        "contexts": ["t1", "t2"],
        "retrieved_context_ids": ["d1", 2],
        "reference_context_ids": ["d1"],
        "rubrics": {"score1": "bad"},
    }
    (item,) = load_dataset([row])
    assert item.input == "q" and item.output == "a"
    assert item.context == [Chunk(id="d1", text="t1"), Chunk(id="2", text="t2")]
    assert item.metadata == {"rubrics": {"score1": "bad"}}
    with pytest.raises(DatasetError, match="retrieved_context_ids has 1 ids for 2"):
        load_dataset([{**row, "retrieved_context_ids": ["d1"]}])
    with pytest.raises(DatasetError, match="fields 'input' and 'user_input' both give 'input'"):
        load_dataset([{"input": "q", "user_input": "q"}])


def test_a_pandas_dataframe_is_data_and_its_missing_values_are_missing_fields():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        [RAGAS_ROW, {"user_input": "q2", "retrieved_contexts": ["c"]}]
    )  # row 2 has NaN for response / reference / reference_contexts
    items = load_dataset(frame)
    assert items[0] == EXPECTED
    assert items[1] == EvalItem(id="2", input="q2", context=[Chunk(text="c")])
    result = run_evals(frame, [create_non_llm_context_recall_scorer()], progress=False)
    assert [r.scorer_results["non-llm-context-recall"].status for r in result.items] == [
        "scored",
        "skipped",
    ]


def test_a_hugging_face_dataset_is_data():
    datasets = pytest.importorskip("datasets")
    assert load_dataset(datasets.Dataset.from_list([RAGAS_ROW])) == [EXPECTED]


def test_any_iterable_of_mappings_is_data():
    assert load_dataset(row for row in [RAGAS_ROW]) == [EXPECTED]
    with pytest.raises(DatasetError, match="not a single dict"):
        load_dataset(RAGAS_ROW)
    with pytest.raises(DatasetError, match="iterable of dicts, got int"):
        load_dataset(3)  # type: ignore[arg-type]


def test_csv_extra_columns_go_to_metadata_and_list_cells_may_be_plain(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text(
        "input,context,reference_context_ids,source,metadata\n"
        'q,one plain chunk,d1,wiki,"{""k"": 1}"\n'
        'q2,"[""a"", ""b""]",,web,\n'
    )
    first, second = load_dataset(path)
    assert first.context == [Chunk(text="one plain chunk")]
    assert first.reference_context_ids == ["d1"]
    assert first.metadata == {"source": "wiki", "k": 1}
    assert second.context == [Chunk(text="a"), Chunk(text="b")]
    assert second.metadata == {"source": "web"}


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".csv"])
def test_a_utf8_bom_is_accepted(tmp_path, suffix):
    path = tmp_path / f"d{suffix}"
    body = {
        ".jsonl": '{"input": "q", "ground_truth": "é"}\n',
        ".json": '[{"input": "q", "ground_truth": "é"}]',
        ".csv": "input,ground_truth\nq,é\n",
    }[suffix]
    path.write_bytes(b"\xef\xbb\xbf" + body.encode())
    assert load_dataset(path) == [EvalItem(id="1", input="q", ground_truth="é")]


@pytest.mark.parametrize(
    ("suffix", "body", "message"),
    [
        (
            ".jsonl",
            b'{"input": "q"}\n{"input": "caf\xe9"}\n',
            "line 2: not valid UTF-8 at byte offset 29",
        ),
        (".csv", b"input\nq\ncaf\xe9\n", "line 3: not valid UTF-8 at byte offset 11"),
        (
            ".json",
            b'[{"input": "q"},\n {"input": "\xff"}]',
            "line 2: not valid UTF-8 at byte offset 29",
        ),
    ],
)
def test_a_non_utf8_file_names_line_and_byte_offset(tmp_path, suffix, body, message):
    path = tmp_path / f"d{suffix}"
    path.write_bytes(body)
    with pytest.raises(DatasetError, match=message + r" \(byte 0x(e9|ff)\)"):
        load_dataset(path)
