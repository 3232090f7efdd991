"""A Ragas-compatible facade: migrate from Ragas 0.4 by changing one import.

```python
# from ragas.metrics.collections import ContextPrecision, ContextRecall
# from ragas.llms import llm_factory
from scorers.ragas import ContextPrecision, ContextRecall, llm_factory

llm = llm_factory("gpt-4o-mini", client=openai.AsyncOpenAI())
result = await ContextRecall(llm=llm).ascore(
    user_input="Where is the Eiffel Tower?", retrieved_contexts=[...], reference="...")
result.value, result.reason, float(result)
```

Ragas' module paths work after a search and replace of ``ragas`` by ``scorers.ragas``:
``scorers.ragas.metrics`` (the legacy metrics ``evaluate`` runs, and Ragas 0.1's
``context_recall`` / ``context_precision``), ``scorers.ragas.metrics.collections`` (0.4's),
``scorers.ragas.dataset_schema``, ``scorers.ragas.llms``, ``scorers.ragas.run_config``.

Each class wraps the native scorer of the same metric and reproduces Ragas 0.4.3's
numbers, quirks included (see `QUIRKS`), edge samples too: the legacy metrics score an
empty retrieval or a blank reference as Ragas does (0 or NaN), 0.4's ``collections``
metrics refuse them as Ragas does. ``result.native`` is the full native `ScoreResult`
with verdicts, similarities and judge calls. A metric given a model string, and
``llm_factory``, use no judge cache unless asked (``llm_factory(..., cache=True)``), as
in Ragas. `normalize_row` is how scorekit reads a Ragas row's field names (0.1's and
today's), in `evaluate` and in `evals`' data loader alike.
"""

from __future__ import annotations

from ._base import QUIRKS, MetricResult, SingleTurnSample, llm_factory, ragas_average_precision
from ._evaluate import (
    EvaluationDataset,
    EvaluationResult,
    RunConfig,
    TokenUsage,
    aevaluate,
    evaluate,
)
from ._metrics import (
    ContextPrecision,
    ContextPrecisionWithoutReference,
    ContextPrecisionWithReference,
    ContextRecall,
    ContextUtilization,
    DistanceMeasure,
    IDBasedContextPrecision,
    IDBasedContextRecall,
    LLMContextPrecisionWithoutReference,
    LLMContextPrecisionWithReference,
    LLMContextRecall,
    NonLLMContextPrecisionWithReference,
    NonLLMContextRecall,
    NonLLMStringSimilarity,
)
from ._names import ROW_FIELDS, normalize_row
from ._relevance import ContextEntityRecall, ContextRelevance

__all__ = [
    "QUIRKS",
    "ROW_FIELDS",
    "ContextEntityRecall",
    "ContextPrecision",
    "ContextPrecisionWithReference",
    "ContextPrecisionWithoutReference",
    "ContextRecall",
    "ContextRelevance",
    "ContextUtilization",
    "DistanceMeasure",
    "EvaluationDataset",
    "EvaluationResult",
    "IDBasedContextPrecision",
    "IDBasedContextRecall",
    "LLMContextPrecisionWithReference",
    "LLMContextPrecisionWithoutReference",
    "LLMContextRecall",
    "MetricResult",
    "NonLLMContextPrecisionWithReference",
    "NonLLMContextRecall",
    "NonLLMStringSimilarity",
    "RunConfig",
    "SingleTurnSample",
    "TokenUsage",
    "aevaluate",
    "evaluate",
    "llm_factory",
    "normalize_row",
    "ragas_average_precision",
]
