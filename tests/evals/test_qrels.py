"""judge_qrels through FakeLLMServer: each pair judged once, the cache spares the rest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals import judge_qrels, run_evals
from evals.cli import main
from evals.testing import FakeLLMServer
from scorers import (
    ConfigError,
    JudgeCache,
    create_context_precision_scorer,
    evaluate_ranking,
    load_qrels,
)

ITEMS = [
    {
        "id": "q1",
        "input": "Where was Einstein born?",
        "ground_truth": "Einstein was born in Ulm.",
        "context": [
            {"id": "d1", "text": "Albert Einstein was born in Ulm in 1879."},
            {"id": "d2", "text": "Paris is the capital of France."},
        ],
    },
    {
        "id": "q2",
        "input": "What is the capital of France?",
        "ground_truth": "Paris is the capital of France.",
        "context": [{"id": "d2", "text": "Paris is the capital of France."}],
    },
    {"id": "q3", "input": "No reference here", "context": ["some chunk"]},
]
DENSE = {
    "q1": [
        {"id": "d1", "text": "Albert Einstein was born in Ulm in 1879."},  # shared with BM25
        {"id": "d3", "text": "Ulm is a city in Germany."},
    ],
    "q2": ["Paris is the capital and largest city of France."],  # no id: a text hash
}


def test_pairs_are_judged_once_and_later_runs_cost_only_new_chunks(tmp_path: Path):
    cache = JudgeCache(tmp_path / "cache.sqlite")
    with FakeLLMServer() as server:
        judge = server.judge(cache=cache)
        first = judge_qrels(judge, ITEMS, runs={"dense": DENSE})
        # q1: d1, d2, d3; q2: d2, the hashed chunk; q3 skipped (no ground truth)
        assert (first.pairs, first.judged, first.cached) == (5, 5, 0)
        assert server.call_count == 5 and first.skipped_items == ["q3"]
        assert first.qrels["q1"] == {"d1": 1.0, "d2": 0.0, "d3": 0.0}
        hashed = next(d for d in first.qrels["q2"] if d.startswith("sha1:"))
        assert first.qrels["q2"] == {"d2": 1.0, hashed: 1.0}

        later = {"q1": [{"id": "d4", "text": "Einstein's birthplace, Ulm, lies on the Danube."}]}
        second = judge_qrels(judge, ITEMS, runs={"dense": DENSE, "new": later})
        assert (second.pairs, second.judged, second.cached) == (6, 1, 5)
        assert server.call_count == 6  # only the new chunk went to the model

        # context-precision per chunk asks the very same prompts: all cache hits
        scorer = create_context_precision_scorer(judge, {"per_chunk": True})
        result = run_evals(ITEMS[:2], [scorer], progress=False)
        assert result.summary.model_calls == 0 and result.summary.cached_calls == 3
    evaluation = evaluate_ranking(second.qrels, {"q1": ["d2", "d1"], "q2": ["d2"]}, ["mrr"])
    assert evaluation.per_query == {"q1": {"mrr": 0.5}, "q2": {"mrr": 1.0}}


def test_graded_qrels_and_failures(tmp_path: Path):
    with FakeLLMServer() as server:
        server.handler = lambda request: {"grade": 2, "reason": "partly"}
        judged = judge_qrels(server.judge(), ITEMS[:1], graded=True)
        assert judged.qrels == {"q1": {"d1": 2.0, "d2": 2.0}}
        server.handler = lambda request: {"grade": 7}  # out of range twice: fails
        failed = judge_qrels(server.judge(), ITEMS[:1], graded=True)
        assert failed.qrels == {"q1": {}} and len(failed.failed) == 2
        with pytest.raises(ConfigError, match="not an item of the data"):
            judge_qrels(server.judge(), ITEMS, runs={"x": {"q9": ["a"]}})


def test_cli_writes_a_trec_qrels_file(tmp_path: Path, capsys, monkeypatch):
    data = tmp_path / "items.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in ITEMS))
    out = tmp_path / "qrels.txt"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    with FakeLLMServer() as server:
        args = ["judge-qrels", str(data), "-o", str(out), "--model", "openai/fake"]
        code = main([*args, "--api-base", server.url, "--no-cache", "--no-progress"])
    assert code == 0
    assert "3 (item, chunk) pairs: 3 judged, 0 from the cache, 0 failed" in capsys.readouterr().out
    assert load_qrels(out) == {"q1": {"d1": 1.0, "d2": 0.0}, "q2": {"d2": 1.0}}


def test_the_relevance_judgement_is_a_public_scorer():
    import pytest

    from evals.testing import FakeLLMServer
    from scorers import ConfigError, create_relevance_scorer

    with FakeLLMServer() as server:
        binary = create_relevance_scorer(server.judge())
        graded = create_relevance_scorer(server.judge(), {"graded": True})
        run = {
            "input": "Where was Einstein born?",
            "ground_truth": "Einstein was born in Ulm.",
            "context": ["Einstein was born in Ulm in 1879."],
        }
        assert binary.id == "judge_qrels" and binary.run(run).score == 1.0
        server.script({"grade": 2, "reason": "holds part of the answer"})
        assert graded.scale == 3.0 and graded.run(run).score == 2.0
        off_topic = {**run, "context": ["The Rhine flows into the North Sea."]}
        assert binary.run(off_topic).score == 0.0
    with pytest.raises(ConfigError, match="takes the option 'graded'"):
        create_relevance_scorer("openai/x", {"grade": True})
