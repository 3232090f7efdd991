"""The exception hierarchy of scorekit, in one place.

```
ScorekitError
├── ConfigError (also ValueError)      bad options, bad inputs, missing context source
│   └── UnreadableOutputError          a result scorekit could not read (fails that run only)
├── JudgeError                         anything that went wrong calling the judge model
│   ├── JudgeAPIError                  the provider refused (bad request) or retries ran out
│   │   └── JudgeSetupError            the setup is broken: every call would fail; stops a run
│   │       ├── JudgeAuthError         no API key, a rejected key (401) or no permission (403)
│   │       └── BudgetExceededError    a run's max_cost would be passed by the next call
│   └── JudgeOutputError               the model never returned output that validated
└── DatasetError (also ValueError)     a dataset row is malformed (raised by ``evals``)
```
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._model._completion import TransportError


class ScorekitError(Exception):
    """Base class of every error scorekit raises on purpose."""


class ConfigError(ScorekitError, ValueError):
    """Options or inputs are invalid; the message says what to change."""


class UnreadableOutputError(ConfigError):
    """scorekit could not read a pipeline's result: no retrieved context (or answer) in a
    shape it knows, or an object that failed while being read. The message names what it
    saw and how to hand the context over. It fails that run (or item) only: a value that
    was not read is never scored 0."""


class JudgeError(ScorekitError):
    """A call to the judge model failed."""


class JudgeAPIError(JudgeError):
    """The provider refused the request, or every retry failed.

    Attributes:
        status_code: The HTTP status of the last failure, when there was one.
        retryable: Whether the failure was of a kind that retries could fix.
        kind: What went wrong: ``"auth"``, ``"permission"``, ``"not_found"``,
            ``"bad_request"``, ``"context_window"``, ``"rate_limit"``, ``"timeout"``,
            ``"connection"``, ``"server"`` or ``"unknown"``.
        model: The judge's model string.
        step: The pipeline step that made the call.
        attempts: Requests sent before giving up.
    """

    def __init__(
        self,
        message: str,
        *,
        status_code: int | None = None,
        retryable: bool = False,
        kind: str = "unknown",
        model: str | None = None,
        step: str | None = None,
        attempts: int = 0,
    ):
        super().__init__(message)
        self.status_code = status_code
        self.retryable = retryable
        self.kind = kind
        self.model = model
        self.step = step
        self.attempts = attempts


class JudgeSetupError(JudgeAPIError):
    """The judge cannot work as configured (unknown model, bad key, no permission): every
    further call would fail the same way, so `evals.run_evals` stops at the first one.
    The message says what to set."""


class JudgeAuthError(JudgeSetupError):
    """No API key was found, or the provider rejected it (401) or refused access (403)."""


class BudgetExceededError(JudgeSetupError):
    """A run's ``max_cost`` would be passed by the next model call: no new call starts,
    so the run stops (finished items stay in its results file; resume with a new cap).

    Attributes:
        spent: USD spent by this run's finished calls.
        max_cost: The cap.
    """

    def __init__(self, message: str, *, spent: float, max_cost: float, model: str | None = None):
        super().__init__(message, kind="budget", model=model)
        self.spent = spent
        self.max_cost = max_cost


class JudgeOutputError(JudgeError):
    """The judge's output did not validate, even after the repair round.

    Attributes:
        raw_text: The last raw text the model returned.
        validation_error: Why that text was rejected.
    """

    def __init__(self, message: str, *, raw_text: str, validation_error: str):
        super().__init__(message)
        self.raw_text = raw_text
        self.validation_error = validation_error


class DatasetError(ScorekitError, ValueError):
    """A dataset could not be read; the message names the row and field."""


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
