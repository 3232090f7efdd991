from scorers import AgentOutput, Chunk, final_text, is_agent_shaped, tool_results
from scorers._messages import question_text, result_chunks


def test_result_chunks_parses_json_shapes():
    assert result_chunks('[{"id": 1, "text": "a"}, {"doc_id": "b", "page_content": "B"}]') == [
        Chunk(id="1", text="a"),
        Chunk(id="b", text="B", metadata={"doc_id": "b"}),
    ]
    assert result_chunks('{"documents": ["x", "y"]}') == [Chunk(text="x"), Chunk(text="y")]
    assert result_chunks('{"temp": 21}') == [Chunk(text='{"temp": 21}')]
    assert result_chunks("plain text") == [Chunk(text="plain text")]
    assert result_chunks("42") == [Chunk(text="42")]
    assert result_chunks(None) == [] and result_chunks("  ") == []


def test_final_text_and_agent_shape():
    history = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "answer"}]
    assert final_text(history) == "answer"
    assert final_text(AgentOutput(text="t")) == "t"
    assert final_text({"messages": history}) == "answer"
    assert final_text("plain") == "plain" and final_text(None) == ""
    mastra = [{"role": "assistant", "content": {"parts": [{"type": "text", "text": "hi"}]}}]
    assert final_text(mastra) == "hi"
    assert is_agent_shaped(history) and not is_agent_shaped("x")
    assert is_agent_shaped([])  # Mastra: an agent output that is an empty message list


def test_mastras_agent_run_input_is_agent_shaped_and_asks_its_last_user_message():
    run_input = {
        "inputMessages": [{"role": "user", "content": "Where was Einstein born?"}],
        "rememberedMessages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello!"},
        ],
        "systemMessages": [{"role": "system", "content": "Be brief."}],
        "taggedSystemMessages": {},
    }
    assert is_agent_shaped(run_input)
    assert question_text(run_input) == "Where was Einstein born?"  # before: a dict repr
    assert not is_agent_shaped({"inputMessages": []})


def test_tool_results_skip_invocations_without_a_result():
    history = [
        {
            "role": "assistant",
            "content": {
                "format": 2,
                "parts": [
                    {
                        "type": "tool-invocation",
                        "toolInvocation": {
                            "state": "result",
                            "toolCallId": "a",
                            "toolName": "search",
                            "args": {},
                            "result": ["found"],
                        },
                    },
                    {
                        "type": "tool-invocation",
                        "toolInvocation": {
                            "state": "result",
                            "toolCallId": "b",
                            "toolName": "search",
                            "args": {},
                        },
                    },
                    {
                        "type": "tool-invocation",
                        "toolInvocation": {
                            "state": "call",
                            "toolCallId": "c",
                            "toolName": "search",
                            "args": {},
                        },
                    },
                ],
            },
        }
    ]
    assert [(r.call_id, r.result) for r in tool_results(history)] == [("a", ["found"])]
