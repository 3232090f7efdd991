"""Context recall with a static context, and with an extractor over an agent history.

python examples/recall.py                 # fake judge, no key needed
SCOREKIT_MODEL=openai/gpt-4o-mini python examples/recall.py
"""

import json

from _judge import example_judge

from scorers import create_context_recall_scorer

with example_judge() as judge:
    static = create_context_recall_scorer(
        judge,
        {
            "context": [
                "Albert Einstein was born on 14 March 1879 in Ulm.",
                "Einstein received the Nobel Prize in Physics in 1921.",
            ]
        },
    )
    result = static.run(
        input="Tell me about Einstein.",
        output="Einstein was born in 1879 and won the Nobel Prize.",
        ground_truth="Einstein was born in Ulm in 1879. He won the 1921 Nobel Prize in Physics. "
        "He played the violin.",
    )
    print(f"static context: score {result.score:.3f}\n{result.reason}\n")

    history = [  # what an agent returns: OpenAI chat format with tool calls and results
        {"role": "user", "content": "Where was Einstein born?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "search", "arguments": '{"query": "Einstein birthplace"}'},
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "content": json.dumps(
                {"results": [{"id": "doc-7", "text": "Albert Einstein was born in Ulm in 1879."}]}
            ),
        },
        {"role": "assistant", "content": "He was born in Ulm."},
    ]
    from_history = create_context_recall_scorer(judge, {"context_extractor": "tool_results"})
    result = from_history.run(
        input="Where was Einstein born?", output=history, ground_truth="Einstein was born in Ulm."
    )
    print(f"extracted from the agent's tool results: score {result.score:.3f}")
    print(f"chunks scored: {result.details['context']}")
