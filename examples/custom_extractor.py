"""Register a context extractor by name and use it from any scorer.

Here the agent's output is a custom dict with a 'sources' list; the extractor turns it
into chunks with ids, which the ID-based and ranking scorers compare with gold ids.

    python examples/custom_extractor.py
"""

from scorers import (
    create_id_context_recall_scorer,
    create_ranking_scorer,
    register_context_extractor,
)


@register_context_extractor("sources")
def sources(input, output):
    """Chunks from ``output["sources"]``, in the order the agent cited them."""
    return [{"id": s["doc"], "text": s["snippet"]} for s in output.get("sources", [])]


output = {
    "answer": "The Rhine ends in the North Sea.",
    "sources": [
        {"doc": "p02", "snippet": "The Danube ..."},
        {"doc": "p01", "snippet": "The Rhine rises in the Swiss Alps ..."},
    ],
}
for scorer in (
    create_id_context_recall_scorer({"context_extractor": "sources"}),
    create_ranking_scorer("mrr", {"context_extractor": "sources"}),
):
    result = scorer.run(
        input="Where does the Rhine end?", output=output, reference_context_ids=["p01"]
    )
    print(f"{scorer.id}: {result.score:.3f} — {result.reason}")
