"""`score_many` through `run_evals`: blocks equal the steps, runs stop cleanly, and the
GC is left as it was found."""

from __future__ import annotations

import gc

import pytest

from evals import read_results, run_evals
from scorers import DatasetError, scorer_by_id
from scorers._engine import BLOCK

from .test_fast_paths import RUNS, random_runs

DUMP = {"exclude": {"duration_s"}, "mode": "json"}
IDS = [
    "non-llm-context-recall",
    "non-llm-context-precision",
    "id-context-recall",
    "id-context-precision",
]


def rows_of(runs) -> list[dict]:
    fields = {"context", "reference_contexts", "reference_context_ids"}
    return [
        {"id": str(i), "input": "q", **run.model_dump(include=fields)} for i, run in enumerate(runs)
    ]


def scored(result) -> list:
    return [
        {sid: r.model_dump(**DUMP) for sid, r in item.scorer_results.items()}
        for item in result.items
    ]


@pytest.mark.slow
def test_run_evals_over_many_blocks_equals_the_steps_item_by_item() -> None:
    runs = random_runs(2 * BLOCK + 37, seed=5)
    scorers = {sid: scorer_by_id(sid) for sid in IDS}
    whole = run_evals(rows_of(runs), scorers, progress=False)
    assert len(whole.items) == len(runs)
    dump = {"exclude": {"duration_s", "scorer_id"}, "mode": "json"}
    for item, run in zip(whole.items, runs, strict=True):
        for name, scorer in scorers.items():
            assert item.scorer_results[name].model_dump(**dump) == scorer.run(run).model_dump(
                **dump
            )


def test_fast_paths_and_steps_give_one_results_file_and_resume_from_it(tmp_path) -> None:
    rows = [{"id": str(i), "input": "q", **row} for i, row in enumerate(RUNS)]
    scorers = [scorer_by_id(sid) for sid in IDS]
    path = tmp_path / "results.jsonl"
    first = run_evals(rows, scorers, results_path=path, progress=False)
    slow = [s.preprocess(lambda r, s: None, name="_noop") for s in scorers]  # steps only
    assert scored(run_evals(rows, slow, progress=False)) == scored(first)
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


def test_a_run_stopped_by_its_hook_stops_at_once() -> None:
    seen = []

    def stop(result) -> None:
        seen.append(result)
        if len(seen) == 3:
            raise KeyError("stop here")

    scorers = [scorer_by_id(sid) for sid in IDS[:2]]
    with pytest.raises(KeyError, match="stop here"):
        run_evals(
            rows_of(random_runs(3 * BLOCK, 9)), scorers, on_item_complete=stop, progress=False
        )
    assert len(seen) == 3
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_row_that_fails_to_load_stops_the_run_before_any_work() -> None:
    rows = rows_of(random_runs(3 * BLOCK, seed=10))
    rows[2 * BLOCK + 5]["context"] = 42
    seen = []
    with pytest.raises(DatasetError, match=f"item {2 * BLOCK + 6}"):
        run_evals(rows, [scorer_by_id(IDS[0])], on_item_complete=seen.append, progress=False)
    assert seen == []


def test_a_sharded_run_over_many_blocks_equals_the_whole_run_on_its_items() -> None:
    rows = rows_of(random_runs(3 * BLOCK, seed=11))
    scorers = [scorer_by_id(sid) for sid in IDS[:3]]
    whole = {r.item.id: r for r in run_evals(rows, scorers, progress=False).items}
    half = run_evals(rows, scorers, shard="0/2", progress=False)
    assert BLOCK < len(half.items) < len(rows)
    for item in half.items:
        for sid, result in item.scorer_results.items():
            expected = whole[item.item.id].scorer_results[sid]
            assert result.model_dump(**DUMP) == expected.model_dump(**DUMP)


def test_a_scorer_list_of_fast_and_step_only_scorers_runs_inline_with_the_gc_on() -> None:
    rows = [{"id": str(i), "input": "q", **row} for i, row in enumerate(RUNS)]
    mixed = [scorer_by_id(IDS[0]), scorer_by_id(IDS[1], options={"ignore_case": True})]
    result = run_evals(rows, mixed, progress=False)
    assert len(result.items) == len(rows)
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_paused_gc_turns_the_gc_back_on_and_promotes_what_was_made_meanwhile() -> None:
    from scorers._engine._gc import paused_gc

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
