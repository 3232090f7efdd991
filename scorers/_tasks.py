"""Task groups whose failures reach users as the one error that caused them.

anyio wraps errors of child tasks in an ``ExceptionGroup``; a user of a scorer wants
the `JudgeAuthError` inside it, not "unhandled errors in a TaskGroup".
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator

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
