"""An agent's live scorers: one `score_many` over a stream of answers, per event loop.

A response must not wait for its scorers, so they cannot run in the caller's task
group. The first answer on an event loop starts a service task there: one `score_many`
reading jobs from a memory stream, as many at a time as `LIVE_JOBS`, in a context of its
own (no caller's call log, trace span or run limits is inherited; each job carries the
span of the call it scores). A broken judge setup is the job's error result, never the
end of the service. `LiveScoring.flush` waits until every job submitted so far has
finished; `LiveScoring.close` ends the stream and with it the service.
"""

from __future__ import annotations

import asyncio
import contextvars
import math
import sys
import weakref
from collections.abc import Awaitable, Callable, Mapping

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from scorers import Scorer
from scorers.lowlevel import Job, Scored, score_many

LIVE_JOBS = 64
"""Answers scored at once on one event loop; later ones wait in the stream (each
judge's own limiter still bounds its requests)."""

OnScored = Callable[[Scored], Awaitable[None]]


class _Service:
    """The `score_many` of one event loop and the jobs sent to it."""

    def __init__(self, scorers: Mapping[str, Scorer], on_scored: OnScored) -> None:
        self.scorers = scorers
        self.on_scored = on_scored
        self.send: MemoryObjectSendStream[Job]
        self.receive: MemoryObjectReceiveStream[Job]
        self.send, self.receive = anyio.create_memory_object_stream[Job](math.inf)
        self.pending = 0
        self.idle = anyio.Event()
        self.idle.set()
        self.stopped = anyio.Event()

    async def serve(self) -> None:
        try:
            async with self.receive:
                await score_many(
                    self.scorers,
                    self.receive,
                    self._finished,
                    concurrency=LIVE_JOBS,
                    setup_errors="record",
                )
        except Exception as exc:  # a bug: say it and what it cost, the next answer restarts
            print(
                f"scorekit: live scoring stopped ({exc!r}); {self.pending} answer(s) left unscored",
                file=sys.stderr,
            )
        finally:
            self.stopped.set()
            self.idle.set()  # nobody waits forever on a service that is gone

    async def _finished(self, scored: Scored) -> None:
        await self.on_scored(scored)  # if it raises, the job stays pending: reported
        self.pending -= 1
        if self.pending == 0:
            self.idle.set()

    def submit(self, job: Job) -> None:
        if self.pending == 0:
            self.idle = anyio.Event()
        self.pending += 1
        self.send.send_nowait(job)


class LiveScoring:
    """Scores an agent's answers in the background, one `score_many` per event loop.

    Args:
        scorers: The scorers by key (a job's ``only`` picks the sampled ones).
        on_scored: Awaited with each finished job; it must not raise (a failure there
            would end the service).
    """

    def __init__(self, scorers: Mapping[str, Scorer], on_scored: OnScored) -> None:
        self.scorers = scorers
        self.on_scored = on_scored
        self._services: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Service] = (
            weakref.WeakKeyDictionary()
        )
        self._roots: set[asyncio.Task[None]] = set()

    def _service(self) -> _Service:
        loop = asyncio.get_running_loop()
        service = self._services.get(loop)
        if service is None or service.stopped.is_set():
            service = self._services[loop] = _Service(self.scorers, self.on_scored)
            # a context of its own: the caller's call logs, span and limits stay theirs
            root = contextvars.Context().run(
                loop.create_task, service.serve(), name="scorekit-live-scorers"
            )
            self._roots.add(root)  # the loop keeps only a weak reference
            root.add_done_callback(self._roots.discard)
        return service

    def submit(self, job: Job) -> None:
        """Score ``job`` in the background on the running loop."""
        self._service().submit(job)

    async def flush(self) -> None:
        """Wait until every job submitted on this loop so far has finished."""
        service = self._services.get(asyncio.get_running_loop())
        if service is not None:
            await service.idle.wait()

    async def close(self) -> None:
        """Wait for the jobs of this loop, then end its service."""
        loop = asyncio.get_running_loop()
        service = self._services.pop(loop, None)
        if service is not None:
            await service.idle.wait()
            service.send.close()
            await service.stopped.wait()
