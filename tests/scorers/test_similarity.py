from __future__ import annotations

import numpy as np
import pytest
from rapidfuzz.distance import Levenshtein

from scorers import (
    MEASURES,
    ConfigError,
    create_non_llm_context_precision_scorer,
    create_non_llm_context_recall_scorer,
    similarity_matrix,
)


def test_default_measure_is_one_minus_normalized_levenshtein_distance():
    rows, cols = ["kitten", "sitting", "abc"], ["sitting", "mitten"]
    matrix = similarity_matrix(rows, cols)
    expected = [[1 - Levenshtein.normalized_distance(r, c) for c in cols] for r in rows]
    assert matrix.shape == (3, 2) and matrix.dtype == np.float64
    assert matrix.tolist() == expected


def test_similarity_exactly_at_threshold_counts():
    # "abcd" vs "abef": 2 substitutions over length 4 -> similarity exactly 0.5
    assert similarity_matrix(["abcd"], ["abef"])[0, 0] == 0.5
    recall = create_non_llm_context_recall_scorer()
    assert recall.run(context=["abef"], reference_contexts=["abcd"]).score == 1.0
    strict = create_non_llm_context_recall_scorer({"threshold": 0.51})
    assert strict.run(context=["abef"], reference_contexts=["abcd"]).score == 0.0


def test_recall_exact_values_and_details():
    scorer = create_non_llm_context_recall_scorer({"scale": 4})
    result = scorer.run(
        context=["Paris is the capital of France.", "The Eiffel Tower is in Paris."],
        reference_contexts=["Paris is the capital of France.", "Berlin has many museums."],
    )
    assert result.score == 2.0  # 1 of 2 references found, × 4
    sims = result.details["similarities"]
    assert sims["matched"] == [True, False]
    assert sims["similarities"].shape == (2, 2)  # a numpy array in memory ...
    assert sims["best_per_reference"][0] == 1.0
    dumped = result.model_dump(mode="json")["details"]["similarities"]
    assert dumped["similarities"] == sims["similarities"].tolist()  # ... nested lists in JSON
    assert "Berlin has many museums." in result.reason


def test_precision_pattern_and_edge_cases():
    scorer = create_non_llm_context_precision_scorer()
    result = scorer.run(context=["abcd", "zzzz", "abcd"], reference_contexts=["abcd"])
    assert result.score == (1 + 2 / 3) / 2
    assert result.details["similarities"]["matched"] == [True, False, True]
    empty = scorer.run(context=[], reference_contexts=["abcd"])
    assert (empty.status, empty.score) == ("scored", 0.0)
    for refs in (None, []):
        skipped = scorer.run(context=["abcd"], reference_contexts=refs)
        assert (skipped.status, skipped.score) == ("skipped", 0.0)


def test_normalisation_options():
    plain = create_non_llm_context_recall_scorer({"threshold": 1.0})
    normalised = create_non_llm_context_recall_scorer(
        {"threshold": 1.0, "ignore_case": True, "ignore_whitespace": True}
    )
    run = {"context": ["  PARIS   is big "], "reference_contexts": ["paris is big"]}
    assert plain.run(**run).score == 0.0
    assert normalised.run(**run).score == 1.0


@pytest.mark.parametrize("name", sorted(MEASURES))
def test_every_named_measure_gives_similarities_in_unit_range(name):
    matrix = similarity_matrix(["new york mets", "abc"], ["new york meats", "abc", ""], name)
    assert ((matrix >= 0) & (matrix <= 1)).all()
    assert matrix[1, 1] == 1.0


def test_token_set_ratio_and_callable_measures():
    assert similarity_matrix(["a b c"], ["c b a"], "token_set_ratio")[0, 0] == 1.0
    first_letter = lambda a, b: float(a[:1] == b[:1])  # noqa: E731
    scorer = create_non_llm_context_precision_scorer({"measure": first_letter, "threshold": 1})
    result = scorer.run(context=["xa", "ab", "ac"], reference_contexts=["aa"])
    assert result.score == (1 / 2 + 2 / 3) / 2
    assert result.details["similarities"]["measure"] == "<lambda>"


def test_unknown_measure_and_bad_threshold_are_config_errors():
    with pytest.raises(ConfigError, match="unknown measure 'cosine'"):
        create_non_llm_context_recall_scorer({"measure": "cosine"})
    with pytest.raises(ConfigError, match="threshold"):
        create_non_llm_context_recall_scorer({"threshold": 1.5})
