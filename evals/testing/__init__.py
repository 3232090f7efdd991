"""`FakeLLMServer`: a real OpenAI-compatible HTTP server for tests, on 127.0.0.1.

Tests drive litellm through real HTTP against it (``model="openai/<name>"``,
``api_base=server.url``), so retries, timeouts, parsing and caching are exercised for
real. Answers come from a script (a queue), then from a handler (a function of the
request); the default handler, `rule_based_judge`, answers scorekit's own judge prompts
deterministically.

Example:
    ```python
    with FakeLLMServer(latency=0.05) as server:
        server.script(Fault.rate_limit(retry_after=0.1), '{"claims": ["a"]}')
        judge = server.judge()
    ```

It is also a pytest fixture, ``fake_llm_server``, once scorekit is installed (the
plugin, `evals.testing._plugin`, imports nothing until a test uses it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "FakeLLMServer": "._server",
    "FakeRequest": "._exchange",
    "FakeResponse": "._exchange",
    "Fault": "._faults",
    "Handler": "._exchange",
    "aassert_score": "._assertions",
    "assert_score": "._assertions",
    "fake_llm_server": "._plugin",
    "rule_based_judge": "._rule_judge",
    "supports": "._rule_judge",
}

if TYPE_CHECKING:
    from ._assertions import aassert_score, assert_score
    from ._exchange import FakeRequest, FakeResponse, Handler
    from ._faults import Fault
    from ._plugin import fake_llm_server
    from ._rule_judge import rule_based_judge, supports
    from ._server import FakeLLMServer

__all__ = [
    "FakeLLMServer",
    "FakeRequest",
    "FakeResponse",
    "Fault",
    "Handler",
    "aassert_score",
    "assert_score",
    "fake_llm_server",
    "rule_based_judge",
    "supports",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
