"""The Ragas side of the differential test: run in an environment with Ragas 0.4.3.

Reads ``{"url": fake server, "rows": [...], "metrics": [...]}`` as JSON on stdin, runs
Ragas' own ``evaluate`` with its legacy metrics (the judge: ChatOpenAI pointed at the
fake server), and prints ``{"scores": {metric: [value per row]}}`` as JSON. Imports only
Ragas and its dependencies, never scorekit.
"""

from __future__ import annotations

import json
import math
import sys
import warnings

warnings.filterwarnings("ignore")


def main() -> None:
    spec = json.load(sys.stdin)
    from langchain_openai import ChatOpenAI
    from ragas import EvaluationDataset, evaluate
    from ragas.llms import LangchainLLMWrapper
    from ragas.metrics import (
        IDBasedContextPrecision,
        IDBasedContextRecall,
        LLMContextPrecisionWithoutReference,
        LLMContextPrecisionWithReference,
        LLMContextRecall,
        NonLLMContextPrecisionWithReference,
        NonLLMContextRecall,
    )
    from ragas.metrics._string import DistanceMeasure, NonLLMStringSimilarity
    from ragas.run_config import RunConfig

    chat = ChatOpenAI(model="fake-judge", base_url=spec["url"], api_key="sk-fake", temperature=0)
    llm = LangchainLLMWrapper(chat)
    metrics = []
    for name, options in spec["metrics"]:
        measure = options.get("distance_measure")
        if name == "non_llm_context_recall":
            metric = NonLLMContextRecall(threshold=options.get("threshold", 0.5))
            if measure:
                metric.distance_measure = DistanceMeasure(measure)  # Ragas' own way
        elif name == "non_llm_context_precision_with_reference":
            similarity = NonLLMStringSimilarity(
                distance_measure=DistanceMeasure(measure or "levenshtein")
            )
            metric = NonLLMContextPrecisionWithReference(
                threshold=options.get("threshold", 0.5), distance_measure=similarity
            )
        else:
            metric = {
                "context_recall": LLMContextRecall,
                "llm_context_precision_with_reference": LLMContextPrecisionWithReference,
                "llm_context_precision_without_reference": LLMContextPrecisionWithoutReference,
                "id_based_context_recall": IDBasedContextRecall,
                "id_based_context_precision": IDBasedContextPrecision,
            }[name]()
        metric.name = options.get("as", metric.name)
        metrics.append(metric)
    dataset = EvaluationDataset.from_list(spec["rows"])
    result = evaluate(
        dataset, metrics=metrics, llm=llm, show_progress=False, run_config=RunConfig(max_workers=4)
    )
    scores = {m.name: [row[m.name] for row in result.scores] for m in metrics}
    clean = {k: [None if v is None or math.isnan(v) else v for v in vs] for k, vs in scores.items()}
    json.dump({"scores": clean}, sys.stdout)


if __name__ == "__main__":
    main()
