"""One reader of pipeline results: what it reads, and that what it cannot read is an
error that names it — never a score of 0 (issue 34, items 1, 2 and 4)."""

from __future__ import annotations

import itertools

import pytest

from scorers import (
    MAX_CHUNKS,
    UnreadableOutputError,
    create_context_utilization_scorer,
    create_id_context_recall_scorer,
    final_text,
    read_result,
    retrieved_chunks,
)
from scorers._engine import score_detached


def auto(output, gold=("d1",), input="q"):
    scorer = create_id_context_recall_scorer({"context_extractor": "auto"})
    return scorer.run(input=input, output=output, reference_context_ids=list(gold))


@pytest.mark.parametrize(
    "output",
    [
        "an answer with no chunks",
        object(),
        {"answer": "x", "sources": ["d1"]},
        {"output": "only an answer"},
        42,
    ],
)
def test_an_output_auto_cannot_read_is_an_error_naming_it(output):
    with pytest.raises(UnreadableOutputError) as caught:
        auto(output)
    message = str(caught.value)
    assert type(output).__name__ in message
    assert "'context'" in message and "context_extractor" in message
    if isinstance(output, dict):
        assert all(repr(key) in message for key in output)


@pytest.mark.parametrize("output", [[], {"context": []}, {"output": "x", "context": []}])
def test_a_readable_empty_retrieval_is_a_real_zero(output):
    result = auto(output)
    assert (result.score, result.status) == (0.0, "scored")
    assert "no context was retrieved" in result.reason


@pytest.mark.parametrize(
    "output",
    [
        {"output": "x", "context": [{"id": "d1", "text": "t"}]},
        {"context": [{"id": "d0", "text": "a"}, {"id": "d1", "text": "t"}]},
        {"question": "q", "context": [{"id": "d1", "text": "t"}], "response": "a"},
        {"user_input": "q", "retrieved_contexts": [{"id": "d1", "text": "t"}]},
        [{"id": "d1", "text": "t"}],
        ({"id": "d1", "text": "t"},),
        (chunk for chunk in [{"id": "d1", "text": "t"}]),
    ],
)
def test_shapes_that_carry_chunks_are_read(output):
    assert auto(output).score == 1.0


def test_live_scoring_of_an_output_context_dict_reads_its_answer_and_chunks():
    """docs/agents.md's scored() example: it printed 0.0 for an answer built from its chunk."""
    from evals.testing import FakeLLMServer

    output = {
        "output": "Open Settings > Security and reset it.",
        "context": [{"id": "kb-7", "text": "Reset your password from Settings > Security."}],
    }
    assert final_text(output) == "Open Settings > Security and reset it."
    with FakeLLMServer() as server:
        scorer = create_context_utilization_scorer(server.judge(), {"context_extractor": "auto"})
        from scorers import ScorerRun
        from scorers._sync import run_sync

        result = run_sync(score_detached, scorer, ScorerRun(input="q", output=output))
    assert (result.score, result.status) == (1.0, "scored")


def test_langchain_rag_outputs_are_read():
    documents = pytest.importorskip(
        "langchain_core.documents", reason="pip install 'scorekit[frameworks]'"
    )
    docs = [documents.Document(page_content="Ulm", id="d1"), documents.Document("Bern", id="d2")]
    chain = {"input": "Where?", "context": docs, "answer": "In Ulm."}  # create_retrieval_chain
    qa = {"query": "Where?", "result": "In Ulm.", "source_documents": docs}  # RetrievalQA
    for output in (chain, qa):
        reading = read_result(output)
        assert reading is not None and reading.answer == "In Ulm."
        assert [(c.id, c.text) for c in reading.chunks or []] == [("d1", "Ulm"), ("d2", "Bern")]
        assert final_text(output) == "In Ulm."
        assert auto(output).score == 1.0
    assert auto({"output": "In Ulm.", "context": docs}).score == 1.0  # Documents inside
    assert auto(docs[0]).score == 1.0  # one Document


class LazyDocument:
    @property
    def page_content(self):
        raise RuntimeError("the lazy loader lost its connection")


class BrokenNode:
    node_id = "n1"
    metadata = None

    def get_content(self):
        raise OSError("blob store unreachable")


class BadStr:
    def __str__(self):
        raise RuntimeError("no text")


@pytest.mark.parametrize(
    ("output", "says"),
    [
        ({"output": "x", "context": [LazyDocument()]}, "lost its connection"),
        ({"output": "x", "context": [BrokenNode()]}, "blob store unreachable"),
        ({"output": "x", "context": [BadStr()]}, "retrieved chunk 0 is a"),
        ({"output": "x", "context": itertools.repeat("chunk")}, "more than 10,000 chunks"),
        ({"output": "x", "context": ["c"] * (MAX_CHUNKS + 1)}, "more than 10,000 chunks"),
    ],
)
def test_objects_that_misbehave_are_an_error_of_that_run(output, says):
    with pytest.raises(UnreadableOutputError, match=says):
        auto(output)


def test_an_answer_whose_str_raises_is_an_error_not_a_skip():
    with pytest.raises(UnreadableOutputError, match="cannot be read as text"):
        final_text(BadStr())


def test_retrieved_chunks_names_the_item_it_cannot_read():
    assert [c.text for c in retrieved_chunks(["a", 1, {"text": "b"}])] == ["a", "1", "b"]
    with pytest.raises(UnreadableOutputError, match=r"chunk 1 is a set"):
        retrieved_chunks(["a", {"x"}])
    with pytest.raises(UnreadableOutputError, match="a list of chunks; got a str"):
        retrieved_chunks("one string")


def test_tool_results_on_an_output_that_is_no_history_is_an_error():
    scorer = create_id_context_recall_scorer({"context_extractor": "tool_results"})
    with pytest.raises(UnreadableOutputError, match="reads a message history"):
        scorer.run(input="q", output="text", reference_context_ids=["d1"])
    history = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "no tools"}]
    result = scorer.run(input=history[:1], output=history, reference_context_ids=["d1"])
    assert (result.score, result.status) == (0.0, "scored")  # a history with no tool call
