"""Chunks and answers read from the real objects of agent frameworks (built offline).

Each framework is an optional test dependency (``pip install 'scorekit[frameworks]'``,
which ``.ci/run`` installs); without it, its test is skipped with that message.
"""

from __future__ import annotations

import json

import pytest

from scorers import (
    UnreadableOutputError,
    create_id_context_recall_scorer,
    create_ranking_scorer,
    framework_answer,
    framework_chunks,
)


def need(module: str):
    return pytest.importorskip(
        module, reason=f"{module} not installed: pip install 'scorekit[frameworks]'"
    )


def auto_recall(output, gold, input="q"):
    scorer = create_id_context_recall_scorer({"context_extractor": "auto"})
    return scorer.run(input=input, output=output, reference_context_ids=gold)


def test_langchain_documents_tool_messages_and_langgraph_state():
    need("langchain_core")
    from langchain_core.documents import Document
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    docs = [
        Document(page_content="Einstein was born in Ulm.", metadata={"source": "wiki"}, id="d1"),
        Document(page_content="Paris is in France.", metadata={"id": "d2"}),
    ]
    assert [(c.id, c.text) for c in framework_chunks(docs)] == [
        ("d1", "Einstein was born in Ulm."),
        ("d2", "Paris is in France."),
    ]
    state = {
        "messages": [
            HumanMessage("Where was Einstein born?"),
            ToolMessage(content="(see artifact)", tool_call_id="c1", artifact=docs[:1]),
            ToolMessage(content=json.dumps([{"id": "d3", "text": "Ulm is in Germany."}]), tool_call_id="c2"),
            AIMessage("In Ulm."),
        ]
    }  # fmt: skip
    assert [c.id for c in framework_chunks(state)] == ["d1", "d3"]
    assert framework_answer(state) == "In Ulm." and framework_answer(AIMessage("x")) == "x"
    assert auto_recall(state, ["d1", "d3"]).score == 1.0


@pytest.mark.slow
def test_llamaindex_response_source_nodes():
    need("llama_index.core")
    from llama_index.core.base.response.schema import Response
    from llama_index.core.schema import NodeWithScore, TextNode

    nodes = [
        NodeWithScore(node=TextNode(text="Einstein was born in Ulm.", id_="n1", metadata={"page": 3}), score=0.9),
        NodeWithScore(node=TextNode(text="Paris.", id_="n2"), score=0.2),
    ]  # fmt: skip
    response = Response(response="In Ulm.", source_nodes=nodes)
    chunks = framework_chunks(response)
    assert [(c.id, c.metadata) for c in chunks] == [
        ("n1", {"page": 3, "score": 0.9}),
        ("n2", {"score": 0.2}),
    ]
    assert framework_answer(response) == "In Ulm."
    mrr = create_ranking_scorer("mrr", {"context_extractor": "auto"})
    assert mrr.run(output=response, reference_context_ids=["n2"]).score == 0.5


def test_haystack_documents_and_pipeline_output():
    need("haystack")
    from haystack import Document

    output = {
        "retriever": {"documents": [Document(content="Einstein was born in Ulm.", id="h1", score=0.7)]},
        "llm": {"replies": ["In Ulm."]},
    }  # fmt: skip
    assert [(c.id, c.metadata) for c in framework_chunks(output)] == [("h1", {"score": 0.7})]
    assert framework_answer(output) == "In Ulm."
    assert auto_recall(output, ["h1"]).score == 1.0


def test_openai_responses_output_items():
    need("openai")
    from openai.types.responses import Response

    response = Response.model_construct(
        id="resp_1",
        output=[
            {"type": "file_search_call", "id": "fs", "status": "completed", "queries": ["q"],
             "results": [{"file_id": "file-1", "text": "Einstein was born in Ulm.", "score": 0.8, "filename": "bio.pdf"}]},
            {"type": "function_call_output", "call_id": "c1", "output": json.dumps({"results": [{"id": "kb-2", "text": "Ulm"}]})},
        ],
    )  # fmt: skip
    chunks = framework_chunks(response)
    assert [(c.id, c.text) for c in chunks] == [
        ("file-1", "Einstein was born in Ulm."),
        ("kb-2", "Ulm"),
    ]
    assert chunks[0].metadata == {"filename": "bio.pdf", "score": 0.8}
    assert auto_recall(response, ["file-1", "kb-2"]).score == 1.0


@pytest.mark.slow
def test_openai_agents_sdk_run_result():
    need("agents")
    from agents import Agent, RunContextWrapper
    from agents.items import ToolCallOutputItem
    from agents.result import RunResult

    agent = Agent(name="support")
    item = ToolCallOutputItem(
        agent=agent,
        raw_item={"type": "function_call_output", "call_id": "c1", "output": "[]"},
        output=[{"id": "kb-7", "text": "Reset it from Settings."}],
    )
    result = RunResult(
        input="How do I reset my password?", new_items=[item], raw_responses=[],
        final_output="From Settings.", input_guardrail_results=[], output_guardrail_results=[],
        tool_input_guardrail_results=[], tool_output_guardrail_results=[],
        context_wrapper=RunContextWrapper(context=None), _last_agent=agent,
    )  # fmt: skip
    assert [c.id for c in framework_chunks(result)] == ["kb-7"]
    assert framework_answer(result) == "From Settings."


def test_pydantic_ai_message_history():
    need("pydantic_ai")
    from pydantic_ai.messages import (
        ModelRequest,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )

    history = [
        ModelRequest(parts=[UserPromptPart(content="Where was Einstein born?")]),
        ModelResponse(parts=[ToolCallPart(tool_name="search", args={}, tool_call_id="c1")]),
        ModelRequest(parts=[ToolReturnPart(tool_name="search", content=[{"id": "p1", "text": "Ulm"}], tool_call_id="c1")]),
        ModelResponse(parts=[TextPart(content="In Ulm.")]),
    ]  # fmt: skip
    assert [(c.id, c.text) for c in framework_chunks(history)] == [("p1", "Ulm")]
    assert auto_recall(history, ["p1"]).score == 1.0


def test_plain_values_are_no_framework_objects():
    for value in (None, "text", 3, {"a": 1}, ["a", "b"], [{"id": 1, "text": "x"}]):
        assert framework_chunks(value) is None
    assert framework_answer("text") is None
    scorer = create_id_context_recall_scorer({"context_extractor": "auto"})
    with pytest.raises(UnreadableOutputError, match=r"output \(a str\)"):
        scorer.run(output="just text", reference_context_ids=["a"])
