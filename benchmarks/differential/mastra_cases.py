"""Seeded cases and one rule for two judges, for the differential test against Mastra's
``createContextRelevanceScorerLLM`` (@mastra/evals 1.10).

`both_judges` answers scorekit's context-relevance prompt (the rule judge's
``RelevanceVerdicts`` answer) and Mastra's analyze prompt by the same rule
(`scorers._prebuilt._rule_judge.relevance_judgement`), so the two sides see the same
levels, uses and missing items, and any difference in values is in how they turn those
into a number. Mastra's reason prompt gets a fixed sentence.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from evals.testing import FakeRequest, FakeResponse
from scorers._internal import rule_answer
from scorers._prebuilt._rule_judge import relevance_judgement

MASTRA_ANALYZE = "Analyze the relevance of the provided context for answering the user's query"
MASTRA_REASON = "Explain the context relevance score"

WORDS = (
    "einstein ulm physics nobel prize violin relativity photon bern patent clerk princeton "
    "danube vienna river danube delta black sea rhine basel rotterdam alps glacier "
    "curie radium polonium warsaw paris sorbonne chemistry lovelace babbage engine "
    "algorithm notes analytical fuji volcano honshu kyoto temple capital emperor atacama "
    "desert chile rainfall"
).split()


def _mastra_parts(prompt: str) -> tuple[str, str, list[str]]:
    """The query, the response and the context pieces of Mastra's analyze prompt."""
    query = prompt.split("User Query:\n", 1)[1].split("\n\nAgent Response:\n", 1)[0]
    response = prompt.split("\n\nAgent Response:\n", 1)[1].split("\n\nContext pieces", 1)[0]
    block = prompt.split("Context pieces to evaluate:\n", 1)[1].split("\n\nFor each", 1)[0]
    pieces = [re.sub(r"^\[\d+\] ", "", line) for line in block.split("\n")]
    return query, response, pieces


def both_judges(request: FakeRequest) -> FakeResponse | str:
    prompt = request.prompt
    if MASTRA_ANALYZE in prompt:
        query, response, pieces = _mastra_parts(prompt)
        found, missing = relevance_judgement(query, pieces, response)
        return json.dumps(
            {
                "evaluations": [
                    {
                        "context_index": i,
                        "contextPiece": piece,
                        "relevanceLevel": level,
                        "wasUsed": bool(used),
                        "reasoning": f"{level} word overlap with the question",
                    }
                    for i, (piece, (level, used)) in enumerate(zip(pieces, found, strict=True))
                ],
                "missingContext": missing,
                "overallAssessment": "by rule",
            }
        )
    if MASTRA_REASON in prompt:
        return "The score is as computed, by rule."
    return FakeResponse(rule_answer(request.task_prompt, request.schema_name))


def _sentence(words: list[str]) -> str:
    return (" ".join(words) + ".").capitalize()


def cases(seed: int = 0, n: int = 120) -> list[dict[str, Any]]:
    """Random cases (a question of 2-5 content words; 1-6 chunks sharing 0-all of them;
    a response built from some chunks or from none; scales and penalties varied), then the
    edges a user hits."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for _ in range(n):
        asked = rng.sample(WORDS, rng.randint(2, 5))
        chunks = []
        for _ in range(rng.randint(1, 6)):
            shared = rng.sample(asked, rng.randint(0, len(asked)))
            chunks.append(_sentence(shared + rng.sample(WORDS, rng.randint(1, 4))))
        used = [c for c in chunks if rng.random() < 0.5]
        response = " ".join(used) if used else _sentence(rng.sample(WORDS, 3))
        case: dict[str, Any] = {
            "question": f"What about {' '.join(asked)}?",
            "context": chunks,
            "response": response,
            "scale": rng.choice([1, 1, 1, 10, 1_000_000]),
        }
        if rng.random() < 0.25:
            case["penalties"] = {
                "unusedHighRelevanceContext": rng.choice([0.0, 0.05, 0.2, 0.5]),
                "missingContextPerItem": rng.choice([0.0, 0.1, 0.3]),
                "maxMissingContextPenalty": rng.choice([0.2, 0.5, 1.0]),
            }
        out.append(case)
    q = "What about einstein ulm physics?"
    edges = [
        {"question": q, "context": ["Einstein was born in ulm and studied physics."],
         "response": "Einstein was born in ulm and studied physics.", "scale": 1},
        {"question": q, "context": ["Bananas are yellow.", "Chess has squares."],
         "response": "No idea.", "scale": 1},  # all none, everything missing: the cap
        {"question": q, "context": ["Einstein ulm physics."] * 3,
         "response": "Unrelated words here.", "scale": 1},  # three unused high chunks
        {"question": q, "context": ["Einstein ulm physics.", "Ulm physics."],
         "response": "Einstein ulm physics.", "scale": 1_000_000},
        {"question": q, "context": ["Einstein ulm physics.", "Paris sorbonne."],
         "response": "Einstein ulm physics.", "scale": 1,
         "penalties": {"unusedHighRelevanceContext": 1.0, "missingContextPerItem": 1.0,
                       "maxMissingContextPenalty": 1.0}},
        {"question": q, "context": ["Einstein ulm physics.", "Bananas are yellow."],
         "response": "", "scale": 1},  # no response: a retriever alone
    ]  # fmt: skip
    return out + edges


def all_cases() -> list[dict[str, Any]]:
    """The cases of the differential: `cases` of seed 0 (with the edges)."""
    return cases(0)
