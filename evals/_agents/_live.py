"""An agent's live scorers: a task group the agent owns, one per event loop.

A response must not wait for its scorers, so they cannot run in the caller's task
group. Each event loop the agent answers on gets one service task holding a task group;
scorer jobs reach it through a memory stream. `LiveScoring.flush` waits until every job
submitted so far has finished; `LiveScoring.close` ends the service.
"""

from __future__ import annotations

import asyncio
import math
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

Job = Callable[[], Awaitable[None]]


class _Service:
    """The task group of one event loop and the jobs in it."""

    def __init__(self) -> None:
        self.send: MemoryObjectSendStream[Job]
        self.receive: MemoryObjectReceiveStream[Job]
        self.send, self.receive = anyio.create_memory_object_stream[Job](math.inf)
        self.pending = 0
        self.idle = anyio.Event()
        self.idle.set()
        self.stopped = anyio.Event()

    async def serve(self) -> None:
        try:
            async with anyio.create_task_group() as tg, self.receive:
                async for job in self.receive:
                    tg.start_soon(self._run, job)
        finally:
            self.stopped.set()

    async def _run(self, job: Job) -> None:
        try:
            await job()
        finally:
            self.pending -= 1
            if self.pending == 0:
                self.idle.set()

    def submit(self, job: Job) -> None:
        if self.pending == 0:
            self.idle = anyio.Event()
        self.pending += 1
        self.send.send_nowait(job)


class LiveScoring:
    """Runs an agent's background scorer jobs in task groups it owns."""

    def __init__(self) -> None:
        self._services: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Service] = (
            weakref.WeakKeyDictionary()
        )
        self._roots: set[asyncio.Task[None]] = set()

    def _service(self) -> _Service:
        loop = asyncio.get_running_loop()
        service = self._services.get(loop)
        if service is None:
            service = self._services[loop] = _Service()
            root = loop.create_task(service.serve(), name="scorekit-live-scorers")
            self._roots.add(root)  # the loop keeps only a weak reference
            root.add_done_callback(self._roots.discard)
        return service

    def submit(self, fn: Callable[..., Awaitable[None]], *args: Any) -> None:
        """Start ``fn(*args)`` in the background on the running loop."""
        self._service().submit(lambda: fn(*args))

    async def flush(self) -> None:
        """Wait until every job submitted on this loop so far has finished."""
        service = self._services.get(asyncio.get_running_loop())
        if service is not None:
            await service.idle.wait()

    async def close(self) -> None:
        """Wait for the jobs of this loop, then end its task group."""
        loop = asyncio.get_running_loop()
        service = self._services.pop(loop, None)
        if service is not None:
            await service.idle.wait()
            service.send.close()
            await service.stopped.wait()
