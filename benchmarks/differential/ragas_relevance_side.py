"""The Ragas side of the relevance and entity-recall differential: run in an environment
with Ragas 0.4.3 (see ragas_relevance_diff.py).

Reads ``{"url", "rows"}`` as JSON on stdin and prints, per row, Ragas' own values of
``ContextRelevance`` and ``ContextEntityRecall``: through ``evaluate`` (legacy metrics,
judge ChatOpenAI at the fake server), through the legacy ``single_turn_ascore``, and
through Ragas 0.4's ``collections`` metrics' ``ascore`` (judge ``llm_factory`` with an
AsyncOpenAI client at the fake server). NaN is null; a raised error is ``"error"``.
Imports only Ragas and its dependencies, never scorekit.
"""

from __future__ import annotations

import asyncio
import json
import math
import sys
import warnings

warnings.filterwarnings("ignore")


def clean(value):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(value)


async def legacy_one(metric, row):
    from ragas import SingleTurnSample

    try:
        return clean(await metric.single_turn_ascore(SingleTurnSample(**row)))
    except Exception:
        return "error"


async def collections_one(metric, row, fields):
    try:
        result = await metric.ascore(**{f: row[f] for f in fields})
        return clean(result.value)
    except Exception:
        return "error"


def main() -> None:
    spec = json.load(sys.stdin)
    from langchain_openai import ChatOpenAI
    from openai import AsyncOpenAI
    from ragas import EvaluationDataset, evaluate
    from ragas.llms import LangchainLLMWrapper, llm_factory
    from ragas.metrics import ContextEntityRecall, ContextRelevance
    from ragas.metrics import collections as c
    from ragas.run_config import RunConfig

    rows = spec["rows"]
    chat = ChatOpenAI(model="fake-judge", base_url=spec["url"], api_key="sk-fake", temperature=0)
    llm = LangchainLLMWrapper(chat)
    legacy = [ContextRelevance(), ContextEntityRecall()]
    result = evaluate(
        EvaluationDataset.from_list(rows),
        metrics=legacy,
        llm=llm,
        show_progress=False,
        run_config=RunConfig(max_workers=4),
    )
    out = {"evaluate": {m.name: [clean(r[m.name]) for r in result.scores] for m in legacy}}
    for m in legacy:
        m.llm = llm
    out["single_turn_ascore"] = {
        m.name: [asyncio.run(legacy_one(m, row)) for row in rows] for m in legacy
    }
    modern = llm_factory(
        "fake-judge", provider="openai", client=AsyncOpenAI(base_url=spec["url"], api_key="sk-fake")
    )
    metrics = [
        (c.ContextRelevance(llm=modern), ("user_input", "retrieved_contexts")),
        (c.ContextEntityRecall(llm=modern), ("reference", "retrieved_contexts")),
    ]
    out["collections"] = {
        m.name: [
            asyncio.run(collections_one(m, row, fields))
            if i in spec["collections"][m.name]
            else None
            for i, row in enumerate(rows)
        ]
        for m, fields in metrics
    }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
