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

Each class wraps the native scorer of the same metric and reproduces Ragas 0.4's
numbers, quirks included (see `QUIRKS`); ``result.native`` is the full native
`ScoreResult` with verdicts, similarities and judge calls. Where Ragas would crash with
an obscure error (an empty list reaching ``max()``, a ``None`` list) the facade raises a
`ValueError` that names the field.
"""

from __future__ import annotations

import math
from enum import Enum
from typing import Any

from .._errors import ConfigError
from .._pipeline import Scorer
from .._prebuilt._ids import create_id_context_precision_scorer, create_id_context_recall_scorer
from .._prebuilt._precision import (
    create_context_precision_scorer,
    create_context_utilization_scorer,
)
from .._prebuilt._recall import create_context_recall_scorer
from .._prebuilt._similarity import (
    create_non_llm_context_precision_scorer,
    create_non_llm_context_recall_scorer,
)
from .._steps import StepResults
from .._types import ScoreResult
from ._base import (
    QUIRKS,
    MetricResult,
    RagasMetric,
    SingleTurnSample,
    llm_factory,
    metric_result,
    ragas_average_precision,
    strings_field,
    text_field,
)
from ._evaluate import EvaluationResult, aevaluate, evaluate

_AP_NOTE = "Ragas value: average precision divided by (relevant + 1e-10)."


def _ragas_precision(run: Any, results: StepResults) -> float:
    """Ragas' average precision of the chunk verdicts (an analyze step)."""
    verdicts = results["verdicts"]
    if verdicts is None:
        return 0.0
    relevant = {v.context_index: v.verdict == "yes" for v in verdicts.verdicts}
    return ragas_average_precision([relevant[k] for k in range(len(results["context"]))])


def _ragas_similarity_precision(run: Any, results: StepResults) -> float:
    """Ragas' average precision of the chunks matched by string similarity."""
    sims = results["similarities"]
    return 0.0 if sims is None else ragas_average_precision(sims.matched)


def _ragas_step(run: Any, results: StepResults) -> float:
    """The Ragas value the facade's own ``ragas`` step computed."""
    return float(results["ragas"])


def _ragas_share(run: Any, results: StepResults) -> float:
    """The share of references the ``ragas`` step counted as recalled."""
    recalled = results["ragas"]
    return sum(recalled) / len(recalled) if recalled else 0.0


class DistanceMeasure(str, Enum):
    """Ragas' ``DistanceMeasure``: the string similarities of the non-LLM metrics."""

    LEVENSHTEIN = "levenshtein"
    HAMMING = "hamming"
    JARO = "jaro"
    JARO_WINKLER = "jaro_winkler"


def _measure(distance_measure: Any) -> str:
    name = str(getattr(distance_measure, "value", distance_measure)).lower()
    if name not in {m.value for m in DistanceMeasure}:
        raise ConfigError(
            f"distance_measure must be one of {[m.value for m in DistanceMeasure]}; "
            f"got {distance_measure!r}"
        )
    return name


class ContextRecall(RagasMetric):
    """Ragas ``ContextRecall``: ``ascore(user_input, retrieved_contexts, reference)``."""

    name = "context_recall"
    fields = ("user_input", "retrieved_contexts", "reference")
    needs_llm = True

    def _build(self) -> Scorer:
        assert self.llm is not None
        return create_context_recall_scorer(self.llm)

    async def _value(self, **f: Any) -> MetricResult:
        native = await self._scorer.arun(
            input=text_field("user_input", f["user_input"]),
            context=strings_field("retrieved_contexts", f["retrieved_contexts"]),
            ground_truth=text_field("reference", f["reference"]),
        )
        value = math.nan if native.status == "skipped" else native.score
        return metric_result(value, native)


class _LLMPrecision(RagasMetric):
    against = "reference"
    needs_llm = True
    ragas_score = _ragas_step

    def _build(self) -> Scorer:
        assert self.llm is not None
        factory = (
            create_context_precision_scorer
            if self.against == "reference"
            else create_context_utilization_scorer
        )
        # one verdict per chunk, as Ragas asks; Ragas' own average precision as one more step
        return factory(self.llm, {"per_chunk": True}).analyze(_ragas_precision, name="ragas")

    async def _value(self, **f: Any) -> MetricResult:
        text = text_field(self.against, f[self.against])
        run = {
            "input": text_field("user_input", f["user_input"]),
            "context": strings_field("retrieved_contexts", f["retrieved_contexts"]),
        }
        run["ground_truth" if self.against == "reference" else "output"] = text
        native = await self._scorer.arun(**run)
        return metric_result(native.details["ragas"], native, _AP_NOTE)


class ContextPrecisionWithReference(_LLMPrecision):
    """Ragas ``ContextPrecisionWithReference``: ``ascore(user_input, reference,
    retrieved_contexts)``; average precision with Ragas' ``+ 1e-10``."""

    name = "context_precision_with_reference"
    fields = ("user_input", "reference", "retrieved_contexts")


class ContextPrecision(ContextPrecisionWithReference):
    """Ragas ``ContextPrecision`` (= `ContextPrecisionWithReference`)."""

    name = "context_precision"


class ContextPrecisionWithoutReference(_LLMPrecision):
    """Ragas ``ContextPrecisionWithoutReference``: ``ascore(user_input, response,
    retrieved_contexts)``, judged against the response."""

    name = "context_precision_without_reference"
    fields = ("user_input", "response", "retrieved_contexts")
    against = "response"


class ContextUtilization(ContextPrecisionWithoutReference):
    """Ragas ``ContextUtilization`` (= `ContextPrecisionWithoutReference`)."""

    name = "context_utilization"


class _NonLLM(RagasMetric):
    fields = ("retrieved_contexts", "reference_contexts")

    def __init__(
        self,
        name: str | None = None,
        threshold: float = 0.5,
        distance_measure: DistanceMeasure | str = DistanceMeasure.LEVENSHTEIN,
    ):
        if not 0.0 <= threshold <= 1.0:
            raise ConfigError(f"threshold must be within [0, 1], got {threshold}")
        self.threshold = threshold
        self.measure = _measure(distance_measure)
        super().__init__(None, name)

    async def _native(self, **f: Any) -> ScoreResult:
        return await self._scorer.arun(
            context=strings_field("retrieved_contexts", f["retrieved_contexts"]),
            reference_contexts=strings_field("reference_contexts", f["reference_contexts"]),
        )


class NonLLMContextRecall(_NonLLM):
    """Ragas ``NonLLMContextRecall``: a reference counts when its best Levenshtein
    similarity is strictly above ``threshold``."""

    name = "non_llm_context_recall"
    ragas_score = _ragas_share

    def _build(self) -> Scorer:
        threshold = self.threshold

        def ragas_recalled(run: Any, results: StepResults) -> list[bool]:
            """Ragas counts a reference when its best similarity is strictly above."""
            sims = results["similarities"]
            best = [] if sims is None else sims.best_per_reference
            return [float(s) > threshold for s in best]

        options = {"threshold": threshold, "measure": self.measure}
        scorer = create_non_llm_context_recall_scorer(options)
        return scorer.analyze(ragas_recalled, name="ragas")

    async def _value(self, **f: Any) -> MetricResult:
        native = await self._native(**f)
        recalled = native.details["ragas"]
        note = (
            f"Ragas value: {sum(recalled)} of {len(recalled)} references have a similarity "
            f"strictly above {self.threshold:g}."
        )
        return metric_result(sum(recalled) / len(recalled), native, note)


class NonLLMContextPrecisionWithReference(_NonLLM):
    """Ragas ``NonLLMContextPrecisionWithReference``: a chunk is relevant when its best
    similarity is ``>= threshold``; average precision with ``+ 1e-10``."""

    name = "non_llm_context_precision_with_reference"
    ragas_score = _ragas_step

    def _build(self) -> Scorer:
        options = {"threshold": self.threshold, "measure": self.measure}
        scorer = create_non_llm_context_precision_scorer(options)
        return scorer.analyze(_ragas_similarity_precision, name="ragas")

    async def _value(self, **f: Any) -> MetricResult:
        native = await self._native(**f)
        return metric_result(native.details["ragas"], native, _AP_NOTE)


class _IDBased(RagasMetric):
    fields = ("retrieved_context_ids", "reference_context_ids")

    def __init__(self, name: str | None = None):
        super().__init__(None, name)

    async def _value(self, **f: Any) -> MetricResult:
        retrieved = strings_field("retrieved_context_ids", f["retrieved_context_ids"])
        reference = strings_field("reference_context_ids", f["reference_context_ids"])
        native = await self._scorer.arun(
            context=[{"id": i, "text": ""} for i in retrieved], reference_context_ids=reference
        )
        return metric_result(native.score, native)


class IDBasedContextRecall(_IDBased):
    """Ragas ``IDBasedContextRecall``: ``|set(R) ∩ set(G)| / |set(G)|`` over ``str`` ids."""

    name = "id_based_context_recall"

    def _build(self) -> Scorer:
        return create_id_context_recall_scorer()


class IDBasedContextPrecision(_IDBased):
    """Ragas ``IDBasedContextPrecision``: ``|set(R) ∩ set(G)| / |set(R)|`` over ``str`` ids."""

    name = "id_based_context_precision"

    def _build(self) -> Scorer:
        return create_id_context_precision_scorer()


class LLMContextRecall(ContextRecall):
    """Ragas' legacy ``LLMContextRecall`` (= `ContextRecall`); its llm may also come from
    ``evaluate(llm=...)``."""

    llm_later = True


class LLMContextPrecisionWithReference(ContextPrecisionWithReference):
    """Ragas' legacy ``LLMContextPrecisionWithReference``."""

    name = "llm_context_precision_with_reference"
    llm_later = True


class LLMContextPrecisionWithoutReference(ContextPrecisionWithoutReference):
    """Ragas' legacy ``LLMContextPrecisionWithoutReference``."""

    name = "llm_context_precision_without_reference"
    llm_later = True


__all__ = [
    "QUIRKS",
    "ContextPrecision",
    "ContextPrecisionWithReference",
    "ContextPrecisionWithoutReference",
    "ContextRecall",
    "ContextUtilization",
    "DistanceMeasure",
    "EvaluationResult",
    "IDBasedContextPrecision",
    "IDBasedContextRecall",
    "LLMContextPrecisionWithReference",
    "LLMContextPrecisionWithoutReference",
    "LLMContextRecall",
    "MetricResult",
    "NonLLMContextPrecisionWithReference",
    "NonLLMContextRecall",
    "SingleTurnSample",
    "aevaluate",
    "evaluate",
    "llm_factory",
    "ragas_average_precision",
]
