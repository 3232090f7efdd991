"""Shards by id hash, and merging their results files into one run's summary."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals import merge_results, read_results, run_evals, summarize
from evals._run._shards import shard_of
from evals.cli import main
from evals.testing import FakeLLMServer
from scorers import ConfigError, create_context_recall_scorer, create_id_context_recall_scorer

ITEMS = [
    {
        "id": f"item-{i}",
        "input": f"question {i}",
        "ground_truth": f"Einstein was born in Ulm. Fact {i} is unsupported.",
        "context": [
            {"id": "a", "text": "Einstein was born in Ulm in 1879."},
            {"id": "b", "text": f"Noise {i}."},
        ],
        "reference_context_ids": ["a"] if i % 3 else ["b", "c"],
    }
    for i in range(30)
]


def without_timing(summary) -> dict:
    data = summary.model_dump()
    data.pop("wall_time_s"), data.pop("client_cpu_s")
    return data


def test_shards_partition_the_items_stably():
    ids = [item["id"] for item in ITEMS]
    shards = [[i for i in ids if shard_of(i, 4) == k] for k in range(4)]
    assert sorted(i for shard in shards for i in shard) == sorted(ids) and all(shards)
    assert shard_of("item-7", 4) == shard_of("item-7", 4)  # no per-process salt
    scorer = create_id_context_recall_scorer()
    result = run_evals(ITEMS, [scorer], shard=(1, 4), progress=False)
    assert [r.item.id for r in result.items] == shards[1]
    assert [
        r.item.id for r in run_evals(ITEMS, [scorer], shard="1/4", progress=False).items
    ] == shards[1]
    for bad in [(4, 4), (-1, 2), (0, 0), "1-4", (0.5, 2)]:
        with pytest.raises(ConfigError, match="shard"):
            run_evals(ITEMS, [scorer], shard=bad)


@pytest.mark.slow
def test_the_merged_summary_equals_the_unsharded_one(tmp_path: Path):
    with FakeLLMServer() as server:
        scorers = [create_context_recall_scorer(server.judge()), create_id_context_recall_scorer()]
        whole = run_evals(ITEMS, scorers, results_path=tmp_path / "whole.jsonl", progress=False)
        parts = []
        for k in range(3):
            part = tmp_path / f"shard{k}.jsonl"
            run_evals(ITEMS, scorers, results_path=part, shard=(k, 3), progress=False)
            parts.append(part)
    merged = merge_results(tmp_path / "merged.jsonl", *parts)
    assert sorted(r.item.id for r in merged) == sorted(i["id"] for i in ITEMS)
    again = summarize(
        read_results(tmp_path / "merged.jsonl"), ["context-recall", "id-context-recall"], 0.0
    )
    assert without_timing(again) == without_timing(whole.summary)
    assert whole.summary.model_calls == 60 and again.model_calls == 60


def test_merge_refuses_conflicting_configurations_and_existing_outputs(tmp_path: Path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    run_evals(ITEMS[:5], [create_id_context_recall_scorer()], results_path=a)
    run_evals(ITEMS[:5], [create_id_context_recall_scorer({"scale": 10})], results_path=b)
    with pytest.raises(ConfigError, match="different configurations of scorer 'id-context-recall'"):
        merge_results(tmp_path / "m.jsonl", a, b)
    same = tmp_path / "same.jsonl"
    run_evals(ITEMS[3:8], [create_id_context_recall_scorer()], results_path=same)
    assert len(merge_results(tmp_path / "ok.jsonl", a, same)) == 8  # overlaps agree
    with pytest.raises(ConfigError, match="already exists"):
        merge_results(tmp_path / "ok.jsonl", a)
    assert main(["merge", str(tmp_path / "cli.jsonl"), str(a), str(same)]) == 0
    assert "merged 2 files, 8 items" in capsys.readouterr().out
    assert main(["run", str(a), "--scorer", "mrr", "--shard", "9"]) == 2


def test_merge_refuses_shards_of_two_configurations_and_keeps_the_header(tmp_path: Path):
    """Shards whose items never overlap but were run with another configuration of a
    scorer are two runs, not one: their headers tell."""
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    run_evals(ITEMS[:5], [create_id_context_recall_scorer()], results_path=a)
    run_evals(ITEMS[5:9], [create_id_context_recall_scorer({"scale": 10})], results_path=b)
    with pytest.raises(ConfigError, match=f"{a} and {b} were written with different config"):
        merge_results(tmp_path / "m.jsonl", a, b)
    assert not (tmp_path / "m.jsonl").exists()
    c = tmp_path / "c.jsonl"
    run_evals(
        ITEMS[5:9],
        [create_id_context_recall_scorer()],
        results_path=c,
        thresholds={"id-context-recall": 0.5},
    )
    merged = merge_results(tmp_path / "ok.jsonl", a, c)
    header = read_results(tmp_path / "ok.jsonl").header
    assert header == merged.header and list(header.scorers) == ["id-context-recall"]
    assert header.scorers["id-context-recall"].scale == 1.0
