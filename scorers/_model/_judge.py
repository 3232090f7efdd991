"""The judge: a model and how to call it, as short layers over a transport.

``structured`` (cache) → `ask_structured` (JSON shape, validation, one repair round) →
``chat`` (accounting, redaction, scorekit's errors) → `send_with_retries` (retries,
backoff, per-attempt timeout) → `Limits` (concurrency caps, request rate) → a
`Transport` (litellm by default). Each layer is its own module; transports know
nothing of the judge.
"""

from __future__ import annotations

import copy
import os
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

from .._errors import ConfigError
from .._types import JudgeCall
from ._api_errors import api_error
from ._cache import (
    JudgeCache,
    cache_key,
    cached_answer,
    cached_call,
    resolve_cache,
    store_answer,
)
from ._calls import attach_calls, note_call
from ._completion import Completion, ModelRequest, Transport, TransportError
from ._cost import abandoned_cost, charged, price_per_token
from ._limits import Limits
from ._options import check_keywords, transport_for
from ._redact import (
    Redactor,
    judge_secrets,
    public_url,
    redacted_error,
    register_secrets,
    without_secrets,
)
from ._retry import Attempts, RetryPolicy, count_tokens_unloaded, send_with_retries
from ._settings import JudgeSettings
from ._structured import (
    as_messages,
    ask_structured,
    json_schema,
    response_format,
)

M = TypeVar("M", bound=BaseModel)


class Judge:
    """A judge model: a litellm model string plus how to call it.

    Args:
        model: A litellm model string, e.g. ``"openai/gpt-4o-mini"``.
        {settings}
        **kwargs: litellm's own completion parameters (``presence_penalty``,
            ``reasoning_effort``, ``extra_body``, ``extra_headers``...). A name that is
            neither a parameter of Judge nor of litellm raises `ConfigError`.

    Raises:
        ConfigError: For invalid options or an unknown keyword (with the closest names).
    """

    __doc__ = (__doc__ or "").replace("        {settings}", JudgeSettings.args_doc())

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        temperature: float = 0.0,
        top_p: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        timeout: float = 60.0,
        max_retries: int = 4,
        retry_backoff: float = 0.5,
        max_retry_wait: float = 60.0,
        max_concurrency: int | None = None,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
        cache: bool | str | os.PathLike[str] | JudgeCache = True,
        structured_output: str = "json_schema",
        client_processes: int = 0,
        transport: Transport | None = None,
        litellm_kwargs: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ):
        if not isinstance(model, str) or not model.strip():
            raise ConfigError(
                "Judge(model=...) needs a litellm model string like 'openai/gpt-4o-mini'"
            )
        check_keywords(kwargs, Judge.__init__)
        given = locals()
        settings = JudgeSettings.checked(**{name: given[name] for name in JudgeSettings.names()})
        self.model = model
        self.api_base = settings.api_base
        self._api_key = settings.api_key
        self.temperature = settings.temperature
        self.top_p = settings.top_p
        self.max_tokens = settings.max_tokens
        self.seed = settings.seed
        self.timeout = settings.timeout
        self.max_retries = settings.max_retries
        self.retry_backoff = settings.retry_backoff
        self.max_retry_wait = settings.max_retry_wait
        self.max_concurrency = settings.max_concurrency
        self.requests_per_minute = settings.requests_per_minute
        self.tokens_per_minute = settings.tokens_per_minute
        self.structured_output = settings.structured_output
        self.client_processes = settings.client_processes
        self.litellm_kwargs: dict[str, Any] = {**kwargs, **(settings.litellm_kwargs or {})}
        self.transport: Transport = transport_for(settings.transport, self.client_processes)
        self._policy = RetryPolicy(self.max_retries, self.retry_backoff, self.max_retry_wait)
        self._own_limits = Limits(
            self.max_concurrency, self.requests_per_minute, self.tokens_per_minute
        )
        secrets = judge_secrets(self._api_key, self.litellm_kwargs, self.api_base)
        self._redact = Redactor(secrets)
        register_secrets(secrets)
        self.cache: JudgeCache | None = resolve_cache(settings.cache)
        self._reached = False  # no request answered yet: a refused connection is setup

    def __repr__(self) -> str:
        return f"Judge(model={self.model!r}, api_base={public_url(self.api_base)!r})"

    def stand_in(self, transport: Transport) -> Judge:
        """A copy of this judge that asks ``transport`` instead, with no cache and no
        limits of its own, every request parameter kept: the prompts and token counts of
        a dry run (`evals.estimate_run`) are then the real ones."""
        clone = copy.copy(self)
        clone.transport, clone.cache, clone._own_limits = transport, None, Limits(None, None)
        return clone

    async def warm_up(self) -> None:
        """Set the transport up now (litellm: its import, off the loop). Runs need not:
        the first request that leaves the process does it (timeouts stopped meanwhile)."""
        if (warm_up := getattr(self.transport, "warm_up", None)) is not None:
            await warm_up(self._request([]))

    def count_tokens(self, messages: list[dict[str, Any]]) -> int:
        """The prompt tokens of ``messages`` for this judge's model, without importing
        litellm (see `count_tokens_unloaded`: the same count for OpenAI models)."""
        return count_tokens_unloaded(ModelRequest(model=self.model, messages=messages))

    def close(self) -> None:
        """Release the transport (stops the helper processes of ``client_processes``)."""
        close = getattr(self.transport, "close", None)
        if close is not None:
            close()

    def _params(self) -> dict[str, Any]:
        params: dict[str, Any] = {"temperature": self.temperature}
        for name in ("top_p", "max_tokens", "seed"):
            if getattr(self, name) is not None:
                params[name] = getattr(self, name)
        params.update(self.litellm_kwargs)
        return params

    def price_per_token(self) -> tuple[float, float] | None:
        """USD per prompt and per completion token: declared (``input_cost_per_token`` /
        ``output_cost_per_token``) or litellm's price list; None when unknown."""
        return price_per_token(self.model, self.litellm_kwargs)

    def _request(
        self, messages: list[dict[str, Any]], params: dict[str, Any] | None = None
    ) -> ModelRequest:
        return ModelRequest(
            model=self.model,
            messages=messages,
            params={**self._params(), **(params or {})},
            api_base=self.api_base,
            api_key=self._api_key_for_request(),
            timeout=self.timeout,
        )

    def _api_key_for_request(self) -> str | None:
        if self._api_key is None and self.api_base and not os.environ.get("OPENAI_API_KEY"):
            return "no-key"  # local OpenAI-compatible servers accept any key
        return self._api_key

    async def chat(
        self, messages: list[dict[str, Any]], *, step: str = "chat", **params: Any
    ) -> tuple[Completion, JudgeCall]:
        """One chat completion with our retries and limits; not cached.

        Used by the structured calls and by `evals.Agent`'s tool loop. The call is noted
        in every open call log whether it succeeds, fails or is cancelled.

        Args:
            messages: OpenAI-format messages.
            step: Name recorded on the `JudgeCall` and in error messages.
            **params: More request parameters (``tools``, ``response_format``).

        Returns:
            The `Completion` (content redacted of secrets) and its `JudgeCall`.

        Raises:
            JudgeAuthError: No API key, a rejected key, or no permission.
            JudgeSetupError: The provider does not know the model.
            JudgeAPIError: Any other refusal, or retries ran out (timeouts name the
                seconds).
        """
        request = self._request(messages, params)
        started = time.perf_counter()
        attempts = Attempts()
        call = JudgeCall(step=step, model=self.model, messages=messages)
        with charged(request, self.price_per_token, self.max_tokens, attempts) as charge:
            try:
                completion = await send_with_retries(
                    self.transport, request, self._policy, self._own_limits, attempts
                )
                self._reached = True
                call.prompt_tokens = completion.prompt_tokens  # before note_call's span
                call.completion_tokens = completion.completion_tokens
                call.cost = completion.cost
                if completion.content and self._redact:
                    clean = self._redact(completion.content)
                    if clean != completion.content:
                        completion = completion.model_copy(update={"content": clean})
                call.response = completion.content or ""
            except TransportError as exc:
                error = api_error(
                    redacted_error(exc, self._redact),
                    model=self.model,
                    step=step,
                    attempts=attempts.sent,
                    timeout=self.timeout,
                    api_key_given=self._api_key is not None,
                    never_reached=not self._reached,
                )
                call.error = str(error)
                attach_calls(error, [call])
                raise error from None
            except BaseException:  # cancelled mid-call: its requests were still sent
                call.error = "cancelled"
                raise
            finally:
                if call.error is not None:  # what was sent and may be billed
                    call.prompt_tokens, call.cost = abandoned_cost(request, self, attempts)
                call.attempts = attempts.sent
                call.latency_s = time.perf_counter() - started
                if attempts.sent:
                    note_call(call)
            charge.cost = completion.cost
        return completion, call

    def cache_key(
        self,
        messages: list[dict[str, Any]],
        schema: type[BaseModel],
        *,
        version: str = "1",
        sample_index: int = 0,
    ) -> str:
        """The cache key of a structured call: every input that can change the answer.

        Model, api_base, messages, the response schema, the structured-output mode, every
        request parameter (litellm keyword arguments included; header values that carry
        credentials and the API key left out), the step's prompt version and the sample
        index.
        """
        call = {"messages": messages, "schema": json_schema(schema), "version": version}
        return cache_key({**self.identity(), **call, "sample_index": sample_index})

    def identity(self) -> dict[str, Any]:
        """What about this judge can change an answer: model, api_base, the
        structured-output mode and every request parameter (litellm keyword arguments
        included; credential headers and the API key left out). Timeouts, retries and
        limits are not part of it."""
        params = without_secrets(self._params())
        return {
            "model": self.model,
            "api_base": public_url(self.api_base),
            "structured_output": self.structured_output,
            "params": params,
        }

    async def structured(
        self,
        prompt: str | list[dict[str, Any]],
        schema: type[M],
        *,
        step: str,
        check: Callable[[M], None] | None = None,
        sample_index: int = 0,
        version: str = "1",
    ) -> tuple[M, list[JudgeCall]]:
        """Ask for JSON matching ``schema`` and return the validated value.

        The schema goes out as ``response_format`` and is also spelled out in the prompt.
        Output that fails pydantic validation or ``check`` (which raises ``ValueError``)
        gets one repair round that shows the model its error.

        Args:
            prompt: The user prompt, or full chat messages.
            schema: The pydantic model the answer must validate against.
            step: Name of the pipeline step, recorded on each `JudgeCall`.
            check: Extra validation beyond the schema (e.g. verdict indices).
            sample_index: Distinguishes deliberate repeated samples in the cache key.
            version: The step's prompt/contract version (part of the cache key).

        Returns:
            The validated value and one `JudgeCall` per model call (or one cached call).

        Raises:
            JudgeOutputError: If the repaired answer still does not validate.
            JudgeAPIError: If the provider refused the request or retries ran out.
        """
        messages = as_messages(prompt, schema)
        key = None
        if self.cache is not None:
            key = self.cache_key(messages, schema, version=version, sample_index=sample_index)
            cached = cached_answer(self.cache, key, schema, check)
            if cached is not None:
                call = cached_call(cached[1], step=step, model=self.model, messages=messages)
                note_call(call)
                return cached[0], [call]
        extra: dict[str, Any] = {}
        fmt = response_format(self.structured_output, schema)
        if fmt is not None:
            extra["response_format"] = fmt

        async def send(conversation: list[dict[str, Any]]) -> JudgeCall:
            return (await self.chat(conversation, step=step, **extra))[1]

        value, calls = await ask_structured(
            send, messages, schema, check, model=self.model, step=step
        )
        if self.cache is not None and key is not None:
            store_answer(self.cache, key, value, calls)
        return value, calls


def as_judge(model: str | Judge | None) -> Judge | None:
    """Accept a litellm model string or a `Judge` wherever a model is asked for."""
    if model is None or isinstance(model, Judge):
        return model
    if isinstance(model, str):
        return Judge(model)
    raise ConfigError(
        f"model must be a litellm model string or a scorers.Judge, got {type(model).__name__}"
    )
