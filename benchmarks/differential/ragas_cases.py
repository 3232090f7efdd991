"""Seeded samples and one rule for two judges, for the differential test against Ragas.

`both_judges` answers scorekit's judge prompts (the fake server's rule) and Ragas 0.4.3's
legacy context-recall and context-precision prompts by the same rule (`supports`: a chunk
backs a sentence when it holds >= 60% of its content words), so the two sides see the
same verdicts and any difference in values is in how they turn verdicts into numbers.
"""

from __future__ import annotations

import json
import random

from evals.testing import FakeRequest, FakeResponse
from scorers._internal import rule_answer
from scorers._prebuilt._rule_judge import _sentences, supports

RAGAS_RECALL = "Given a context, and an answer, analyze each sentence in the answer"
RAGAS_PRECISION = "Given question, answer and context verify if the context was useful"

FACTS = [
    "The Eiffel Tower is in Paris.",
    "Einstein was born in Ulm.",
    "The Danube flows through Vienna.",
    "Marie Curie won two Nobel prizes.",
    "The Rhine ends in the North Sea.",
    "Mount Fuji is the highest peak in Japan.",
    "The Amazon carries the most water of any river.",
    "Ada Lovelace wrote the first published algorithm.",
    "Kyoto was the capital of Japan for a thousand years.",
    "The Atacama is the driest desert on Earth.",
]
NOISE = ["Bananas are yellow.", "Chess has sixty four squares.", "Owls hunt at night."]


def both_judges(request: FakeRequest) -> FakeResponse | str:
    prompt = request.prompt
    if RAGAS_RECALL in prompt or RAGAS_PRECISION in prompt:
        data = json.loads(prompt.rsplit("input: ", 1)[1].rsplit("Output:", 1)[0])
        answer = _sentences(data["answer"])
        if RAGAS_RECALL in prompt:
            chunks = [c for c in data["context"].split("\n") if c]
            return json.dumps(
                {
                    "classifications": [
                        {
                            "statement": s,
                            "reason": "by rule",
                            "attributed": int(any(supports(c, s) for c in chunks)),
                        }
                        for s in answer
                    ]
                }
            )
        useful = any(supports(data["context"], s) for s in answer)
        return json.dumps({"reason": "by rule", "verdict": int(useful)})
    return FakeResponse(rule_answer(request.task_prompt, request.schema_name))


def rows(seed: int = 0, n: int = 40) -> list[dict[str, object]]:
    """Random samples, then the edge samples a real user hits: no retrieval, a blank or
    missing reference, no reference contexts, no ids, repeated and integer ids."""
    rng = random.Random(seed)
    out: list[dict[str, object]] = []
    for _ in range(n):
        gold = rng.sample(FACTS, rng.randint(1, 3))
        pool = gold + rng.sample(FACTS, 2) + NOISE
        retrieved = rng.sample(pool, rng.randint(1, 5))
        if rng.random() < 0.3:  # near-copies: string similarity below 1
            retrieved = [c.replace("The ", "the ").rstrip(".") for c in retrieved]
        if rng.random() < 0.3:  # cut chunks: Levenshtein and Jaro part ways
            retrieved = [c[: len(c) * 2 // 3] for c in retrieved]
        ids = [FACTS.index(c) if c in FACTS else 100 + NOISE.index(c) for c in rng.sample(pool, 3)]
        out.append(
            {
                "user_input": "What do you know?",
                "retrieved_contexts": retrieved,
                "reference": " ".join(gold),
                "response": " ".join(rng.sample(gold + NOISE, 2)),
                "reference_contexts": gold,
                "retrieved_context_ids": [str(i) for i in ids],
                "reference_context_ids": [str(FACTS.index(g)) for g in gold],
            }
        )
    gold = FACTS[:2]
    base = {
        "user_input": "Where is the tower, and where was Einstein born?",
        "retrieved_contexts": [NOISE[0], gold[0], FACTS[5], gold[1]],
        "reference": " ".join(gold),
        "response": gold[1],
        "reference_contexts": gold,
        "retrieved_context_ids": ["100", "0", "5", "1"],
        "reference_context_ids": ["0", "1"],
    }
    out.append(base)
    edges: list[dict[str, object]] = [
        {**base, "retrieved_contexts": []},
        {**base, "reference": ""},
        {**base, "reference": "   "},
        {**base, "response": ""},
        {**base, "reference_contexts": []},
        {**base, "retrieved_context_ids": []},
        {**base, "reference_context_ids": []},
        {**base, "retrieved_context_ids": ["1", "1", "2"], "reference_context_ids": ["1"]},
        {**base, "retrieved_context_ids": [1, 2], "reference_context_ids": ["1"]},
        {**base, "retrieved_contexts": [], "reference": ""},
        # issue 47: whitespace-only texts and empty chunks, as files and tools give them
        {**base, "response": "  \n"},
        {**base, "reference": "\t"},
        {**base, "retrieved_contexts": [gold[0], "", gold[1]]},
        {**base, "retrieved_contexts": ["   ", gold[1]]},
        {**base, "reference_contexts": ["", gold[0]]},
        {**base, "retrieved_contexts": [""], "reference": gold[0]},
    ]
    return out + edges


def all_rows() -> list[dict[str, object]]:
    """The samples of the differential: `rows` of seed 0 (with the edges), then 20 more
    random samples of seed 47."""
    return rows(0) + rows(47, 20)[:20]


METRICS: list[tuple[str, dict[str, object]]] = [
    ("context_recall", {}),
    ("llm_context_precision_with_reference", {}),
    ("llm_context_precision_without_reference", {}),
    ("non_llm_context_recall", {}),
    (
        "non_llm_context_recall",
        {"distance_measure": "jaro", "threshold": 0.8, "as": "nl_recall_jaro"},
    ),
    ("non_llm_context_precision_with_reference", {}),
    (
        "non_llm_context_precision_with_reference",
        {"distance_measure": "jaro_winkler", "as": "nl_precision_jw"},
    ),
    ("id_based_context_recall", {}),
    ("id_based_context_precision", {}),
]
"""Ragas legacy metric names, with options (``as``: the name the result goes under)."""
