from __future__ import annotations

import json

import pytest

from evals.testing import FakeLLMServer
from scorers import (
    AgentOutput,
    Chunk,
    ConfigError,
    ContextOptions,
    ScorerRun,
    create_context_recall_scorer,
    get_context_extractor,
    list_context_extractors,
    register_context_extractor,
    resolve_context,
    tool_results_extractor,
)

OPENAI_HISTORY = [
    {"role": "user", "content": "When was Einstein born?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "search", "arguments": '{"q": "Einstein"}'},
            },
            {
                "id": "call_2",
                "type": "function",
                "function": {"name": "weather", "arguments": '{"city": "Ulm"}'},
            },
        ],
    },
    {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": json.dumps(
            {
                "results": [
                    {"id": 7, "text": "Albert Einstein was born on 14 March 1879 in Ulm."},
                    {
                        "id": "doc-9",
                        "content": "Einstein received the Nobel Prize in Physics in 1921.",
                    },
                ]
            }
        ),
    },
    {"role": "tool", "tool_call_id": "call_2", "content": "Sunny, 21 degrees."},
    {"role": "assistant", "content": "He was born in 1879."},
]

MASTRA_HISTORY = [
    {"role": "user", "content": {"format": 2, "parts": [{"type": "text", "text": "Einstein?"}]}},
    {
        "role": "assistant",
        "content": {
            "format": 2,
            "parts": [
                {
                    "type": "tool-invocation",
                    "toolInvocation": {
                        "state": "result",
                        "toolCallId": "t1",
                        "toolName": "search",
                        "args": {"q": "E"},
                        "result": [
                            {"id": "a", "text": "Albert Einstein was born on 14 March 1879 in Ulm."}
                        ],
                    },
                },
                {"type": "text", "text": "He was born in 1879."},
            ],
            "toolInvocations": [  # the same call again: must not be counted twice
                {
                    "state": "result",
                    "toolCallId": "t1",
                    "toolName": "search",
                    "result": [
                        {"id": "a", "text": "Albert Einstein was born on 14 March 1879 in Ulm."}
                    ],
                },
                {"state": "call", "toolCallId": "t2", "toolName": "search"},
            ],
        },
    },
    {
        "role": "assistant",
        "toolInvocations": [
            {
                "state": "result",
                "toolCallId": "t3",
                "toolName": "lookup",
                "result": {"content": "Einstein received the Nobel Prize in Physics in 1921."},
            },
        ],
        "content": "Done.",
    },
]


@pytest.mark.anyio
async def test_builtin_tool_results_over_openai_history():
    chunks = get_context_extractor("tool_results")(None, OPENAI_HISTORY)
    assert [(c.id, c.text) for c in chunks] == [
        ("7", "Albert Einstein was born on 14 March 1879 in Ulm."),
        ("doc-9", "Einstein received the Nobel Prize in Physics in 1921."),
        (None, "Sunny, 21 degrees."),
    ]
    only_search = tool_results_extractor("search")(None, AgentOutput(messages=OPENAI_HISTORY))
    assert [c.id for c in only_search] == ["7", "doc-9"]


def test_builtin_tool_results_over_mastra_history():
    chunks = get_context_extractor("tool_results")(None, MASTRA_HISTORY)
    assert [(c.id, c.text) for c in chunks] == [
        ("a", "Albert Einstein was born on 14 March 1879 in Ulm."),
        (None, "Einstein received the Nobel Prize in Physics in 1921."),
    ]
    assert [c.text for c in tool_results_extractor("lookup")(None, MASTRA_HISTORY)] == [
        "Einstein received the Nobel Prize in Physics in 1921."
    ]


@pytest.mark.parametrize("history", [OPENAI_HISTORY, MASTRA_HISTORY])
def test_recall_with_builtin_extractor_over_both_formats(fake_llm_server, history):
    scorer = create_context_recall_scorer(
        fake_llm_server.judge(), {"context_extractor": "tool_results"}
    )
    result = scorer.run(
        input="When was Einstein born?",
        output=history,
        ground_truth="Einstein was born in 1879. He won the Nobel Prize in 1921.",
    )
    assert result.score == 1.0


def test_callable_extractors_sync_and_async(fake_llm_server: FakeLLMServer):
    seen = []

    def sync_extractor(input, output):
        seen.append((input, output))
        return [{"id": 1, "text": "Albert Einstein was born in Ulm."}]

    async def async_extractor(input, output):
        return ["Albert Einstein was born in Ulm."]

    for extractor in (sync_extractor, async_extractor):
        scorer = create_context_recall_scorer(
            fake_llm_server.judge(), {"context_extractor": extractor}
        )
        assert (
            scorer.run(input="q", output="a", ground_truth="Einstein was born in Ulm.").score == 1
        )
    assert seen == [("q", "a")]


def test_registered_extractor_by_name_and_decorator(fake_llm_server: FakeLLMServer):
    @register_context_extractor("test-last-tool")
    def last_tool(input, output):
        return [m["content"] for m in output if m.get("role") == "tool"][-1:]

    register_context_extractor("test-fixed", lambda i, o: ["Einstein was born in Ulm."])
    assert "test-last-tool" in list_context_extractors()
    assert get_context_extractor("test-last-tool") is last_tool
    with pytest.raises(ConfigError, match="already registered"):
        register_context_extractor("test-fixed", lambda i, o: [])
    register_context_extractor("test-fixed", lambda i, o: ["Mozart wrote operas."], overwrite=True)

    judge = fake_llm_server.judge()
    by_decorator = create_context_recall_scorer(judge, {"context_extractor": "test-last-tool"})
    assert by_decorator.run(output=OPENAI_HISTORY, ground_truth="It is sunny.").score == 1.0
    by_name = create_context_recall_scorer(judge, {"context_extractor": "test-fixed"})
    assert by_name.run(output="x", ground_truth="Einstein was born in Ulm.").score == 0.0


@pytest.mark.anyio
async def test_mastra_rule_when_both_options_are_given():
    options = ContextOptions(context=["static"], context_extractor=lambda i, o: ["extracted"])
    plain = ScorerRun(input="q", output="a plain answer")
    output = AgentOutput(text="a", messages=OPENAI_HISTORY)
    agent = ScorerRun(input=OPENAI_HISTORY[:1], output=output)
    mastra_input = {
        "inputMessages": OPENAI_HISTORY[:1],
        "rememberedMessages": [],
        "systemMessages": [],
        "taggedSystemMessages": {},
    }
    mastra_run = ScorerRun(input=mastra_input, output=OPENAI_HISTORY)
    # Mastra's own rule: its input only whole; an empty output list is an agent's
    partial = ScorerRun(input={"inputMessages": OPENAI_HISTORY[:1]}, output=OPENAI_HISTORY)
    silent = ScorerRun(input=mastra_input, output=[])
    only_output = ScorerRun(input="q", output=output)  # Mastra: input AND output agent-shaped
    only_input = ScorerRun(input=OPENAI_HISTORY[:1], output="a")
    supplied = ScorerRun(input="q", output=OPENAI_HISTORY, context=[{"id": 3, "text": "given"}])
    assert [c.text for c in await resolve_context(plain, options)] == ["static"]
    assert [c.text for c in await resolve_context(agent, options)] == ["extracted"]
    assert [c.text for c in await resolve_context(mastra_run, options)] == ["extracted"]
    assert [c.text for c in await resolve_context(partial, options)] == ["static"]
    assert [c.text for c in await resolve_context(silent, options)] == ["extracted"]
    assert [c.text for c in await resolve_context(only_output, options)] == ["static"]
    assert [c.text for c in await resolve_context(only_input, options)] == ["static"]
    assert await resolve_context(supplied, options) == [Chunk(id="3", text="given")]
    only_extractor = ContextOptions(context_extractor=lambda i, o: ["extracted"])
    assert [c.text for c in await resolve_context(plain, only_extractor)] == ["extracted"]


@pytest.mark.anyio
async def test_extractor_returning_a_bad_shape_is_a_clear_error():
    options = ContextOptions(context_extractor=lambda i, o: "one string")
    with pytest.raises(ConfigError, match="must return a list"):
        await resolve_context(ScorerRun(), options)
    with pytest.raises(ValueError, match="'text'"):
        ContextOptions(context=[{"id": 1}])


def test_mastras_agent_run_input_reaches_the_judge_as_its_question(fake_llm_server):
    run_input = {
        "inputMessages": [{"role": "user", "content": "When was Einstein born?"}],
        "rememberedMessages": [],
        "systemMessages": [],
        "taggedSystemMessages": {},
    }
    recall = create_context_recall_scorer(
        fake_llm_server.judge(), {"context_extractor": "tool_results", "context": ["static"]}
    )
    result = recall.run(input=run_input, output=OPENAI_HISTORY, ground_truth="Born in 1879.")
    assert result.status == "scored"
    sent = json.dumps([r.body for r in fake_llm_server.requests])
    assert "When was Einstein born?" in sent and "inputMessages" not in sent
    assert "static" not in sent  # input and output agent-shaped: the extractor's chunks


def test_precision_without_ground_truth_points_to_utilization_like_mastra(fake_llm_server):
    from scorers import create_context_precision_scorer, create_context_utilization_scorer

    run = {"input": "q", "output": "Paris is in France.", "context": ["Paris is in France."]}
    skipped = create_context_precision_scorer(fake_llm_server.judge()).run(**run)
    assert skipped.status == "skipped" and "create_context_utilization_scorer" in skipped.reason
    assert "Mastra's createContextPrecisionScorer" in skipped.reason
    assert create_context_utilization_scorer(fake_llm_server.judge()).run(**run).score == 1.0
    quiet = create_context_precision_scorer(fake_llm_server.judge()).run(input="q", context=["x"])
    assert "utilization" not in quiet.reason  # no output either: nothing to point to
