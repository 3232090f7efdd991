"""run_evals with the targets people already run: a LangChain retriever chain and a
LlamaIndex query engine, built offline over an in-memory corpus."""

from __future__ import annotations

import pytest

from evals import run_evals
from evals.testing import FakeLLMServer
from scorers import (
    create_context_recall_scorer,
    create_id_context_recall_scorer,
    create_ranking_scorer,
)

CORPUS = {
    "ulm": "Albert Einstein was born in Ulm in 1879.",
    "curie": "Marie Curie discovered polonium and radium.",
    "paris": "Paris is the capital of France.",
}
DATA = [
    {"id": "einstein", "input": "Where was Einstein born?",
     "ground_truth": "Einstein was born in Ulm.", "reference_context_ids": ["ulm"]},
    {"id": "curie", "input": "What did Marie Curie discover?",
     "ground_truth": "Marie Curie discovered polonium.", "reference_context_ids": ["curie"]},
]  # fmt: skip


def scorers(judge):
    return [
        create_id_context_recall_scorer(),
        create_ranking_scorer("mrr"),
        create_context_recall_scorer(judge),
    ]


def overlap_rank(question: str) -> list[str]:
    words = set(question.lower().strip("?").split())
    return sorted(CORPUS, key=lambda d: (-len(words & set(CORPUS[d].lower().split())), d))


def test_a_langchain_retriever_chain_as_the_target():
    pytest.importorskip("langchain_core", reason="pip install 'scorekit[frameworks]'")
    from langchain_core.documents import Document
    from langchain_core.runnables import RunnableLambda

    def retrieve(question: str) -> list[Document]:
        return [Document(page_content=CORPUS[d], id=d) for d in overlap_rank(question)[:2]]

    chain = RunnableLambda(retrieve)  # a retriever chain: question -> Documents
    with FakeLLMServer() as server:
        result = run_evals(DATA, scorers(server.judge()), target=chain, progress=False)
    assert result.summary.item_errors == 0
    assert result.scores == {"id-context-recall": 1.0, "mrr": 1.0, "context-recall": 1.0}
    first = result.items[0].target_result
    assert [c.id for c in first.context] == ["ulm", "curie"]  # the framework's own ids


@pytest.mark.slow
def test_a_llamaindex_query_engine_as_the_target():
    pytest.importorskip("llama_index.core", reason="pip install 'scorekit[frameworks]'")
    from llama_index.core import Settings, VectorStoreIndex
    from llama_index.core.embeddings import MockEmbedding
    from llama_index.core.llms import MockLLM
    from llama_index.core.schema import TextNode

    Settings.embed_model = MockEmbedding(embed_dim=8)  # a local stand-in: no network
    nodes = [TextNode(text=text, id_=doc_id) for doc_id, text in CORPUS.items()]
    engine = VectorStoreIndex(nodes).as_query_engine(llm=MockLLM(), similarity_top_k=3)
    with FakeLLMServer() as server:
        result = run_evals(DATA, scorers(server.judge()), target=engine, progress=False)
    assert result.summary.item_errors == 0
    assert result.scores["id-context-recall"] == 1.0  # all three nodes come back
    item = result.items[0].target_result
    assert sorted(c.id for c in item.context) == ["curie", "paris", "ulm"]
    assert all("score" in c.metadata for c in item.context)
    assert isinstance(item.output, str)


@pytest.mark.slow
def test_a_haystack_pipeline_as_the_target():
    pytest.importorskip("haystack", reason="pip install 'scorekit[frameworks]'")
    from haystack import Document, Pipeline
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
    from haystack.document_stores.in_memory import InMemoryDocumentStore

    store = InMemoryDocumentStore()
    store.write_documents([Document(content=text, id=doc_id) for doc_id, text in CORPUS.items()])
    pipeline = Pipeline()
    pipeline.add_component("retriever", InMemoryBM25Retriever(document_store=store, top_k=2))
    with FakeLLMServer() as server:
        result = run_evals(DATA, scorers(server.judge()), target=pipeline, progress=False)
    assert result.summary.item_errors == 0
    assert result.scores["id-context-recall"] == 1.0 and result.scores["mrr"] == 1.0
    assert result.items[0].target_result.context[0].id == "ulm"


def test_a_pipeline_without_a_question_input_is_a_clear_error():
    pytest.importorskip("haystack", reason="pip install 'scorekit[frameworks]'")
    from haystack import Pipeline
    from haystack.components.joiners import DocumentJoiner

    from scorers import ConfigError

    pipeline = Pipeline()
    pipeline.add_component("joiner", DocumentJoiner())
    with pytest.raises(ConfigError, match="no input named query"):
        run_evals(DATA, [create_id_context_recall_scorer()], target=pipeline, progress=False)


def test_the_judge_sees_the_question_inside_framework_objects():
    pytest.importorskip("langchain_core", reason="pip install 'scorekit[frameworks]'")
    import json

    from langchain_core.documents import Document
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    state = {
        "messages": [
            HumanMessage("Where was Einstein born?"),
            ToolMessage(content="1", tool_call_id="c1", artifact=[Document(page_content=CORPUS["ulm"], id="ulm")]),
            AIMessage("In Ulm."),
        ]
    }  # fmt: skip
    with FakeLLMServer() as server:
        recall = create_context_recall_scorer(server.judge(), {"context_extractor": "auto"})
        result = recall.run(input=state, output=state, ground_truth="Einstein was born in Ulm.")
        sent = json.dumps([r.body for r in server.requests])
    assert result.score == 1.0
    assert "Where was Einstein born?" in sent and "HumanMessage" not in sent
