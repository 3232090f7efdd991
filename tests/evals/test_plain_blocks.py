"""Model-free items finished a block at once (`Finish.block`, `score_many(on_block=)`):
the same lines, summary and resume as item by item."""

from __future__ import annotations

import json
import re
from pathlib import Path

import anyio
import pytest

from evals import read_results, run_evals
from evals._file._free_details import model_free_line, outcome_line
from evals._item import EvalItem
from evals._run._jobs import Pending, item_result, make_jobs
from scorers import (
    create_id_context_precision_scorer,
    create_id_context_recall_scorer,
    create_non_llm_context_recall_scorer,
    create_ranking_scorer,
)
from scorers._engine import BLOCK, Job, Scored, ScoredBlock, score_many
from scorers._engine._fast import as_results, block_outcomes

from ._lines import item_lines
from .test_big_runs import rows

DURATION = re.compile(r',?"duration_s":[0-9.e-]+')


def mixed_rows(n: int) -> list[dict]:
    """Chunk rows, ids-only rows and rows no fast path takes (no gold ids), mixed in one
    block."""
    out = rows(n)
    for k, row in enumerate(out):
        if k % 7 == 3:
            row.pop("reference_context_ids")  # the ID steps skip it
        elif k % 5 == 1:
            ids = [chunk["id"] for chunk in row.pop("context")]
            row["retrieved_context_ids"] = ids[::-1]
    return out


def mixed_scorers() -> dict:
    return {
        "recall": create_id_context_recall_scorer({"scale": 10}),
        "id-context-precision": create_id_context_precision_scorer(),
        "text": create_non_llm_context_recall_scorer(),
        "ndcg@5": create_ranking_scorer("ndcg@5"),
    }


def lines_without_durations(path: Path) -> list[str]:
    return [DURATION.sub("", line) for line in item_lines(path)]


def test_a_streamed_run_writes_the_lines_and_summary_of_the_item_by_item_run(tmp_path):
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in mixed_rows(3 * BLOCK + 11)))
    kept = run_evals(data, mixed_scorers(), results_path=tmp_path / "kept.jsonl", progress=False)
    streamed = run_evals(data, mixed_scorers(), results_path=tmp_path / "streamed.jsonl",
                         keep_items=False, progress=False)  # fmt: skip
    assert lines_without_durations(tmp_path / "streamed.jsonl") == lines_without_durations(
        tmp_path / "kept.jsonl"
    )
    for sid, summary in kept.summary.scorers.items():
        other = streamed.summary.scorers[sid]
        assert (other.mean, other.n_scored, other.n_skipped, other.n_error) == (
            summary.mean, summary.n_scored, summary.n_skipped, summary.n_error)  # fmt: skip
    assert streamed.summary.scorers["id-context-precision"].n_skipped > 0  # steps ran too
    read = {item.item.id: item for item in read_results(tmp_path / "streamed.jsonl")}
    assert [item.item.id for item in kept.items] == list(read)
    for item in kept.items:
        assert {s: r.score for s, r in read[item.item.id].scorer_results.items()} == {
            s: r.score for s, r in item.scorer_results.items()}  # fmt: skip


@pytest.mark.parametrize("with_header", [True, False])
def test_an_outcome_line_is_the_line_of_the_results_it_makes(with_header):
    scorers = mixed_scorers()
    items = [EvalItem.model_validate(row) for row in mixed_rows(40)]
    runs = [job.run for job in make_jobs(items, {}, None)]
    found, seconds = block_outcomes(scorers, runs)
    fingerprints = {key: f"f{key}" for key in scorers}
    scales = {"recall": 10.0}
    header_fingerprints = fingerprints if with_header else {}
    header_scales = scales if with_header else None
    tail = {} if with_header else {"fingerprints": fingerprints, "scales": scales}
    written = 0
    for item, outcomes in zip(items, found, strict=True):
        if len(outcomes) != len(scorers):
            continue  # left to the steps: not a plain item
        results = as_results(scorers, outcomes, seconds)
        duration = sum(result.duration_s for result in results.values())
        scored = Scored(Job(Pending(item)), results, duration_s=duration)
        result = item_result(scored, list(scorers), fingerprints, None, scales)
        ids = {key: scorer.id for key, scorer in scorers.items()}
        line = outcome_line(item, outcomes, seconds, ids, tail)
        assert line == model_free_line(result, header_fingerprints, header_scales)
        written += 1
    assert written > 20


def test_score_many_hands_blocks_in_order_with_the_steps_results_in_place():
    scorers = mixed_scorers()
    items = [EvalItem.model_validate(row) for row in mixed_rows(BLOCK + 30)]
    jobs = make_jobs(items, {}, None)
    blocks: list[ScoredBlock] = []
    singles: list[Scored] = []

    async def on_scored(scored: Scored) -> None:
        singles.append(scored)

    async def on_block(block: ScoredBlock) -> None:
        blocks.append(block)

    anyio.run(lambda: score_many(scorers, jobs, on_scored, on_block=on_block))
    assert not singles
    assert [len(block.jobs) for block in blocks] == [BLOCK, 30]
    handed = [job for block in blocks for job in block.jobs]
    assert handed == jobs
    entries = [entry for block in blocks for entry in block.found]
    stepped = [e for e in entries if isinstance(e, Scored)]
    assert stepped and all(any(r.status == "skipped" for r in e.results.values()) for e in stepped)
    plain = [e for e in entries if not isinstance(e, Scored)]
    assert plain and all(list(e) == list(scorers) for e in plain)
    assert set(blocks[0].seconds) == set(scorers)


def test_a_hook_or_kept_items_still_get_an_item_result_each(tmp_path):
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in mixed_rows(50)))
    seen = []
    result = run_evals(data, mixed_scorers(), results_path=tmp_path / "out.jsonl",
                       keep_items=False, progress=False,
                       on_item_complete=lambda item: seen.append(item.item.id))  # fmt: skip
    assert len(seen) == 50 == result.summary.items
    assert len(item_lines(tmp_path / "out.jsonl")) == 50


def test_a_streamed_run_cut_short_resumes_to_the_same_lines(tmp_path):
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in mixed_rows(BLOCK + 40)))
    whole = tmp_path / "whole.jsonl"
    run_evals(data, mixed_scorers(), results_path=whole, keep_items=False, progress=False)
    cut = tmp_path / "cut.jsonl"
    text = whole.read_bytes()
    cut.write_bytes(text[: len(text) * 2 // 3 - 17])  # a crash mid-line
    again = run_evals(data, mixed_scorers(), results_path=cut, resume=True, keep_items=False,
                      progress=False)  # fmt: skip
    assert again.summary.items == BLOCK + 40
    assert again.summary.resumed_items > 0
    assert sorted(lines_without_durations(cut)) == sorted(lines_without_durations(whole))


def test_an_outcome_whose_line_cannot_be_plain_is_written_as_a_whole_result(tmp_path):
    import copy

    from scorers import create_scorer

    class Opaque:
        def __repr__(self) -> str:
            return "<opaque>"

    class Odd:  # details JSON cannot hold: the plain line gives up on that item
        inline = True

        def score(self, runs, memo):
            return [(1.0, "one", {"kept": Opaque()} if run.run_id == "3" else {}) for run in runs]

    scorer = copy.copy(create_scorer(id="odd").generate_score(lambda run, results: 1.0))
    scorer._fast_path = Odd()  # what with_fast_path attaches
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps({"id": str(k), "input": "q"}) + "\n" for k in range(6)))
    out = tmp_path / "out.jsonl"
    result = run_evals(data, [scorer], results_path=out, keep_items=False, progress=False)
    assert result.summary.items == 6 and result.summary.scorers["odd"].n_scored == 6
    read = {item.item.id: item for item in read_results(out)}
    assert sorted(read) == [str(k) for k in range(6)]
    assert read["3"].scorer_results["odd"].details["kept"] == "<opaque>"  # its repr
