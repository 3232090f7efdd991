from scorers import AgentOutput, Chunk, final_text, is_agent_shaped
from scorers._messages import result_chunks


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
    assert is_agent_shaped(history) and not is_agent_shaped("x") and not is_agent_shaped([])
