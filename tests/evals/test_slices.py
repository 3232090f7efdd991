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


MIXED = ["(missing)", None, 1, "1", 1.0, 2, "2.5", 2.5, "x", "x", '"q"', [1, 2], {"a": 1}]


def _mixed_rows():
    rows = []
    for i, team in enumerate(MIXED):
        row = {"id": f"m{i}", "input": "q", "context": [{"id": "a", "text": "a"}],
               "reference_context_ids": ["a"] if i % 2 else ["b"], "metadata": {}}  # fmt: skip
        if team is not None:
            row["metadata"]["team"] = team
        rows.append(row)
    return rows


def test_groups_are_distinct_json_values_with_labels_that_cannot_collide():
    result = run_evals(_mixed_rows(), SCORERS[:1], progress="none")
    groups = result.summary_by("team")
    assert list(groups) == [
        "1", "2", "2.5", '"(missing)"', '"1"', '"2.5"', '"\\"q\\""', "[1, 2]", "x",
        '{"a": 1}', "(missing)",
    ]  # fmt: skip
    sizes = {label: summary.items for label, summary in groups.items()}
    assert sizes["1"] == 2 and sizes['"1"'] == 1 and sizes["x"] == 2
    assert sizes["(missing)"] == 1 and sizes['"(missing)"'] == 1


def test_groups_equal_pandas_groupby_with_missing_kept():
    pd = pytest.importorskip("pandas")
    rows = [r for r in _mixed_rows() if not isinstance(r["metadata"].get("team"), (list, dict))]
    result = run_evals(rows, SCORERS[:1], progress="none")
    frame = result.to_pandas(wide=True)
    by_pandas = frame.groupby("team", dropna=False, sort=False)["id"].apply(sorted)
    pandas_groups = sorted(by_pandas.tolist())
    ours = result.summary_by("team")
    members: dict[str, list[str]] = {}
    from evals._stats._slices import group_of

    for item in result.items:
        members.setdefault(group_of(item, "team"), []).append(item.item.id)
    assert sorted(sorted(ids) for ids in members.values()) == pandas_groups
    assert {label: s.items for label, s in ours.items()} == {
        label: len(ids) for label, ids in members.items()
    }
    assert pd.isna(frame.set_index("id").loc["m1", "team"])
