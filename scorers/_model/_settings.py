"""`Judge`'s settings, declared once: each one's default, meaning (the class docstring's
``Args:``) and check (`Judge` raises `ConfigError` naming it)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._checks import (
    integer,
    non_negative,
    optional_integer,
    optional_positive,
    positive,
)
from .._declared import args_doc, bounded, checked, declared, names, optional
from .._errors import ConfigError
from ._cache import JudgeCache
from ._completion import Transport
from ._structured import STRUCTURED_OUTPUT_MODES


def _structured(label: str, value: Any) -> str:
    if value not in STRUCTURED_OUTPUT_MODES:
        raise ConfigError("structured_output must be 'json_schema', 'json_object' or 'none'")
    return str(value)


@dataclass(frozen=True)
class JudgeSettings:
    """`Judge`'s keyword settings: the one place they are declared (`Judge`'s signature
    is held to these fields by a test; its docstring is made from them)."""

    api_base: str | None = declared(
        None, "Base URL of an OpenAI-compatible server (local models, proxies, tests)."
    )
    api_key: str | None = declared(
        None,
        "API key; default is litellm's environment lookup. Never cached or logged, and "
        "hidden from every error text.",
    )
    temperature: float = declared(
        0.0, "Sampling temperature (0 for reproducible verdicts).", check=non_negative
    )
    top_p: float | None = declared(
        None, "Nucleus sampling, if set.", check=optional(positive, maximum=1.0)
    )
    max_tokens: int | None = declared(None, "Completion token cap, if set.", check=optional_integer)
    seed: int | None = declared(
        None, "Provider seed, if set.", check=optional(optional_integer, minimum=-(2**63))
    )
    timeout: float = declared(60.0, "Seconds allowed for one HTTP attempt.", check=positive)
    max_retries: int = declared(
        4,
        "Retries after the first attempt for rate limits, timeouts, connection errors and "
        "5xx. Auth, permission, unknown-model and bad-request errors are never retried.",
        check=bounded(integer, minimum=0),
    )
    retry_backoff: float = declared(
        0.5,
        "Base of the exponential backoff in seconds (doubled per retry, with jitter).",
        check=non_negative,
    )
    max_retry_wait: float = declared(
        60.0, "Cap in seconds on any single wait, ``Retry-After`` included.", check=non_negative
    )
    max_concurrency: int | None = declared(
        None,
        "Requests of this judge in flight at once, everywhere it is used (scorer runs, "
        "``run_many``, ``run_evals``, agents). Unset: 16, or inside `evals.run_evals` the "
        "run's ``model_concurrency`` alone.",
        check=optional_integer,
    )
    requests_per_minute: float | None = declared(
        None, "Cap on request starts per minute, everywhere.", check=optional_positive
    )
    tokens_per_minute: float | None = declared(
        None,
        "Cap on prompt + completion tokens per minute, everywhere (one bucket across "
        "concurrent scorers): a request takes its prompt tokens (counted by litellm's token "
        "counter before it is sent) and its completion tokens are charged when it returns; a "
        "429 that names a token limit drains the bucket for the provider's Retry-After.",
        check=optional_positive,
    )
    cache: bool | str | os.PathLike[str] | JudgeCache = declared(
        True,
        "True for the default on-disk cache, False for none, a path, or a `JudgeCache`.",
    )
    structured_output: str = declared(
        "json_schema",
        '``"json_schema"`` (send the pydantic schema as ``response_format``), '
        '``"json_object"`` or ``"none"`` (prompt only) for servers without schema support. '
        "The JSON shape is in the prompt either way.",
        check=_structured,
    )
    client_processes: int = declared(
        0,
        "Run litellm in this many helper processes instead of this one (0, the default: in "
        "process). litellm spends ~3-4 ms of CPU per call; at high concurrency that, not the "
        "model, limits throughput. Retries, limits, cache and validation stay here; request "
        "parameters must be JSON data.",
        check=bounded(integer, minimum=0),
    )
    transport: Transport | None = declared(
        None,
        "Where requests go (a `Transport`); default `LiteLLMTransport`, or the helper "
        "processes of ``client_processes``. `ScriptedTransport` for unit tests.",
    )
    litellm_kwargs: Mapping[str, Any] | None = declared(
        None, "Any further provider parameters, passed to litellm unchecked."
    )

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The settings, in `Judge`'s order."""
        return names(cls)

    @classmethod
    def args_doc(cls) -> str:
        """The settings as `Judge`'s docstring ``Args:`` lines."""
        return args_doc(cls, indent="        ")

    @classmethod
    def checked(cls, **given: Any) -> JudgeSettings:
        """The settings with every check applied.

        Raises:
            ConfigError: Naming the first setting out of range (``Judge(timeout=...)``).
        """
        return cls(**checked(cls, lambda name: f"Judge({name}=...)", given))
