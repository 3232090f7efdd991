"""Invariants of the model-free scorers, checked with hypothesis."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorers import (
    average_precision,
    create_id_context_precision_scorer,
    create_id_context_recall_scorer,
    create_non_llm_context_precision_scorer,
    create_non_llm_context_recall_scorer,
    create_ranking_scorer,
)

ids = st.lists(st.sampled_from([str(i) for i in range(12)]), max_size=10)
texts = st.lists(st.text(alphabet="abcde ", max_size=12), max_size=6)
scales = st.sampled_from([1.0, 5.0, 10.0, 0.5])

SCORERS = {
    "id-recall": create_id_context_recall_scorer,
    "id-precision": create_id_context_precision_scorer,
    "text-recall": create_non_llm_context_recall_scorer,
    "text-precision": create_non_llm_context_precision_scorer,
}
RANKING = ["precision@3", "recall@3", "hit_rate@3", "mrr", "map", "ndcg@5", "r_precision"]


def chunks(values):
    return [{"id": v, "text": v} for v in values]


@settings(max_examples=60, deadline=None)
@given(retrieved=ids, relevant=ids, scale=scales, metric=st.sampled_from(RANKING))
def test_every_score_is_within_zero_and_scale(retrieved, relevant, scale, metric):
    for factory in SCORERS.values():
        result = factory({"scale": scale}).run(
            context=chunks(retrieved), reference_context_ids=relevant, reference_contexts=relevant
        )
        assert 0.0 <= result.score <= scale
    ranked = create_ranking_scorer(metric, {"scale": scale}).run(
        context=chunks(retrieved), reference_context_ids=relevant
    )
    assert 0.0 <= ranked.score <= scale


@settings(max_examples=60, deadline=None)
@given(retrieved=ids, relevant=ids, texts_r=texts, texts_g=texts, data=st.data())
def test_recall_is_invariant_to_the_order_of_retrieved_chunks(
    retrieved, relevant, texts_r, texts_g, data
):
    shuffled = data.draw(st.permutations(retrieved))
    id_recall = create_id_context_recall_scorer()
    a = id_recall.run(context=chunks(retrieved), reference_context_ids=relevant).score
    b = id_recall.run(context=chunks(shuffled), reference_context_ids=relevant).score
    assert a == b
    text_recall = create_non_llm_context_recall_scorer()
    shuffled_texts = data.draw(st.permutations(texts_r))
    a = text_recall.run(context=texts_r, reference_contexts=texts_g).score
    b = text_recall.run(context=shuffled_texts, reference_contexts=texts_g).score
    assert a == b


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(relevance=st.lists(st.booleans(), min_size=2, max_size=12), data=st.data())
def test_precision_never_rises_when_a_relevant_chunk_moves_down(relevance, data):
    relevant_positions = [i for i, r in enumerate(relevance) if r]
    if not relevant_positions:
        return
    i = data.draw(st.sampled_from(relevant_positions))
    j = data.draw(st.integers(min_value=i, max_value=len(relevance) - 1))
    moved = list(relevance)
    moved.insert(j, moved.pop(i))
    assert average_precision(moved) <= average_precision(relevance)
    # the same through the public scorer
    names = [f"r{k}" if r else f"n{k}" for k, r in enumerate(relevance)]
    moved_names = list(names)
    moved_names.insert(j, moved_names.pop(i))
    scorer = create_non_llm_context_precision_scorer({"threshold": 1.0})
    refs = [n for n in names if n.startswith("r")]
    before = scorer.run(context=names, reference_contexts=refs).score
    after = scorer.run(context=moved_names, reference_contexts=refs).score
    assert after <= before


@settings(max_examples=60, deadline=None)
@given(relevant=st.lists(st.sampled_from("abcdefgh"), min_size=1, unique=True), scale=scales)
def test_an_all_relevant_list_scores_exactly_scale(relevant, scale):
    run = {
        "context": chunks(relevant),
        "reference_context_ids": relevant,
        "reference_contexts": relevant,
    }
    for factory in SCORERS.values():
        assert factory({"scale": scale}).run(**run).score == scale
    for metric in ("map", "mrr", "ndcg@10", "r_precision", "hit_rate@1"):
        assert create_ranking_scorer(metric, {"scale": scale}).run(**run).score == scale


@pytest.mark.parametrize("n", [1, 2, 7])
def test_all_relevant_average_precision_is_exactly_one(n):
    assert average_precision([True] * n) == 1.0
