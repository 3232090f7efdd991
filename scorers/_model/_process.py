"""Model calls in helper processes: spread litellm's client CPU over several cores.

litellm spends a few milliseconds of CPU on every call (building, sending, parsing and
pricing it). At high concurrency that work, serialised on one event loop, becomes the
bottleneck. ``Judge(client_processes=N)`` hands each single HTTP attempt to one of N
helper processes (``python -m scorers._helper``), each running litellm on its own
event loop; retries, the limiter, the cache and validation stay in the calling process.

Requests and replies are JSON lines over the helpers' stdin/stdout, so nothing needs
pickling and the caller's ``__main__`` is never re-imported.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import sys
import threading
import time
from typing import IO, Any

import anyio

from .._errors import JudgeError
from ._completion import Completion, ModelRequest, TransportError
from ._executor import install as install_inline_setup
from ._litellm import missing_key
from ._setup import untimed


def _helper_lost(message: str) -> TransportError:
    """A retryable error: the call never got an answer and may go to another helper."""
    return TransportError("connection", message)


class _Worker:
    """One helper process and the futures of its requests in flight."""

    def __init__(self) -> None:
        env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "scorers._helper"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin: IO[bytes] = self.proc.stdin
        self.pending: dict[int, tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]]] = {}
        self.lock = threading.Lock()
        self.ready = threading.Event()
        self.exited = False
        self.reader = threading.Thread(
            target=self._read, args=(self.proc.stdout,), name="scorekit-transport", daemon=True
        )
        self.reader.start()

    def _read(self, stdout: IO[bytes]) -> None:
        for line in stdout:
            reply = json.loads(line)
            if reply.get("ready"):
                self.ready.set()
                continue
            with self.lock:
                entry = self.pending.pop(reply["id"], None)
            if entry is not None:
                loop, future = entry
                loop.call_soon_threadsafe(_settle, future, reply)
        self.exited = True
        self.ready.set()  # wake anyone waiting for a helper that died while starting
        error = _helper_lost("a scorekit model-call helper process exited mid-call")
        with self.lock:
            orphans, self.pending = list(self.pending.values()), {}
        for loop, future in orphans:
            loop.call_soon_threadsafe(_fail, future, error)

    @property
    def usable(self) -> bool:
        """Started, and has not exited."""
        return self.ready.is_set() and not self.exited

    def send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message) + "\n").encode()
        with self.lock:
            self.stdin.write(data)
            self.stdin.flush()

    def close(self) -> None:
        try:
            self.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def _settle(future: asyncio.Future[Any], reply: dict[str, Any]) -> None:
    if not future.done():
        future.set_result(reply)


def _fail(future: asyncio.Future[Any], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)


MAX_RESTARTS = 3  # per helper, over the transport's life


class ProcessTransport:
    """A transport that runs each litellm call in one of ``processes`` helper processes.

    Helpers start on first use and stop with `close` (or at interpreter exit). A helper
    that exits is replaced; the calls it had in flight fail with a retryable
    retryable `TransportError`, so the judge's retries send them again.

    Attributes:
        processes: Number of helpers.
        restarts: Helpers replaced after exiting so far.
    """

    def __init__(self, processes: int):
        self.processes = processes
        self.restarts = 0
        self._workers: list[_Worker] = []
        self._lock = threading.Lock()
        self._next_id = 0

    @property
    def started(self) -> bool:
        """Whether the helpers are up."""
        return bool(self._workers)

    def start(self) -> None:
        """Start the helpers and wait until each has imported litellm (blocking; a few
        seconds). Called before the first call, outside its timeout.

        Raises:
            JudgeError: If a helper does not come up.
        """
        with self._lock:
            if self._workers:
                return
            workers = [_Worker() for _ in range(self.processes)]
            for worker in workers:
                if not worker.ready.wait(timeout=120) or worker.proc.poll() is not None:
                    for other in workers:
                        other.close()
                    raise JudgeError("a scorekit model-call helper process failed to start")
            self._workers = workers

    def _pick(self) -> tuple[_Worker | None, int]:
        """The least busy usable helper (None while none is) and a fresh request id.

        A helper that exited is replaced here; the replacement takes requests once it
        has started.

        Raises:
            JudgeError: If helpers keep exiting (more than ``MAX_RESTARTS`` per helper).
        """
        if not self._workers:
            self.start()
        with self._lock:
            for index, worker in enumerate(self._workers):
                if worker.exited:
                    if self.restarts >= MAX_RESTARTS * self.processes:
                        raise JudgeError(
                            "scorekit's model-call helper processes keep exiting "
                            f"({self.restarts} replaced already); see their messages on "
                            "stderr, or use client_processes=0"
                        )
                    worker.close()
                    self._workers[index] = _Worker()
                    self.restarts += 1
            self._next_id += 1
            usable = [w for w in self._workers if w.usable]
            if not usable:
                return None, self._next_id
            return min(usable, key=lambda w: len(w.pending)), self._next_id

    def _wait_until_usable(self, timeout: float = 120.0) -> None:
        """Block until some helper can take requests (after all of them were replaced)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                workers = list(self._workers)
            if any(w.usable or w.exited for w in workers):
                return
            time.sleep(0.05)
        raise JudgeError("no scorekit model-call helper process came up within 120 s")

    async def prepare(self, request: ModelRequest) -> None:
        """Check for a missing key, then start the helpers (seconds, once; the judge
        calls this before a request's first attempt, outside its timeout).

        Raises:
            TransportError: ``"auth"``, when the provider's key variable is not set.
        """
        missing = missing_key(request)
        if missing:
            raise TransportError("auth", "no API key", missing_env=missing)
        if not self.started:
            async with untimed():
                await anyio.to_thread.run_sync(self.start)

    async def complete(self, request: ModelRequest) -> Completion:
        """Send ``request`` once, in a helper.

        Raises:
            TransportError: The call failed in the helper (classified there), or the
                helper was lost (retryable).
        """
        worker, request_id = self._pick()
        while worker is None:
            await anyio.to_thread.run_sync(self._wait_until_usable)
            worker, request_id = self._pick()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        with worker.lock:
            worker.pending[request_id] = (loop, future)
        try:
            worker.send({"id": request_id, "request": _wire(request)})
        except OSError as exc:  # the helper died since it was picked
            with worker.lock:
                worker.pending.pop(request_id, None)
            raise _helper_lost(f"a scorekit model-call helper's pipe broke: {exc}") from exc
        try:
            reply = await future
        except BaseException:  # cancelled (e.g. our timeout): stop the call in the helper
            with worker.lock:
                in_flight = worker.pending.pop(request_id, None) is not None
            if in_flight:
                try:
                    worker.send({"cancel": request_id})
                except OSError:
                    pass
            raise
        if not reply["ok"]:
            raise TransportError(
                reply["kind"],
                reply["message"],
                status=reply.get("status"),
                retry_after=reply.get("retry_after"),
                missing_env=tuple(reply.get("missing_env") or ()),
            )
        return Completion.model_validate(reply["completion"])

    def close(self) -> None:
        """Stop the helper processes."""
        with self._lock:
            workers, self._workers = self._workers, []
        for worker in workers:
            worker.close()


# --- the helper process -------------------------------------------------------------------


def _wire(request: ModelRequest) -> dict[str, Any]:
    """``request`` as JSON data for a helper (the API key included: it is a pipe)."""
    return {**request.model_dump(mode="json"), "api_key": request.api_key}


async def _serve() -> None:
    from ._litellm import (
        completion_from_response,
        import_litellm,
        litellm_arguments,
        map_litellm_error,
    )

    litellm = import_litellm()
    gc.freeze()  # litellm's import: ~400k objects no collection needs to scan again
    install_inline_setup()
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**26)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    out = sys.stdout.buffer
    tasks: dict[int, asyncio.Task[None]] = {}

    def write(reply: dict[str, Any]) -> None:
        out.write((json.dumps(reply) + "\n").encode())
        out.flush()

    write({"ready": True})

    async def call(request_id: int, wire: dict[str, Any]) -> None:
        request = ModelRequest.model_validate(wire)
        try:
            response = await litellm.acompletion(**litellm_arguments(request))
            completion = completion_from_response(response).model_dump(mode="json")
            write({"id": request_id, "ok": True, "completion": completion})
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            error = map_litellm_error(exc, request)
            write(
                {
                    "id": request_id,
                    "ok": False,
                    "kind": error.kind,
                    "message": error.message[:2000],
                    "status": error.status,
                    "retry_after": error.retry_after,
                    "missing_env": list(error.missing_env),
                }
            )
        finally:
            tasks.pop(request_id, None)

    while line := await reader.readline():
        message = json.loads(line)
        if "cancel" in message:
            task = tasks.pop(message["cancel"], None)
            if task is not None:
                task.cancel()
            continue
        tasks[message["id"]] = loop.create_task(call(message["id"], message["request"]))
    for task in list(tasks.values()):
        task.cancel()


def main() -> None:
    """Entry point of a helper process: serve until stdin closes."""
    asyncio.run(_serve())
