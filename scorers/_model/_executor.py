"""The default executor of the event loops scorekit owns: litellm's call setup inline.

``litellm.acompletion`` hands the synchronous ``litellm.main.completion(...)`` to the
loop's default thread pool. For providers with an async path that function only
prepares the request and returns a coroutine, so the hop buys nothing and costs a
thread wake-up plus two GIL handovers per call; under load the setup queues behind the
loop's own work (the benchmark's mean call overhead at concurrency 32 went from 45 ms
to 30 ms without it). `InlineSetupExecutor` runs exactly that function inline and
everything else (DNS lookups, user code) on threads as before.

A provider whose litellm integration has no async path does its HTTP call inside that
function; after a few setups slower than ``SLOW_SETUP_S`` the executor stops inlining.

Only installed on loops scorekit creates (the sync API's loop thread and the judge's
helper processes), never on a caller's loop.
"""

from __future__ import annotations

import asyncio
import functools
import sys
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

SLOW_SETUP_S = 0.05
SLOW_SETUPS_ALLOWED = 3  # the first calls of a provider import its modules


def _is_litellm_setup(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` is acompletion's ``partial(context.run, partial(completion, ...))``."""
    main = sys.modules.get("litellm.main")
    if main is None or not isinstance(fn, functools.partial) or not fn.args:
        return False
    inner = fn.args[0]
    return isinstance(inner, functools.partial) and inner.func is getattr(main, "completion", None)


class InlineSetupExecutor(ThreadPoolExecutor):
    """A thread pool that runs litellm's per-call setup in the submitting thread.

    Attributes:
        inlined: Setups run inline so far.
        slow_setups: Inline setups that took longer than ``SLOW_SETUP_S``.
    """

    def __init__(self) -> None:
        super().__init__(thread_name_prefix="scorekit-executor")
        self.inlined = 0
        self.slow_setups = 0

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        if self.slow_setups >= SLOW_SETUPS_ALLOWED or not _is_litellm_setup(fn):
            return super().submit(fn, *args, **kwargs)
        self.inlined += 1
        future: Future[Any] = Future()
        started = time.perf_counter()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # handed to the awaiting caller, as a thread would
            future.set_exception(exc)
        if time.perf_counter() - started > SLOW_SETUP_S:
            self.slow_setups += 1
        return future


def install() -> None:
    """Make `InlineSetupExecutor` the running asyncio loop's default executor."""
    asyncio.get_running_loop().set_default_executor(InlineSetupExecutor())
