"""`score_many` over a stream of jobs (an agent's answers as they come): each job starts
as it arrives, ``concurrency`` at a time, and a broken judge may be recorded rather than
end the stream (``setup_errors="record"``)."""

from __future__ import annotations

import math

import anyio
import pytest

from evals.testing import FakeLLMServer, FakeResponse
from scorers import (
    ConfigError,
    Job,
    JudgeAuthError,
    Scored,
    ScorerRun,
    create_context_recall_scorer,
    create_id_context_recall_scorer,
    create_scorer,
    score_many,
)
from scorers._tasks import map_stream

RUN = ScorerRun(
    context=[{"id": "d1", "text": "Einstein was born in Ulm in 1879."}],
    ground_truth="Einstein was born in Ulm in 1879.",
    reference_context_ids=["d1", "d2"],
)
UNAUTHORIZED = FakeResponse(status=401, error_body={"error": {"message": "bad key"}})


def test_each_streamed_job_is_scored_before_the_next_one_is_sent() -> None:
    """The producer sends a job only after the previous one came back: a stream that
    waited for its end before scoring would hang here."""
    scorers = {"ids": create_id_context_recall_scorer()}
    found: list[tuple[int, float]] = []

    async def main() -> None:
        send, receive = anyio.create_memory_object_stream[Job](math.inf)
        back = anyio.create_memory_object_stream[int](math.inf)

        async def keep(scored: Scored) -> None:
            found.append((scored.job.key, scored.results["ids"].score))
            back[0].send_nowait(scored.job.key)

        async def produce() -> None:
            async with send:
                for n in range(5):
                    await send.send(Job(n, RUN))
                    with anyio.fail_after(5):
                        assert await back[1].receive() == n

        async with anyio.create_task_group() as tg:
            tg.start_soon(produce)
            with anyio.fail_after(10):
                await score_many(scorers, receive, keep)

    anyio.run(main)
    assert found == [(n, 0.5) for n in range(5)]


def test_a_stream_runs_at_most_concurrency_jobs_at_once() -> None:
    running = {"now": 0, "most": 0}

    async def slow(run, results):
        running["now"] += 1
        running["most"] = max(running["most"], running["now"])
        await anyio.sleep(0.01)
        running["now"] -= 1
        return 1.0

    scorers = {"slow": create_scorer(id="slow").generate_score(slow)}
    keys: list[int] = []

    async def jobs():
        for n in range(20):
            yield Job(n, RUN)

    async def keep(scored: Scored) -> None:
        keys.append(scored.job.key)

    anyio.run(lambda: score_many(scorers, jobs(), keep, concurrency=3))
    assert sorted(keys) == list(range(20)) and running["most"] == 3


def test_a_bad_job_in_a_stream_says_what_it_is() -> None:
    async def jobs():
        yield Job(0, RUN)
        yield RUN

    async def keep(scored: Scored) -> None:
        pass

    scorers = {"ids": create_id_context_recall_scorer()}
    with pytest.raises(ConfigError, match="a streamed job is ScorerRun"):
        anyio.run(lambda: score_many(scorers, jobs(), keep))
    with pytest.raises(ConfigError, match="setup_errors must be 'raise' or 'record'"):
        anyio.run(lambda: score_many(scorers, [], keep, setup_errors="ignore"))


@pytest.mark.parametrize("streamed", [False, True])
def test_a_broken_judge_ends_the_run_unless_recorded(streamed: bool) -> None:
    async def jobs():
        for n in range(3):
            yield Job(n, RUN)

    found: dict[int, Scored] = {}

    async def keep(scored: Scored) -> None:
        found[scored.job.key] = scored

    with FakeLLMServer() as fake:
        scorers = {"llm": create_context_recall_scorer(fake.judge())}
        fake.script(UNAUTHORIZED)
        with pytest.raises(JudgeAuthError):
            anyio.run(lambda: score_many(scorers, jobs(), keep, concurrency=1))
        fake.script(UNAUTHORIZED)
        source = jobs() if streamed else [Job(n, RUN) for n in range(3)]
        anyio.run(lambda: score_many(scorers, source, keep, concurrency=1, setup_errors="record"))
    first, *rest = (found[n].results["llm"] for n in range(3))
    assert first.status == "error" and first.error.startswith("JudgeAuthError")
    assert first.score is None and len(first.judge_calls) == 1  # no number; the call counted
    assert [(r.status, r.score) for r in rest] == [("scored", 1.0), ("scored", 1.0)]


def test_map_stream_stops_at_the_first_failure_and_names_the_others() -> None:
    started: list[int] = []

    async def items():
        for n in range(10):
            yield n

    async def fn(n: int) -> None:
        started.append(n)
        await anyio.sleep(0.01 * (n != 1))
        raise ValueError(f"item {n}")

    with pytest.raises(ValueError, match="item 1"):
        anyio.run(lambda: map_stream(fn, items(), 3))
    assert started == [0, 1, 2]  # no item taken after the failure
