"""One table of file formats: a format registered from outside scorekit is read the same
way by data sets, corpora and calibration rows, with the same errors."""

from __future__ import annotations

import json

import pytest

from evals import Columns, load_dataset, read_corpus, register_format
from evals._calibrate import calibration_rows
from evals._files import FORMATS
from scorers import ConfigError, DatasetError


def tsv_rows(path, columns: Columns):
    """Tab-separated values: a header line, then one row per line; list columns hold
    values separated by ``|``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    names = lines[0].split("\t")
    for number, line in enumerate(lines[1:], start=2):
        cells = dict(zip(names, line.split("\t"), strict=True))
        row = {k: v.split("|") if k in columns.lists else v for k, v in cells.items() if v}
        extra = {k: row.pop(k) for k in list(row) if columns.known and k not in columns.known}
        if extra:
            row["metadata"] = extra
        yield f"{path.name} line {number}", row


@pytest.fixture
def tsv():
    register_format(
        ".tsv", tsv_rows, columns=lambda path: path.read_text().split("\n")[0].split("\t")
    )
    yield
    del FORMATS[".tsv"]


def test_a_new_format_is_read_by_every_reader(tsv, tmp_path):
    data = tmp_path / "items.tsv"
    data.write_text("id\tinput\treference_context_ids\tcontext_ids\n"
                    "q1\tWhere?\td1|d2\tx\n")  # fmt: skip
    with pytest.warns(UserWarning, match="'context_ids' \\(did you mean"):
        (item,) = load_dataset(data)
    assert item.reference_context_ids == ["d1", "d2"] and item.metadata == {"context_ids": "x"}
    corpus = tmp_path / "passages.tsv"
    corpus.write_text("id\ttext\nd1\tThe Rhine rises in the Alps.\n")
    (passage,) = read_corpus(corpus)
    assert (passage.id, passage.text) == ("d1", "The Rhine rises in the Alps.")
    labels = tmp_path / "labels.tsv"
    labels.write_text("claim\tcontext\tlabel\nIt rises in the Alps.\tThe Rhine rises in the "
                      "Alps.|Other.\tsupported\n")  # fmt: skip
    assert calibration_rows(labels) == [
        {"claim": "It rises in the Alps.", "context": ["The Rhine rises in the Alps.", "Other."],
         "label": "supported"}
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("read", "what"),
    [(load_dataset, "data file"), (read_corpus, None), (calibration_rows, "calibration data")],
)
def test_every_reader_gives_the_same_errors(tmp_path, read, what):
    unknown = tmp_path / "rows.xml"
    unknown.write_text("<rows/>")
    if what is None:  # a corpus also takes documents: its own sentence
        with pytest.raises(DatasetError, match=r"\.jsonl, \.json, \.csv or \.parquet"):
            read(unknown)
        return
    with pytest.raises(DatasetError, match=rf"unsupported {what} type '\.xml'; use \.jsonl, "
                       r"\.json, \.csv or \.parquet"):  # fmt: skip
        read(unknown)
    with pytest.raises(DatasetError, match=f"{what} .* does not exist"):
        read(tmp_path / "missing.jsonl")
    if read is not calibration_rows:  # calibrate reads a folder as its stored labels
        with pytest.raises(DatasetError, match="is a directory"):
            read(tmp_path)


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".csv"])
def test_calibration_rows_from_each_format(tmp_path, suffix):
    rows = [{"claim": "It rises in the Alps.", "context": ["The Rhine rises in the Alps."],
             "label": "supported"}]  # fmt: skip
    path = tmp_path / f"labels{suffix}"
    if suffix == ".jsonl":
        path.write_text(json.dumps(rows[0]) + "\n")
    elif suffix == ".json":
        path.write_text(json.dumps(rows))
    else:
        path.write_text('claim,context,label\nIt rises in the Alps.,"[""The Rhine rises in the '
                        'Alps.""]",supported\n')  # fmt: skip
    assert calibration_rows(path) == rows


def test_a_bad_line_names_itself_everywhere(tmp_path):
    bad = tmp_path / "rows.jsonl"
    bad.write_text('{"id": "a", "text": "b", "input": "c", "claim": "a", "context": ["b"], '
                   '"label": "supported"}\n{oops\n')  # fmt: skip
    for read in (calibration_rows, read_corpus, load_dataset):
        with pytest.raises(DatasetError, match=r"rows\.jsonl line 2: invalid JSON"):
            read(bad)


def test_a_suffix_needs_its_dot():
    with pytest.raises(ConfigError, match="starts with a dot"):
        register_format("tsv", tsv_rows)
