"""OpenTelemetry spans for runs, items, scorers and judge calls — only when wanted.

Spans are made only when ``opentelemetry-api`` is installed **and** a tracer provider is
configured (``trace.set_tracer_provider(...)``); otherwise every function here is a
cheap no-op and nothing is emitted. The API is imported on first use, never by
``import scorers``. Judge calls follow the GenAI semantic conventions
(``gen_ai.operation.name``, ``gen_ai.request.model``, ``gen_ai.usage.input_tokens`` /
``output_tokens``); scores carry ``scorekit.score``, ``scorekit.status`` and a
``scorekit.reason`` event.
"""

from __future__ import annotations

import contextlib
import importlib.util
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


@contextlib.contextmanager
def span(name: str, attributes: dict[str, Any] | None = None) -> Iterator[Any | None]:
    """A span around the block (the current span's child), or nothing."""
    found = tracer()
    if found is None:
        yield None
        return
    with found.start_as_current_span(name, attributes=attributes or {}) as current:
        yield current


def record_score(current: Any | None, result: ScoreResult) -> None:
    """A scorer's outcome on its span."""
    if current is None:
        return
    current.set_attribute("scorekit.scorer.id", result.scorer_id)
    current.set_attribute("scorekit.score", result.score)
    current.set_attribute("scorekit.status", result.status)
    current.add_event("scorekit.reason", {"reason": result.reason[:4000]})
    if result.error is not None:
        current.set_attribute("error.type", result.error[:200])


def judge_call(call: JudgeCall) -> None:
    """A finished judge call as a span of its own (timed by its latency), under the
    current span."""
    found = tracer()
    if found is None:
        return
    end = time.time_ns()
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": call.model,
        "gen_ai.usage.input_tokens": call.prompt_tokens,
        "gen_ai.usage.output_tokens": call.completion_tokens,
        "scorekit.step": call.step,
        "scorekit.cached": call.cached,
        "scorekit.attempts": call.attempts,
    }
    if call.cost is not None:
        attributes["scorekit.cost_usd"] = call.cost
    if call.error is not None:
        attributes["error.type"] = call.error[:200]
    started = end - int(call.latency_s * 1e9)
    current = found.start_span(f"chat {call.model}", attributes=attributes, start_time=started)
    current.end(end_time=end)
