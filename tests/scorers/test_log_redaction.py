"""litellm's DEBUG log lines never show a judge's header values or API key (issue 25,
item 10): its curl line prints every request header in clear."""

from __future__ import annotations

import logging

from evals.testing import FakeLLMServer
from scorers import Judge, create_context_recall_scorer


def test_debug_logging_shows_no_header_value_or_key(caplog) -> None:
    caplog.set_level(logging.DEBUG)
    with FakeLLMServer() as server:
        judge = Judge(
            "openai/fake",
            api_base=server.url,
            api_key="sk-key-not-to-be-seen",
            cache=False,
            extra_headers={"X-Api-Token": "tok-not-to-be-seen"},
        )
        scorer = create_context_recall_scorer(judge)
        result = scorer.run(
            input="q", ground_truth="Einstein was born in Ulm.", context=["Born in Ulm."]
        )
    assert result.status == "scored"
    logged = caplog.text
    assert "curl" in logged  # litellm did print its request line
    assert "tok-not-to-be-seen" not in logged and "sk-key-not-to-be-seen" not in logged
