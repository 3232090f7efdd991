"""Agreement on graded labels: quadratic-weighted κ (against statsmodels), its interval,
graded labels in the store, and calibrate on relevance levels."""

from __future__ import annotations

import random

import numpy as np
import pytest

from evals import JudgeVerdict, LabelStore, calibrate
from evals._graded import grade_of, graded_agreement
from evals.testing import FakeLLMServer
from scorers import ConfigError, create_context_relevance_scorer


@pytest.mark.parametrize("seed", range(8))
def test_weighted_kappa_equals_statsmodels(seed):
    from statsmodels.stats.inter_rater import cohens_kappa

    rng = random.Random(seed)
    n = rng.randrange(8, 90)
    people = [rng.randrange(4) for _ in range(n)]
    judge = [g if rng.random() < 0.6 else rng.randrange(4) for g in people]
    metrics, ci = graded_agreement(people, judge, resamples=500, seed=seed)
    table = np.zeros((4, 4))
    for a, b in zip(people, judge, strict=True):
        table[a, b] += 1
    assert metrics["weighted_kappa"] == pytest.approx(
        cohens_kappa(table, wt="quadratic").kappa, abs=1e-12
    )
    assert metrics["accuracy"] == sum(a == b for a, b in zip(people, judge, strict=True)) / n
    low, high = ci["weighted_kappa"]
    assert low <= metrics["weighted_kappa"] <= high


def test_one_level_only_leaves_weighted_kappa_undefined():
    metrics, _ = graded_agreement([3, 3, 3], [3, 3, 3], resamples=100)
    assert metrics["weighted_kappa"] is None and metrics["accuracy"] == 1.0
    assert graded_agreement([], [])[0] == {"accuracy": None, "weighted_kappa": None}


def test_grades_and_graded_labels(tmp_path):
    assert [grade_of(x) for x in ("none", "low", "medium", "high", 0, 3)] == [0, 1, 2, 3, 0, 3]
    for bad in ("very", 4, True, None):
        with pytest.raises(ValueError):
            grade_of(bad)
    verdict = JudgeVerdict(scorer_id="context-relevance", kind="relevance", judge_model="m",
                           prompt_version="1", text="chunk", input="q", supported=True,
                           grade=2)  # fmt: skip
    assert verdict.label_for(agree=True) == 2 and verdict.label_for(agree=False) == 0
    store = LabelStore(tmp_path)
    with pytest.raises(ConfigError, match="grade 0-3"):
        store.save(verdict, True)
    with pytest.raises(ConfigError, match="0 \\(none\\) to 3"):
        store.save(verdict, 5)
    saved = store.save(verdict, 3)
    (found,) = store.labels()
    assert found.label == 3 and found.agrees is False and saved.key == verdict.key
    assert store.calibration_rows("context-relevance") == [
        {"input": "q", "chunk": "chunk", "label": "high"}
    ]


def test_calibrate_on_relevance_levels():
    rows = [
        {
            "input": "Where was Einstein born?",
            "chunk": "Einstein was born in Ulm.",
            "label": "high",
        },
        {"input": "Where was Einstein born?", "chunk": "Paris is in France.", "label": "none"},
        {"input": "Where was Einstein born?", "chunk": "Einstein played violin.", "label": 1},
        {"input": "Where was Einstein born?", "chunk": "Ulm is a city.", "label": "low"},
    ]
    with FakeLLMServer() as server:
        found = calibrate(create_context_relevance_scorer(server.judge()), rows, resamples=200)
    assert found.n == 4 and "weighted_kappa" in found.metrics
    levels = [(d.label_level, d.predicted_level) for d in found.disagreements]
    assert all(a != b for a, b in levels)
    assert found.metrics["accuracy"] == (4 - len(levels)) / 4
    assert "weighted_kappa" in found.table()
    with pytest.raises(Exception, match="relevance row"):
        with FakeLLMServer() as server:
            calibrate(create_context_relevance_scorer(server.judge()), [{"claim": "x", "label": 1}])
