"""The engine's contract for fast paths: every registered plug-in gives exactly the
results of its scorer's steps (score, reason, status, details), run by run."""

from __future__ import annotations

import random

import pytest

from scorers import ScorerRun, create_ranking_scorer, scorer_by_id
from scorers._engine import has_fast_path, registered_fast_paths
from scorers._engine._fast import score_block

RUNS = [
    {
        "context": [
            {"id": "a", "text": "Paris is the capital of France."},
            {"id": "b", "text": "Berlin is in Germany."},
        ],
        "reference_contexts": ["Paris is the capital of France", "Rome is in Italy."],
        "reference_context_ids": ["a", "z"],
    },
    {
        "context": [{"id": "c", "text": "nothing here"}],
        "reference_contexts": ["x" * 40],
        "reference_context_ids": {"c": 2.0, "d": 0.0},
    },
    {
        "context": [{"text": "no id at all"}],
        "reference_contexts": ["no id at all"],
        "reference_context_ids": ["q"],
    },  # ID scorers: the steps' error
    {"context": [], "reference_contexts": ["a"], "reference_context_ids": ["a"]},
    {
        "context": [{"id": "e", "text": "巴黎是法国的首都"}],
        "reference_contexts": ["法国的首都是巴黎"],
        "reference_context_ids": ["e"],
    },
    {"context": [{"id": "f", "text": "text"}]},  # nothing to compare with: skipped
    {
        "context": [{"id": "g", "text": "dup"}, {"id": "g", "text": "dup again"}],
        "reference_contexts": ["dup"],
        "reference_context_ids": {"g": 0.0},
    },  # no relevant reference id: skipped by the steps
]

OPTIONS = {
    "non-llm-context-recall": [
        {"scale": 10},
        {"measure": "token_set_ratio", "threshold": 0.3},
        {"measure": "partial_ratio"},
        {"measure": "hamming", "threshold": 0.0},
    ],
    "non-llm-context-precision": [
        {},
        {"measure": "jaro_winkler"},
        {"measure": "indel", "threshold": 1.0, "scale": 5},
    ],
    "id-context-recall": [{}, {"scale": 7}],
    "id-context-precision": [{}, {"scale": 100}],
    "ranking": [  # the family of create_ranking_scorer(metric): "metric" names the scorer
        {"metric": "ndcg@10"},
        {"metric": "ndcg", "scale": 10},
        {"metric": "map"},
        {"metric": "map@2"},
        {"metric": "mrr", "language": "ko"},
        {"metric": "precision@3"},
        {"metric": "recall@1"},
        {"metric": "hit_rate@2"},
        {"metric": "r_precision"},
        {"metric": "ndcg_cut_5"},
        {"metric": "P_2"},
    ],
}
"""Option sets per fast path: the registry and this table must name the same scorers."""


def random_runs(count: int, seed: int) -> list[ScorerRun]:
    rng = random.Random(seed)
    words = ["paris", "france", "capital", "berlin", "river", "seine", "tower", "museum"]

    def text() -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(2, 9)))

    runs = []
    for i in range(count):
        chunks = [{"id": f"c{i}-{k}", "text": text()} for k in range(rng.randint(0, 6))]
        refs = [text() for _ in range(rng.randint(0, 4))]
        ids: list | dict = rng.sample(
            [c["id"] for c in chunks] + [f"x{i}"], k=min(2 + i % 3, len(chunks) + 1)
        )
        if i % 3 == 0:  # graded, with judged-not-relevant ids among them
            ids = {doc: float(rng.choice((0, 1, 2, 3))) for doc in ids}
        runs.append(ScorerRun(context=chunks, reference_contexts=refs, reference_context_ids=ids))
    return runs


DUMP = {"exclude": {"duration_s"}, "mode": "json"}
CASES = [(sid, options) for sid, sets in OPTIONS.items() for options in sets]


def build(scorer_id: str, options: dict):  # type: ignore[no-untyped-def]
    if scorer_id == "ranking":
        options = dict(options)
        return create_ranking_scorer(options.pop("metric"), options)
    return scorer_by_id(scorer_id, options=options)


def test_every_registered_fast_path_is_under_contract() -> None:
    assert set(registered_fast_paths()) == set(OPTIONS)


@pytest.mark.parametrize(("scorer_id", "options"), CASES)
def test_a_fast_path_equals_the_steps_run_by_run(scorer_id, options) -> None:
    scorer = build(scorer_id, options)
    assert has_fast_path(scorer)
    runs = [ScorerRun(**row) for row in RUNS] + random_runs(80, seed=3)
    block = score_block({"s": scorer}, runs)
    assert sum("s" in found for found in block) > 40
    for run, found in zip(runs, block, strict=True):
        try:
            stepped = scorer.run(run)
        except Exception:
            assert "s" not in found  # the steps raise; the fast path leaves the run to them
            continue
        if "s" in found:  # a plug-in may decline a run (CJK text for word measures)
            assert found["s"].model_dump(**DUMP) == stepped.model_dump(**DUMP)


def test_a_shared_memo_gives_each_plug_in_its_own_results() -> None:
    scorers = {f"{sid}/{i}": build(sid, o) for i, (sid, o) in enumerate(CASES)}
    runs = random_runs(60, seed=4)
    together = score_block(scorers, runs)
    for key, scorer in scorers.items():
        alone = score_block({key: scorer}, runs)
        for a, b in zip(together, alone, strict=True):
            assert (key in a) == (key in b)
            if key in a:
                assert a[key].model_dump(**DUMP) == b[key].model_dump(**DUMP)


def test_options_and_changes_the_fast_path_does_not_cover_leave_only_the_steps() -> None:
    assert not has_fast_path(scorer_by_id("non-llm-context-recall", options={"ignore_case": True}))
    assert not has_fast_path(
        scorer_by_id("non-llm-context-recall", options={"measure": lambda a, b: 1.0})
    )
    scorer = scorer_by_id("id-context-recall")
    assert not has_fast_path(scorer.preprocess(lambda r, s: None, name="noop"))
    assert not has_fast_path(scorer.generate_reason(lambda r, s, v: "mine"))
    assert has_fast_path(scorer.with_judge("openai/x"))  # the steps are unchanged


def test_a_plug_in_that_raises_leaves_its_block_to_the_steps() -> None:
    class Broken:
        def score(self, runs, memo):
            raise RuntimeError("no fast path today")

    scorer = scorer_by_id("non-llm-context-precision")
    runs = random_runs(20, seed=6)
    broken = scorer_by_id("non-llm-context-precision")
    broken._fast_path = Broken()
    assert score_block({"s": broken}, runs) == [{} for _ in runs]
    assert any(score_block({"s": scorer}, runs))


def test_results_of_one_run_share_no_list_even_when_the_plug_ins_share_details() -> None:
    scorers = {sid: build(sid, {}) for sid in ("id-context-recall", "id-context-precision")}
    scorers["mrr"] = create_ranking_scorer("mrr")
    runs = [ScorerRun(retrieved_context_ids=["a", "b"], reference_context_ids=["b"])]
    [found] = score_block(scorers, runs)
    assert len(found) == 3
    found["mrr"].details["ids"]["retrieved_ids"].append("changed")
    assert found["id-context-recall"].details["ids"]["retrieved_ids"] == ["a", "b"]
    assert found["id-context-precision"].details["ids"]["retrieved_ids"] == ["a", "b"]


def test_inline_plug_ins_score_on_the_loop_thread_and_the_others_in_a_daemon_thread() -> None:
    import copy
    import threading

    import anyio

    from scorers import create_id_context_recall_scorer, create_scorer
    from scorers._engine import Job, score_many

    threads: dict[str, str] = {}

    class Recorded:
        def __init__(self, name: str, inline: bool) -> None:
            self.name, self.inline = name, inline

        def score(self, runs, memo):  # type: ignore[no-untyped-def]
            threads[self.name] = threading.current_thread().name
            return [(1.0, "one", {}) for _ in runs]

    scorers = {}
    for name, inline in (("toy-inline", True), ("toy-threaded", False)):
        scorer = copy.copy(create_scorer(id=name).generate_score(lambda run, results: 1.0))
        scorer._fast_path = Recorded(name, inline)  # what with_fast_path attaches
        scorers[name] = scorer
    jobs = [Job(0, ScorerRun(input="q"))]

    async def main() -> str:
        for name, scorer in scorers.items():
            await score_many({name: scorer}, jobs, _ignore)
        return threading.current_thread().name

    loop_thread = anyio.run(main)
    assert threads == {"toy-inline": loop_thread, "toy-threaded": "scorekit"}
    assert create_id_context_recall_scorer()._fast_path.inline  # type: ignore[union-attr]
    assert create_ranking_scorer("mrr")._fast_path.inline  # type: ignore[union-attr]


async def _ignore(scored: object) -> None:
    pass
