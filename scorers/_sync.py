"""Run async scorekit code from synchronous callers, including inside a running loop.

One daemon thread runs an asyncio event loop with a blocking portal; every sync call
is handed to it. That works the same from a plain script and from Jupyter (whose own
loop is busy in the calling thread), keeps litellm's per-loop HTTP clients alive
between calls, and needs no nest_asyncio.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import CancelledError
from typing import Any, TypeVar

from anyio.from_thread import BlockingPortal, start_blocking_portal

from ._model._executor import install as install_inline_setup

T = TypeVar("T")

_lock = threading.Lock()
_portal: BlockingPortal | None = None
_portal_cm: contextlib.AbstractContextManager[BlockingPortal] | None = None
_thread: threading.Thread | None = None


def _start_portal() -> BlockingPortal:
    global _portal, _portal_cm, _thread
    _portal_cm = start_blocking_portal()
    portal = _portal_cm.__enter__()
    portal.call(install_inline_setup)
    _thread = portal.call(threading.current_thread)
    _portal = portal
    atexit.register(_shutdown)
    return portal


def _shutdown() -> None:
    """Stop litellm's logging task and the loop cleanly at interpreter exit."""
    global _portal, _portal_cm
    portal, _portal = _portal, None
    manager, _portal_cm = _portal_cm, None
    if portal is None or manager is None:
        return
    from ._model._litellm import stop_litellm_logging

    with contextlib.suppress(Exception):
        portal.call(stop_litellm_logging)
    with contextlib.suppress(Exception):
        manager.__exit__(None, None, None)


def run_sync(fn: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
    """Run ``fn(*args, **kwargs)`` on scorekit's event-loop thread and wait for the result.

    Ctrl-C in the caller cancels the running task before re-raising.

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
    future = portal.start_task_soon(functools.partial(fn, *args, **kwargs))
    try:
        return future.result()
    except KeyboardInterrupt:
        future.cancel()
        try:
            future.result(timeout=5)
        except (CancelledError, Exception):
            pass
        raise
