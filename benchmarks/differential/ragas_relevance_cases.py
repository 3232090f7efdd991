"""Seeded samples and one rule for two judges: the facade's ``ContextRelevance`` and
``ContextEntityRecall`` against Ragas 0.4.3's, legacy (``evaluate``, ``single_turn_ascore``)
and ``collections`` (``ascore``).

`both_judges` answers Ragas' prompts (the legacy NVIDIA relevance templates as text, the
0.4 relevance prompts and both entity prompts as JSON) and the facade's prompts by the
same rules (`scorers._prebuilt._rule_judge.relevance_rating`, `entity_list`), with the
faults a real judge has, on cue: a question holding ``garbleone`` / ``garbletwo`` makes
that relevance judge answer something unreadable, every time; a reference holding
``Twice`` makes the entity judge list its first entity twice; one holding ``Unreadable``
makes it answer prose.
"""

from __future__ import annotations

import json
import random
from typing import Any

from evals.testing import FakeRequest, FakeResponse
from scorers._fences import block
from scorers._internal import rule_answer
from scorers._prebuilt._rule_judge import entity_list, relevance_rating

NV_FIRST = "You are a world class expert designed to evaluate the relevance score of a Context"
NV_SECOND = "As a specially designed expert to assess the relevance score of a given Context"
ENTITIES = "extract unique entities without repetition"

PEOPLE = ["Einstein", "Curie", "Lovelace", "Babbage", "Newton", "Darwin", "Tesla", "Noether"]
PLACES = ["Ulm", "Paris", "Warsaw", "London", "Vienna", "Kyoto", "Basel", "Princeton"]
WORDS = "born studied physics chemistry prize river engine algorithm temple capital".split()


def _entities(text: str) -> list[str]:
    found = entity_list(text)
    return [found[0], *found] if "Twice" in text and found else found


def _rating(question: str, context: str, judge: int) -> int | None:
    if ("garbleone" in question and judge == 1) or ("garbletwo" in question and judge == 2):
        return None
    return relevance_rating(question, context, judge)


def _ragas_input(prompt: str) -> dict[str, Any]:
    return json.loads(prompt.rsplit("input: ", 1)[1].rsplit("Output:", 1)[0])


def both_judges(request: FakeRequest) -> FakeResponse | str:
    prompt = request.prompt
    if '"rating"' in prompt and "input: {" in prompt:  # Ragas 0.4: JSON in and out
        data = _ragas_input(prompt)
        judge = 2 if NV_SECOND in prompt else 1
        rating = _rating(data["user_input"], data["context"], judge)
        return "I cannot tell." if rating is None else json.dumps({"rating": rating})
    if NV_FIRST in prompt or NV_SECOND in prompt:  # legacy: free text, a digit in it
        question = prompt.split("### Question: ", 1)[1].split("\n\n### Context: ", 1)[0]
        context = prompt.split("### Context: ", 1)[1].split("\n\nDo not try to explain.", 1)[0]
        rating = _rating(question, context, 1 if NV_FIRST in prompt else 2)
        return "I cannot tell." if rating is None else f"{rating}"
    if ENTITIES in prompt or ("entities" in prompt and "input: {" in prompt):
        if "Unreadable" in prompt.rsplit("input: ", 1)[-1]:  # also Ragas' fix-the-format retry
            return "These are the entities I found."
        return json.dumps({"entities": _entities(_ragas_input(prompt)["text"])})
    if request.schema_name == "RelevanceRating":
        judge = 2 if "Second judge." in request.task_prompt else 1
        rating = _rating(
            block("question", request.task_prompt) or "",
            block("context", request.task_prompt) or "",
            judge,
        )
        return "I cannot tell." if rating is None else json.dumps({"rating": rating})
    if request.schema_name == "Entities":
        text = block("text", request.task_prompt) or ""
        if "Unreadable" in text:
            return "These are the entities I found."
        return json.dumps({"entities": _entities(text)})
    return FakeResponse(rule_answer(request.task_prompt, request.schema_name))


def _sentence(rng: random.Random, asked: list[str]) -> str:
    who, where = rng.choice(PEOPLE), rng.choice(PLACES)
    words = rng.sample(asked, rng.randint(0, min(2, len(asked)))) + rng.sample(WORDS, 2)
    year = f" in {rng.randint(1700, 2000)}" if rng.random() < 0.4 else ""
    return f"{who} {' '.join(words)} {where}{year}."


def rows(seed: int = 0, n: int = 110) -> list[dict[str, Any]]:
    """Random samples (a question of 2-4 words; 1-4 chunks naming people, places and
    years; a reference that shares some of their entities), then the faults and edges."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for _ in range(n):
        asked = rng.sample(WORDS, rng.randint(3, 5))
        chunks = [_sentence(rng, asked) for _ in range(rng.randint(1, 3))]
        reference = " ".join([*rng.sample(chunks, 1), _sentence(rng, asked)])
        out.append(
            {
                "user_input": f"What about {' '.join(asked)}?",
                "retrieved_contexts": chunks,
                "reference": reference,
            }
        )
    base = {
        "user_input": "Where was Einstein born?",
        "retrieved_contexts": ["Einstein was born in Ulm in 1879.", "Curie studied in Paris."],
        "reference": "Einstein was born in Ulm in 1879, in Germany.",
    }
    faults = [
        {**base, "user_input": "Where was Einstein born garbleone?"},
        {**base, "user_input": "Where was Einstein born garbletwo?"},
        {**base, "user_input": "Where was Einstein born garbleone garbletwo?"},
        {**base, "reference": "Twice: Einstein was born in Ulm, Germany."},
        {**base, "reference": "Unreadable Einstein was born in Ulm."},
    ]
    edges = [
        base,
        {**base, "retrieved_contexts": []},
        {**base, "user_input": ""},
        {**base, "user_input": "   "},
        {**base, "retrieved_contexts": ["", "  "]},
        {**base, "retrieved_contexts": ["Where was Einstein born?"]},
        {**base, "retrieved_contexts": ["Einstein born"]},  # contained in the question
        {**base, "reference": ""},
        {**base, "reference": "no entities here at all."},
        {**base, "retrieved_contexts": ["Bananas are yellow."]},
    ]
    return out + faults + edges


LEGACY_ONLY = ("retrieved_contexts", "user_input")
"""Fields Ragas 0.4's ``collections`` metrics refuse when empty (``""``, ``[]``): those
samples run only through the legacy metrics."""


def collections_ok(row: dict[str, Any], metric: str) -> bool:
    """Whether Ragas 0.4's metric takes the sample (it refuses an empty question or
    list; the entity metric takes anything)."""
    if metric == "context_entity_recall":
        return "Unreadable" not in row["reference"]  # Ragas 0.4 raises; compared apart
    return bool(row["user_input"]) and bool(row["retrieved_contexts"])
