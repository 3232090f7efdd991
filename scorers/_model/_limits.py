"""Limits on model calls: a judge's own caps, and an extra cap for a whole run.

A judge's ``max_concurrency`` and ``requests_per_minute`` hold wherever it is used
(one scorer run, `Scorer.run_many`, `evals.run_evals`, an agent). A run may add its own
cap with `run_cap`; a call then needs a slot of both, so the smaller one is the limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import weakref
from collections.abc import AsyncIterator, Iterator
from contextvars import ContextVar
from typing import Any

import anyio

_run_cap: ContextVar[anyio.CapacityLimiter | None] = ContextVar("scorekit_run_cap", default=None)


@contextlib.contextmanager
def run_cap(limiter: anyio.CapacityLimiter) -> Iterator[None]:
    """Make every model call in this context (and tasks started from it) also take a
    slot of ``limiter``, on top of its judge's own limits."""
    token = _run_cap.set(limiter)
    try:
        yield
    finally:
        _run_cap.reset(token)


class Budget:
    """A run's cost cap: ``spent`` by finished calls plus what calls in flight reserved
    may not pass ``max_cost``."""

    def __init__(self, max_cost: float):
        self.max_cost = max_cost
        self.spent = 0.0
        self.reserved = 0.0
        self.lock = threading.Lock()

    def reserve(self, estimate: float) -> bool:
        """Reserve ``estimate`` USD for a call about to start; False when that would pass
        the cap (nothing is reserved then)."""
        with self.lock:
            if self.spent + self.reserved + estimate > self.max_cost:
                return False
            self.reserved += estimate
            return True

    def settle(self, estimate: float, cost: float) -> None:
        """A reserved call ended: free its reservation and count what it cost."""
        with self.lock:
            self.reserved -= estimate
            self.spent += cost


_budget: ContextVar[Budget | None] = ContextVar("scorekit_budget", default=None)


@contextlib.contextmanager
def run_budget(budget: Budget) -> Iterator[None]:
    """Make every model call in this context count against ``budget``."""
    token = _budget.set(budget)
    try:
        yield
    finally:
        _budget.reset(token)


def current_budget() -> Budget | None:
    """The budget of the run this call belongs to, if any."""
    return _budget.get()


class JobLedger:
    """What one job (an item's scoring) reserved of its run's budget, in USD: the
    engine admits a new job only when the started ones can still finish."""

    def __init__(self) -> None:
        self.reserved = 0.0


_ledger: ContextVar[JobLedger | None] = ContextVar("scorekit_job_ledger", default=None)


@contextlib.contextmanager
def job_ledger(ledger: JobLedger) -> Iterator[None]:
    """Count every budget reservation made in this context in ``ledger``."""
    token = _ledger.set(ledger)
    try:
        yield
    finally:
        _ledger.reset(token)


def current_ledger() -> JobLedger | None:
    """The ledger of the job this call belongs to, if any."""
    return _ledger.get()


class RateBucket:
    """Spaces request starts to at most ``per_minute`` per minute."""

    def __init__(self, per_minute: float):
        self.interval = 60.0 / per_minute
        self.next_at = 0.0
        self.lock = anyio.Lock()

    async def wait(self) -> None:
        """Wait until the next request may start."""
        async with self.lock:
            now = time.monotonic()
            delay = self.next_at - now
            self.next_at = max(now, self.next_at) + self.interval
        if delay > 0:
            await anyio.sleep(delay)


class TokenBucket:
    """Holds model tokens to at most ``per_minute`` a minute, averaged over a minute.

    A request takes its prompt tokens before it is sent (waiting while the bucket is
    short); its completion tokens are charged when it comes back, so a long answer
    slows the next requests. A 429 that names a token limit empties the bucket for the
    provider's ``Retry-After`` (or a minute's share), instead of only retrying.
    """

    def __init__(self, per_minute: float, clock: Any = time.monotonic):
        self.per_minute = per_minute
        self.rate = per_minute / 60.0
        self.clock = clock
        self.level = per_minute  # a full minute's tokens to start
        self.updated = clock()
        self.lock = threading.Lock()  # one bucket for every loop and thread

    def _refill(self, now: float) -> None:
        self.level = min(self.per_minute, self.level + (now - self.updated) * self.rate)
        self.updated = now

    def delay_for(self, tokens: int) -> float:
        """Seconds until ``tokens`` may be taken (a request larger than the bucket waits
        for a full bucket)."""
        now = self.clock()
        self._refill(now)
        wanted = min(float(tokens), self.per_minute)
        return 0.0 if self.level >= wanted else (wanted - self.level) / self.rate

    async def take(self, tokens: int) -> None:
        """Wait for, then take, ``tokens`` prompt tokens."""
        while True:
            with self.lock:  # check and take with no await between them
                delay = self.delay_for(tokens)
                if delay <= 0:
                    self.level -= tokens
                    return
            await anyio.sleep(delay)

    def charge(self, tokens: int) -> None:
        """Charge tokens used after the fact (a completion's; negative gives back)."""
        with self.lock:
            self._refill(self.clock())
            self.level = min(self.per_minute, self.level - tokens)  # a give-back never overfills

    def slow_down(self, seconds: float | None) -> None:
        """A provider said its token limit was hit: nothing more for ``seconds`` (a
        quarter minute when it did not say)."""
        with self.lock:
            self._refill(self.clock())
            wait = 15.0 if seconds is None else seconds
            self.level = min(self.level, -wait * self.rate)


DEFAULT_CONCURRENCY = 16
"""Requests in flight per judge when neither the judge nor a run sets a cap."""


class Limits:
    """A judge's concurrency cap and request-rate bucket, one set per event loop.

    anyio primitives belong to the loop that made them; the sync API's loop and a
    user's own loops each get their own (each capped the same way).

    Args:
        max_concurrency: Requests in flight at once. None: `DEFAULT_CONCURRENCY`, except
            under a run's cap (`run_cap`), which is then the only one.
        requests_per_minute: Request starts per minute, or None for no bucket.
        tokens_per_minute: Prompt plus completion tokens per minute (one bucket shared by
            every loop and scorer using the judge), or None.
    """

    def __init__(
        self,
        max_concurrency: int | None,
        requests_per_minute: float | None,
        tokens_per_minute: float | None = None,
    ):
        self.max_concurrency = max_concurrency
        self.requests_per_minute = requests_per_minute
        self.tokens = None if tokens_per_minute is None else TokenBucket(tokens_per_minute)
        self._per_loop: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, tuple[anyio.CapacityLimiter, RateBucket | None]
        ] = weakref.WeakKeyDictionary()

    def _state(self) -> tuple[anyio.CapacityLimiter, RateBucket | None]:
        loop = asyncio.get_running_loop()
        state = self._per_loop.get(loop)
        if state is None:
            rpm = self.requests_per_minute
            cap = self.max_concurrency or DEFAULT_CONCURRENCY
            state = (anyio.CapacityLimiter(cap), RateBucket(rpm) if rpm else None)
            self._per_loop[loop] = state
        return state

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one request slot: the run's cap (if any), then this judge's, then wait
        for the rate bucket."""
        limiter, bucket = self._state()
        outer = _run_cap.get()
        own = limiter if outer is None or self.max_concurrency is not None else None
        if outer is not None:
            await outer.acquire()
        try:
            if own is not None:
                await own.acquire()
            try:
                if bucket is not None:
                    await bucket.wait()
                yield
            finally:
                if own is not None:
                    own.release()
        finally:
            if outer is not None:
                outer.release()
