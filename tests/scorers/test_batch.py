"""The batch implementations of the model-free scorers equal their step pipelines."""

from __future__ import annotations

import random

import numpy as np
import pytest

from evals import run_evals
from scorers import (
    ScorerRun,
    create_id_context_precision_scorer,
    create_id_context_recall_scorer,
    create_non_llm_context_precision_scorer,
    create_non_llm_context_recall_scorer,
)

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
    },  # ID scorers: the pipeline's error
    {"context": [], "reference_contexts": ["a"], "reference_context_ids": ["a"]},
    {
        "context": [{"id": "e", "text": "巴黎是法国的首都"}],
        "reference_contexts": ["法国的首都是巴黎"],
        "reference_context_ids": ["e"],
    },
    {"context": [{"id": "f", "text": "text"}]},  # nothing to compare with: skipped
]


def _same(a, b) -> None:
    assert (a.score, a.reason, a.status, a.error) == (b.score, b.reason, b.status, b.error)
    assert a.details.keys() == b.details.keys() - {"noop"}
    for key in a.details:
        left, right = a.details[key], b.details[key]
        if isinstance(left, dict):
            assert left.keys() == right.keys()
            for k in left:
                assert np.array_equal(np.asarray(left[k]), np.asarray(right[k])), (key, k)
        else:
            assert left == right


FACTORIES = [
    lambda: create_non_llm_context_recall_scorer({"scale": 10}),
    lambda: create_non_llm_context_precision_scorer(),
    lambda: create_non_llm_context_recall_scorer({"measure": "token_set_ratio", "threshold": 0.3}),
    lambda: create_non_llm_context_precision_scorer({"measure": "jaro_winkler"}),
    lambda: create_id_context_recall_scorer(),
    lambda: create_id_context_precision_scorer({"scale": 100}),
]


@pytest.mark.parametrize("make", FACTORIES)
def test_score_block_equals_pipeline(make) -> None:
    scorer = make()
    assert scorer.batched
    runs = [ScorerRun(**row) for row in RUNS]
    block = scorer.score_block(runs, {})
    assert any(r is not None for r in block)
    for run, batched in zip(runs, block, strict=True):
        try:
            piped = scorer.run(run)
        except Exception:
            assert batched is None  # the pipeline raises; the batch leaves the run to it
            continue
        if batched is not None:
            _same(batched, piped)


def test_run_evals_with_batches_equals_one_item_at_a_time() -> None:
    scorers = [make() for make in FACTORIES[:2]] + [make() for make in FACTORIES[4:]]
    rows = [{"id": str(i), "input": "q", **row} for i, row in enumerate(RUNS)]
    whole = run_evals(rows, scorers, progress=False)
    for item in whole.items:
        for scorer in scorers:
            one = run_evals(
                [rows[int(item.item.id)]],
                [scorer.preprocess(lambda r, s: None, name="noop")],
                progress=False,
            )
            assert not scorer.preprocess(lambda r, s: None, name="noop").batched
            _same(item.scorer_results[scorer.id], one.items[0].scorer_results[scorer.id])


def test_options_the_batch_does_not_cover_fall_back_to_the_pipeline() -> None:
    assert not create_non_llm_context_recall_scorer({"ignore_case": True}).batched
    assert not create_non_llm_context_recall_scorer({"measure": lambda a, b: 1.0}).batched


def _random_runs(count: int, seed: int) -> list[ScorerRun]:
    rng = random.Random(seed)
    words = ["paris", "france", "capital", "berlin", "river", "seine", "tower", "museum"]

    def text() -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(2, 9)))

    runs = []
    for i in range(count):
        chunks = [{"id": f"c{i}-{k}", "text": text()} for k in range(rng.randint(0, 6))]
        refs = [text() for _ in range(rng.randint(0, 4))]
        ids = rng.sample([c["id"] for c in chunks] + [f"x{i}"], k=min(2, len(chunks) + 1))
        runs.append(ScorerRun(context=chunks, reference_contexts=refs, reference_context_ids=ids))
    return runs


@pytest.mark.parametrize("make", FACTORIES)
def test_a_block_of_many_shapes_equals_the_pipeline_run_by_run(make) -> None:
    # matrices of 1-6 chunks × 1-4 references, runs with neither between them: every
    # run's slice of the block-wide arrays must be its own
    scorer = make()
    runs = _random_runs(80, seed=3)
    block = scorer.score_block(runs, {})
    assert sum(r is not None for r in block) > 40
    for run, batched in zip(runs, block, strict=True):
        piped = scorer.run(run)
        if batched is None:
            assert piped.status == "skipped" or not run.context or not run.reference_contexts
            continue
        _same(batched, piped)
        dump = {"exclude": {"duration_s"}, "mode": "json"}
        assert batched.model_dump(**dump) == piped.model_dump(**dump)


def test_paused_gc_turns_the_gc_back_on_and_promotes_what_was_made_meanwhile() -> None:
    import gc

    from scorers._runtime import paused_gc

    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
        made = [[i] for i in range(20_000)]
    assert gc.isenabled()
    # the 20,000 lists went to the oldest generation, not left for young collections
    young = len(gc.get_objects(generation=0)) + len(gc.get_objects(generation=1))
    assert young < 1_000 and made
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()  # it was off: it stays off
    finally:
        gc.enable()


def test_run_evals_leaves_the_gc_as_it_found_it() -> None:
    import gc

    rows = [{"id": str(i), "input": "q", **row} for i, row in enumerate(RUNS)]
    scorers = [make() for make in FACTORIES[:2]] + [make() for make in FACTORIES[4:]]
    run_evals(rows, scorers, progress=False)
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_batched_run_writes_its_results_and_resumes_from_them(tmp_path) -> None:
    from evals import read_results

    rows = [{"id": str(i), "input": "q", **row} for i, row in enumerate(RUNS)]
    scorers = [make() for make in FACTORIES[:2]] + [make() for make in FACTORIES[4:]]
    path = tmp_path / "results.jsonl"
    first = run_evals(rows, scorers, results_path=path, progress=False)
    written = read_results(path)
    assert [r.item.id for r in written] == [r.item.id for r in first.items]
    for kept, fresh in zip(written, first.items, strict=True):
        assert kept.fingerprints == fresh.fingerprints and kept.fingerprints
        for sid, result in fresh.scorer_results.items():
            stored = kept.scorer_results[sid]
            assert (stored.score, stored.reason, stored.status) == (
                result.score,
                result.reason,
                result.status,
            )
    again = run_evals(rows, scorers, results_path=path, resume=True, progress=False)
    # kept whole, except the item whose ID scorers failed (no chunk id): failed scorers re-run
    assert (again.summary.resumed_items, again.summary.rescored_items) == (len(rows) - 1, 1)
    assert again.scores == first.scores


def test_run_evals_over_many_blocks_equals_the_pipeline_item_by_item() -> None:
    # more items than one block: every block's kernel ran in the thread beside the
    # previous block's scoring, and each item still gets its own values
    from evals._runner import _BLOCK

    runs = _random_runs(2 * _BLOCK + 37, seed=5)
    fields = {"context", "reference_contexts", "reference_context_ids"}
    rows = [
        {"id": str(i), "input": "q", **run.model_dump(include=fields)} for i, run in enumerate(runs)
    ]
    scorers = {str(k): make() for k, make in enumerate(FACTORIES)}
    whole = run_evals(rows, scorers, progress=False)
    assert len(whole.items) == len(rows)
    dump = {"exclude": {"duration_s", "scorer_id"}, "mode": "json"}
    for item, run in zip(whole.items, runs, strict=True):
        for name, scorer in scorers.items():
            piped = scorer.run(run)
            assert item.scorer_results[name].model_dump(**dump) == piped.model_dump(**dump)


def _scored(run) -> list:
    dump = {"exclude": {"duration_s"}, "mode": "json"}
    return [
        {sid: r.model_dump(**dump) for sid, r in item.scorer_results.items()} for item in run.items
    ]


def test_a_kernel_that_fails_leaves_its_block_to_the_batch_and_the_pipeline() -> None:
    from scorers._runtime import Kernel

    def broken(runs):
        def compute():
            raise RuntimeError("no kernel today")

        return {("pair_similarities", "levenshtein"): Kernel(compute, lambda value: value)}

    def bad_finish(runs):
        return {("pair_similarities", "levenshtein"): Kernel(lambda: 1, lambda value: 1 / 0)}

    rows = [{"id": str(i), "input": "q", **row} for i, row in enumerate(RUNS)]
    plain = run_evals(rows, [FACTORIES[1]()], progress=False)
    for kernels in (broken, bad_finish):
        scorer = FACTORIES[1]()
        scorer._kernels = kernels
        again = run_evals(rows, [scorer], progress=False)
        assert _scored(again) == _scored(plain)


def test_block_kernels_match_the_batch_memo() -> None:
    scorer = FACTORIES[1]()
    runs = _random_runs(30, seed=8)
    kernels = scorer.block_kernels(runs)
    assert list(kernels) == [("pair_similarities", "levenshtein")]
    memo = {key: k.finish(k.compute()) for key, k in kernels.items()}
    dump = {"exclude": {"duration_s"}, "mode": "json"}
    with_memo = [r and r.model_dump(**dump) for r in scorer.score_block(runs, memo)]
    without = [r and r.model_dump(**dump) for r in scorer.score_block(runs, {})]
    assert with_memo == without
    assert not create_id_context_recall_scorer().block_kernels(runs)
    assert not scorer.preprocess(lambda r, s: None, name="noop").block_kernels(runs)


def test_a_run_stopped_by_its_hook_leaves_no_kernel_thread_behind() -> None:
    import threading

    from evals._runner import _BLOCK

    runs = _random_runs(3 * _BLOCK, seed=9)
    fields = {"context", "reference_contexts", "reference_context_ids"}
    rows = [
        {"id": str(i), "input": "q", **r.model_dump(include=fields)} for i, r in enumerate(runs)
    ]
    seen = []

    def stop(result) -> None:
        seen.append(result)
        if len(seen) == 3:
            raise KeyError("stop here")

    with pytest.raises(KeyError, match="stop here"):
        run_evals(rows, [FACTORIES[0](), FACTORIES[1]()], on_item_complete=stop, progress=False)
    assert len(seen) == 3
    assert not [t for t in threading.enumerate() if t.name == "scorekit-kernels"]


def _block_rows(count: int, seed: int) -> list[dict]:
    fields = {"context", "reference_contexts", "reference_context_ids"}
    runs = _random_runs(count, seed)
    return [
        {"id": str(i), "input": "q", **r.model_dump(include=fields)} for i, r in enumerate(runs)
    ]


def test_a_row_that_fails_to_load_after_blocks_went_ahead_leaves_no_thread() -> None:
    import threading

    from evals._runner import _BLOCK
    from scorers import DatasetError

    rows = _block_rows(3 * _BLOCK, seed=10)
    rows[2 * _BLOCK + 5]["context"] = 42  # two blocks' kernels are under way by then
    with pytest.raises(DatasetError, match=f"item {2 * _BLOCK + 6}"):
        run_evals(rows, [FACTORIES[0](), FACTORIES[1]()], progress=False)
    assert not [t for t in threading.enumerate() if t.name == "scorekit-kernels"]


def test_a_sharded_run_over_many_blocks_equals_the_whole_run_on_its_items() -> None:
    # a shard cannot start kernels while the rows load (it selects after): the blocks
    # then go one ahead of the scoring only
    from evals._runner import _BLOCK

    rows = _block_rows(3 * _BLOCK, seed=11)
    scorers = [FACTORIES[0](), FACTORIES[1](), FACTORIES[4]()]
    whole = {r.item.id: r for r in run_evals(rows, scorers, progress=False).items}
    half = run_evals(rows, scorers, shard="0/2", progress=False)
    assert _BLOCK < len(half.items) < len(rows)
    dump = {"exclude": {"duration_s"}, "mode": "json"}
    for item in half.items:
        for sid, result in item.scorer_results.items():
            assert result.model_dump(**dump) == whole[item.item.id].scorer_results[sid].model_dump(
                **dump
            )


def test_a_kernel_that_raises_a_base_exception_does_not_stall_the_blocks_after_it() -> None:
    from evals._runner import _BLOCK
    from scorers._runtime import Kernel

    class Boom(BaseException):
        pass

    def exploding(runs):
        def compute():
            raise Boom

        return {("pair_similarities", "levenshtein"): Kernel(compute, lambda value: value)}

    rows = _block_rows(2 * _BLOCK + 3, seed=12)
    plain = run_evals(rows, [FACTORIES[1]()], progress=False)
    scorer = FACTORIES[1]()
    scorer._kernels = exploding
    assert _scored(run_evals(rows, [scorer], progress=False)) == _scored(plain)
