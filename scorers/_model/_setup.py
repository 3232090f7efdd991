"""Process-wide setup is not charged to the timeouts of the calls that wait for it.

The first request that must leave the process imports litellm (seconds of CPU, once) or
starts helper processes. That happens when the first judge call misses the cache, inside
some item's timeout; the timeouts registered with `timed` stop while `untimed` setup runs
and resume with the time they had left.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar

import anyio

_timed: ContextVar[tuple[anyio.CancelScope, ...]] = ContextVar("scorekit_timed", default=())


class _Pause:
    def __init__(self, deadline: float, since: float) -> None:
        self.deadline, self.since, self.waiters = deadline, since, 0


_paused: weakref.WeakKeyDictionary[anyio.CancelScope, _Pause] = weakref.WeakKeyDictionary()


@contextmanager
def timed(scope: anyio.CancelScope) -> Iterator[None]:
    """Let `untimed` setup inside this block stop ``scope``'s deadline while it runs."""
    token = _timed.set((*_timed.get(), scope))
    try:
        yield
    finally:
        _timed.reset(token)


@asynccontextmanager
async def untimed() -> AsyncIterator[None]:
    """Run one-off setup with the enclosing `timed` deadlines stopped; each resumes with
    the time it had left (several tasks of one scope may wait at once)."""
    now = anyio.current_time()
    scopes = _timed.get()
    for scope in scopes:
        pause = _paused.get(scope)
        if pause is None:
            pause = _paused[scope] = _Pause(scope.deadline, now)
            scope.deadline = math.inf
        pause.waiters += 1
    try:
        yield
    finally:
        now = anyio.current_time()
        for scope in scopes:
            pause = _paused[scope]
            pause.waiters -= 1
            if not pause.waiters:
                del _paused[scope]
                scope.deadline = pause.deadline + (now - pause.since)


__all__ = ["timed", "untimed"]
