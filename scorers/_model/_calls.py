"""Call logs: every model request is counted, including those of runs that failed.

The judge notes each `JudgeCall` it makes (answered, failed or cut off) in every log
open in the current context. A scorer run opens one, so ``ScoreResult.judge_calls`` and
the calls attached to its errors are complete; `evals.run_evals` opens one per item and
one around the target, so its summary matches what the provider saw.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

from .._telemetry import judge_call
from .._types import JudgeCall

_logs: ContextVar[tuple[list[JudgeCall], ...]] = ContextVar("scorekit_call_logs", default=())


@contextlib.contextmanager
def record_calls() -> Iterator[list[JudgeCall]]:
    """Collect every model call made in this context (and tasks started from it)."""
    log: list[JudgeCall] = []
    token = _logs.set((*_logs.get(), log))
    try:
        yield log
    finally:
        _logs.reset(token)


@contextlib.contextmanager
def detached_calls() -> Iterator[None]:
    """Keep the calls made in this context out of the logs opened outside it (for work
    that outlives its caller, like an agent's background scorers)."""
    token = _logs.set(())
    try:
        yield
    finally:
        _logs.reset(token)


def note_call(call: JudgeCall) -> None:
    """Add ``call`` to every open log (and, when tracing is on, make it a span)."""
    for log in _logs.get():
        log.append(call)
    judge_call(call)


def attach_calls(exc: BaseException, calls: list[JudgeCall]) -> None:
    """Keep ``calls`` on ``exc`` as ``exc.judge_calls`` (read by ``error_result``)."""
    with contextlib.suppress(AttributeError, TypeError):
        exc.judge_calls = list(calls)  # type: ignore[attr-defined]


def calls_of(exc: BaseException) -> list[JudgeCall]:
    """The calls attached to ``exc`` by `attach_calls` (empty when none were)."""
    calls = getattr(exc, "judge_calls", None)
    return list(calls) if isinstance(calls, list) else []
