"""An agent with a retrieval tool and a live scorer attached.

The agent searches the quickstart corpus with BM25; after each answer the attached
scorer runs in the background (sampled) and lands in the score store. Live traffic has
no ground truth, so the live scorer is context utilization: were the retrieved chunks
the ones the answer used? (Recall and precision need labelled data: run_evals.)

    python examples/agent.py                  # fake model that calls the tool, no key
    SCOREKIT_MODEL=openai/gpt-4o-mini python examples/agent.py
"""

import json

from _judge import example_judge

from evals import Agent, quickstart
from evals.testing import FakeRequest, FakeResponse, rule_based_judge
from scorers import create_context_utilization_scorer

retriever = quickstart.BM25Retriever(quickstart.passages(), k=2)


def search(query: str) -> list[dict]:
    """Search the encyclopedia and return the best passages.

    Args:
        query: Keywords to search for.
    """
    return [{"id": c.id, "text": c.text} for _, c in retriever.search(query)]


def fake_model(request: FakeRequest) -> FakeResponse:
    """Stands in for a tool-calling model: search first, then answer from the result."""
    if request.schema_name:  # a scorer's judge prompt
        return rule_based_judge(request)
    last = request.messages[-1]
    if last["role"] == "user":
        return FakeResponse(
            tool_calls=[{"name": "search", "arguments": {"query": last["content"]}}]
        )
    return FakeResponse(content=json.loads(last["content"])[0]["text"])


with example_judge(fake_model) as model:
    agent = Agent(
        name="encyclopedia",
        model=model,
        instructions="Answer with the search tool; cite what it returns.",
        tools=[search],
        scorers={
            "utilization": {
                "scorer": create_context_utilization_scorer(
                    model, {"context_extractor": "tool_results"}
                ),
                "sampling": {"type": "ratio", "rate": 1.0},  # 0.1 would score 10% of answers
            },
        },
        on_score=lambda r: print(f"  [live] {r.scorer_key}: {r.score:.2f} ({r.status})"),
    )
    for question in ("Who discovered penicillin?", "When did the Berlin Wall fall?"):
        output = agent.generate(question)
        print(f"Q: {question}\nA: {output.text}  ({output.steps} model calls)")
    agent.flush_scores()
    print(f"\n{len(agent.score_store.list())} live scores stored")
