"""`ScriptedTransport`: a transport answered by a function, for users' unit tests."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ._completion import Completion, ModelRequest, TransportError


class ScriptedTransport:
    """Answers every request with ``fn(request)``, in process, without HTTP.

    ``fn`` (sync or async) gets the `ModelRequest` and returns the answer's text, a
    `Completion`, or an exception (returned or raised). A `TransportError` goes to the
    judge as it is, so a test can script a 429 with ``TransportError("rate_limit", ...,
    retry_after=0)`` or a bad key with ``TransportError("auth", ...)``; any other
    exception counts as a non-retryable error.

    Example:
        ```python
        transport = ScriptedTransport(lambda request: '{"claims": ["Paris is in France."]}')
        judge = Judge("scripted/judge", transport=transport, cache=False)
        ```

    Args:
        fn: ``fn(request) -> str | Completion | BaseException``.

    Attributes:
        requests: Every request received, in order.
    """

    def __init__(self, fn: Callable[[ModelRequest], Any]):
        if not callable(fn):
            raise TypeError("ScriptedTransport(fn) needs a function of the request")
        self.fn = fn
        self.requests: list[ModelRequest] = []

    async def complete(self, request: ModelRequest) -> Completion:
        """Answer ``request`` with ``fn``."""
        self.requests.append(request)
        answer = self.fn(request)
        if inspect.isawaitable(answer):
            answer = await answer
        if isinstance(answer, BaseException):
            raise answer
        if isinstance(answer, Completion):
            return answer
        if isinstance(answer, str):
            return Completion(content=answer)
        raise TransportError(
            "unknown",
            f"ScriptedTransport's function returned {type(answer).__name__}; return a str, "
            "a Completion or an exception",
        )

    def __repr__(self) -> str:
        return f"ScriptedTransport({getattr(self.fn, '__name__', self.fn)!r})"
