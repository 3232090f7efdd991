"""The facade's metric classes: Ragas 0.4's (``ragas.metrics.collections``) and its
legacy ones (``ragas.metrics``, what ``evaluate`` runs), each over a native scorer."""

from __future__ import annotations

import math
from enum import Enum
from typing import Any, ClassVar

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
    MetricResult,
    RagasMetric,
    metric_result,
    ragas_average_precision,
    strings_field,
    text_field,
)

_AP_NOTE = "Ragas value: average precision divided by (relevant + 1e-10)."
_NOTHING_TO_CLASSIFY = "The reference is blank: no statement to attribute (Ragas gives NaN)."
_NO_CHUNKS = "No context was retrieved: nothing is relevant (Ragas' 0 / (0 + 1e-10))."
_NOTHING_TO_VERIFY = (
    "The {field} is blank: there is nothing to judge the chunks against, so no question was "
    "asked and there is no number (Ragas asks its model about the blank {field} anyway)."
)


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

    def _plan(self, **f: Any) -> MetricResult | dict[str, Any]:
        legacy = self.legacy
        reference = text_field("reference", f["reference"], legacy)
        if not reference.strip():
            return MetricResult(value=math.nan, reason=_NOTHING_TO_CLASSIFY)
        return {
            "input": text_field("user_input", f["user_input"], legacy) or "(no question)",
            "context": strings_field("retrieved_contexts", f["retrieved_contexts"], legacy),
            "ground_truth": reference,
        }

    def _finish(self, native: ScoreResult) -> MetricResult:
        return metric_result(math.nan if native.value is None else native.value, native)


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

    def _plan(self, **f: Any) -> MetricResult | dict[str, Any]:
        legacy = self.legacy
        text = text_field(self.against, f[self.against], legacy)
        chunks = strings_field("retrieved_contexts", f["retrieved_contexts"], legacy)
        if not chunks:
            return MetricResult(value=0.0, reason=_NO_CHUNKS)
        if not text.strip():
            return MetricResult(
                value=math.nan, reason=_NOTHING_TO_VERIFY.format(field=self.against)
            )
        run = {
            "input": text_field("user_input", f["user_input"], legacy) or "(no question)",
            "context": chunks,
        }
        run["ground_truth" if self.against == "reference" else "output"] = text
        return run

    def _finish(self, native: ScoreResult) -> MetricResult:
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


class NonLLMStringSimilarity:
    """Ragas' ``NonLLMStringSimilarity``: which string similarity a non-LLM metric uses
    (``NonLLMContextPrecisionWithReference(distance_measure=NonLLMStringSimilarity(
    distance_measure=DistanceMeasure.JARO))``, as in Ragas)."""

    def __init__(self, distance_measure: DistanceMeasure | str = DistanceMeasure.LEVENSHTEIN):
        self.distance_measure = distance_measure


def _measure_of(value: Any) -> str:
    """A measure name from a `DistanceMeasure`, its name, or a (Ragas or facade)
    ``NonLLMStringSimilarity`` holding one."""
    if hasattr(value, "distance_measure"):
        value = value.distance_measure
    return _measure(value)


class _NonLLM(RagasMetric):
    fields = ("retrieved_contexts", "reference_contexts")
    legacy = True
    measure: str
    threshold: float

    def __init__(
        self,
        name: str | None = None,
        threshold: float = 0.5,
        distance_measure: DistanceMeasure | str | Any = DistanceMeasure.LEVENSHTEIN,
    ):
        super().__init__(None, name)
        self.threshold = threshold
        self.distance_measure = distance_measure

    def __setattr__(self, name: str, value: Any) -> None:
        """Setting ``threshold`` or ``distance_measure`` after construction, Ragas' own
        way (``metric.distance_measure = DistanceMeasure.JARO``), takes effect."""
        if name == "threshold" and not (isinstance(value, (int, float)) and 0 <= value <= 1):
            raise ConfigError(f"threshold must be within [0, 1], got {value!r}")
        if name == "distance_measure":
            object.__setattr__(self, "measure", _measure_of(value))
        if name in ("threshold", "distance_measure"):
            object.__setattr__(self, "_built", None)
        object.__setattr__(self, name, value)

    @staticmethod
    def _lists(f: dict[str, Any], must_have: str) -> tuple[list[str], list[str]]:
        """Both string lists; ``must_have`` empty while the other is not fails as in Ragas
        (``max()`` of an empty list there), so ``evaluate`` records NaN."""
        retrieved = strings_field("retrieved_contexts", f["retrieved_contexts"], True)
        references = strings_field("reference_contexts", f["reference_contexts"], True)
        lists = {"retrieved_contexts": retrieved, "reference_contexts": references}
        if not lists[must_have] and any(lists.values()):
            raise ValueError(
                f"{must_have} is empty: Ragas fails here too (max() of an empty list), "
                "so evaluate() records NaN"
            )
        return retrieved, references


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

    def _plan(self, **f: Any) -> MetricResult | dict[str, Any]:
        retrieved, references = self._lists(f, "retrieved_contexts")
        if not references:
            return MetricResult(value=math.nan, reason="No reference contexts (Ragas: NaN).")
        return {"context": retrieved, "reference_contexts": references}

    def _finish(self, native: ScoreResult) -> MetricResult:
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

    def _plan(self, **f: Any) -> MetricResult | dict[str, Any]:
        retrieved, references = self._lists(f, "reference_contexts")
        if not retrieved:
            return MetricResult(value=0.0, reason=_NO_CHUNKS)
        return {"context": retrieved, "reference_contexts": references}

    def _finish(self, native: ScoreResult) -> MetricResult:
        return metric_result(native.details["ragas"], native, _AP_NOTE)


class _IDBased(RagasMetric):
    fields = ("retrieved_context_ids", "reference_context_ids")
    legacy = True
    empty: ClassVar[str] = ""
    """The id list whose emptiness gives NaN in Ragas (the other's gives 0)."""

    def __init__(self, name: str | None = None):
        super().__init__(None, name)

    def _plan(self, **f: Any) -> MetricResult | dict[str, Any]:
        retrieved = strings_field("retrieved_context_ids", f["retrieved_context_ids"], True)
        reference = strings_field("reference_context_ids", f["reference_context_ids"], True)
        lists = {"retrieved_context_ids": retrieved, "reference_context_ids": reference}
        if not lists[self.empty]:
            return MetricResult(value=math.nan, reason=f"{self.empty} is empty (Ragas: NaN).")
        if not retrieved or not reference:
            return MetricResult(value=0.0, reason="No retrieved id is a reference id.")
        return {
            "context": [{"id": i, "text": ""} for i in retrieved],
            "reference_context_ids": reference,
        }

    def _finish(self, native: ScoreResult) -> MetricResult:
        return metric_result(math.nan if native.score is None else native.score, native)


class IDBasedContextRecall(_IDBased):
    """Ragas ``IDBasedContextRecall``: ``|set(R) ∩ set(G)| / |set(G)|`` over ``str`` ids."""

    name = "id_based_context_recall"
    empty = "reference_context_ids"

    def _build(self) -> Scorer:
        return create_id_context_recall_scorer()


class IDBasedContextPrecision(_IDBased):
    """Ragas ``IDBasedContextPrecision``: ``|set(R) ∩ set(G)| / |set(R)|`` over ``str`` ids."""

    name = "id_based_context_precision"
    empty = "retrieved_context_ids"

    def _build(self) -> Scorer:
        return create_id_context_precision_scorer()


class LLMContextRecall(ContextRecall):
    """Ragas' legacy ``LLMContextRecall``: its llm may also come from ``evaluate(llm=...)``,
    and edge samples score as Ragas' legacy metric scores them: no retrieved context
    gives 0, a blank reference NaN."""

    legacy = True


class LLMContextPrecisionWithReference(ContextPrecisionWithReference):
    """Ragas' legacy ``LLMContextPrecisionWithReference``."""

    name = "llm_context_precision_with_reference"
    legacy = True


class LLMContextPrecisionWithoutReference(ContextPrecisionWithoutReference):
    """Ragas' legacy ``LLMContextPrecisionWithoutReference``."""

    name = "llm_context_precision_without_reference"
    legacy = True


class LegacyContextRecall(LLMContextRecall):
    """``ragas.metrics.ContextRecall`` (legacy: = `LLMContextRecall`)."""


class LegacyContextPrecision(LLMContextPrecisionWithReference):
    """``ragas.metrics.ContextPrecision`` (legacy)."""

    name = "context_precision"


class LegacyContextUtilization(LLMContextPrecisionWithoutReference):
    """``ragas.metrics.ContextUtilization`` (legacy)."""

    name = "context_utilization"
