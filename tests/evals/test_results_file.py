"""The results file and resume: configurations never mix, one writer, compact lines."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from evals import read_results, run_evals, summarize
from evals.testing import FakeLLMServer
from scorers import (
    ConfigError,
    JudgeCache,
    create_context_precision_scorer,
    create_context_recall_scorer,
    create_id_context_recall_scorer,
    create_scorer,
)

from ._lines import header_lines, item_lines

ITEMS = [
    {
        "id": str(i),
        "input": f"question {i}",
        "ground_truth": f"Einstein was born in Ulm. Fact {i} is unsupported.",
        "context": ["Einstein was born in Ulm in 1879.", f"Unrelated passage {i}."],
    }
    for i in range(4)
]


def test_resume_rescores_when_the_judge_or_scale_changed(tmp_path: Path):
    out = tmp_path / "r.jsonl"
    cache = JudgeCache(tmp_path / "cache.sqlite")
    with FakeLLMServer() as server:
        first = run_evals(
            ITEMS, [create_context_recall_scorer(server.judge(cache=cache))], results_path=out
        )
        assert first.scores == {"context-recall": 0.5} and server.call_count == 8

        # the same configuration: nothing runs again
        same = run_evals(
            ITEMS,
            [create_context_recall_scorer(server.judge(cache=cache))],
            results_path=out,
            resume=True,
        )
        assert same.summary.resumed_items == 4 and server.call_count == 8

        # another temperature and scale: every result is re-scored, none kept
        changed = create_context_recall_scorer(
            server.judge(cache=cache, temperature=0.9), {"scale": 100}
        )
        again = run_evals(ITEMS, [changed], results_path=out, resume=True)
        assert again.scores == {"context-recall": 50.0}
        assert again.summary.resumed_items == 0
        assert again.summary.rescored_items == 4 and again.summary.rescored_for_config == 4
        assert "4 scorer results for a changed configuration" in again.table()
        assert server.call_count == 16  # a new temperature is a new cache entry

        # back to the first configuration: re-scored, and every call is a cache hit
        back = run_evals(
            ITEMS,
            [create_context_recall_scorer(server.judge(cache=cache))],
            results_path=out,
            resume=True,
        )
        assert back.scores == {"context-recall": 0.5} and back.summary.rescored_for_config == 4
        assert back.summary.model_calls == 0 and back.summary.cached_calls == 8
        assert server.call_count == 16
    assert len({r.fingerprints["context-recall"] for r in read_results(out)}) == 1


def test_fingerprints_differ_exactly_where_scores_can():
    base = create_context_recall_scorer("openai/m")
    assert base.fingerprint == create_context_recall_scorer("openai/m").fingerprint
    from scorers import Judge

    assert (
        base.fingerprint == create_context_recall_scorer(Judge("openai/m", timeout=5)).fingerprint
    )
    for other in (
        create_context_recall_scorer("openai/other"),
        create_context_recall_scorer(Judge("openai/m", temperature=0.5)),
        create_context_recall_scorer("openai/m", {"scale": 10}),
        create_context_recall_scorer("openai/m", {"llm_reason": True}),
        create_context_recall_scorer("openai/m", {"context": ["static"]}),
    ):
        assert other.fingerprint != base.fingerprint
    assert (
        create_scorer(id="x", config={"k": 1}).fingerprint
        != create_scorer(id="x", config={"k": 2}).fingerprint
    )


def test_results_of_an_older_file_without_fingerprints_are_rescored(tmp_path: Path):
    out = tmp_path / "r.jsonl"
    scorer = create_id_context_recall_scorer()
    data = [{"input": "q", "context": [{"id": "d1", "text": "t"}], "reference_context_ids": ["d1"]}]
    run_evals(data, [scorer], results_path=out)
    line = json.loads(item_lines(out)[0])
    line.pop("fingerprints", None)  # a model-free line leaves them to the header: dropped too
    out.write_text(json.dumps(line, separators=(",", ":")) + "\n")
    result = run_evals(data, [scorer], results_path=out, resume=True)
    assert result.summary.rescored_for_config == 1 and result.scores == {"id-context-recall": 1.0}


class Unjsonable:
    def __repr__(self) -> str:
        return "<Unjsonable>"


def test_an_item_that_cannot_be_stored_errors_alone_and_resume_works(tmp_path: Path):
    out = tmp_path / "r.jsonl"

    def target(question: str):
        if question == "bad":
            return "lone \ud800 surrogate from the target"
        if question == "object":
            return Unjsonable()
        return question

    scorer = create_scorer(id="s").generate_score(lambda run, results: 1)
    data = [{"input": "good"}, {"input": "bad"}, {"input": "object"}]
    result = run_evals(data, [scorer], target, results_path=out)
    assert [r.error.phase if r.error else None for r in result.items] == [None, "write", None]
    assert "cannot be stored as JSON" in result.items[1].error.message
    assert result.summary.item_errors == 1
    kept = {r.item.id: r for r in read_results(out)}
    assert sorted(kept) == ["1", "2", "3"]
    assert kept["3"].target_result.output == "<Unjsonable>"
    again = run_evals(data, [scorer], target, results_path=out, resume=True)
    assert again.summary.resumed_items == 2 and again.summary.item_errors == 1


def test_a_corrupted_line_is_reported_with_its_number(tmp_path: Path, capsys):
    out = tmp_path / "r.jsonl"
    scorer = create_scorer(id="s").generate_score(lambda run, results: 1)
    data = [{"input": "a"}, {"input": "b"}, {"input": "c"}]
    run_evals(data, [scorer], results_path=out, concurrency=1)
    lines = out.read_text().splitlines(keepends=True)
    assert lines[0].startswith('{"run":')  # the header
    lines[2] = '{"item": "not an item"}\n'
    out.write_text("".join(lines))
    assert [r.item.id for r in read_results(out)] == ["1", "3"]
    assert f"{out} line 3 is not a result line" in capsys.readouterr().err


def test_prompts_are_stored_once_and_restored_exactly(tmp_path: Path):
    full, compact = tmp_path / "full.jsonl", tmp_path / "compact.jsonl"
    with FakeLLMServer() as server:
        scorer = create_context_recall_scorer(server.judge())
        result = run_evals(ITEMS[:1], [scorer], results_path=full)
        run_evals(ITEMS[:1], [scorer], results_path=compact, store_prompts=False)
    in_memory = result.items[0].scorer_results["context-recall"]
    prompts = in_memory.details["prompts"]
    assert set(prompts) == {"claims", "verdicts"}
    line = full.read_text()
    for prompt in prompts.values():
        assert line.count(json.dumps(prompt)[1:-1][:200]) == 1  # each prompt text once
    restored = read_results(full)[0].scorer_results["context-recall"]
    assert restored.details["prompts"] == prompts
    assert restored.judge_calls == in_memory.judge_calls
    small = read_results(compact)[0].scorer_results["context-recall"]
    assert "prompts" not in small.details and all(not c.messages for c in small.judge_calls)
    assert all(not c.response for c in small.judge_calls) and small.score == in_memory.score
    assert len(compact.read_bytes()) < len(full.read_bytes()) / 2


FIVE_CHUNKS = {
    "id": "five",
    "input": "Where was Einstein born, and what did he win?",
    "ground_truth": "Einstein was born in Ulm. He won the 1921 Nobel Prize in Physics.",
    "context": [
        {"id": "d0", "text": "Albert Einstein was born in Ulm in 1879."},
        {"id": "d1", "text": "He won the 1921 Nobel Prize in Physics."},
        {"id": "d2", "text": "Einstein developed the theory of relativity."},
        {"id": "d3", "text": "Paris is the capital of France."},
        {"id": "d4", "text": "The violin is a string instrument."},
    ],
}


def test_compact_lines_keep_what_explains_the_score_and_read_back_whole(tmp_path: Path):
    path = tmp_path / "compact.jsonl"
    with FakeLLMServer() as server:
        judge = server.judge(cache=False)
        scorers = [create_context_recall_scorer(judge), create_context_precision_scorer(judge)]
        live = run_evals([FIVE_CHUNKS], scorers, results_path=path, store_prompts=False)
        line = item_lines(path)[0].encode() + b"\n"
        assert len(line) < 2000, len(line)  # 4,833 bytes before compaction (2026-12-04)
        assert line.count(b"Paris is the capital of France.") == 1  # the item's chunks, once
        kept = read_results(path)[0]
        for sid, fresh in live.items[0].scorer_results.items():
            back = kept.scorer_results[sid]
            assert (back.score, back.status) == (fresh.score, fresh.status)
            assert back.details["context"] == fresh.details["context"]  # restored from the item
            assert back.details["verdicts"] == fresh.details["verdicts"]
            assert back.reason == fresh.reason.splitlines()[0] and "\n" in fresh.reason
            assert back.scorer_id == sid  # restored from the key
            assert [c.model for c in back.judge_calls] == [c.model for c in fresh.judge_calls]
            tokens = [(c.step, c.prompt_tokens, c.completion_tokens) for c in back.judge_calls]
            assert tokens == [
                (c.step, c.prompt_tokens, c.completion_tokens) for c in fresh.judge_calls
            ]
        recall = kept.scorer_results["context-recall"].details
        assert recall["claims_used"] == recall["claims"]
        assert summarize([kept], list(kept.scorer_results), 0.0).model_calls == 3
        calls = server.call_count
        again = run_evals([FIVE_CHUNKS], scorers, results_path=path, resume=True)
        assert again.summary.resumed_items == 1 and server.call_count == calls
        assert kept.fingerprints == live.items[0].fingerprints  # restored from the header


def test_compact_lines_take_fingerprints_from_the_header_before_them(tmp_path: Path):
    """A resumed run with another configuration appends its header; lines written before
    it keep the fingerprints of theirs, so resume re-scores exactly what changed."""
    path = tmp_path / "r.jsonl"
    data = [
        {
            "id": str(i),
            "input": "q",
            "reference_context_ids": ["a"],
            "context": [{"id": "a", "text": "x"}],
        }
        for i in range(5)
    ]
    one, ten = create_id_context_recall_scorer(), create_id_context_recall_scorer({"scale": 10})
    run_evals(data[:3], [one], results_path=path, store_prompts=False)
    other = tmp_path / "other.jsonl"
    run_evals(data[3:], [ten], results_path=other, store_prompts=False)
    path.write_bytes(path.read_bytes() + other.read_bytes())  # two runs' lines, one file
    assert len(header_lines(path)) == 2
    by_id = {r.item.id: r for r in read_results(path, mixed=True)}
    assert {i: r.fingerprints["id-context-recall"] for i, r in by_id.items()} == {
        **{str(i): one.fingerprint for i in range(3)},
        **{str(i): ten.fingerprint for i in range(3, 5)},
    }
    assert by_id["0"].scales == {} and by_id["4"].scales == {"id-context-recall": 10.0}
    again = run_evals(data, [one], results_path=path, resume=True, store_prompts=False)
    assert again.summary.resumed_items == 3 and again.summary.rescored_for_config == 2


WRITER = """
import sys, time
from evals import run_evals
from scorers import create_scorer


def slow(question):
    time.sleep(30)
    return question

scorer = create_scorer(id="s").generate_score(lambda run, results: 1)
print("started", flush=True)
run_evals([{"input": "q"}], [scorer], slow, results_path=sys.argv[1], progress=False)
"""


def test_a_second_writer_gets_a_clear_error(tmp_path: Path):
    out = tmp_path / "r.jsonl"
    script = tmp_path / "writer.py"
    script.write_text(textwrap.dedent(WRITER))
    writer = subprocess.Popen(
        [sys.executable, str(script), str(out)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "started"
        for _ in range(100):  # the lock is taken right after the file is opened
            if out.exists():
                break
            import time

            time.sleep(0.05)
        scorer = create_scorer(id="s").generate_score(lambda run, results: 1)
        with pytest.raises(ConfigError, match="being written by another scorekit run"):
            run_evals([{"input": "q"}], [scorer], results_path=out, resume=True)
    finally:
        writer.kill()
        writer.wait()


def test_results_path_errors_are_clear(tmp_path: Path):
    scorer = create_scorer(id="s").generate_score(lambda run, results: 1)
    with pytest.raises(ConfigError, match="is a directory"):
        run_evals([{"input": "q"}], [scorer], results_path=tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ConfigError, match="cannot write results file"):
        run_evals([{"input": "q"}], [scorer], results_path=blocker / "sub" / "r.jsonl")
    nested = tmp_path / "new" / "dir" / "r.jsonl"  # missing folders are created
    run_evals([{"input": "q"}], [scorer], results_path=nested)
    assert nested.exists()
