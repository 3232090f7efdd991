"""The exception hierarchy of scorekit, in one place.

```
ScorekitError
├── ConfigError (also ValueError)      bad options, bad inputs, missing context source
├── JudgeError                         anything that went wrong calling the judge model
│   ├── JudgeAPIError                  the provider refused (auth, bad request) or retries ran out
│   └── JudgeOutputError               the model never returned output that validated
└── DatasetError (also ValueError)     a dataset row is malformed (raised by ``evals``)
```
"""

from __future__ import annotations


class ScorekitError(Exception):
    """Base class of every error scorekit raises on purpose."""


class ConfigError(ScorekitError, ValueError):
    """Options or inputs are invalid; the message says what to change."""


class JudgeError(ScorekitError):
    """A call to the judge model failed."""


class JudgeAPIError(JudgeError):
    """The provider refused the request, or every retry failed.

    Attributes:
        status_code: The HTTP status of the last failure, when there was one.
        retryable: Whether the failure was of a kind that retries could fix.
    """

    def __init__(self, message: str, *, status_code: int | None = None, retryable: bool = False):
        super().__init__(message)
        self.status_code = status_code
        self.retryable = retryable


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
