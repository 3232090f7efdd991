"""An agent's live scorers: one `score_many` over a stream of answers, per event loop.

A response must not wait for its scorers, so they cannot run in the caller's task
group. The first answer on an event loop starts a service task there: one `score_many`
reading jobs from a memory stream, as many at a time as `LIVE_JOBS`, in a context of its
own (no caller's call log, trace span or run limits is inherited; each job carries the
span of the call it scores). A broken judge setup is the job's error result, never the
end of the service. `LiveScoring.flush` waits until every job submitted so far has
finished; `LiveScoring.close` ends the stream and with it the service.

A loop may end before its answers are scored: ``asyncio.run(agent(question))`` once per
question cancels every task left when the call returns. The answers still unscored are
then handed to scorekit's own event loop (the one `flush_scores` waits on) and scored
there; at interpreter exit scorekit waits up to `EXIT_WAIT_S` for them and says how many
it could not score. No score is dropped without a line on stderr.
"""

from __future__ import annotations

import asyncio
import atexit
import contextvars
import math
import sys
import threading
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from scorers import Scorer
from scorers._internal import Job, Scored, on_scorekit_loop, run_soon, score_many

LIVE_JOBS = 64
"""Answers scored at once on one event loop; later ones wait in the stream (each
judge's own limiter still bounds its requests)."""

OnScored = Callable[[Scored], Awaitable[None]]

EXIT_WAIT_S = 30.0
"""How long interpreter exit waits for live scores still running on scorekit's loop."""


class _Service:
    """The `score_many` of one event loop and the jobs sent to it."""

    def __init__(
        self,
        scorers: Mapping[str, Scorer],
        on_scored: OnScored,
        orphans: Callable[[list[Job]], None],
    ) -> None:
        self.scorers = scorers
        self.on_scored = on_scored
        self.orphans = orphans
        self.unfinished: dict[int, Job] = {}
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
        except BaseException:  # cancelled: the loop is ending (asyncio.run returned)
            left, self.unfinished = list(self.unfinished.values()), {}
            if left:
                self.orphans(left)
            raise
        finally:
            self.stopped.set()
            self.idle.set()  # nobody waits forever on a service that is gone

    async def _finished(self, scored: Scored) -> None:
        await self.on_scored(scored)  # if it raises, the job stays pending: reported
        self.unfinished.pop(id(scored.job), None)
        self.pending -= 1
        if self.pending == 0:
            self.idle.set()

    def submit(self, job: Job) -> None:
        if self.pending == 0:
            self.idle = anyio.Event()
        self.pending += 1
        self.unfinished[id(job)] = job
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
            service = self._services[loop] = _Service(self.scorers, self.on_scored, self._adopt)
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

    def _adopt(self, jobs: list[Job]) -> None:
        """Jobs of a loop that ended before they finished: scored on scorekit's own loop
        (waited for at exit), or, when that loop is the one ending, reported."""
        if not on_scorekit_loop() and run_soon(self._resubmit, jobs):
            _exit_wait(self)
            return
        print(
            f"scorekit: {len(jobs)} answer(s) left unscored: the event loop scoring them "
            "ended first (the process is exiting); call flush_scores() (or await "
            "aflush_scores()) before it ends",
            file=sys.stderr,
        )

    async def _resubmit(self, jobs: list[Job]) -> None:
        for job in jobs:
            self.submit(job)

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


_AT_EXIT: set[LiveScoring] = set()
_EXIT_LOCK = threading.Lock()


def _exit_wait(live: LiveScoring) -> None:
    """Have interpreter exit wait (up to `EXIT_WAIT_S`) for ``live``'s jobs on scorekit's
    loop; registered once, after scorekit's loop, so it runs before that loop stops."""
    with _EXIT_LOCK:
        if not _AT_EXIT:  # a set that never empties: registered once
            atexit.register(_wait_at_exit)
        _AT_EXIT.add(live)


def _wait_at_exit() -> None:
    from scorers._internal import run_sync

    deadline = time.monotonic() + EXIT_WAIT_S
    for live in list(_AT_EXIT):

        async def flush(live: LiveScoring = live) -> int:
            with anyio.move_on_after(max(0.0, deadline - time.monotonic())):
                await live.flush()
            service = live._services.get(asyncio.get_running_loop())
            return 0 if service is None else service.pending

        try:
            left = run_sync(flush)
        except Exception:  # scorekit's loop is gone: nothing more can be scored
            continue
        if left:
            print(
                f"scorekit: {left} live answer(s) left unscored at exit (waited "
                f"{EXIT_WAIT_S:g} s); call flush_scores() before the program ends",
                file=sys.stderr,
            )
