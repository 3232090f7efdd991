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
