"""Context relevance where users run it: a retriever and questions with no labels from the
command line, an agent scored live with no ground truth, estimates, the report."""

from __future__ import annotations

import json
import sys

from evals import estimate_run, run_evals, scored
from evals.cli import main
from evals.testing import FakeLLMServer
from scorers import create_context_relevance_scorer

RAG = """
DOCS = ["Einstein was born in Ulm in 1879.", "The Danube flows through Vienna.",
        "Paris is in France."]

def retrieve(question):
    words = set(question.lower().strip("?").split())
    ranked = sorted(DOCS, key=lambda d: -len(words & set(d.lower().strip(".").split())))
    return [{"id": str(DOCS.index(d)), "text": d} for d in ranked[:2]]
"""


def test_questions_and_a_retriever_no_labels(tmp_path, monkeypatch, capsys):
    (tmp_path / "my_rag_relevance.py").write_text(RAG)
    data = tmp_path / "questions.jsonl"
    data.write_text('{"id": "q1", "input": "Where was Einstein born?"}\n'
                    '{"id": "q2", "input": "Which river flows through Vienna?"}\n')  # fmt: skip
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    with FakeLLMServer() as server:
        code = main(["run", str(data), "--target", "my_rag_relevance:retrieve", "--scorer",
                     "context-relevance", "--model", "openai/fake-judge", "--api-base", server.url,
                     "--no-progress", "--out", "r.jsonl"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert "context-relevance" in out and "scored" in out
    lines = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text().splitlines()[1:]]
    reasons = {x["item"]["id"]: x["scorer_results"]["context-relevance"]["reason"] for x in lines}
    assert '#1 high: "Einstein was born in Ulm in 1879."' in reasons["q1"]
    assert '#2 none: "The Danube flows through Vienna."' in reasons["q1"]
    assert all(x["scorer_results"]["context-relevance"]["status"] == "scored" for x in lines)


def test_an_agent_scored_live_without_labels():
    with FakeLLMServer() as server:
        relevance = create_context_relevance_scorer(server.judge(), {"context_extractor": "auto"})
        seen = []

        @scored(scorers={"relevance": relevance}, on_score=seen.append)
        def answer(question: str) -> dict:
            chunks = [{"id": "kb-1", "text": "Reset your password from Settings > Security."},
                      {"id": "kb-2", "text": "Invoices are emailed monthly."}]  # fmt: skip
            return {"output": "Open Settings > Security and reset it.", "context": chunks}

        answer("How do I reset my password?")
        answer.flush_scores()
        answer.close()
    (record,) = seen
    assert record.status == "scored" and 0 < record.score <= 1
    assert ', used: "Reset your password from Settings > Security."' in record.reason
    assert '#2 none, not used: "Invoices are emailed monthly."' in record.reason


def test_estimates_and_the_report_cover_it(tmp_path):
    rows = [{"id": str(i), "input": "Where was Einstein born?",
             "context": ["Einstein was born in Ulm.", "Paris is in France."]} for i in range(5)]  # fmt: skip
    with FakeLLMServer() as server:
        scorer = create_context_relevance_scorer(server.judge())
        estimate = estimate_run(rows, [scorer])
        assert estimate.calls == 5 and server.call_count == 0
        result = run_evals(rows, [scorer], progress="none")
    assert result.summary.scorers["context-relevance"].n_scored == 5
    page = result.to_html(tmp_path / "r.html").read_text()
    assert "relevance" in page and "context-relevance" in page
