"""Validation of numeric options: one message shape for every option of every API.

Each check raises `ConfigError` naming the option, the allowed range and the value that
was given, so ``Judge(timeout="5")``, ``run_evals(concurrency=2.5)`` and
``--threshold x=nan`` fail the same clear way instead of with a ``TypeError`` deep inside
or, worse, silently.
"""

from __future__ import annotations

import math
from typing import Any

from ._errors import ConfigError

MAX_SCALE = 1e9
"""The largest ``scale``: sums of squared scores over millions of items stay finite."""


def _number(name: str, value: Any, allowed: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{name} must be {allowed}; got {value!r} ({type(value).__name__})")
    number = float(value)
    if not math.isfinite(number):
        raise ConfigError(f"{name} must be {allowed}; got {value!r}")
    return number


def finite(name: str, value: Any) -> float:
    """``value`` as a float; it must be a finite number."""
    return _number(name, value, "a finite number")


def positive(name: str, value: Any, *, maximum: float | None = None) -> float:
    """``value`` as a float; it must be finite, > 0 and at most ``maximum``."""
    allowed = "a finite number > 0" + (f" and <= {maximum:g}" if maximum is not None else "")
    number = _number(name, value, allowed)
    if number <= 0 or (maximum is not None and number > maximum):
        raise ConfigError(f"{name} must be {allowed}; got {value!r}")
    return number


def non_negative(name: str, value: Any) -> float:
    """``value`` as a float; it must be finite and >= 0."""
    number = _number(name, value, "a finite number >= 0")
    if number < 0:
        raise ConfigError(f"{name} must be a finite number >= 0; got {value!r}")
    return number


def integer(name: str, value: Any, *, minimum: int = 1) -> int:
    """``value`` as an int; it must be a whole number >= ``minimum`` (``2.0`` is accepted,
    ``2.5`` and ``"2"`` are not)."""
    allowed = f"an integer >= {minimum}"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{name} must be {allowed}; got {value!r} ({type(value).__name__})")
    if isinstance(value, float) and not value.is_integer():
        raise ConfigError(f"{name} must be {allowed}; got {value!r}")
    if value < minimum:
        raise ConfigError(f"{name} must be {allowed}; got {value!r}")
    return int(value)


def optional_integer(name: str, value: Any, *, minimum: int = 1) -> int | None:
    """`integer`, or None for None."""
    return None if value is None else integer(name, value, minimum=minimum)


def optional_positive(name: str, value: Any) -> float | None:
    """`positive`, or None for None."""
    return None if value is None else positive(name, value)


def scale(value: Any) -> float:
    """A scorer's ``scale``: finite, > 0 and at most `MAX_SCALE`."""
    return positive("scale", value, maximum=MAX_SCALE)


def clip_scaled(number: float, scale: float) -> float:
    """A score in [0, 1] times ``scale``, clipped to ``[0, scale]`` (NaN stays NaN)."""
    value = number * scale
    return 0.0 if value < 0.0 else scale if value > scale else value
