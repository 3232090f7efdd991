"""`LiteLLMTransport`, the default transport, and everything scorekit knows about litellm.

litellm is imported on the first model call, never by ``import scorers``: it takes
seconds and, without ``LITELLM_LOCAL_MODEL_COST_MAP``, fetches a price list from the
internet. Its exceptions are mapped to `TransportError` here and nowhere else.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections.abc import Coroutine
from types import ModuleType
from typing import Any

import anyio

from ._completion import Completion, ModelRequest, ToolCall, TransportError
from ._litellm_errors import litellm_error
from ._redact import redact_litellm_logs
from ._setup import untimed

_litellm: ModuleType | None = None


class ImportState:
    """litellm's import in this process: under way (``loading``), and the CPU seconds
    it took (``cpu_s``, 0 until it is done)."""

    loading: bool = False
    cpu_s: float = 0.0


LITELLM_IMPORT = ImportState()

LITELLM_PARAMS: frozenset[str] = frozenset(
    # the parameters of litellm.completion/acompletion (checked against litellm's own
    # signature by the tests) plus the common keyword arguments it forwards to providers
    """
    audio deployment_id extra_headers frequency_penalty function_call functions
    include_server_side_tool_invocations logit_bias logprobs max_completion_tokens
    modalities n parallel_tool_calls prediction presence_penalty prompt_cache_key
    prompt_cache_retention reasoning_effort response_format safety_identifier service_tier
    stop store stream_options thinking tool_choice tools top_logprobs user verbosity
    web_search_options api_version enable_json_schema_validation
    extra_body headers metadata organization custom_llm_provider top_k drop_params
    allowed_openai_params additional_drop_params mock_response input_cost_per_token
    model_list shared_session
    output_cost_per_token region_name aws_region_name aws_access_key_id
    aws_secret_access_key aws_session_token aws_profile_name vertex_project
    vertex_location vertex_credentials azure_ad_token
    """.split()
)
"""Keyword arguments `Judge` passes to litellm without ``litellm_kwargs={...}``."""

OWNED_PARAMS: dict[str, str] = {
    "model": "the first argument of Judge",
    "messages": "built by the scorer",
    "num_retries": "Judge(max_retries=...)",
    "max_retries": "Judge(max_retries=...)",
    "base_url": "Judge(api_base=...)",
    "stream": "not supported: the judge needs whole answers",
}
"""litellm parameters scorekit sets itself, with what to use instead."""


def import_litellm() -> ModuleType:
    """Import litellm on first use: offline price map, quiet, scorekit's logging worker."""
    if _litellm is not None:
        return _litellm
    with _import_lock:  # concurrent first calls import once
        return _import_once()


_import_lock = threading.Lock()


def _import_once() -> ModuleType:
    global _litellm
    if _litellm is None:
        started = time.process_time()
        LITELLM_IMPORT.loading = True
        try:
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            import litellm

            litellm.suppress_debug_info = True
            redact_litellm_logs()
            _own_logging_worker()
            _litellm = litellm
        finally:
            LITELLM_IMPORT.loading = False
            LITELLM_IMPORT.cpu_s = time.process_time() - started
    return _litellm


def litellm_loaded() -> bool:
    """Whether litellm is imported and set up in this process."""
    return _litellm is not None


class TaskLoggingWorker:
    """Stands in for litellm's global logging worker: each logging coroutine is a task.

    litellm queues a success-logging coroutine after every call. Under load (a few
    hundred calls in flight) its own worker re-runs coroutines it already ran and prints
    "cannot reuse already awaited coroutine" tracebacks. This one runs each coroutine
    once, on the loop that made it, keeps a reference until it ends and drops its errors
    quietly (logging callbacks are never the caller's concern).
    """

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def ensure_initialized_and_enqueue(self, async_coroutine: Coroutine[Any, Any, Any]) -> None:
        """Run ``async_coroutine`` as a task of the running loop."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop: nothing can run it
            async_coroutine.close()
            return
        task = loop.create_task(async_coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    enqueue = ensure_initialized_and_enqueue

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved, so asyncio does not report it

    def start(self) -> None:
        """Nothing to start (litellm's interface)."""

    def pending_count(self) -> int:
        """Logging tasks not finished yet."""
        return len(self._tasks)

    async def flush(self) -> None:
        """Wait for the logging tasks of the running loop."""
        await self.stop()

    async def clear_queue(self) -> None:
        """Wait for the logging tasks of the running loop."""
        await self.stop()

    async def stop(self, *, discard_pending: bool = False, timeout: float | None = None) -> None:
        """Wait (at most ``timeout`` s, default 2) for this loop's logging tasks to end."""
        loop = asyncio.get_running_loop()
        mine = [t for t in self._tasks if t.get_loop() is loop and not t.done()]
        if discard_pending:
            for task in mine:
                task.cancel()
        if mine:
            await asyncio.wait(mine, timeout=2.0 if timeout is None else timeout)


_WORKER = TaskLoggingWorker()


def _own_logging_worker() -> None:
    with contextlib.suppress(Exception):  # a litellm without the worker: nothing to replace
        from litellm.litellm_core_utils import logging_worker

        original = logging_worker.GLOBAL_LOGGING_WORKER
        logging_worker.GLOBAL_LOGGING_WORKER = _WORKER  # type: ignore[assignment,misc]
        with contextlib.suppress(Exception):
            import atexit

            atexit.unregister(original._flush_on_exit)


async def stop_litellm_logging() -> None:
    """Let litellm's logging tasks on the running loop finish (at most 2 s).

    Call this before closing an event loop that made model calls, so the loop does not
    print "Task was destroyed but it is pending!" (scorekit's own loop thread does).
    """
    if _litellm is not None:
        with anyio.move_on_after(2):
            await _WORKER.stop()


def map_litellm_error(exc: BaseException, request: ModelRequest) -> TransportError:
    """The `TransportError` for an exception raised by ``litellm.acompletion`` (see
    `scorers._model._litellm_errors`)."""
    return litellm_error(exc, request, import_litellm())


def completion_from_response(response: Any) -> Completion:
    """A `Completion` from litellm's ``ModelResponse``."""
    message = response.choices[0].message
    usage = getattr(response, "usage", None)
    # litellm prices every response of a model it knows while logging it; asking
    # completion_cost() again would repeat that work (and raise for unknown models)
    hidden = getattr(response, "_hidden_params", None) or {}
    cost = hidden.get("response_cost")
    return Completion(
        content=message.content,
        tool_calls=[
            ToolCall(id=c.id, name=c.function.name, arguments=c.function.arguments or "{}")
            for c in (getattr(message, "tool_calls", None) or [])
        ],
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        cost=float(cost) if isinstance(cost, (int, float)) else None,
        provider_id=getattr(response, "id", None),
    )


KEY_ENV: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
    "gemini": ("GEMINI_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "together_ai": ("TOGETHERAI_API_KEY", "TOGETHER_API_KEY"),
    "fireworks_ai": ("FIREWORKS_AI_API_KEY", "FIREWORKS_API_KEY"),
    "xai": ("XAI_API_KEY",),
}
"""Providers whose key is one environment variable, checked before importing litellm."""


def missing_key(request: ModelRequest) -> tuple[str, ...]:
    """The key variables to set when ``request`` cannot carry a key (empty when it can).

    Only for the providers of `KEY_ENV` talking to their own API (no ``api_base``), with
    no explicit key: a broken setup then fails in milliseconds, before litellm's import.
    """
    if request.api_key is not None or request.api_base:
        return ()
    provider = request.model.split("/", 1)[0] if "/" in request.model else ""
    if not provider and request.model.startswith(("gpt-", "o1", "o3", "o4")):
        provider = "openai"
    if not provider and request.model.startswith("claude"):
        provider = "anthropic"
    names = KEY_ENV.get(provider, ())
    return () if any(os.environ.get(n) for n in names) else names


def litellm_arguments(request: ModelRequest) -> dict[str, Any]:
    """The ``litellm.acompletion`` keyword arguments for ``request`` (retries off)."""
    kwargs: dict[str, Any] = {
        **request.params,
        "model": request.model,
        "messages": request.messages,
        "timeout": request.timeout,
        "num_retries": 0,
        "max_retries": 0,
    }
    if request.api_base:
        kwargs["api_base"] = request.api_base
    if request.api_key is not None:
        kwargs["api_key"] = request.api_key
    return kwargs


class LiteLLMTransport:
    """The default transport: ``litellm.acompletion`` in this process, retries off."""

    async def warm_up(self, request: ModelRequest) -> None:
        """Import litellm (seconds of CPU, once per process) in a worker thread, off the
        event loop; not when ``request``'s key is missing (its first call then fails at
        once). The timeouts of the calls that wait for it stop meanwhile (`untimed`)."""
        if _litellm is None and not missing_key(request):
            async with untimed():
                await anyio.to_thread.run_sync(import_litellm)

    async def prepare(self, request: ModelRequest) -> None:
        """Before a request's first attempt (outside its timeout): litellm imported (the
        first request that leaves the process imports it; cache hits never do), and
        fail at once when the request's key cannot be found.

        Raises:
            TransportError: ``"auth"``, when the provider's key variable is not set.
        """
        missing = missing_key(request)  # before the import: a missing key fails at once
        if missing:
            raise TransportError("auth", "no API key", missing_env=missing)
        await self.warm_up(request)

    async def complete(self, request: ModelRequest) -> Completion:
        """Send ``request`` once through litellm.

        Raises:
            TransportError: Whatever litellm raised, classified.
        """
        litellm = import_litellm()
        try:
            response = await litellm.acompletion(**litellm_arguments(request))
        except Exception as exc:
            raise map_litellm_error(exc, request) from exc
        return completion_from_response(response)

    @staticmethod
    def import_state() -> ImportState:
        """litellm's import in this process: ``loading`` while under way, ``cpu_s`` (the
        CPU seconds it took) once done; 0 before the first request that left the process
        (litellm is imported only then)."""
        return LITELLM_IMPORT

    def __repr__(self) -> str:
        return "LiteLLMTransport()"


__all__ = [
    "LITELLM_IMPORT",
    "LITELLM_PARAMS",
    "OWNED_PARAMS",
    "ImportState",
    "LiteLLMTransport",
    "TaskLoggingWorker",
    "completion_from_response",
    "import_litellm",
    "litellm_arguments",
    "litellm_loaded",
    "map_litellm_error",
    "stop_litellm_logging",
]
