"""One scorer run: its steps in order, then the score and the reason.

`score_one` is what ``Scorer.arun`` does; `score_inline` runs a model-free scorer without
a task or event-loop round trip; `error_result` stands for a run that raised.
"""

from __future__ import annotations

import contextvars
import math
import time
from collections.abc import Awaitable, Generator
from typing import Any

from .._errors import ConfigError
from .._model._calls import attach_calls, calls_of, detached_calls, record_calls
from .._steps import NotScorable, PromptStep, StepResults, detail_value
from .._telemetry import current_span, record_score, span
from .._types import ScoreResult, ScorerRun
from ._prompts import prompt_step
from ._spec import ScorerSpec


def _needs_score_fn(scorer: ScorerSpec) -> None:
    if scorer.score_fn is None:
        raise ConfigError(f"scorer {scorer.id!r} has no generate_score step")


async def score_one(
    scorer: ScorerSpec, run: ScorerRun, evaluated: Any | None = None
) -> ScoreResult:
    """Score a validated run. Every exception leaving it carries the model calls made so
    far as ``exc.judge_calls`` (what `error_result` records). ``evaluated``: the span of
    the run scored (default: the current one, an item's or the caller's)."""
    _needs_score_fn(scorer)
    started = time.perf_counter()
    evaluated = current_span() if evaluated is None else evaluated
    attributes = {"scorekit.scorer.id": scorer.id}
    with record_calls() as calls, span("scorekit.score", attributes, evaluated) as sp:
        try:
            result = await execute(scorer, run, StepResults(calls), started)
        except BaseException as exc:
            attach_calls(exc, calls)
            raise
        record_score(sp, result, evaluated)
        return result


async def score_detached(
    scorer: ScorerSpec, run: ScorerRun, caller: contextvars.Context | None = None
) -> ScoreResult:
    """Score ``run`` as work that outlives its caller (an agent's live scorers): its model
    calls stay out of the caller's call logs, and a failure becomes an error result.
    ``caller``: the caller's context when it submitted the work (its trace span is the
    one the score is recorded on)."""
    started = time.perf_counter()
    evaluated = None if caller is None else caller.run(current_span)
    with detached_calls():
        try:
            return await score_one(scorer, run, evaluated)
        except Exception as exc:
            return error_result(scorer.id, exc, time.perf_counter() - started)


def score_inline(scorer: ScorerSpec, run: ScorerRun) -> ScoreResult | Awaitable[ScoreResult]:
    """Score a validated run without a task or event-loop round trip, when possible.

    Model-free steps seldom wait for anything: their coroutine then finishes on its first
    step, and the result comes back at once. If a step does wait (an async extractor doing
    I/O), an awaitable is returned that finishes the same run under the caller's event
    loop — nothing is computed twice.
    """
    _needs_score_fn(scorer)
    coro = execute(scorer, run, StepResults([]), time.perf_counter())
    try:
        yielded = coro.send(None)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]
    return _Continue(coro, yielded)


async def execute(
    scorer: ScorerSpec, run: ScorerRun, results: StepResults, started: float
) -> ScoreResult:
    """The pipeline: preprocess and analyze steps, ``generate_score``, the reason."""
    for step in scorer.steps:
        if isinstance(step.fn, PromptStep):
            value = await prompt_step(scorer, step.name, step.fn, run, results)
        else:
            value = step.fn(run, results)
            if hasattr(value, "__await__"):  # an async step
                value = await value
        if isinstance(value, NotScorable):
            return _finish(scorer, results, started, 0.0, value.reason, "skipped")
        results.values[step.name] = value
        setattr(results, step.kind, value)

    assert scorer.score_fn is not None  # checked by the callers
    raw = scorer.score_fn(run, results)
    if hasattr(raw, "__await__"):
        raw = await raw
    if isinstance(raw, NotScorable):
        return _finish(scorer, results, started, 0.0, raw.reason, "skipped")
    try:
        number = float(raw)
    except (TypeError, ValueError):
        raise ConfigError(
            f"generate_score of {scorer.id!r} returned {raw!r}; it must return a number"
        ) from None
    if math.isnan(number):
        raise ConfigError(f"generate_score of {scorer.id!r} returned NaN")
    score = scorer.scaled(number)
    results.score = score

    reason = ""
    reason_step = scorer.reason_step
    if isinstance(reason_step, PromptStep):
        value = await prompt_step(scorer, "generate_reason", reason_step, run, results)
        reason = str(getattr(value, "reason", value) or "")
    elif reason_step is not None:
        text = reason_step(run, results, score)
        if hasattr(text, "__await__"):
            text = await text
        reason = str(text or "")
    return _finish(scorer, results, started, score, reason, "scored")


def _finish(
    scorer: ScorerSpec,
    results: StepResults,
    started: float,
    score: float,
    reason: str,
    status: str,
) -> ScoreResult:
    details = {k: detail_value(v) for k, v in results.values.items() if k[:1] != "_"}
    if results.samples:
        details["samples"] = {k: [detail_value(a) for a in v] for k, v in results.samples.items()}
    if results.prompts:
        details["prompts"] = results.prompts
    return ScoreResult(
        scorer_id=scorer.id,
        score=score,
        reason=reason,
        status=status,  # type: ignore[arg-type]
        details=details,
        judge_calls=results.judge_calls,
        duration_s=time.perf_counter() - started,
    )


def error_result(scorer_id: str, exc: BaseException, duration_s: float = 0.0) -> ScoreResult:
    """The `ScoreResult` (``status="error"``) that stands for a failed run, with the model
    calls the run made before it failed."""
    return ScoreResult(
        scorer_id=scorer_id,
        status="error",
        error=f"{type(exc).__name__}: {exc}",
        reason=f"error: {exc}",
        duration_s=duration_s,
        judge_calls=calls_of(exc),
    )


class _Continue:
    """Finishes a coroutine that was started by hand (`score_inline`) and then waited:
    what it yields goes to the event loop, what the loop sends back goes in."""

    def __init__(self, coro: Any, yielded: Any):
        self._coro, self._yielded = coro, yielded

    def __await__(self) -> Generator[Any, Any, ScoreResult]:
        value = self._yielded
        while True:
            try:
                sent = yield value
            except GeneratorExit:
                self._coro.close()
                raise
            except BaseException as exc:
                try:
                    value = self._coro.throw(exc)
                except StopIteration as stop:
                    return stop.value  # type: ignore[no-any-return]
            else:
                try:
                    value = self._coro.send(sent)
                except StopIteration as stop:
                    return stop.value  # type: ignore[no-any-return]
