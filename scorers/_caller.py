"""Warnings that point at the user's line, even when raised on scorekit's loop thread.

A warning raised inside a run would otherwise name a line of anyio or asyncio: the sync
API runs the work on its own thread, where no frame of the caller exists. `run_sync`
records the caller's line before handing the work over (`calling_from`), and
`warn_user` names the nearest frame outside scorekit and its machinery — on this
thread's stack when there is one (async callers), else the recorded one.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import functools
import os
import sys
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio

Location = tuple[str, int, dict[str, Any]]
"""A frame's file name, line number and module globals."""

_CALLER: contextvars.ContextVar[Location | None] = contextvars.ContextVar(
    "scorekit_caller", default=None
)
_SCOREKIT = Path(__file__).resolve().parent.parent
_INTERNAL = tuple(
    str(folder) + os.sep
    for folder in (
        _SCOREKIT / "scorers",
        _SCOREKIT / "evals",
        Path(anyio.__file__).resolve().parent,
        Path(asyncio.__file__).resolve().parent,
        Path(concurrent.futures.__file__).resolve().parent.parent,
    )
)
_INTERNAL_FILES = {
    str(Path(module.__file__).resolve())
    for module in (threading, contextlib)
    if module.__file__ is not None
}


@functools.lru_cache(maxsize=1024)
def _internal(filename: str) -> bool:
    if filename.startswith("<"):  # <frozen importlib._bootstrap>, <string> is a user's
        return filename != "<string>" and filename != "<stdin>"
    path = os.path.realpath(filename)
    return path.startswith(_INTERNAL) or path in _INTERNAL_FILES


def caller_location() -> Location | None:
    """The nearest frame on this thread's stack outside scorekit, anyio and asyncio."""
    frame = sys._getframe(1)
    while frame is not None:
        if not _internal(frame.f_code.co_filename):
            return frame.f_code.co_filename, frame.f_lineno, frame.f_globals
        frame = frame.f_back  # type: ignore[assignment]
    return None


@contextlib.contextmanager
def calling_from(location: Location | None) -> Iterator[None]:
    """Within the block, `warn_user` names ``location`` when the stack has no user frame."""
    token = _CALLER.set(location)
    try:
        yield
    finally:
        _CALLER.reset(token)


def warn_user(message: str, category: type[Warning] = UserWarning) -> None:
    """Warn with the user's file and line as the warning's source (the filters and
    ``-W`` options apply to it as to any warning)."""
    location = caller_location() or _CALLER.get()
    if location is None:
        warnings.warn(message, category, stacklevel=2)
        return
    filename, lineno, module_globals = location
    warnings.warn_explicit(
        message,
        category,
        filename,
        lineno,
        module=module_globals.get("__name__", "__main__"),
        registry=module_globals.setdefault("__warningregistry__", {}),
    )
