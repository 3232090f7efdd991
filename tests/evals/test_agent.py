from __future__ import annotations

import json

import pytest

from evals import Agent, SqliteScoreStore, Tool, run_evals
from evals.testing import FakeLLMServer, FakeRequest, FakeResponse
from scorers import ConfigError, create_id_context_recall_scorer
from scorers._model._litellm import stop_litellm_logging

DOCS = {"1": "Einstein was born in Ulm.", "2": "Mozart wrote operas."}


def search(query: str, k: int = 2) -> list[dict]:
    """Search the knowledge base.

    Args:
        query: What to look for.
        k: How many passages to return.
    """
    return [{"id": i, "text": t} for i, t in DOCS.items() if query.lower() in t.lower()][:k]


def broken(x: int) -> str:
    """Always fails."""
    raise RuntimeError("database offline")


def tool_then_answer(request: FakeRequest) -> FakeResponse:
    """Call the tool named in the question, then answer with what came back."""
    last = request.messages[-1]
    if last["role"] == "user":
        tool, _, arg = last["content"].partition(" ")
        args = {"query": arg} if tool == "search" else {"x": arg}
        return FakeResponse(tool_calls=[{"name": tool, "arguments": args}])
    return FakeResponse(content=f"Based on the tool: {last['content']}")


@pytest.fixture
def server():
    with FakeLLMServer(tool_then_answer) as fake:
        yield fake


@pytest.mark.slow
def test_tool_loop_produces_openai_history(server):
    agent = Agent("helper", server.judge(), "Answer from the knowledge base.", tools=[search])
    output = agent.generate("search Einstein")
    roles = [m["role"] for m in output.messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    assert output.messages[2]["tool_calls"][0]["function"]["name"] == "search"
    assert json.loads(output.messages[3]["content"]) == [{"id": "1", "text": DOCS["1"]}]
    assert output.text.startswith("Based on the tool:") and output.steps == 2
    assert output.usage["prompt_tokens"] > 0 and output.finish_reason == "stop"
    sent_tools = server.requests[0].body["tools"]
    assert sent_tools[0]["function"]["parameters"]["required"] == ["query"]


@pytest.mark.slow
def test_tool_exception_goes_back_to_the_model(server):
    agent = Agent("helper", server.judge(), tools=[broken])
    output = agent.generate("broken 3")
    assert json.loads(output.messages[2]["content"]) == {"error": "RuntimeError: database offline"}
    assert "database offline" in output.text
    bad_args = Agent("helper", server.judge(), tools=[broken]).generate("broken notanumber")
    assert "invalid arguments for broken" in bad_args.messages[2]["content"]


def test_max_steps_cuts_the_loop(server):
    server.handler = lambda request: FakeResponse(
        tool_calls=[{"name": "search", "arguments": {"query": "x"}}]
    )
    output = Agent("loop", server.judge(), tools=[search], max_steps=3).generate("q")
    assert (output.steps, output.finish_reason) == (3, "max_steps")


def test_tool_schema_from_hints_and_docstring():
    schema = Tool(search).schema()["function"]
    assert schema["description"] == "Search the knowledge base."
    assert schema["parameters"]["properties"] == {
        "query": {"type": "string", "description": "What to look for."},
        "k": {"type": "integer", "default": 2, "description": "How many passages to return."},
    }


@pytest.mark.parametrize(("rate", "expected"), [(1.0, 1), (0.0, 0)])
def test_sampled_live_scoring(server, rate, expected, tmp_path):
    seen = []
    recall = create_id_context_recall_scorer({"context_extractor": "tool_results"})
    store = SqliteScoreStore(tmp_path / "scores.sqlite3")
    agent = Agent(
        "helper",
        server.judge(),
        tools=[search],
        scorers={"recall": {"scorer": recall, "sampling": {"type": "ratio", "rate": rate}}},
        on_score=seen.append,
        score_store=store,
    )
    agent.generate("search Einstein")
    agent.flush_scores()
    assert len(seen) == expected == len(store.list(agent="helper"))
    if expected:
        record = SqliteScoreStore(tmp_path / "scores.sqlite3").list()[0]  # persisted
        assert (record.scorer_key, record.status) == ("recall", "skipped")  # no references
        assert record.output.startswith("Based on the tool")


@pytest.mark.anyio
async def test_async_generation_and_async_on_score(server):
    seen = []

    async def on_score(record):
        seen.append(record.scorer_id)

    recall = create_id_context_recall_scorer({"context_extractor": "tool_results"})
    agent = Agent("a", server.judge(), tools=[search], scorers={"r": recall}, on_score=on_score)
    output = await agent.agenerate("search Mozart")
    await agent.aflush_scores()
    assert seen == ["id-context-recall"] and "Mozart" in output.text
    await agent.agenerate("search Mozart")
    await agent.aclose()  # waits for the second response's scorer, then ends its service
    assert seen == ["id-context-recall"] * 2
    await stop_litellm_logging()  # this test's own loop is about to close


def test_scorers_attach_as_a_list_keyed_by_their_ids(server):
    """Mastra users write ``scorers=[...]``; before: AttributeError on list.items."""
    recall = create_id_context_recall_scorer({"context_extractor": "tool_results"})
    agent = Agent("a", server.judge(), tools=[search], scorers=[recall])
    assert list(agent.scorers) == ["id-context-recall"]
    agent.generate("search Mozart")
    agent.flush_scores()
    assert [r.scorer_id for r in agent.score_store.list()] == ["id-context-recall"]
    agent.close()
    with pytest.raises(ConfigError, match="share the id"):
        Agent("a", server.judge(), scorers=[recall, recall])
    assert Agent("a", server.judge(), scorers=[]).scorers == {}


def test_run_evals_with_an_agent_turns_live_scorers_off(server):
    recall = create_id_context_recall_scorer({"context_extractor": "tool_results"})
    agent = Agent("helper", server.judge(), tools=[search], scorers={"live": recall})
    data = [
        {"input": "search Einstein", "reference_context_ids": ["1"]},
        {"input": "search Mozart", "reference_context_ids": ["1"]},
    ]
    result = run_evals(data, [recall], agent)
    agent.flush_scores()
    assert result.scores == {"id-context-recall": 0.5}
    assert agent.score_store.list() == []
    assert result.summary.model_calls == 4  # the agent's calls are counted
    assert result.items[0].target_result.output.steps == 2


def test_bad_scorer_attachment():
    with pytest.raises(ConfigError, match="scorer 'x'"):
        Agent("a", "openai/m", scorers={"x": {"scorer": "not a scorer"}})
    with pytest.raises(ConfigError, match="scorer 'x'"):
        Agent(
            "a",
            "openai/m",
            scorers={
                "x": {
                    "scorer": create_id_context_recall_scorer(),
                    "sampling": {"type": "ratio", "rate": 2},
                }
            },
        )
