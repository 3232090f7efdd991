"""Run async scorekit code from synchronous callers, including inside a running loop.

One daemon thread (ours, never joined at exit) runs an asyncio event loop with a
blocking portal; every sync call is handed to it. That works the same from a plain script and from Jupyter (whose own
loop is busy in the calling thread), keeps litellm's per-loop HTTP clients alive
between calls, and needs no nest_asyncio.
"""

from __future__ import annotations

import atexit
import contextlib
import queue
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import CancelledError
from typing import Any, TypeVar

import anyio
from anyio.from_thread import BlockingPortal

from ._caller import caller_location, calling_from
from ._model._executor import install as install_inline_setup

T = TypeVar("T")

_lock = threading.Lock()
_portal: BlockingPortal | None = None
_thread: threading.Thread | None = None

SHUTDOWN_WAIT_S = 2.0
"""How long exit waits for the loop thread; one still busy (CPU work of a run that
Ctrl-C abandoned) is left to die with the process: it is a daemon thread."""


def _start_portal() -> BlockingPortal:
    """The loop thread and its portal. The thread is ours and a daemon (anyio's
    `start_blocking_portal` runs the loop in a thread pool, which the interpreter joins at
    exit: a run busy with CPU work would hold the process after Ctrl-C)."""
    global _portal, _thread
    ready: queue.Queue[BlockingPortal | BaseException] = queue.Queue()

    async def serve() -> None:
        try:
            async with BlockingPortal() as portal:
                install_inline_setup()
                ready.put(portal)
                await portal.sleep_until_stopped()
        except BaseException as exc:
            ready.put(exc)
            raise

    thread = threading.Thread(target=anyio.run, args=(serve,), daemon=True, name="scorekit-loop")
    thread.start()
    found = ready.get()
    if isinstance(found, BaseException):
        raise found
    _thread, _portal = thread, found
    atexit.register(_shutdown)
    return found


def _shutdown() -> None:
    """Stop litellm's logging task and the loop cleanly at interpreter exit, unless the
    loop does not answer within `SHUTDOWN_WAIT_S` (then the process exits without it)."""
    global _portal
    portal, _portal = _portal, None
    if portal is None:
        return

    def stop() -> None:
        from ._model._litellm import stop_litellm_logging

        with contextlib.suppress(Exception):
            portal.call(stop_litellm_logging)
        with contextlib.suppress(Exception):
            portal.call(portal.stop, True)  # cancel what is left

    stopper = threading.Thread(target=stop, daemon=True, name="scorekit-exit")
    stopper.start()
    stopper.join(SHUTDOWN_WAIT_S)
    if not stopper.is_alive() and _thread is not None:
        _thread.join(SHUTDOWN_WAIT_S)


def run_sync(fn: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
    """Run ``fn(*args, **kwargs)`` on scorekit's event-loop thread and wait for the result.

    Ctrl-C in the caller cancels the running task and re-raises within about a second,
    even when the task is busy with CPU work the loop cannot interrupt (that work is then
    abandoned; whatever it had written stays written).

    Raises:
        RuntimeError: When called from the event-loop thread itself (a sync API used
            from inside an async scorekit callback); use the ``a``-prefixed API there.
    """
    if threading.current_thread() is _thread:
        raise RuntimeError(
            "a synchronous scorekit API was called from scorekit's own event loop "
            "(inside an async callback); use the async form, e.g. `await scorer.arun(...)`"
        )
    with _lock:
        portal = _portal or _start_portal()
    caller = caller_location()

    async def call() -> T:
        with calling_from(caller):
            return await fn(*args, **kwargs)

    future = portal.start_task_soon(call)
    try:
        return future.result()
    except KeyboardInterrupt:
        future.cancel()
        try:
            future.result(timeout=1)
        except (CancelledError, Exception):
            pass
        raise


def run_soon(fn: Callable[..., Awaitable[Any]], *args: Any) -> bool:
    """Start ``fn(*args)`` on scorekit's event-loop thread without waiting for it (work
    that must outlive the caller's own event loop). Returns False, starting nothing, when
    called from that thread itself or after the interpreter began to exit."""
    if threading.current_thread() is _thread:
        return False
    with _lock:
        if _portal is None and _thread is not None:  # shut down at exit
            return False
        portal = _portal or _start_portal()
    portal.start_task_soon(fn, *args)
    return True


def on_scorekit_loop() -> bool:
    """Whether the caller runs on scorekit's own event-loop thread."""
    return threading.current_thread() is _thread
