"""Task groups whose failures reach users as the one error that caused them.

anyio wraps errors of child tasks in an ``ExceptionGroup``; a user of a scorer wants
the `JudgeAuthError` inside it, not "unhandled errors in a TaskGroup".
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Sequence
from typing import TypeVar

import anyio
from anyio.abc import TaskGroup

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup


def first_error(group: BaseExceptionGroup[BaseException]) -> BaseException | None:
    """The first leaf of ``group`` that is not a cancellation (None if all are)."""
    cancelled = anyio.get_cancelled_exc_class()
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            inner = first_error(exc)
            if inner is not None:
                return inner
        elif not isinstance(exc, cancelled):
            return exc
    return None


@contextlib.asynccontextmanager
async def task_group() -> AsyncIterator[TaskGroup]:
    """``anyio.create_task_group()``, raising the first real error of its tasks instead
    of an exception group (the others were cancelled by it or are alike)."""
    try:
        async with anyio.create_task_group() as tg:
            yield tg
    except BaseExceptionGroup as group:
        error = first_error(group)
        if error is None:
            raise
        raise error from None


T = TypeVar("T")
R = TypeVar("R")


async def map_bounded(
    fn: Callable[[T], Awaitable[R]], items: Sequence[T], concurrency: int
) -> list[R]:
    """``await fn(item)`` for every item, at most ``concurrency`` at once, in input order.

    The first exception stops the map: the other calls are cancelled, and once the task
    group has exited that exception is raised (further failures that happened meanwhile
    are named in its notes, never dropped silently).
    """
    results: list[R | None] = [None] * len(items)
    failures: list[BaseException] = []
    queue = iter(range(len(items)))

    async def worker(scope: anyio.CancelScope) -> None:
        for i in queue:
            try:
                results[i] = await fn(items[i])
            except Exception as exc:
                failures.append(exc)
                scope.cancel()
                return

    async with task_group() as tg:
        for _ in range(max(1, min(concurrency, len(items)))):
            tg.start_soon(worker, tg.cancel_scope)
    _raise_first(failures)
    return results  # type: ignore[return-value]


async def map_stream(
    fn: Callable[[T], Awaitable[None]], items: AsyncIterable[T], concurrency: int
) -> None:
    """``await fn(item)`` for every item of a stream as it arrives, at most
    ``concurrency`` at once (the next item is not taken before a call has room); returns
    when the stream has ended and every call has finished. Failures as `map_bounded`."""
    failures: list[BaseException] = []
    room = anyio.Semaphore(concurrency)
    iterator = aiter(items)

    async def call(item: T, scope: anyio.CancelScope) -> None:
        try:
            await fn(item)
        except Exception as exc:
            failures.append(exc)
            scope.cancel()
        finally:
            room.release()

    async with task_group() as tg:
        while True:
            await room.acquire()
            try:
                item = await anext(iterator)
            except StopAsyncIteration:
                room.release()
                break
            tg.start_soon(call, item, tg.cancel_scope)
    _raise_first(failures)


def _raise_first(failures: list[BaseException]) -> None:
    """The first failure, the later ones named in its notes (never dropped silently)."""
    if failures:
        first = failures[0]
        if hasattr(first, "add_note"):  # Python 3.11+
            for other in failures[1:]:
                first.add_note(f"also failed meanwhile: {type(other).__name__}: {other}")
        raise first
