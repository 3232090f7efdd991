"""What a target returns is read right, scored as its own, or that item fails with a
reason (issue 34, items 2, 3 and 4)."""

from __future__ import annotations

import itertools
import json
import warnings

import pytest

from evals import IgnoredColumnsWarning, read_results, run_evals
from scorers import create_id_context_recall_scorer, create_ranking_scorer

GOLD = [{"id": "good", "text": "Einstein was born in Ulm."}]
DATA = [
    {"id": f"q{i}", "input": f"question {i}", "reference_context_ids": ["good"], "context": GOLD}
    for i in range(3)
]


def scorers():
    return [create_id_context_recall_scorer(), create_ranking_scorer("mrr")]


def test_the_targets_retrieval_is_scored_not_the_datas_context():
    def wrong_retriever(question):
        return {"output": "no idea", "context": [{"id": "bad", "text": "Paris is in France."}]}

    with pytest.warns(IgnoredColumnsWarning, match="the data's are not used"):
        result = run_evals(DATA, scorers(), target=wrong_retriever, progress=False)
    assert result.scores == {"id-context-recall": 0.0, "mrr": 0.0}  # was the file's 1.0
    assert [c.id for c in result.items[0].target_result.context] == ["bad"]


def test_a_target_that_returns_only_an_answer_is_not_scored_on_the_datas_context():
    with pytest.warns(IgnoredColumnsWarning):
        result = run_evals(DATA, scorers(), target=lambda q: "an answer", progress=False)
    assert result.summary.item_errors == 3
    assert "no context to score" in (result.items[0].error.message or "")
    auto = create_id_context_recall_scorer({"context_extractor": "auto"})
    with pytest.warns(IgnoredColumnsWarning):
        result = run_evals(DATA, [auto], target=lambda q: "an answer", progress=False)
    assert "'auto' context extractor found no retrieved context" in result.items[0].error.message


def test_no_warning_without_a_target_or_without_such_columns():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run_evals(DATA, scorers(), progress=False)
        plain = [{k: v for k, v in row.items() if k != "context"} for row in DATA]
        run_evals(
            plain, scorers(), target=lambda q: {"output": "x", "context": GOLD}, progress=False
        )


def test_langchain_outputs_as_targets():
    documents = pytest.importorskip(
        "langchain_core.documents", reason="pip install 'scorekit[frameworks]'"
    )
    docs = [documents.Document(page_content="Einstein was born in Ulm.", id="good")]
    plain = [{k: v for k, v in row.items() if k != "context"} for row in DATA]
    for target in (
        lambda q: {"output": "In Ulm.", "context": docs},  # used to abort the run
        lambda q: {"input": q, "context": docs, "answer": "In Ulm."},  # create_retrieval_chain
        lambda q: {"query": q, "result": "In Ulm.", "source_documents": docs},  # RetrievalQA
    ):
        result = run_evals(plain, scorers(), target=target, progress=False)
        assert result.scores == {"id-context-recall": 1.0, "mrr": 1.0}
        assert result.items[0].target_result.output == "In Ulm."


class LazyDocument:
    id = "good"

    @property
    def page_content(self):
        raise RuntimeError("the lazy loader lost its connection")


class BadStr:
    def __str__(self):
        raise RuntimeError("no text")

    __repr__ = __str__


def test_misbehaving_objects_fail_their_item_only_and_resume_goes_on(tmp_path):
    plain = [{k: v for k, v in row.items() if k != "context"} for row in DATA]
    plain.append({"id": "q3", "input": "endless", "reference_context_ids": ["good"]})
    plain.append({"id": "q4", "input": "badstr", "reference_context_ids": ["good"]})

    def target(question):
        if question == "question 1":
            return {"output": "x", "context": [LazyDocument()]}
        if question == "endless":
            return {"output": "x", "context": itertools.repeat({"id": "x", "text": "y"})}
        if question == "badstr":
            return {"output": BadStr(), "context": [BadStr()]}
        return {"output": "x", "context": GOLD}

    path = tmp_path / "run.jsonl"
    result = run_evals(plain, scorers(), target=target, results_path=path, progress=False)
    errors = {item.item.id: item.error for item in result.items if item.error}
    assert set(errors) == {"q1", "q3", "q4"}
    assert errors["q1"].phase == "target" and "lost its connection" in errors["q1"].message
    assert "more than 10,000 chunks" in errors["q3"].message
    assert "retrieved chunk 0 is a" in errors["q4"].message
    assert result.scores == {"id-context-recall": 1.0, "mrr": 1.0}  # q0 and q2
    lines = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    assert len(lines) == 5
    again = run_evals(
        plain, scorers(), target=target, results_path=path, resume=True, progress=False
    )
    assert again.summary.item_errors == 3 and len(read_results(path)) == 5


def test_an_output_whose_repr_raises_is_stored_as_a_placeholder(tmp_path):
    plain = [{k: v for k, v in row.items() if k != "context"} for row in DATA[:1]]
    path = tmp_path / "run.jsonl"
    result = run_evals(
        plain,
        scorers(),
        target=lambda q: {"output": BadStr(), "context": GOLD},
        results_path=path,
        progress=False,
    )
    assert result.scores == {"id-context-recall": 1.0, "mrr": 1.0}
    stored = read_results(path)[0].target_result.output
    assert "BadStr" in stored and "repr raised" in stored


@pytest.mark.parametrize("returned", [42, 4.2, True, None, b"bytes"])
def test_a_target_returning_a_scalar_fails_its_item_naming_the_type(returned):
    result = run_evals(DATA, scorers(), target=lambda q: returned, progress=False)
    error = result.items[0].error
    assert error is not None and error.phase == "target"
    assert f"the target returned {type(returned).__name__} {returned!r}" in error.message
    assert "return the answer (a string)" in error.message


def test_a_retrieval_without_an_answer_has_no_output():
    from scorers import create_context_utilization_scorer

    def retrieve_only(question):
        return {"context": GOLD}

    utilization = create_context_utilization_scorer("openai/never-called")
    result = run_evals(DATA, [*scorers(), utilization], target=retrieve_only, progress=False)
    item = result.items[0]
    assert item.target_result.output is None and item.target_result.context is not None
    assert item.scorer_results["context-utilization"].status == "skipped"  # no answer: no call
    assert result.summary.model_calls == 0
