"""litellm's exceptions as `TransportError`s: the one place that knows them.

Classified by exception class, most specific first, then by what the exception chain
shows: a server that was never reached (connection refused, unknown host — litellm may
call that an HTTP 500), a client that failed before sending (missing credentials), the
``Retry-After`` the provider asked for.
"""

from __future__ import annotations

import contextlib
import email.utils
import socket
import time
from types import ModuleType

from ._completion import ErrorKind, ModelRequest, TransportError, kind_for_status
from ._redact import public_url


def _retry_after(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or getattr(exc, "litellm_response_headers", None)
    if not headers:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        with contextlib.suppress(ValueError):
            return float(millis) / 1000
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        with contextlib.suppress(TypeError, ValueError):
            parsed = email.utils.parsedate_to_datetime(value)
            return max(0.0, parsed.timestamp() - time.time())
    return None


def _client_side_setup_error(exc: BaseException) -> bool:
    """Whether the OpenAI SDK failed before sending (missing credentials, bad client
    options): litellm reports that as a 500, but no server was ever asked."""
    try:
        import openai
    except ImportError:  # pragma: no cover - litellm depends on openai
        return False
    cause = exc.__cause__ or exc.__context__
    for _ in range(5):  # litellm wraps the SDK's error in one or two of its own
        if cause is None:
            return False
        if isinstance(cause, openai.OpenAIError) and not isinstance(cause, openai.APIError):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def _missing_env(model: str, litellm: ModuleType) -> tuple[str, ...]:
    try:
        found = litellm.validate_environment(model)
    except Exception:  # an unknown provider: nothing to suggest
        return ()
    names = found.get("missing_keys") or []
    return tuple(n for n in names if "KEY" in n or "TOKEN" in n)


def litellm_error(exc: BaseException, request: ModelRequest, litellm: ModuleType) -> TransportError:
    """The `TransportError` for an exception raised by ``litellm.acompletion``.

    Classified by exception class, most specific first. litellm's "Missing credentials"
    (an OpenAI client error it wraps as a 500) is an authentication error; without an
    explicit key, the environment variables the provider wants are named.
    """
    status = getattr(exc, "status_code", None)
    status = status if isinstance(status, int) else None
    message = str(getattr(exc, "message", None) or exc)
    table: list[tuple[type[BaseException], ErrorKind]] = [
        (litellm.ContextWindowExceededError, "context_window"),
        (litellm.AuthenticationError, "auth"),
        (litellm.PermissionDeniedError, "permission"),
        (litellm.NotFoundError, "not_found"),
        (litellm.RateLimitError, "rate_limit"),
        (litellm.Timeout, "timeout"),
        (litellm.APIConnectionError, "connection"),
        (litellm.BadRequestError, "bad_request"),
        (litellm.UnprocessableEntityError, "bad_request"),
        (litellm.InternalServerError, "server"),
        (litellm.ServiceUnavailableError, "server"),
        (litellm.BadGatewayError, "server"),
        (litellm.APIError, "server"),
        (TimeoutError, "timeout"),
        (ConnectionError, "connection"),
    ]
    kind: ErrorKind = "unknown"
    for cls, mapped in table:
        if isinstance(exc, cls):
            kind = mapped
            break
    unreachable = _unreachable(exc)
    if unreachable is not None:  # litellm may wrap it as an "HTTP 500": no server answered
        where = public_url(request.api_base) or f"the provider of {request.model}"
        kind, status, message = "connection", None, f"{unreachable} at {where}"
    if kind == "server" and _client_side_setup_error(exc):
        kind, status = "auth", None
    elif kind in ("server", "unknown") and status is not None and status < 500:
        kind = kind_for_status(status)  # a generic class whose status says more
    if kind == "bad_request" and "LLM Provider NOT provided" in message:
        # raised before any request: no model string litellm can route, a setup error
        kind, status = "not_found", None
        message = (
            "litellm cannot route this model string; name the provider as a prefix, e.g. "
            "openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest, ollama/llama3.1, or "
            "openai/<name> with api_base for an OpenAI-compatible server"
        )
    missing = (
        _missing_env(request.model, litellm) if kind == "auth" and request.api_key is None else ()
    )
    return TransportError(
        kind, message, status=status, retry_after=_retry_after(exc), missing_env=missing
    )


def _unreachable(exc: BaseException) -> str | None:
    """``"connection refused"`` (or the name lookup failure) when ``exc`` was caused by
    not reaching the server at all; None otherwise."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError):
            return "connection refused"
        if isinstance(current, socket.gaierror):
            return f"the host name could not be resolved ({current.strerror or current})"
        current = current.__cause__ or current.__context__
    return None
