"""Sync twins of async functions, with the async function's signature as their own.

``run_evals = sync_twin(arun_evals, "...")`` gives ``run_evals`` the full, typed
signature of ``arun_evals`` — for type checkers (through ``ParamSpec``), ``help()``,
``inspect.signature`` and IDEs — and checks each call's arguments against it in the
caller's thread, so a misspelt keyword is a `TypeError` at the call, naming the keyword
meant. The work runs on scorekit's loop thread (`run_sync`): from plain scripts and
inside a running event loop alike.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

from scorers._internal import run_sync

P = ParamSpec("P")
T = TypeVar("T")


def sync_twin(
    async_fn: Callable[P, Coroutine[Any, Any, T]], summary: str | None = None
) -> Callable[P, T]:
    """The synchronous twin of ``async_fn``, named without its leading ``a``.

    Args:
        async_fn: The async function; its signature, annotations and docstring are the
            twin's (``summary`` is put before the docstring).
        summary: The twin's first docstring paragraph (default: "Synchronous `afn`
            (also works inside a running event loop, e.g. Jupyter).").
    """
    if summary is None:
        summary = (
            f"Synchronous `{async_fn.__name__}` (also works inside a running event loop, "
            "e.g. Jupyter)."
        )
    signature = inspect.signature(async_fn)
    name = async_fn.__name__.removeprefix("a")

    def twin(*args: P.args, **kwargs: P.kwargs) -> T:
        _check_call(signature, name, args, kwargs)
        return run_sync(async_fn, *args, **kwargs)

    twin.__name__ = twin.__qualname__ = name
    twin.__module__ = async_fn.__module__
    twin.__doc__ = f"{summary}\n\n{inspect.getdoc(async_fn) or ''}".rstrip()
    twin.__annotations__ = dict(async_fn.__annotations__)
    twin.__signature__ = signature  # type: ignore[attr-defined]
    return twin


def _check_call(
    signature: inspect.Signature, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    try:
        signature.bind(*args, **kwargs)
    except TypeError as exc:
        known = [p for p in signature.parameters if p not in ("self", "args", "kwargs")]
        unknown = [k for k in kwargs if k not in signature.parameters]
        hints = [
            f"{k!r} (did you mean {close[0]!r}?)"
            for k in unknown
            if (close := difflib.get_close_matches(k, known, n=1, cutoff=0.6))
        ]
        hint = f"; unknown keyword {', '.join(hints)}" if hints else ""
        raise TypeError(f"{name}(): {exc}{hint}") from None
