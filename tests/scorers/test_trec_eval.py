"""The ranking scorers against trec_eval's own test files and published outputs."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

from scorers import create_ranking_scorer
from tests.conftest import SHARED_DATA

# trec_eval measure name -> our metric name
PATTERNS = [
    (r"P_(\d+)", "precision@{}"),
    (r"recall_(\d+)", "recall@{}"),
    (r"ndcg_cut_(\d+)", "ndcg@{}"),
    (r"success_(\d+)", "hit_rate@{}"),
    (r"map", "map"),
    (r"recip_rank", "mrr"),
    (r"Rprec", "r_precision"),
    (r"ndcg", "ndcg"),
]


def our_metric(measure: str) -> str | None:
    for pattern, template in PATTERNS:
        match = re.fullmatch(pattern, measure)
        if match:
            return template.format(*match.groups())
    return None


def load(folder: Path):
    qrels: dict[str, dict[str, float]] = defaultdict(dict)
    for line in (folder / "qrels.test").read_text().splitlines():
        topic, _, doc, rel = line.split()
        qrels[topic][doc] = float(rel)
    runs: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for line in (folder / "results.test").read_text().splitlines():
        topic, _, doc, _, score, _ = line.split()
        runs[topic].append((float(score), doc))
    ranked = {
        # trec_eval: descending score, ties broken by document id, descending
        topic: [doc for _, doc in sorted(rows, key=lambda r: (r[0], r[1]), reverse=True)]
        for topic, rows in runs.items()
    }
    expected: dict[tuple[str, str], float] = {}
    for line in (folder / "out.test.aq").read_text().splitlines():
        measure, topic, value = line.split()
        metric = our_metric(measure)
        if metric is not None:
            expected[(metric, topic)] = float(value)
    return qrels, ranked, expected


@pytest.fixture(scope="module")
def trec(request):
    folder = SHARED_DATA / "trec_eval"
    if not folder.is_dir():
        pytest.skip(f"trec_eval test files not found at {folder} (../shared/data is absent)")
    return load(folder)


def test_all_mapped_measures_match_trec_eval_per_query_and_on_average(trec):
    qrels, ranked, expected = trec
    metrics = sorted({metric for metric, _ in expected})
    assert {"map", "mrr", "r_precision", "precision@10", "ndcg@10", "recall@10"} <= set(metrics)
    checked = 0
    for metric in metrics:
        scorer = create_ranking_scorer(metric)
        values = {}
        for topic, docs in ranked.items():
            result = scorer.run(
                context=[{"id": d, "text": ""} for d in docs], reference_context_ids=qrels[topic]
            )
            values[topic] = result.score
            assert round(result.score, 4) == pytest.approx(expected[(metric, topic)], abs=1e-12), (
                metric,
                topic,
            )
            checked += 1
        mean = sum(values.values()) / len(values)
        assert round(mean, 4) == pytest.approx(expected[(metric, "all")], abs=1e-12), metric
    assert checked >= 3 * 20


def test_published_headline_numbers(trec):
    qrels, ranked, _ = trec

    def mean(metric: str) -> float:
        scorer = create_ranking_scorer(metric)
        scores = [
            scorer.run(
                context=[{"id": d, "text": ""} for d in docs], reference_context_ids=qrels[t]
            ).score
            for t, docs in ranked.items()
        ]
        return round(sum(scores) / len(scores), 4)

    assert (mean("map"), mean("precision@10"), mean("mrr")) == (0.1785, 0.3000, 0.4064)
