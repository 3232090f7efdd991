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
    (tmp_path / "synth_rag_target.py").write_text(
        "from evals.quickstart import BM25Retriever, passages\n"
        "retrieve = BM25Retriever(passages(), k=3)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with FakeLLMServer() as fake:
        result = _synth(fake, n=6, kinds=("single",), out=out)
        code = main(
            [
                "run",
                str(out),
                "--target",
                "synth_rag_target:retrieve",
                "--scorer",
                "id-context-recall",
                "--scorer",
                "mrr",
                "--progress",
                "none",
            ]
        )
        assert code == 0
        printed = capsys.readouterr().out
        assert "id-context-recall" in printed and "mrr" in printed
        retriever = __import__("synth_rag_target").retrieve
        runs = {
            "bm25": {
                row.id: [c.model_dump() for c in retriever(row.input).context]
                for row in result.rows
            }
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
            return json.dumps(
                {
                    "answered": "no",
                    "answer_in_question": "no",
                    "same_language": "yes",
                    "needs_all": "yes",
                    "reason": "the passage never says it",
                }
            )
        return rule_based_judge(request)

    with FakeLLMServer(refuses) as fake:
        result = _synth(fake, n=2, kinds=("single",))
    assert result.summary.kept == 0
    assert {d.gate for d in result.dropped} == {"not_answered"}
    assert result.dropped[0].reason == "the passage never says it"
    assert set(SYNTHESIS_GATES) >= {d.gate for d in result.dropped}


def test_judge_output_as_real_judges_give_it_is_repaired_or_dropped_never_a_crash() -> None:
    def in_prose(request: FakeRequest) -> FakeResponse | str:
        answer = rule_based_judge(request).content
        return f"Sure! Here is what you asked for:\n```json\n{answer}\n```\nHope it helps."

    def wordy_verdicts(request: FakeRequest) -> FakeResponse | str:
        if request.schema_name == "LabelVerdict":
            return json.dumps(
                {
                    "answered": "Yes.",
                    "answer_in_question": False,
                    "same_language": "true",
                    "needs_all": 1,
                    "reason": "ok",
                }
            )
        return rule_based_judge(request)

    for handler in (in_prose, wordy_verdicts):
        with FakeLLMServer(handler) as fake:
            result = _synth(fake, n=4, kinds=("single", "multi"))
        assert result.summary.kept == 4, handler.__name__

    def no_answer_field(request: FakeRequest) -> FakeResponse | str:
        if request.schema_name == "WrittenQuestion":
            return json.dumps({"question": "What does it say?"})  # "answer" missing, twice
        return rule_based_judge(request)

    with FakeLLMServer(no_answer_field) as fake:
        result = _synth(fake, n=2, kinds=("single",))
        repairs = sum(1 for r in fake.requests if r.is_repair)
    assert result.summary.kept == 0
    assert result.summary.dropped_by_gate == {"unreadable": 19}  # rounds of 3, 8, 8
    assert repairs == 19  # each got its repair round before it was dropped
    assert "answer" in result.dropped[0].reason


def test_a_check_without_every_verdict_is_not_read_as_passing() -> None:
    def forgets_needs_all(request: FakeRequest) -> FakeResponse | str:
        if request.schema_name == "LabelVerdict":
            verdict = json.loads(rule_based_judge(request).content or "{}")
            verdict.pop("needs_all")
            return json.dumps(verdict)
        return rule_based_judge(request)

    with FakeLLMServer(forgets_needs_all) as fake:
        result = _synth(fake, n=2, kinds=("multi",))
    assert result.summary.kept == 0
    assert set(result.summary.dropped_by_gate) == {"check_failed"}
    assert "needs_all" in result.dropped[0].reason


def test_a_killed_run_resumes_without_repeating_a_call_or_a_row(tmp_path: Path) -> None:
    out = tmp_path / "labelled.jsonl"
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(p) + "\n" for p in CORPUS))
    with FakeLLMServer(latency=0.05) as fake:
        script = textwrap.dedent(f"""
            from evals import synthesize
            from scorers import Judge
            judge = Judge("openai/fake-judge", api_base={fake.url!r}, api_key="k", cache=False)
            synthesize({str(corpus)!r}, judge, n=12, kinds=("single", "multi"),
                       out={str(out)!r}, concurrency=2, progress="none")
        """)
        child = subprocess.Popen([sys.executable, "-c", script])
        log = out.with_name(out.name + ".log")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if log.exists() and log.read_text().count("\n") >= 8:
                break
            time.sleep(0.02)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        logged = log.read_text().count("\n") - 1
        assert logged >= 7
        before = fake.call_count
        resumed = synthesize(
            corpus,
            fake.judge(),
            n=12,
            kinds=("single", "multi"),
            out=out,
            resume=True,
            progress="none",
        )
        calls_after_resume = fake.call_count - before
    with FakeLLMServer() as fresh:
        whole = synthesize(corpus, fresh.judge(), n=12, kinds=("single", "multi"), progress="none")
    assert [r.model_dump() for r in resumed.rows] == [r.model_dump() for r in whole.rows]
    assert resumed.summary.resumed >= logged
    assert calls_after_resume == whole.summary.calls - resumed.summary.resumed
    ids = [json.loads(line)["id"] for line in out.read_text().splitlines()]
    assert len(ids) == len(set(ids)) == whole.summary.kept == 10  # multi runs out at 4


def test_resume_refuses_a_log_of_other_settings_and_out_is_not_overwritten(tmp_path: Path) -> None:
    out = tmp_path / "labelled.jsonl"
    with FakeLLMServer() as fake:
        _synth(fake, n=2, kinds=("single",), out=out)
        with pytest.raises(ConfigError, match="exists: pass resume=True"):
            _synth(fake, n=2, kinds=("single",), out=out)
        with pytest.raises(ConfigError, match="another seed"):
            _synth(fake, n=2, kinds=("single",), out=out, resume=True, seed=3)
        with pytest.raises(ConfigError, match="resume=True needs out="):
            _synth(fake, n=2, resume=True)
        more = _synth(fake, n=4, kinds=("single",), out=out, resume=True)
    # from the log: 3 writes and 2 checks (the third was surplus: written, not checked);
    # new: 2 writes, 2 checks (the third candidate's and the fourth's; the fifth is surplus)
    assert (more.summary.kept, more.summary.resumed, more.summary.calls) == (4, 5, 4)
    assert more.summary.dropped_by_gate == {"surplus": 1}


def test_the_same_seed_draws_the_same_set_and_another_seed_another() -> None:
    with FakeLLMServer() as fake:
        first = _synth(fake, n=6, kinds=("single", "multi"))
        again = _synth(fake, n=6, kinds=("single", "multi"))
        other = _synth(fake, n=6, kinds=("single", "multi"), seed=5)
    assert [r.model_dump() for r in first.rows] == [r.model_dump() for r in again.rows]
    assert [r.reference_context_ids for r in first.rows] != [
        r.reference_context_ids for r in other.rows
    ]


def test_the_estimate_calls_nothing_and_counts_the_real_prompts() -> None:
    with FakeLLMServer() as fake:
        estimate = estimate_synthesis(CORPUS, fake.judge(model="openai/gpt-4o-mini"), n=20)
        assert fake.call_count == 0
    assert (estimate.candidates, estimate.calls) == (25, 50)
    assert estimate.prompt_tokens > 50 * 150  # a write prompt alone is ~200 tokens
    assert estimate.cost is not None and estimate.cost > 0
    assert estimate.table().startswith("estimate for 20 rows at a keep rate of 80%: 25 candidates")
    with pytest.raises(ConfigError, match="keep_rate"):
        estimate_synthesis(CORPUS, "openai/gpt-4o-mini", n=5, keep_rate=0)


def test_max_cost_stops_the_run_with_the_rows_kept_on_disk(tmp_path: Path) -> None:
    out = tmp_path / "labelled.jsonl"
    with FakeLLMServer() as fake, pytest.raises(BudgetExceededError, match="rows kept are in"):
        synthesize(
            CORPUS,
            fake.judge(model="openai/gpt-4o-mini"),
            n=30,
            out=out,
            max_cost=0.0004,
            concurrency=2,
            progress="none",
        )
    assert out.exists()


def test_bad_arguments_say_what_to_do() -> None:
    with pytest.raises(ConfigError, match="kinds must be distinct values"):
        synthesize(CORPUS, "openai/x", kinds=("single", "long"))
    with pytest.raises(ConfigError, match="n must be"):
        synthesize(CORPUS, "openai/x", n=0)
    with pytest.raises(ConfigError, match="max_cost must be a positive"):
        synthesize(CORPUS, "openai/x", max_cost=-1)
    with pytest.raises(ConfigError, match="synthesize needs a judge"):
        synthesize(CORPUS, "")


KOREAN = [
    "서울은 대한민국의 수도이며 한강이 도시를 가로질러 흐른다. 인구는 약 천만 명이다.",
    "부산은 대한민국 남동쪽의 항구 도시이며 해운대 해수욕장으로 잘 알려져 있다.",
    "한글은 1443년 세종대왕이 만든 문자로, 백성이 쉽게 읽고 쓰도록 하기 위해 만들어졌다.",
]


def test_questions_follow_the_passages_language_and_a_wrong_language_is_dropped() -> None:
    with FakeLLMServer() as fake:
        result = _synth(fake, KOREAN, n=3, kinds=("single",))
        prompt = fake.requests[0].task_prompt
    assert "Write the question and the answer in Korean" in prompt
    assert result.summary.kept == 3
    assert all("무엇입니까" in row.input for row in result.rows)

    questions = iter(
        [
            "What is the capital known for?",
            "Which port has a famous beach?",
            "Who created the alphabet, and when?",
        ]
    )

    def english(prompt: str, answer: dict) -> dict:
        return {"question": next(questions)}

    with FakeLLMServer(_writer_override(english)) as fake:
        result = _synth(fake, KOREAN, n=3, kinds=("single",))
    assert result.summary.kept == 0
    assert {d.gate for d in result.dropped} == {"language"}


def test_the_cli_estimates_writes_and_resumes(tmp_path: Path, capsys, monkeypatch) -> None:
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    for i in range(0, 36, 3):
        folder = docs / "guide" if i % 2 else docs
        (folder / f"part{i // 3:02d}.md").write_text(
            "\n\n".join(p["text"] for p in CORPUS[i : i + 3]) + "\n"
        )
    out = tmp_path / "labelled.jsonl"
    with FakeLLMServer() as fake:
        monkeypatch.setenv("SCOREKIT_API_BASE", fake.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
        base = ["synth", str(docs), "--model", "openai/gpt-4o-mini", "--kinds", "single"]
        assert main([*base, "-n", "4", "--estimate"]) == 0
        assert fake.call_count == 0
        assert "estimate for 4 rows" in capsys.readouterr().out
        args = [
            *base,
            "--out",
            str(out),
            "--progress",
            "none",
            "--no-cache",
            "--max-chars",
            "200",
            "--passages",
            str(tmp_path / "passages.jsonl"),
        ]
        assert main([*args, "-n", "4"]) == 0
        printed = capsys.readouterr().out
        assert "kept 4 rows, as asked" in printed
        assert main([*args, "-n", "4"]) == 2  # out exists
        assert "pass --resume to continue" in capsys.readouterr().err
        assert main([*args, "-n", "5", "--resume"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    passages = {json.loads(line)["id"] for line in (tmp_path / "passages.jsonl").open()}
    assert len(rows) == 5
    assert all(set(row["reference_context_ids"]) <= passages for row in rows)
    assert all(row["reference_context_ids"][0].split("#")[0].endswith(".md") for row in rows)


def _hotpotqa(shared_data: Path) -> tuple[list[dict], list[str]]:
    """HotpotQA's rows and their distinct paragraphs (gold and retrieved), in order."""
    rows = [json.loads(line) for line in (shared_data / "hotpotqa/retrieval_sm.jsonl").open()]
    texts: list[str] = []
    for row in rows:
        for text in row["ground_truth_contexts"] + row["retrieved_contexts"]:
            if text not in texts:
                texts.append(text)
    return rows, texts


def test_multi_pairs_hotpotqa_paragraphs_by_the_names_they_share(shared_data: Path) -> None:
    from evals._synthesis._plan import Partners

    rows, texts = _hotpotqa(shared_data)
    partners = Partners(read_corpus(texts))
    position = {t: i for i, t in enumerate(texts)}
    found = 0
    for row in rows:
        a, b = (position[t] for t in row["ground_truth_contexts"])
        for anchor, gold in ((a, b), (b, a)):
            partner, how = partners.find(anchor)
            assert how["by"] in ("names", "words") and how["shared"]
            found += partner == gold
    # the other half pair with HotpotQA's distractors, chosen to share names with the gold
    assert found == 10


def test_multi_rows_from_hotpotqa_passages_name_both_gold_ids(shared_data: Path) -> None:
    _, texts = _hotpotqa(shared_data)
    with FakeLLMServer() as fake:
        result = _synth(fake, texts, n=8, kinds=("multi",))
    assert result.summary.kept == 8
    for row in result.rows:
        assert len(set(row.reference_context_ids)) == 2
        assert row.reference_contexts == [texts[int(i[1:])] for i in row.reference_context_ids]
        assert row.metadata["pairing"]["by"] in ("names", "words")
