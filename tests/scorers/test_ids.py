from __future__ import annotations

import math

import pytest

from scorers import (
    ConfigError,
    create_id_context_precision_scorer,
    create_id_context_recall_scorer,
    create_ranking_scorer,
)


def ctx(*ids):
    return [{"id": i, "text": f"chunk {i}"} for i in ids]


def test_id_recall_and_precision_exact():
    recall = create_id_context_recall_scorer()
    precision = create_id_context_precision_scorer()
    run = {
        "context": ctx("doc_1", "doc_2", "doc_3"),
        "reference_context_ids": ["doc_1", "doc_4", "doc_5", "doc_6"],
    }
    assert recall.run(**run).score == 0.25
    assert precision.run(**run).score == 1 / 3
    assert recall.run(**run).scorer_id == "id-context-recall"


def test_int_and_str_ids_match_and_duplicates_are_dropped():
    recall = create_id_context_recall_scorer({"scale": 10})
    precision = create_id_context_precision_scorer()
    run = {"context": ctx(1, "1", 2, 2, 3), "reference_context_ids": ["1", 4]}
    assert recall.run(**run).score == 5.0
    assert precision.run(**run).score == 1 / 3  # {1, 2, 3}
    assert recall.run(**run).details["ids"]["retrieved_ids"] == ["1", "2", "3"]


def test_id_edge_cases():
    recall = create_id_context_recall_scorer()
    empty = recall.run(context=[], reference_context_ids=["a"])
    assert (empty.status, empty.score) == ("scored", 0.0)
    for refs in (None, [], {"a": 0}):
        skipped = recall.run(context=ctx("a"), reference_context_ids=refs)
        assert (skipped.status, skipped.score) == ("skipped", 0.0)
    with pytest.raises(ConfigError, match="chunk #2 has no id"):
        recall.run(context=[{"id": "a", "text": "x"}, "no id here"], reference_context_ids=["a"])


@pytest.mark.parametrize(
    ("metric", "expected"),
    [
        ("precision@2", 1 / 2),
        ("precision@5", 2 / 5),  # denominator is k even with 4 retrieved
        ("recall@2", 1 / 3),
        ("recall@4", 2 / 3),
        ("hit_rate@1", 0.0),
        ("hit_rate@2", 1.0),
        ("mrr", 1 / 2),
        ("map", (1 / 2 + 2 / 4) / 3),  # AP divides by all 3 relevant
        ("r_precision", 1 / 3),
    ],
)
def test_binary_ranking_metrics(metric, expected):
    run = {"context": ctx("x", "a", "y", "b"), "reference_context_ids": ["a", "b", "c"]}
    result = create_ranking_scorer(metric).run(**run)
    assert result.score == pytest.approx(expected, rel=1e-15)
    assert result.scorer_id == metric


def test_graded_ndcg():
    grades = {"a": 3, "b": 2, "c": 1, "d": 0}
    run = {"context": ctx("b", "d", "a", "z"), "reference_context_ids": grades}
    dcg = 2 / math.log2(2) + 0 + 3 / math.log2(4)
    idcg3 = 3 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4)
    assert create_ranking_scorer("ndcg@3").run(**run).score == pytest.approx(dcg / idcg3)
    assert create_ranking_scorer("ndcg").run(**run).score == pytest.approx(dcg / idcg3)
    idcg2 = 3 + 2 / math.log2(3)
    assert create_ranking_scorer("ndcg@2").run(**run).score == pytest.approx(2 / idcg2)
    perfect = {"context": ctx("a", "b", "c"), "reference_context_ids": grades}
    assert create_ranking_scorer("ndcg@10", {"scale": 5}).run(**perfect).score == 5.0
    # grade <= 0 is not relevant for binary metrics either
    assert create_ranking_scorer("mrr").run(**run).score == 1.0
    assert create_ranking_scorer("precision@2").run(**run).score == 0.5


def test_unknown_ranking_metric():
    for bad in ("ndcg@0", "foo", "precision@", "map@x"):
        with pytest.raises(ConfigError, match="unknown ranking metric"):
            create_ranking_scorer(bad)
