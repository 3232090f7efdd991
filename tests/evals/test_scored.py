"""scored(): live scoring for any agent callable, sync or async, as evals.Agent does it."""

from __future__ import annotations

import time

import anyio
import pytest

from evals import SqliteScoreStore, scored
from scorers import ConfigError, create_id_context_recall_scorer, create_scorer

RECALL = create_id_context_recall_scorer({"context_extractor": "auto"})


def slow_scorer(seconds: float):
    def wait(run, results):
        time.sleep(seconds)
        return 1.0

    return create_scorer(id="slow").generate_score(wait)


@pytest.mark.slow
def test_a_sync_agent_keeps_its_result_and_scores_in_the_background(tmp_path):
    seen = []

    @scored(scorers={"recall": RECALL, "slow": slow_scorer(0.3)}, on_score=seen.append,
            score_store=SqliteScoreStore(tmp_path / "scores.sqlite3"))  # fmt: skip
    def answer(question: str) -> dict:
        return {"output": "In Ulm.", "context": [{"id": "d1", "text": "Ulm"}]}

    result = answer("Where was Einstein born?")
    assert "slow" not in [r.scorer_key for r in seen]  # the answer never waits for its scorers
    assert result == {"output": "In Ulm.", "context": [{"id": "d1", "text": "Ulm"}]}
    assert answer.__name__ == "answer"
    answer.flush_scores()
    assert sorted(r.scorer_key for r in seen) == ["recall", "slow"]
    stored = answer.score_store.list(agent="answer")
    assert {r.scorer_key: r.score for r in stored}["slow"] == 1.0
    answer.close()


def test_sampling_and_framework_outputs_with_an_async_agent():
    pytest.importorskip("langchain_core", reason="pip install 'scorekit[frameworks]'")
    from langchain_core.documents import Document

    async def retrieve(question: str) -> list[Document]:
        return [Document(page_content="Einstein was born in Ulm.", id="wiki-42")]

    never = scored(retrieve, scorers=[RECALL], sampling={"type": "ratio", "rate": 0.0})
    always = scored(retrieve, scorers=[RECALL], name="retriever")

    async def main() -> None:
        docs = await always("Where was Einstein born?")
        assert docs[0].id == "wiki-42"  # the agent's own result
        await never("Where was Einstein born?")
        await always.aflush_scores()
        await never.aflush_scores()
        await always.aclose()

    anyio.run(main)
    records = always.score_store.list()
    assert [(r.agent, r.scorer_id, r.status) for r in records] == [
        ("retriever", "id-context-recall", "skipped")  # no gold ids on live traffic
    ]
    assert never.score_store.list() == []


def test_bad_arguments_are_clear():
    with pytest.raises(ConfigError, match="at least one scorer"):
        scored(lambda q: q, scorers={})
    with pytest.raises(ConfigError, match="expected a Scorer"):
        scored(lambda q: q, scorers={"x": "not a scorer"})
    with pytest.raises(ConfigError, match="rate"):
        scored(lambda q: q, scorers=[RECALL], sampling={"type": "ratio", "rate": 2})
    with pytest.raises(ConfigError, match="wraps a callable"):
        scored(scorers=[RECALL])(42)
