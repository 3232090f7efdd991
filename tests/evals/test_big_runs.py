"""Big runs: keep_items=False streams the data and keeps no item, summaries stay exact,
resume reads an index of the file; model-free lines are compact and read back whole."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import evals._run._source
from evals import read_results, run_evals, summarize
from evals._file._previous import PreviousItems
from scorers import (
    ConfigError,
    DatasetError,
    create_id_context_precision_scorer,
    create_id_context_recall_scorer,
    create_non_llm_context_precision_scorer,
    create_non_llm_context_recall_scorer,
)

from ._lines import item_lines

WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()


def rows(n: int, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)

    def text() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(12))

    out = []
    for k in range(n):
        chunks = [{"id": f"d{i}", "text": text()} for i in range(6)]
        out.append(
            {
                "id": str(k),
                "input": "q?",
                "context": chunks,
                "reference_contexts": [chunks[0]["text"], text(), chunks[3]["text"]],
                "reference_context_ids": ["d0", "d3", "d5"] if k % 4 else ["d1"],
                "metadata": {"topic": "a" if k % 2 else "b"},
            }
        )
    return out


def scorers() -> list:
    return [
        create_non_llm_context_recall_scorer(),
        create_non_llm_context_precision_scorer(),
        create_id_context_recall_scorer(),
        create_id_context_precision_scorer(),
    ]


def write(path: Path, data: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in data))
    return path


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(evals._run._source, "CHUNK", 7)  # many chunks from a small file


def test_a_run_that_keeps_no_item_has_the_same_summary(tmp_path, small_chunks):
    data = write(tmp_path / "d.jsonl", rows(40))
    kept = run_evals(data, scorers(), results_path=tmp_path / "a.jsonl", progress="none")
    lean = run_evals(
        data, scorers(), results_path=tmp_path / "b.jsonl", keep_items=False, progress="none"
    )
    assert lean.items == [] and not lean.items_kept and kept.items_kept
    assert lean.scores == kept.scores
    for sid, s in kept.summary.scorers.items():
        other = lean.summary.scorers[sid]
        assert (other.mean, other.ci_low, other.ci_high) == (s.mean, s.ci_low, s.ci_high)
        assert (other.n_scored, other.n_skipped, other.n_error) == (s.n_scored, s.n_skipped, 0)
    back = list(lean.iter_items())
    assert [r.item.id for r in back] == [str(i) for i in range(40)]  # the file's order
    assert [r.scorer_results["id-context-recall"].score for r in back] == [
        r.scorer_results["id-context-recall"].score for r in kept.items
    ]
    assert lean.errors() == [] and lean.item_status("3", "id-context-recall") == "scored"
    assert len(lean.to_pandas()) == 40 * 4


def test_keeping_no_item_needs_a_results_file():
    with pytest.raises(ConfigError, match="keep_items=False needs results_path"):
        run_evals(rows(2), scorers(), keep_items=False)


def test_bad_rows_are_all_named_before_any_work(tmp_path, small_chunks):
    data = rows(20)
    data[3]["context"] = 5
    data[17]["id"] = "2"  # a duplicate id
    path = write(tmp_path / "d.jsonl", data)
    out = tmp_path / "r.jsonl"
    with pytest.raises(DatasetError) as info:
        run_evals(path, scorers(), results_path=out, keep_items=False, progress="none")
    assert "2 rows cannot be used" in str(info.value) and "duplicate id '2'" in str(info.value)
    assert not out.exists() or item_lines(out) == []


def test_a_shard_streams_only_its_items(tmp_path, small_chunks):
    path = write(tmp_path / "d.jsonl", rows(30))
    whole = run_evals(path, scorers(), shard="1/3", progress="none")
    lean = run_evals(
        path,
        scorers(),
        shard="1/3",
        results_path=tmp_path / "r.jsonl",
        keep_items=False,
        progress="none",
    )
    assert lean.summary.items == whole.summary.items > 0 and lean.scores == whole.scores


def test_a_killed_big_run_resumes_without_repeating_items(tmp_path, small_chunks):
    path = write(tmp_path / "d.jsonl", rows(25))
    out = tmp_path / "r.jsonl"
    seen: list[str] = []

    def stop_after_ten(result):
        seen.append(result.item.id)
        if len(seen) == 10:
            raise RuntimeError("stopped")  # the run stops here, as a kill would

    with pytest.raises(RuntimeError, match="stopped"):
        run_evals(
            path,
            scorers(),
            results_path=out,
            keep_items=False,
            on_item_complete=stop_after_ten,
            progress="none",
        )
    with out.open("a") as handle:
        handle.write('{"item": {"id": "cut')  # a line cut short by the kill
    again: list[str] = []
    result = run_evals(
        path,
        scorers(),
        results_path=out,
        keep_items=False,
        resume=True,
        on_item_complete=lambda r: again.append(r.item.id),
        progress="none",
    )
    assert set(again) == {str(i) for i in range(25)} - set(seen) and len(again) == 15
    assert result.summary.items == 25 and result.summary.resumed_items == 10
    full = run_evals(path, scorers(), progress="none")
    assert result.scores == full.scores
    assert len(read_results(out)) == 25 and len(item_lines(out)) == 25


def test_the_index_of_a_results_file_reads_what_read_results_reads(tmp_path):
    out = tmp_path / "r.jsonl"
    run_evals(rows(12), scorers(), results_path=out, progress="none")
    run_evals(rows(12, seed=1), scorers(), results_path=out, resume=True, progress="none")
    index = PreviousItems(out)
    whole = {r.item.id: r for r in read_results(out)}
    assert sorted(index) == sorted(whole) and len(index) == 12
    for item_id, result in whole.items():
        assert index[item_id].model_dump(mode="json") == result.model_dump(mode="json")
    assert [r.item.id for r in index.in_file_order()] == [str(i) for i in range(12)]


def test_model_free_lines_are_compact_and_read_back_whole(tmp_path):
    out = tmp_path / "r.jsonl"
    result = run_evals(rows(6), scorers(), results_path=out, progress="none")
    lines = item_lines(out)
    assert all(line.startswith('{"$compact":1,') for line in lines)
    raw = json.loads("{" + lines[1][len('{"$compact":1,') :])
    found = raw["scorer_results"]
    assert found["non-llm-context-precision"]["details"]["similarities"]["similarities"] == {
        "$same_in": "non-llm-context-recall"  # one matrix, written once
    }
    assert found["id-context-precision"]["details"] == {"ids": {"$same_in": "id-context-recall"}}
    assert found["id-context-recall"]["details"]["ids"] == {
        "retrieved_ids": "$context",
        "relevant_ids": "$reference",
        "grades": "$binary",
    }
    matrix = found["non-llm-context-recall"]["details"]["similarities"]["similarities"]
    assert all(round(v, 4) == v for row in matrix for v in row)
    results_bytes = len(json.dumps(found, ensure_ascii=False, separators=(",", ":")))
    assert results_bytes < 1500  # four results; ~3,100 bytes before
    back = {r.item.id: r for r in read_results(out)}
    for item in result.items:
        again = back[item.item.id]
        assert again.item == item.item and again.fingerprints == item.fingerprints
        for sid, score in item.scorer_results.items():
            other = again.scorer_results[sid]
            assert (other.score, other.reason, other.status) == (
                score.score,
                score.reason,
                score.status,
            )
            details, restored = score.details, other.details
            if "ids" in details:
                assert restored["ids"] == details["ids"]
            else:
                sims, got = details["similarities"], restored["similarities"]
                assert got["matched"] == list(sims["matched"])
                assert got["similarities"] == [
                    [round(v, 4) for v in r] for r in sims["similarities"].tolist()
                ]
                per = "best_per_reference" if "best_per_reference" in sims else "best_per_chunk"
                assert got[per] == pytest.approx(list(sims[per]), abs=5e-5)


def test_summaries_do_not_depend_on_the_order_items_finish_in():
    result = run_evals(rows(50), scorers(), progress="none")
    ids = list(result.summary.scorers)
    forward = summarize(result.items, ids, 0.0)
    backward = summarize(list(reversed(result.items)), ids, 0.0)
    for sid in ids:
        a, b = forward.scorers[sid], backward.scorers[sid]
        assert (a.mean, a.ci_low, a.ci_high) == (b.mean, b.ci_low, b.ci_high)


def test_a_clean_run_that_kept_no_item_does_not_read_its_file_for_errors(tmp_path):
    out = tmp_path / "r.jsonl"
    result = run_evals(rows(5), scorers(), results_path=out, keep_items=False, progress="none")
    line = json.loads("{" + item_lines(out)[0][len('{"$compact":1,') :])
    line["error"] = {"phase": "target", "message": "planted after the run"}
    out.write_text('{"$compact":1,' + json.dumps(line, separators=(",", ":"))[1:] + "\n")
    assert result.errors() == []  # the summary counts no failure: the file is not read
    assert any(r.error for r in result.iter_items())  # (reading it would have found one)
