"""`evals.synthesize`: labelled sets from a corpus, through the fake judge over HTTP."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from evals import (
    SYNTHESIS_GATES,
    estimate_synthesis,
    judge_qrels,
    load_dataset,
    read_corpus,
    run_evals,
    synthesize,
)
from evals.cli import main
from evals.quickstart import passages as quickstart_passages
from evals.testing import FakeLLMServer, FakeRequest, FakeResponse, rule_based_judge
from scorers import (
    BudgetExceededError,
    ConfigError,
    create_id_context_recall_scorer,
    create_ranking_scorer,
)

CORPUS = [p.model_dump() for p in quickstart_passages()]


def _synth(fake: FakeLLMServer, corpus=CORPUS, **kwargs):
    kwargs.setdefault("progress", "none")
    return synthesize(corpus, fake.judge(), **kwargs)


def _writer_override(make_question):
    """The rule judge, except that written questions come from ``make_question(prompt)``."""

    def handler(request: FakeRequest) -> FakeResponse | str:
        if request.schema_name == "WrittenQuestion":
            answer = json.loads(rule_based_judge(request).content or "{}")
            return json.dumps({**answer, **make_question(request.task_prompt, answer)})
        return rule_based_judge(request)

    return handler


def test_rows_are_in_scorekit_format_with_the_corpus_ids_and_texts(tmp_path: Path) -> None:
    out = tmp_path / "labelled.jsonl"
    with FakeLLMServer() as fake:
        result = _synth(fake, n=8, kinds=("single", "multi"), out=out)
    texts = {p["id"]: p["text"] for p in CORPUS}
    assert result.summary.kept == 8 and result.summary.kept_by_kind == {"single": 4, "multi": 4}
    for row in result.rows:
        assert row.reference_contexts == [texts[i] for i in row.reference_context_ids]
        assert row.metadata["model"] == "openai/fake-judge"
    multi = [row for row in result.rows if row.metadata["kind"] == "multi"]
    assert all(len(row.reference_context_ids) == 2 for row in multi)
    assert all(row.metadata["pairing"]["shared"] for row in multi)
    items = load_dataset(out)
    assert [item.id for item in items] == [row.id for row in result.rows]
    assert out.with_name("labelled.jsonl.log").exists()


def test_a_synthesized_set_runs_against_a_retriever_and_through_judge_qrels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "labelled.jsonl"
    (tmp_path / "my_rag.py").write_text(
        "from evals.quickstart import BM25Retriever, passages\n"
        "retrieve = BM25Retriever(passages(), k=3)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with FakeLLMServer() as fake:
        result = _synth(fake, n=6, kinds=("single",), out=out)
        code = main(
            ["run", str(out), "--target", "my_rag:retrieve", "--scorer", "id-context-recall",
             "--scorer", "mrr", "--progress", "none"]
        )
        assert code == 0
        printed = capsys.readouterr().out
        assert "id-context-recall" in printed and "mrr" in printed
        retriever = __import__("my_rag").retrieve
        runs = {
            "bm25": {row.id: [c.model_dump() for c in retriever(row.input).context]
                     for row in result.rows}
        }
        judged = judge_qrels(fake.judge(), out, runs=runs, progress=False)
    for row in result.rows:  # the gold passage is judged useful wherever BM25 found it
        for doc in row.reference_context_ids:
            if doc in judged.qrels[row.id]:
                assert judged.qrels[row.id][doc] == 1
    evaluated = run_evals(
        load_dataset(out),
        [create_id_context_recall_scorer(), create_ranking_scorer("mrr")],
        target=retriever,
        progress=False,
    )
    assert evaluated.summary.scorers["id-context-recall"].mean == 1.0


def test_paraphrase_questions_are_kept_only_when_bm25_misses_the_gold_passage() -> None:
    with FakeLLMServer() as fake:  # the rule judge copies words: BM25 finds the passage
        copied = _synth(fake, n=3, kinds=("paraphrase",))
    assert copied.summary.kept == 0
    assert copied.summary.dropped_by_gate == {"bm25_top_hit": 16}  # rounds of 4, then 12
    assert "no paraphrase candidate passed in 16 tries" in copied.summary.message

    import random

    rng = random.Random(7)

    def vague(prompt: str, answer: dict) -> dict:  # words the corpus never uses
        made_up = ["".join(rng.choice("bcdfgklmnprstvz") for _ in range(7)) for _ in range(5)]
        return {"question": " ".join(made_up) + "?"}

    with FakeLLMServer(_writer_override(vague)) as fake:
        kept = _synth(fake, n=3, kinds=("paraphrase",))
    assert kept.summary.kept == 3
    assert [row.metadata["bm25_rank"] for row in kept.rows] == [0, 0, 0]  # no shared word


def test_each_gate_drops_with_its_reason() -> None:
    def leaks(prompt: str, answer: dict) -> dict:
        return {"question": f"Is it true that {answer['answer']}"}

    with FakeLLMServer(_writer_override(leaks)) as fake:
        result = _synth(fake, n=2, kinds=("single",))
    assert {d.gate for d in result.dropped} == {"answer_in_question"}

    def same(prompt: str, answer: dict) -> dict:
        return {"question": "What is the most important fact here?"}

    with FakeLLMServer(_writer_override(same)) as fake:
        result = _synth(fake, n=3, kinds=("single",))
    assert result.summary.kept == 1
    assert result.summary.dropped_by_gate == {"near_duplicate": 35}
    first = result.rows[0].id
    assert all(d.reason == f"repeats {first} (token_sort_ratio 100)" for d in result.dropped)
    assert result.summary.exhausted
    assert result.summary.message.startswith("kept 1 of 3 rows: the corpus ran out of passages")
    # a near-duplicate is never sent to the check: 36 writes, 1 check
    assert result.summary.calls == 37

    def refuses(request: FakeRequest) -> FakeResponse | str:
        if request.schema_name == "LabelVerdict":
            return json.dumps({"answered": "no", "answer_in_question": "no",
                               "same_language": "yes", "reason": "the passage never says it"})
        return rule_based_judge(request)

    with FakeLLMServer(refuses) as fake:
        result = _synth(fake, n=2, kinds=("single",))
    assert result.summary.kept == 0
    assert {d.gate for d in result.dropped} == {"not_answered"}
    assert result.dropped[0].reason == "the passage never says it"
    assert set(SYNTHESIS_GATES) >= {d.gate for d in result.dropped}
