"""Rankings given as ids only (``retrieved_context_ids``): read without a chunk per id,
scored by the ID and ranking scorers exactly as the same ranking given as chunks, and
skipped — never 0 — by the scorers that read text."""

from __future__ import annotations

import random

import pytest

from evals import EvalItem, TargetOutput, load_dataset, read_results, run_evals
from evals.testing import FakeLLMServer
from scorers import (
    DatasetError,
    ScorerRun,
    create_context_recall_scorer,
    create_id_context_precision_scorer,
    create_id_context_recall_scorer,
    create_non_llm_context_precision_scorer,
    create_non_llm_context_recall_scorer,
    create_ranking_scorer,
)

RANKING = ["ndcg@10", "map", "mrr", "precision@5", "recall@20", "r_precision", "hit_rate@3"]


def ranked_scorers():
    return [
        create_id_context_recall_scorer(),
        create_id_context_precision_scorer(),
        *(create_ranking_scorer(m) for m in RANKING),
    ]


def test_ids_in_rank_order_or_ranked_by_their_scores():
    assert EvalItem(input="q", retrieved_context_ids=["b", 2, 1.0]).retrieved_context_ids == [
        "b", "2", "1"
    ]  # fmt: skip
    by_score = EvalItem(input="q", retrieved_context_ids={"a": 0.1, "b": 0.9, "c": 0.1})
    assert by_score.retrieved_context_ids == ["b", "a", "c"]  # ties in the order given
    pairs = ScorerRun(retrieved_context_ids=[("x", 1.0), ("y", 3.0)])
    assert pairs.retrieved_context_ids == ["y", "x"]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"retrieved_context_ids": "abc"}, "must be a list of ids in rank order"),
        ({"retrieved_context_ids": ["a", None]}, "item 1 is null"),
        ({"retrieved_context_ids": {"a": "high"}}, "retrieval score of id 'a' is 'high'"),
        ({"retrieved_context_ids": ["a"], "context": ["text"]}, "not both"),
    ],
)
def test_bad_ids_name_the_row(row, message):
    with pytest.raises(DatasetError, match=message):
        load_dataset([{"id": "q1", "input": "q", **row}])


def test_ragas_rows_with_ids_only_keep_them_as_ids():
    (item,) = load_dataset([{"user_input": "q", "retrieved_context_ids": ["d1", "d2"]}])
    assert item.retrieved_context_ids == ["d1", "d2"] and item.context is None
    (paired,) = load_dataset(
        [{"user_input": "q", "retrieved_contexts": ["one", "two"],
          "retrieved_context_ids": ["d1", "d2"]}]
    )  # fmt: skip
    assert [c.id for c in paired.context] == ["d1", "d2"] and paired.retrieved_context_ids is None


def random_rows(seed: int, n: int = 200):
    rng = random.Random(seed)
    rows = []
    for k in range(n):
        pool = [f"d{i}" for i in range(rng.randrange(1, 40))]
        ranked = rng.sample(pool, rng.randrange(0, len(pool) + 1))
        gold = rng.sample(pool, rng.randrange(0, min(6, len(pool)) + 1))
        graded = k % 3 == 0
        refs = {g: rng.choice([0, 1, 2, 3]) for g in gold} if graded else gold
        rows.append({"id": f"q{k}", "input": "q", "reference_context_ids": refs,
                     "ranked": ranked})  # fmt: skip
    return rows


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ids_score_exactly_as_the_same_ranking_given_as_chunks(seed):
    rows = random_rows(seed)
    as_ids = [{**{k: v for k, v in r.items() if k != "ranked"},
               "retrieved_context_ids": r["ranked"]} for r in rows]  # fmt: skip
    as_chunks = [{**{k: v for k, v in r.items() if k != "ranked"},
                  "context": [{"id": d, "text": ""} for d in r["ranked"]]} for r in rows]  # fmt: skip
    ids = run_evals(as_ids, ranked_scorers(), progress="none")
    chunks = run_evals(as_chunks, ranked_scorers(), progress="none")
    in_order = sorted(ids.items, key=lambda i: i.item.id)
    for a, b in zip(in_order, sorted(chunks.items, key=lambda i: i.item.id), strict=True):
        for sid, result in a.scorer_results.items():
            other = b.scorer_results[sid]
            assert (result.status, result.score, result.reason) == (
                other.status, other.score, other.reason
            ), (a.item.id, sid)  # fmt: skip
    assert ids.scores == chunks.scores
    steps = {s.id: s for s in ranked_scorers()}  # one run at a time: the steps, no fast path
    by_id = {i.item.id: i for i in ids.items}
    for row in as_ids[:40]:
        item = by_id[row["id"]]
        for sid, scorer in steps.items():
            alone = scorer.run(
                retrieved_context_ids=row["retrieved_context_ids"],
                reference_context_ids=row["reference_context_ids"],
            )
            assert (alone.status, alone.score) == (
                item.scorer_results[sid].status, item.scorer_results[sid].score
            )  # fmt: skip


def test_text_scorers_skip_an_ids_only_item_and_call_no_model():
    rows = [{"id": "q1", "input": "Where was Einstein born?", "ground_truth": "In Ulm.",
             "reference_contexts": ["Einstein was born in Ulm."], "reference_context_ids": ["a"],
             "retrieved_context_ids": ["a", "b"]}]  # fmt: skip
    with FakeLLMServer() as server:
        scorers = [
            create_context_recall_scorer(server.judge()),
            create_non_llm_context_recall_scorer(),
            create_non_llm_context_precision_scorer(),
            create_id_context_recall_scorer(),
        ]
        result = run_evals(rows, scorers, progress="none")
        assert server.requests == []
    (item,) = result.items
    for sid in ("context-recall", "non-llm-context-recall", "non-llm-context-precision"):
        found = item.scorer_results[sid]
        assert found.status == "skipped" and found.value is None
        assert found.reason.startswith("skipped: no retrieved text")
        assert result.summary.scorers[sid].mean is None
    assert item.scorer_results["id-context-recall"].score == 1.0


def test_a_target_may_return_ids_and_a_results_file_keeps_them(tmp_path):
    def retrieve(question):
        if question.endswith("1"):
            return TargetOutput(output="an answer", retrieved_context_ids=["b", "a"])
        return {"output": "an answer", "retrieved_context_ids": {"a": 2.0, "b": 1.0}}

    rows = [{"id": f"q{i}", "input": f"question {i}", "reference_context_ids": ["a"]}
            for i in range(2)]  # fmt: skip
    path = tmp_path / "r.jsonl"
    result = run_evals(rows, [create_ranking_scorer("mrr")], retrieve, results_path=path,
                       progress="none")  # fmt: skip
    items = sorted(result.items, key=lambda i: i.item.id)
    assert [i.scorer_results["mrr"].score for i in items] == [1.0, 0.5]
    assert items[1].target_result.retrieved_context_ids == ["b", "a"]
    again = sorted(read_results(path), key=lambda i: i.item.id)  # the file: finishing order
    assert [i.target_result.retrieved_context_ids for i in again] == [["a", "b"], ["b", "a"]]
    resumed = run_evals(rows, [create_ranking_scorer("mrr"), create_ranking_scorer("map")],
                        retrieve, results_path=path, resume=True, progress="none")  # fmt: skip
    resumed_items = sorted(resumed.items, key=lambda i: i.item.id)
    assert [i.scorer_results["map"].score for i in resumed_items] == [1.0, 0.5]


def test_a_target_giving_both_is_the_items_error():
    def both(question):
        return {"output": "x", "context": ["text"], "retrieved_context_ids": ["a"]}

    result = run_evals([{"id": "q", "input": "q", "reference_context_ids": ["a"]}],
                       [create_ranking_scorer("mrr")], both, progress="none")  # fmt: skip
    (item,) = result.items
    assert item.error is not None and "not both" in item.error.message


def test_the_rest_of_a_dict_with_ids_is_read_as_any_dict_is():
    """Before: the ids made the dict a TargetOutput, which has no 'answer': the answer
    was dropped without a word (output None)."""
    from evals._run._targets import as_target_result

    for rest in ({"answer": "x"}, {"output": "x"}, {"output": "x", "trace": 1}, {}):
        with_ids = as_target_result({**rest, "retrieved_context_ids": ["b", "a"]})
        without = as_target_result(rest) if rest else None
        assert with_ids.output == (None if without is None else without.output)
        assert with_ids.retrieved_context_ids == ["b", "a"]
