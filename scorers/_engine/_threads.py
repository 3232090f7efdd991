"""CPU work off the event loop, in daemon threads, so that a timeout or Ctrl-C takes
effect at once.

Model-free scoring is plain Python and C: nothing the event loop can interrupt. Run in
a daemon thread and awaited, it can be: a cancelled wait returns at once, the thread
finishes on its own and its result is dropped, and a daemon thread never keeps the
process alive at exit.
"""

from __future__ import annotations

import contextvars
import threading
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.from_thread
import anyio.lowlevel

from .._types import ScoreResult, ScorerRun
from ._execute import score_inline, score_one
from ._spec import ScorerSpec

T = TypeVar("T")


async def in_daemon_thread(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in a new daemon thread (with the caller's context variables),
    awaited; a cancellation of the caller abandons the thread."""
    token = anyio.lowlevel.current_token()
    done = anyio.Event()
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["value"] = fn(*args)
        except BaseException as exc:
            outcome["error"] = exc
        finally:
            try:
                anyio.from_thread.run_sync(done.set, token=token)
            except Exception:  # the run ended (abandoned work): nobody waits
                pass

    context = contextvars.copy_context()
    threading.Thread(target=context.run, args=(work,), daemon=True, name="scorekit").start()
    await done.wait()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]  # type: ignore[no-any-return]


_NEEDS_LOOP: weakref.WeakSet[Any] = weakref.WeakSet()
"""Scorers whose steps awaited something of the event loop: never threaded again."""


async def score_free(scorer: ScorerSpec, run: ScorerRun) -> ScoreResult:
    """A model-free scorer's run in a daemon thread (see the module), so that a timeout
    cuts it off. A scorer whose steps await the event loop's own I/O (an async context
    extractor) cannot run there: it runs on the loop, as without a timeout."""
    if scorer not in _NEEDS_LOOP:
        try:
            outcome = await in_daemon_thread(score_inline, scorer, run)
        except RuntimeError as exc:
            if not _no_loop(exc):
                raise
            _NEEDS_LOOP.add(scorer)
        else:
            if isinstance(outcome, ScoreResult):
                return outcome
            _NEEDS_LOOP.add(scorer)  # it waited: finish it where its loop is
            return await outcome
    return await score_one(scorer, run)


def _no_loop(exc: BaseException) -> bool:
    text = str(exc)
    return "event loop" in text or "async context" in text or "async library" in text
