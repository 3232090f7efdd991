"""`score_many`: every way many runs of many scorers are scored, chosen in one place.

- Ready runs and model-free scorers only: inline, in blocks of `BLOCK` runs; each block
  goes through the scorers' fast paths first (`block_outcomes`), and the steps score what
  the fast paths left, without a task per run. A caller may take each block whole, as
  plain outcomes (``on_block``), instead of a `Scored` per run.
- Otherwise a task per job, ``concurrency`` at a time; in each, the model-free scorers run
  inline and the others concurrently. A stream of jobs (an agent's answers as they come)
  always goes this way, each job started as it arrives.

Every model call of the run shares one capacity limiter and one cost budget.
"""

from __future__ import annotations

import time
from collections.abc import (
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Callable,
    Collection,
    Iterator,
    Mapping,
    Sequence,
)
from contextlib import asynccontextmanager, contextmanager, nullcontext
from typing import Any, cast

import anyio

from .._checks import integer, positive
from .._errors import ConfigError, JudgeSetupError
from .._model._calls import record_calls
from .._model._limits import Budget, run_budget, run_cap
from .._model._setup import timed
from .._tasks import map_bounded, map_stream, task_group
from .._telemetry import current_span, record_score, span, tracer
from .._types import JudgeCall, ScoreResult, ScorerRun
from ._admission import Admission
from ._execute import error_result, score_inline, score_one
from ._fast import as_results, block_outcomes, has_fast_path
from ._gc import frozen_gc, paused_gc
from ._jobs import Job, OnBlock, OnScored, Rules, Scored, ScoredBlock, SetupErrors
from ._spec import Outcome, ScorerSpec, model_free
from ._threads import in_daemon_thread, score_free

BLOCK = 256
"""Runs scored together by the fast paths."""


async def score_many(
    scorers: Mapping[str, ScorerSpec],
    jobs: Sequence[Job] | AsyncIterable[Job],
    on_scored: OnScored,
    *,
    concurrency: int = 8,
    model_concurrency: int | None = None,
    max_cost: float | None = None,
    timeout: float | None = None,
    raise_errors: bool = False,
    setup_errors: SetupErrors = "raise",
    on_block: OnBlock | None = None,
) -> None:
    """Score every job with ``scorers``; ``on_scored`` gets each job as it finishes.

    Args:
        scorers: The scorers by key (the keys of `Scored.results`).
        jobs: The work: a sequence, or a stream whose jobs start as they arrive (the call
            returns when the stream ends). A stream opens no run span (it may never end)
            and leaves the garbage collector alone (it runs beside other work).
        on_scored: Awaited once per finished job; an exception in it stops the run (jobs
            in flight are cancelled).
        concurrency: Jobs in flight at once.
        model_concurrency: A cap on model requests in flight across the run (None: only
            each judge's own limits).
        max_cost: A cap in USD on the run's model calls: a job starts only when the
            started ones can still finish (see `_admission`); `BudgetExceededError` when
            the next one cannot.
        timeout: Seconds allowed per job (``prepare`` included).
        raise_errors: Re-raise a scorer's exception instead of recording an error result.
        setup_errors: ``"raise"``: a `JudgeSetupError` ends the run (every other job would
            meet it too); ``"record"``: it is that scorer's error result, for a service
            that must outlive a broken judge (an agent's live scorers).
        on_block: For a caller that handles many model-free items at once: when every
            job is a ready run for model-free scorers, each block the fast paths scored
            comes here as one `ScoredBlock` of plain outcomes (jobs the steps had to
            score, in it as their `Scored`), and ``on_scored`` gets none of them.
            Without tracing only (spans are made from results).

    Raises:
        JudgeSetupError: At the first model call that meets a broken setup (with
            ``setup_errors="raise"``).
        ConfigError: For scorers that are not a mapping of scorers, a job that is not a
            `Job` (or has neither ``run`` nor ``prepare``), or a bad option.
    """
    _check(scorers, concurrency, max_cost, setup_errors)
    rules = Rules(timeout, raise_errors, setup_errors)
    keys_free = {key for key, scorer in scorers.items() if model_free(scorer)}
    fast = {key: scorer for key, scorer in scorers.items() if has_fast_path(scorer)}
    inline = isinstance(jobs, Sequence) and _all_inline(scorers, keys_free, fast, jobs)
    limiter = None if model_concurrency is None else anyio.CapacityLimiter(model_concurrency)
    budget = None if max_cost is None else Budget(max_cost)
    admission = None if budget is None else Admission(budget)

    async def one(job: Job) -> None:
        async with admission.job() if admission is not None else _no_gate():
            scored = await _score_job(scorers, keys_free, job, rules)
        await on_scored(scored)

    with (
        run_cap(limiter) if limiter is not None else nullcontext(),
        run_budget(budget) if budget is not None else nullcontext(),
    ):
        if not isinstance(jobs, Sequence):
            await map_stream(_checking(one), jobs, concurrency)
            return
        attributes = {
            "scorekit.jobs": len(jobs),
            "scorekit.scorers": [s.id for s in scorers.values()],
        }
        # fast paths make no reference cycles, so the GC can pause for them; with other
        # code running, the long-lived inputs are only kept out of its scans
        gc_mode = paused_gc() if inline and len(fast) == len(scorers) else frozen_gc()
        with gc_mode, span("scorekit.run", attributes):
            if inline:
                await _in_blocks(scorers, fast, jobs, on_scored, rules, on_block)
            else:
                await map_bounded(one, jobs, concurrency)


def _check(
    scorers: Mapping[str, ScorerSpec],
    concurrency: int,
    max_cost: float | None,
    setup_errors: SetupErrors,
) -> None:
    """What a caller of the public `score_many` can get wrong, said before any work."""
    if not isinstance(scorers, Mapping) or not all(
        hasattr(s, "steps") and hasattr(s, "id") for s in scorers.values()
    ):
        raise ConfigError("score_many takes scorers as a mapping key -> Scorer")
    integer("concurrency", concurrency)
    if max_cost is not None:
        positive("max_cost", max_cost)
    if setup_errors not in ("raise", "record"):
        raise ConfigError(f"setup_errors must be 'raise' or 'record'; got {setup_errors!r}")


def _check_job(job: Any, where: str) -> None:
    if not isinstance(job, Job) or (job.run is None and job.prepare is None):
        raise ConfigError(
            f"{where} is {job!r:.80}; score_many takes Job(key, run) or Job(key, prepare=...)"
        )


def _all_inline(
    scorers: Mapping[str, ScorerSpec],
    keys_free: Collection[str],
    fast: Mapping[str, ScorerSpec],
    jobs: Sequence[Job],
) -> bool:
    """Whether every job is a ready run for model-free scorers (checking every job)."""
    for position, job in enumerate(jobs):
        _check_job(job, f"job {position}")
    return len(keys_free) == len(scorers) and all(job.prepare is None for job in jobs)


def _checking(one: Callable[[Job], Awaitable[None]]) -> Callable[[Job], Awaitable[None]]:
    async def checked(job: Job) -> None:
        _check_job(job, "a streamed job")
        await one(job)

    return checked


@asynccontextmanager
async def _no_gate() -> AsyncIterator[None]:
    yield


async def _in_blocks(
    scorers: Mapping[str, ScorerSpec],
    fast: Mapping[str, ScorerSpec],
    jobs: Sequence[Job],
    on_scored: OnScored,
    rules: Rules,
    on_block: OnBlock | None,
) -> None:
    for start in range(0, len(jobs), BLOCK):
        block = jobs[start : start + BLOCK]
        found, seconds = await _fast_outcomes(fast, block, rules.timeout)
        traced: list[dict[str, ScoreResult]] | None = None
        if tracer() is not None:  # spans after the fact: the block was scored at once
            traced = [as_results(fast, done or {}, seconds) for done in found]
            _trace_block(block, traced)
        plain = on_block if traced is None else None  # spans need results
        entries: list[dict[str, Outcome] | Scored] = []
        for position, (job, done) in enumerate(zip(block, found, strict=True)):
            if done is None:  # its fast path ran past the timeout
                scored = Scored(job, {}, timed_out=True, duration_s=rules.timeout or 0.0)
            else:
                wanted = len(scorers)
                if job.only is not None:
                    done = {key: result for key, result in done.items() if key in job.only}
                    wanted = sum(key in scorers for key in job.only)
                if plain and len(done) == wanted and job.only is None:
                    entries.append(done)
                    continue
                if traced is None:
                    results = as_results(fast, done, seconds)
                else:
                    results = {k: r for k, r in traced[position].items() if k in done}
                if len(done) == wanted:
                    duration = sum(result.duration_s for result in results.values())
                    scored = Scored(job, _ordered(scorers, results), duration_s=duration)
                else:
                    scored = await _score_job(scorers, scorers, job, rules, results)
            if plain:
                entries.append(scored)
            else:
                await on_scored(scored)
        if plain:
            await plain(ScoredBlock(block, entries, seconds))
        await anyio.sleep(0)  # let cancellation (Ctrl-C) in


async def _fast_outcomes(
    fast: Mapping[str, ScorerSpec], block: Sequence[Job], timeout: float | None
) -> tuple[list[dict[str, Outcome] | None], dict[str, float]]:
    """The fast paths' outcomes of a block and their time per run, computed in a daemon
    thread (a Ctrl-C is not kept waiting), or here when every plug-in is ``inline`` and
    no timeout applies. A block that takes longer than ``timeout`` is scored again run by
    run, each under the timeout: None for a run that takes longer."""
    runs = cast("list[ScorerRun]", [job.run for job in block])  # inline: every job is a run
    if not fast:
        return [{} for _ in runs], {}
    if timeout is None and all(getattr(s._fast_path, "inline", False) for s in fast.values()):
        outcomes, seconds = block_outcomes(fast, runs)  # cheap and linear: no thread
        return list(outcomes), seconds
    with anyio.move_on_after(timeout) if timeout is not None else nullcontext():
        outcomes, seconds = await in_daemon_thread(block_outcomes, fast, runs)
        return list(outcomes), seconds
    found: list[dict[str, Outcome] | None] = []
    spent: dict[str, float] = {}
    for run in runs:
        found.append(None)
        with anyio.move_on_after(timeout):
            [found[-1]], seconds = await in_daemon_thread(block_outcomes, fast, [run])
            for key, each in seconds.items():
                spent[key] = spent.get(key, 0.0) + each / len(runs)
    return found, spent


async def _score_job(
    scorers: Mapping[str, ScorerSpec],
    keys_free: Collection[str],
    job: Job,
    rules: Rules,
    done: dict[str, ScoreResult] | None = None,
) -> Scored:
    """One job start to end; ``done``: results a fast path gave already."""
    started = time.perf_counter()
    results = dict(done or {})
    wanted = scorers if job.only is None else {k: scorers[k] for k in job.only if k in scorers}
    to_run = {key: scorer for key, scorer in wanted.items() if key not in results}
    timed_out = False
    prepared: list[JudgeCall] = []
    outcome: Any = None
    # a job scoring a call of its own (`evaluated`) puts its scores under that call
    item = (
        nullcontext() if job.evaluated is not None else span("scorekit.item", _item_attributes(job))
    )
    with record_calls() as calls, item:
        try:
            with _item_timeout(rules.timeout):
                run = job.run
                if job.prepare is not None:
                    with record_calls() as prepared:
                        run, outcome = await job.prepare()
                if run is not None:
                    await _score_run(to_run, keys_free, run, results, rules, job.evaluated)
        except TimeoutError:
            if rules.timeout is None:
                raise
            timed_out = True
    duration = time.perf_counter() - started + sum(r.duration_s for r in (done or {}).values())
    ordered = _ordered(scorers, results)
    return Scored(job, ordered, list(calls), list(prepared), timed_out, duration, outcome)


@contextmanager
def _item_timeout(timeout: float | None) -> Iterator[None]:
    """The job's timeout, stopped while process-wide setup runs (`untimed`)."""
    if timeout is None:
        yield
        return
    with anyio.fail_after(timeout) as scope, timed(scope):
        yield


async def _score_run(
    scorers: Mapping[str, ScorerSpec],
    keys_free: Collection[str],
    run: ScorerRun,
    results: dict[str, ScoreResult],
    rules: Rules,
    evaluated: Any = None,
) -> None:
    """One run's scorers: the model-free ones inline (under a timeout in a daemon
    thread, so that it cuts them off), the others concurrently. ``evaluated``: the span
    of what is scored (default: the current one, the item's)."""
    threaded = rules.timeout is not None
    evaluated = current_span() if evaluated is None else evaluated

    async def score(key: str, scorer: ScorerSpec) -> None:
        started = time.perf_counter()
        try:
            if key in keys_free:  # no task, no loop round trip (or a thread)
                outcome = await score_free(scorer, run) if threaded else score_inline(scorer, run)
                if not isinstance(outcome, ScoreResult):
                    outcome = await outcome
                results[key] = outcome
                with span("scorekit.score", {"scorekit.scorer.id": scorer.id}, evaluated) as sp:
                    record_score(sp, outcome, evaluated)
            else:
                results[key] = await score_one(scorer, run, evaluated)
        except Exception as exc:
            setup = isinstance(exc, JudgeSetupError) and rules.setup_errors == "raise"
            if setup or rules.raise_errors:
                raise  # a broken setup: every other run would fail the same way
            results[key] = error_result(scorer.id, exc, time.perf_counter() - started)

    concurrent = [key for key in scorers if key not in keys_free]
    for key, scorer in scorers.items():
        if key in keys_free or len(concurrent) == 1:
            await score(key, scorer)
    if len(concurrent) > 1:
        async with task_group() as tg:
            for key in concurrent:
                tg.start_soon(score, key, scorers[key])


def _item_attributes(job: Job) -> dict[str, Any]:
    return {} if job.label is None else {"scorekit.item.id": job.label}


def _trace_block(block: Sequence[Job], found: Sequence[dict[str, ScoreResult]]) -> None:
    for job, done in zip(block, found, strict=True):
        with span("scorekit.item", _item_attributes(job)) as item_span:
            for result in done.values():
                with span("scorekit.score", {"scorekit.scorer.id": result.scorer_id}) as sp:
                    record_score(sp, result, item_span)


def _ordered(
    scorers: Mapping[str, ScorerSpec], results: Mapping[str, ScoreResult]
) -> dict[str, ScoreResult]:
    return {key: results[key] for key in scorers if key in results}


async def score_runs(
    scorer: ScorerSpec, runs: Sequence[ScorerRun], *, concurrency: int, raise_errors: bool
) -> list[ScoreResult]:
    """One scorer over many validated runs, ``concurrency`` at a time, in input order
    (what ``Scorer.arun_many`` does)."""
    found: list[ScoreResult | None] = [None] * len(runs)

    async def keep(scored: Scored) -> None:
        found[scored.job.key] = scored.results["scorer"]

    jobs = [Job(i, run, label=i) for i, run in enumerate(runs)]
    await score_many(
        {"scorer": scorer}, jobs, keep, concurrency=concurrency, raise_errors=raise_errors
    )
    return found  # type: ignore[return-value]  # every job was scored
