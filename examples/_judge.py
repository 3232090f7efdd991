"""Pick the judge for the examples: a real model when SCOREKIT_MODEL is set, otherwise
scorekit's own fake OpenAI-compatible server (so every example runs without a key).

    SCOREKIT_MODEL=openai/gpt-4o-mini python examples/recall.py            # OpenAI
    SCOREKIT_MODEL=openai/llama3.1 SCOREKIT_API_BASE=http://localhost:11434/v1 \\
        python examples/recall.py                                          # a local server
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from evals.testing import FakeLLMServer, Handler
from scorers import Judge


@contextlib.contextmanager
def example_judge(handler: Handler | None = None) -> Iterator[Judge]:
    model = os.environ.get("SCOREKIT_MODEL")
    if model:
        yield Judge(model, api_base=os.environ.get("SCOREKIT_API_BASE"))
        return
    print("(no SCOREKIT_MODEL set: using scorekit's fake judge server)\n")
    with FakeLLMServer(handler) as server:
        yield server.judge()
