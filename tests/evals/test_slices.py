"""Slices: a run's summary per metadata value, in the API, the CLI, JSON and DataFrames."""

from __future__ import annotations

import json

import pytest

from evals import run_evals, summarize
from evals.cli import main
from scorers import create_id_context_precision_scorer, create_id_context_recall_scorer

ROWS = [
    {
        "id": str(i),
        "input": f"q{i}",
        "context": [{"id": "a", "text": "a"}, {"id": "z", "text": "z"}][: 1 + i % 2],
        "reference_context_ids": ["a", "b"] if i % 3 else ["z"],
        "metadata": {"topic": ["rivers", "dna", "rome"][i % 3], "year": 2000 + i % 2}
        if i != 7
        else {},
    }
    for i in range(12)
]
SCORERS = [create_id_context_recall_scorer(), create_id_context_precision_scorer()]


def test_each_group_has_the_summary_of_its_items_alone(tmp_path):
    result = run_evals(ROWS, SCORERS, progress="none")
    groups = result.summary_by("topic")
    assert list(groups) == ["dna", "rivers", "rome", "(missing)"]
    ids = list(result.summary.scorers)
    for group, summary in groups.items():
        alone = [
            item for item in result.items if item.item.metadata.get("topic", "(missing)") == group
        ]
        expected = summarize(alone, ids, 0.0)
        assert summary.items == len(alone)
        for sid in ids:
            got, want = summary.scorers[sid], expected.scorers[sid]
            assert (got.mean, got.ci_low, got.ci_high, got.n_scored) == (
                want.mean,
                want.ci_low,
                want.ci_high,
                want.n_scored,
            )
    assert list(result.summary_by("year")) == ["2000", "2001", "(missing)"]  # numbers in order
    streamed = run_evals(
        ROWS, SCORERS, results_path=tmp_path / "r.jsonl", keep_items=False, progress="none"
    )
    assert streamed.summary_by("topic") == groups  # read back from the results file


def test_metadata_keys_are_dataframe_columns():
    pytest.importorskip("pandas")
    result = run_evals(ROWS, SCORERS, progress="none")
    frame = result.to_pandas()
    assert {"topic", "year", "metadata"} <= set(frame.columns)
    means = frame[frame.scorer == "id-context-recall"].groupby("topic")["score"].mean()
    assert means["rome"] == pytest.approx(
        result.summary_by("topic")["rome"].scorers["id-context-recall"].mean
    )
    wide = result.to_pandas(wide=True)
    assert len(wide) == 12 and "topic" in wide.columns


def test_the_cli_prints_and_writes_the_slices(tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    args = ["run", str(data), "--scorer", "id-context-recall", "--progress", "none"]
    assert main([*args, "--by", "topic", "--by", "year"]) == 0
    out = capsys.readouterr().out
    assert "by topic" in out and "by year" in out and "(missing)" in out
    assert (
        main([*args, "--by", "topic", "--format", "json", "--out", str(tmp_path / "r.jsonl")]) == 0
    )
    report = json.loads(capsys.readouterr().out)
    rome = report["slices"]["topic"]["rome"]
    assert rome["items"] == 4 and rome["scorers"]["id-context-recall"]["n_scored"] == 4
