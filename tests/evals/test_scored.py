"""scored(): live scoring for any agent callable, sync or async, as evals.Agent does it."""

from __future__ import annotations

import time

import anyio
import pytest

from evals import InMemoryScoreStore, ScoreRecord, SqliteScoreStore, scored
from evals._agents import _live
from evals.testing import FakeLLMServer, FakeResponse
from scorers import (
    ConfigError,
    ScorerRun,
    create_context_utilization_scorer,
    create_id_context_recall_scorer,
    create_scorer,
)
from scorers._model._calls import record_calls
from scorers.lowlevel import Job

RECALL = create_id_context_recall_scorer({"context_extractor": "auto"})


def slow_scorer(seconds: float):
    def wait(run, results):
        time.sleep(seconds)
        return 1.0

    return create_scorer(id="slow").generate_score(wait)


@pytest.mark.slow
def test_a_sync_agent_keeps_its_result_and_scores_in_the_background(tmp_path):
    seen = []

    @scored(scorers={"recall": RECALL, "slow": slow_scorer(0.3)}, on_score=seen.append,
            score_store=SqliteScoreStore(tmp_path / "scores.sqlite3"))  # fmt: skip
    def answer(question: str) -> dict:
        return {"output": "In Ulm.", "context": [{"id": "d1", "text": "Ulm"}]}

    result = answer("Where was Einstein born?")
    assert "slow" not in [r.scorer_key for r in seen]  # the answer never waits for its scorers
    assert result == {"output": "In Ulm.", "context": [{"id": "d1", "text": "Ulm"}]}
    assert answer.__name__ == "answer"
    answer.flush_scores()
    assert sorted(r.scorer_key for r in seen) == ["recall", "slow"]
    stored = answer.score_store.list(agent="answer")
    assert {r.scorer_key: r.score for r in stored}["slow"] == 1.0
    answer.close()


def test_sampling_and_framework_outputs_with_an_async_agent():
    pytest.importorskip("langchain_core", reason="pip install 'scorekit[frameworks]'")
    from langchain_core.documents import Document

    async def retrieve(question: str) -> list[Document]:
        return [Document(page_content="Einstein was born in Ulm.", id="wiki-42")]

    never = scored(retrieve, scorers=[RECALL], sampling={"type": "ratio", "rate": 0.0})
    always = scored(retrieve, scorers=[RECALL], name="retriever")

    async def main() -> None:
        docs = await always("Where was Einstein born?")
        assert docs[0].id == "wiki-42"  # the agent's own result
        await never("Where was Einstein born?")
        await always.aflush_scores()
        await never.aflush_scores()
        await always.aclose()

    anyio.run(main)
    records = always.score_store.list()
    assert [(r.agent, r.scorer_id, r.status) for r in records] == [
        ("retriever", "id-context-recall", "skipped")  # no gold ids on live traffic
    ]
    assert never.score_store.list() == []


def test_bad_arguments_are_clear():
    with pytest.raises(ConfigError, match="at least one scorer"):
        scored(lambda q: q, scorers={})
    with pytest.raises(ConfigError, match="expected a Scorer"):
        scored(lambda q: q, scorers={"x": "not a scorer"})
    with pytest.raises(ConfigError, match="rate"):
        scored(lambda q: q, scorers=[RECALL], sampling={"type": "ratio", "rate": 2})
    with pytest.raises(ConfigError, match="wraps a callable"):
        scored(scorers=[RECALL])(42)


CHUNKS = {"output": "Ulm.", "context": [{"id": "d1", "text": "Einstein was born in Ulm."}]}
BAD_KEY = FakeResponse(status=401, error_body={"error": {"message": "bad key"}})


async def rag(question: str) -> dict:
    return CHUNKS


def test_a_broken_judge_is_that_answers_error_and_never_ends_live_scoring():
    """Live scorers are one `score_many` per loop: a JudgeSetupError there would end it,
    and every later answer would go unscored; here it is that answer's error result."""
    with FakeLLMServer() as fake:
        judge = fake.judge()
        use = create_context_utilization_scorer(judge, {"context_extractor": "auto"})
        answer = scored(lambda q: CHUNKS, scorers={"use": use}, name="a")
        fake.script(BAD_KEY)
        answer("Where was Einstein born?")
        answer.flush_scores()
        answer("Where was Einstein born?")
        answer.flush_scores()
        answer.close()
    first, second = answer.score_store.list()
    assert (first.status, first.score) == ("error", None)
    assert first.error.startswith("JudgeAuthError") and "API key" in first.error
    assert (second.status, second.score) == ("scored", 1.0)


def test_a_failing_store_is_reported_and_the_other_scores_still_land(capsys):
    class Flaky(InMemoryScoreStore):
        failures = 1

        def save(self, record):
            if self.failures:
                self.failures -= 1
                raise OSError("disk full")
            super().save(record)

    seen = []
    answer = scored(lambda q: CHUNKS, scorers=[RECALL], score_store=Flaky(), on_score=seen.append)
    for _ in range(3):
        answer("q")
    answer.flush_scores()
    answer.close()
    assert "live score's store failed: OSError('disk full')" in capsys.readouterr().err
    assert len(seen) == 3 and len(answer.score_store.list()) == 2  # reported, then stored


def test_live_scoring_runs_at_most_live_jobs_answers_at_once(monkeypatch):
    monkeypatch.setattr(_live, "LIVE_JOBS", 4)
    running = {"now": 0, "most": 0}

    async def slow(run, results):
        running["now"] += 1
        running["most"] = max(running["most"], running["now"])
        await anyio.sleep(0.01)
        running["now"] -= 1
        return 1.0

    answer = scored(rag, scorers=[create_scorer(id="slow").generate_score(slow)])

    async def main() -> None:
        for n in range(20):
            await answer(f"q{n}")
        await answer.aflush_scores()
        await answer.aclose()

    anyio.run(main)
    assert running["most"] == 4 and len(answer.score_store.list()) == 20


def test_live_model_calls_stay_out_of_the_log_of_the_call_that_started_the_service():
    with FakeLLMServer() as fake:
        use = create_context_utilization_scorer(fake.judge(), {"context_extractor": "auto"})
        answer = scored(rag, scorers=[use])

        async def main() -> list:
            with record_calls() as log:
                await answer("q")  # the first answer on this loop starts the service here
                await answer.aflush_scores()
            await answer.aclose()
            return log

        log = anyio.run(main)
        calls = fake.call_count
    assert calls > 0 and log == []
    assert answer.score_store.list()[0].status == "scored"


def test_a_score_record_of_an_error_has_no_number(tmp_path):
    store = SqliteScoreStore(tmp_path / "scores.sqlite3")
    store.save(ScoreRecord(agent="a", scorer_key="k", scorer_id="s", run_id="r", status="error"))
    assert store.list()[0].score is None  # earlier versions stored 0 for it
    with pytest.raises(ValueError, match="None only for errors"):
        ScoreRecord(agent="a", scorer_key="k", scorer_id="s", run_id="r", score=None)


def test_a_live_service_that_fails_says_so_releases_its_waiters_and_restarts(capsys):
    done: list[int] = []

    async def on_scored(scored):
        if scored.job.key == 0:
            raise RuntimeError("a bug")
        done.append(scored.job.key)

    live = _live.LiveScoring({"recall": RECALL}, on_scored)
    run = ScorerRun(output=CHUNKS)

    async def main() -> None:
        live.submit(Job(0, run))
        with anyio.fail_after(5):
            await live.flush()  # released, not left waiting for a service that is gone
        live.submit(Job(1, run))  # a new service
        await live.flush()
        await live.close()

    anyio.run(main)
    message = "live scoring stopped (RuntimeError('a bug')); 1 answer(s) left unscored"
    assert message in capsys.readouterr().err
    assert done == [1]


def _async_slow_scorer(seconds: float):
    async def wait(run, results):
        await anyio.sleep(seconds)
        return 1.0

    return create_scorer(id="slow").generate_score(wait)


def test_asyncio_run_per_question_loses_no_score():
    import asyncio

    @scored(scorers={"slow": _async_slow_scorer(0.2)})
    async def answer(question: str) -> str:
        return "In Ulm."

    for k in range(10):
        assert asyncio.run(answer(f"question {k}")) == "In Ulm."  # each loop ends at once
    answer.flush_scores()  # the answers its loops left are scored on scorekit's loop
    stored = answer.score_store.list()
    assert sorted(r.input for r in stored) == sorted(f"question {k}" for k in range(10))
    assert {r.score for r in stored} == {1.0}


def test_a_program_that_ends_right_after_asyncio_run_still_stores_its_scores(tmp_path):
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        f"""
        import asyncio, anyio
        from evals import SqliteScoreStore, scored
        from scorers import create_scorer

        async def wait(run, results):
            await anyio.sleep(0.3)
            return 1.0

        slow = create_scorer(id="slow").generate_score(wait)

        @scored(scorers={{"slow": slow}}, score_store=SqliteScoreStore({str(tmp_path / "s.db")!r}))
        async def answer(question):
            return "In Ulm."

        for k in range(10):
            asyncio.run(answer(f"q{{k}}"))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert len(SqliteScoreStore(tmp_path / "s.db").list()) == 10, done.stderr
