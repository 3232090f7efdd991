"""OpenTelemetry spans for runs, items, scorers and judge calls — only when wanted.

Spans are made only when ``opentelemetry-api`` is installed **and** a tracer provider is
configured (``trace.set_tracer_provider(...)``); otherwise every function here is a
cheap no-op and nothing is emitted. The API is imported on first use, never by
``import scorers``.

By the GenAI semantic conventions (what Langfuse, Phoenix and Datadog read):

- a judge call is a span of kind CLIENT, ``chat {model}``, with ``gen_ai.operation.name``,
  ``gen_ai.provider.name``, ``gen_ai.request.model``, ``gen_ai.usage.input_tokens`` /
  ``output_tokens``, and OpenInference's ``openinference.span.kind = LLM`` (Phoenix);
  the prompt and the answer (``gen_ai.input.messages`` / ``gen_ai.output.messages``,
  OpenInference's ``input.value`` / ``output.value``) only when
  ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` is ``true``;
- each score is a ``gen_ai.evaluation.result`` event (``gen_ai.evaluation.name``,
  ``.score.value``, ``.score.label``, ``.explanation``) on the span of the run it scores:
  the item's span in a run, the caller's span for ``Scorer.run`` or an agent's live
  scorers (on the scorer's own span, its child, once the caller's has ended); the
  scorer's span also carries ``scorekit.score`` / ``scorekit.status`` and is an
  OpenInference ``EVALUATOR``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._types import JudgeCall, ScoreResult

_NO_PROVIDER = frozenset({"ProxyTracerProvider", "NoOpTracerProvider"})
_api: Any = False  # False: not looked up yet; None: not installed; else opentelemetry.trace


def tracer() -> Any | None:
    """scorekit's tracer, or None when OpenTelemetry is absent or not configured."""
    global _api
    if _api is False:
        _api = None
        if importlib.util.find_spec("opentelemetry") is not None:
            with contextlib.suppress(ImportError):
                from opentelemetry import trace

                _api = trace
    if _api is None:
        return None
    provider = _api.get_tracer_provider()
    if type(provider).__name__ in _NO_PROVIDER:
        return None
    return provider.get_tracer("scorekit")


CAPTURE_CONTENT = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The OpenTelemetry setting that lets prompts and answers into spans (off by default)."""


def capture_content() -> bool:
    """Whether the user opted in to prompts and answers in spans."""
    return os.environ.get(CAPTURE_CONTENT, "").strip().lower() in ("true", "1", "yes")


def current_span() -> Any | None:
    """The span open in this context (None without tracing, or when none is)."""
    if tracer() is None:
        return None
    found = _api.get_current_span()
    return found if found.get_span_context().is_valid else None


@contextlib.contextmanager
def span(
    name: str, attributes: dict[str, Any] | None = None, parent: Any | None = None
) -> Iterator[Any | None]:
    """A span around the block (the current span's child, or ``parent``'s), or nothing."""
    found = tracer()
    if found is None:
        yield None
        return
    context = None if parent is None else _api.set_span_in_context(parent)
    with found.start_as_current_span(name, context, attributes=attributes or {}) as current:
        yield current


def record_score(current: Any | None, result: ScoreResult, evaluated: Any | None = None) -> None:
    """A scorer's outcome on its span, and as a ``gen_ai.evaluation.result`` event on the
    span of the run it scored (``evaluated``; the scorer's own span when that one has
    ended or there is none)."""
    if current is None:
        return
    current.set_attribute("scorekit.scorer.id", result.scorer_id)
    current.set_attribute("scorekit.score", result.score)
    current.set_attribute("scorekit.status", result.status)
    current.set_attribute("openinference.span.kind", "EVALUATOR")
    current.add_event("scorekit.reason", {"reason": result.reason[:4000]})
    if result.error is not None:
        current.set_attribute("error.type", result.error[:200])
    event: dict[str, Any] = {
        "gen_ai.evaluation.name": result.scorer_id,
        "gen_ai.evaluation.score.label": result.status,
        "gen_ai.evaluation.explanation": (result.error or result.reason)[:4000],
    }
    if result.status == "scored":
        event["gen_ai.evaluation.score.value"] = result.score
    if result.error is not None:
        event["error.type"] = result.error.split(":", 1)[0][:200]
    target = evaluated if evaluated is not None and evaluated.is_recording() else current
    target.add_event("gen_ai.evaluation.result", event)


def provider_of(model: str) -> str:
    """``gen_ai.provider.name`` of a litellm model string: its prefix (``openai`` for
    ``openai/gpt-4o-mini``), or the maker of a bare OpenAI or Anthropic model name."""
    if "/" in model:
        return model.split("/", 1)[0]
    if model.startswith(("gpt-", "o1", "o3", "o4", "chatgpt")):
        return "openai"
    if model.startswith("claude"):
        return "anthropic"
    return "unknown"


def judge_call(call: JudgeCall) -> None:
    """A finished judge call as a span of its own (timed by its latency), under the
    current span."""
    found = tracer()
    if found is None:
        return
    end = time.time_ns()
    model = call.model.split("/", 1)[1] if "/" in call.model else call.model
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": provider_of(call.model),
        "gen_ai.request.model": model,
        "gen_ai.usage.input_tokens": call.prompt_tokens,
        "gen_ai.usage.output_tokens": call.completion_tokens,
        "openinference.span.kind": "LLM",
        "llm.model_name": model,
        "llm.token_count.prompt": call.prompt_tokens,
        "llm.token_count.completion": call.completion_tokens,
        "scorekit.step": call.step,
        "scorekit.cached": call.cached,
        "scorekit.attempts": call.attempts,
    }
    if call.cost is not None:
        attributes["scorekit.cost_usd"] = call.cost
    if call.error is not None:
        attributes["error.type"] = call.error.split(":", 1)[0][:200]
    if capture_content():
        attributes.update(_content(call))
    started = end - int(call.latency_s * 1e9)
    kind = _api.SpanKind.CLIENT
    name = f"chat {model}"
    current = found.start_span(name, kind=kind, attributes=attributes, start_time=started)
    current.end(end_time=end)


def _content(call: JudgeCall) -> dict[str, str]:
    """The prompt and the answer, in the GenAI conventions' message shape and as
    OpenInference's input and output values."""
    messages = [
        {"role": m.get("role", "user"), "parts": [{"type": "text", "content": m.get("content")}]}
        for m in call.messages
    ]
    answer = [{"role": "assistant", "parts": [{"type": "text", "content": call.response}]}]
    return {
        "gen_ai.input.messages": json.dumps(messages, ensure_ascii=False, default=str),
        "gen_ai.output.messages": json.dumps(answer, ensure_ascii=False),
        "input.value": json.dumps(call.messages, ensure_ascii=False, default=str),
        "input.mime_type": "application/json",
        "output.value": call.response,
    }
