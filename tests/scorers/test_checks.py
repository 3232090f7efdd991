"""Numeric options: every bad value is a ConfigError naming the option and its range."""

from __future__ import annotations

import math

import pytest

from scorers import ConfigError, Judge, create_context_recall_scorer, create_scorer

NAN, INF = math.nan, math.inf


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"timeout": NAN}, r"Judge\(timeout=...\) must be a finite number > 0; got nan"),
        ({"timeout": "5"}, r"Judge\(timeout=...\) must be a finite number > 0; got '5' \(str\)"),
        ({"timeout": 0}, r"timeout=...\) must be a finite number > 0"),
        ({"max_concurrency": 1.5}, r"max_concurrency=...\) must be an integer >= 1; got 1.5"),
        ({"max_concurrency": 0}, r"max_concurrency=...\) must be an integer >= 1; got 0"),
        ({"requests_per_minute": INF}, r"requests_per_minute=...\) must be a finite number"),
        ({"max_retries": -1}, r"max_retries=...\) must be an integer >= 0"),
        ({"temperature": NAN}, r"temperature=...\) must be a finite number >= 0"),
        ({"client_processes": 1.5}, r"client_processes=...\) must be an integer >= 0"),
    ],
)
def test_judge_numeric_options(options, message):
    with pytest.raises(ConfigError, match=message):
        Judge("openai/gpt-4o-mini", **options)


def test_whole_floats_are_accepted_as_integers():
    assert Judge("openai/gpt-4o-mini", max_concurrency=2.0).max_concurrency == 2


@pytest.mark.parametrize(
    ("scale", "message"),
    [
        (INF, "Input should be a finite number"),
        (NAN, "Input should be a finite number"),
        (1e308, "Input should be less than or equal to 1000000000"),
        (0, "Input should be greater than 0"),
        (-1, "Input should be greater than 0"),
    ],
)
def test_scale_is_finite_positive_and_bounded(scale, message):
    with pytest.raises(ConfigError, match=rf"option 'scale': {message}"):
        create_context_recall_scorer("openai/gpt-4o-mini", {"scale": scale})
    with pytest.raises(ConfigError, match="scale must be a finite number > 0 and <= 1e"):
        create_scorer(id="x", scale=scale)


def test_the_largest_scale_cannot_overflow_a_summary():
    from evals._results import mean_ci

    values = [1e9, 0.0] * 50_000
    mean, low, high = mean_ci(values, (0.0, 1e9))
    assert mean == 5e8 and math.isfinite(low) and math.isfinite(high)
