"""A transport's failure, classified once (`TransportError`), as the scorekit error a
user reads: the one place where error kinds become `JudgeAPIError` subclasses and
messages that say what to change."""

from __future__ import annotations

from .._errors import JudgeAPIError, JudgeAuthError, JudgeSetupError
from ._completion import TransportError


def _unreachable_message(model: str, error: TransportError, step: str, sent: str) -> str:
    return (
        f"{model}: {error.message} ({step!r}, {sent}); no request of this judge has reached "
        "a server. Check api_base (host and port) and that the server is running."
    )


def api_error(
    error: TransportError,
    *,
    model: str,
    step: str,
    attempts: int,
    timeout: float,
    api_key_given: bool,
    never_reached: bool = False,
) -> JudgeAPIError:
    """The scorekit error for a request that failed for good: the one place where a
    transport's error kinds become `JudgeAPIError` subclasses and messages.

    Messages name the model, the step, the HTTP status and what to change. A server
    that cannot be reached (connection refused, unknown host) by a judge that has never
    had an answer is a setup error: every other call would fail the same way.
    """
    status = f"HTTP {error.status}" if error.status is not None else "no HTTP status"
    sent = f"{attempts} attempt{'s' if attempts != 1 else ''}" if attempts else "no request sent"
    where = f"step {step!r}, {status}, {sent}"
    kind = error.kind
    cls: type[JudgeAPIError] = JudgeAPIError
    if kind == "auth" and error.missing_env:
        cls = JudgeAuthError
        message = (
            f"{model}: no API key found ({where}). Set {' or '.join(error.missing_env)} in the "
            "environment, or pass Judge(api_key=...)."
        )
    elif kind in ("auth", "permission"):
        cls = JudgeAuthError
        what = "rejected the API key" if kind == "auth" else "refused access with this API key"
        fix = (
            "Check Judge(api_key=...)."
            if api_key_given
            else "Check the API key in the provider's environment variable (e.g. "
            "OPENAI_API_KEY), or pass Judge(api_key=...)."
        )
        message = f"{model} {what} ({where}): {error.message}. {fix}"
    elif kind == "not_found":
        cls = JudgeSetupError
        message = (
            f"{model}: the provider does not know this model or endpoint ({where}): "
            f"{error.message}. Check the model string and api_base."
        )
    elif kind == "connection" and never_reached and error.status is None:
        cls, message = JudgeSetupError, _unreachable_message(model, error, step, sent)
    elif kind == "timeout":
        message = (
            f"{model} timed out after {timeout:g} s on each of {attempts} attempt"
            f"{'s' if attempts != 1 else ''} (step {step!r}). Raise Judge(timeout=...) or "
            "lower the concurrency."
        )
    elif kind == "context_window":
        message = (
            f"{model}: the prompt is longer than the model's context window ({where}): "
            f"{error.message}. Use a model with a larger window or shorter context."
        )
    elif kind == "bad_request":
        message = (
            f"{model} refused the request as invalid ({where}): {error.message}. Check the "
            "request options (litellm_kwargs, structured_output)."
        )
    elif error.retryable:
        message = f"{model} failed after {attempts} attempts ({where}): {kind}: {error.message}"
    else:
        message = f"{model} call failed ({where}): {error.message}"
    return cls(
        message,
        status_code=error.status,
        retryable=error.retryable,
        kind=kind,
        model=model,
        step=step,
        attempts=attempts,
    )
