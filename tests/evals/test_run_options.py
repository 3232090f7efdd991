"""run_evals' numeric options: errors before any work, never a silent default."""

from __future__ import annotations

import math

import pytest

from evals import run_evals
from scorers import ConfigError, create_id_context_recall_scorer

DATA = [{"input": "q", "context": [{"id": "d1", "text": "t"}], "reference_context_ids": ["d1"]}]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"concurrency": 2.5}, r"concurrency must be an integer >= 1; got 2.5"),
        ({"concurrency": 0}, r"concurrency must be an integer >= 1; got 0"),
        ({"model_concurrency": 0}, r"model_concurrency must be an integer >= 1; got 0"),
        ({"item_timeout": 0}, r"item_timeout must be a finite number > 0; got 0"),
        ({"item_timeout": -1}, r"item_timeout must be a finite number > 0; got -1"),
        ({"item_timeout": math.nan}, r"item_timeout must be a finite number > 0; got nan"),
        (
            {"thresholds": {"id-context-recall": math.nan}},
            r"thresholds\['id-context-recall'\] must be a finite number; got nan",
        ),
    ],
)
def test_bad_numbers_are_config_errors(options, message, tmp_path):
    out = tmp_path / "r.jsonl"
    with pytest.raises(ConfigError, match=message):
        run_evals(DATA, [create_id_context_recall_scorer()], results_path=out, **options)
    assert not out.exists()  # refused before anything was written


def test_good_numbers_run():
    result = run_evals(
        DATA,
        [create_id_context_recall_scorer()],
        concurrency=2,
        model_concurrency=1,
        item_timeout=5,
        thresholds={"id-context-recall": 1},
        progress=False,
    )
    assert result.passed is True and result.scores == {"id-context-recall": 1.0}
