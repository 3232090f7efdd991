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
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from ._errors import ConfigError, JudgeSetupError
from ._judge import Judge, as_judge
from ._pipeline import Scorer, StepResults
from ._prebuilt._ids import create_id_context_precision_scorer, create_id_context_recall_scorer
from ._prebuilt._precision import (
    create_context_precision_scorer,
    create_context_utilization_scorer,
)
from ._prebuilt._ranking import precision_sum
from ._prebuilt._recall import create_context_recall_scorer
from ._prebuilt._similarity import (
    create_non_llm_context_precision_scorer,
    create_non_llm_context_recall_scorer,
)
from ._sync import run_sync
from ._tasks import map_bounded
from ._types import ScoreResult

RAGAS_EPSILON = 1e-10

QUIRKS = {
    "average precision": "Ragas divides by (relevant + 1e-10): one relevant chunk gives "
    "0.9999999999; the native scorers divide by the relevant count exactly.",
    "string recall": "Ragas counts a reference as recalled only when its best similarity is "
    "> threshold (strictly); native recall and both precisions use >=.",
    "similarity": "1 - Levenshtein normalized_distance, no case or whitespace normalisation.",
    "ids": "IDs compare as str(id) sets; ID precision deduplicates retrieved ids and ignores "
    "their order.",
    "llm recall": "Zero claims extracted from the reference gives NaN, as in Ragas.",
}


class MetricResult(BaseModel):
    """What ``ascore`` / ``score`` return, as in Ragas: ``.value``, ``.reason``, a float.

    Attributes:
        value: The score (NaN where Ragas gives NaN).
        reason: The native scorer's reason.
        error: For `batch_score` items that failed: the error; ``value`` is then NaN.
        native: The native `ScoreResult` behind the value.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    value: float
    reason: str | None = None
    error: str | None = None
    native: ScoreResult | None = None

    def __float__(self) -> float:
        return self.value

    def __round__(self, ndigits: int | None = None) -> float:
        return round(self.value, ndigits)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (int, float)):
            return self.value == other
        if isinstance(other, MetricResult):
            return self.value == other.value
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.value)

    def __lt__(self, other: float) -> bool:
        return self.value < float(other)

    def __le__(self, other: float) -> bool:
        return self.value <= float(other)

    def __gt__(self, other: float) -> bool:
        return self.value > float(other)

    def __ge__(self, other: float) -> bool:
        return self.value >= float(other)

    def __add__(self, other: float) -> float:
        return self.value + float(other)

    __radd__ = __add__

    def __sub__(self, other: float) -> float:
        return self.value - float(other)

    def __mul__(self, other: float) -> float:
        return self.value * float(other)

    __rmul__ = __mul__

    def __truediv__(self, other: float) -> float:
        return self.value / float(other)

    def __repr__(self) -> str:
        return f"MetricResult(value={self.value!r}, reason={self.reason!r})"

    def __str__(self) -> str:
        return str(self.value)


class SingleTurnSample(BaseModel):
    """Ragas' legacy sample, for ``single_turn_ascore``."""

    model_config = ConfigDict(extra="forbid")

    user_input: str | None = None
    retrieved_contexts: list[str] | None = None
    reference_contexts: list[str] | None = None
    retrieved_context_ids: list[str | int] | None = None
    reference_context_ids: list[str | int] | None = None
    response: str | None = None
    reference: str | None = None


def llm_factory(model: str, client: Any = None, **kwargs: Any) -> Judge:
    """Ragas' ``llm_factory``: a `Judge` for ``model``.

    Args:
        model: A model name (``"gpt-4o-mini"`` means ``"openai/gpt-4o-mini"``) or a litellm
            model string.
        client: Optionally an ``openai.AsyncOpenAI`` / ``OpenAI`` client; its base URL and
            API key are used.
        **kwargs: More `Judge` options (``temperature``, ``max_tokens``, ``cache``...).
    """
    if client is not None:
        base_url = getattr(client, "base_url", None)
        kwargs.setdefault("api_base", str(base_url).rstrip("/") if base_url else None)
        kwargs.setdefault("api_key", getattr(client, "api_key", None))
        model = model if model.startswith("openai/") else f"openai/{model}"
    elif "/" not in model:
        model = f"openai/{model}"
    return Judge(model, **kwargs)


def ragas_average_precision(relevant: Sequence[bool]) -> float:
    """Average precision as Ragas computes it: divided by (relevant + 1e-10)."""
    total, hits = precision_sum(relevant)
    return total / (hits + RAGAS_EPSILON)


def _strings(field: str, value: Any) -> list[str]:
    if value is None:
        raise ValueError(f"{field} is None; pass a non-empty list of strings")
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise ValueError(f"{field} must be a list of strings, got {type(value).__name__}")
    items = list(value)
    if not items:
        raise ValueError(f"{field} is empty; pass a non-empty list")
    return [str(v) for v in items]


def _text(field: str, value: Any) -> str:
    if value is None or not str(value).strip():
        raise ValueError(f"{field} is empty; pass a non-empty string")
    return str(value)


class _Metric:
    """Shared machinery: ``ascore`` / ``score`` / ``batch_score`` / ``single_turn_ascore``."""

    name: str = ""
    fields: ClassVar[tuple[str, ...]] = ()
    needs_llm: ClassVar[bool] = False

    def __init__(self, llm: Judge | str | None = None, name: str | None = None):
        if self.needs_llm and llm is None:
            raise ConfigError(
                f"{type(self).__name__} needs llm= (a Judge, a litellm model "
                "string, or llm_factory(...))"
            )
        self.llm = as_judge(llm)
        if name is not None:
            self.name = name
        self._scorer = self._build()

    def _build(self) -> Scorer:
        raise NotImplementedError

    async def _value(self, **fields: Any) -> MetricResult:
        raise NotImplementedError

    async def ascore(self, **fields: Any) -> MetricResult:
        """Score one sample; keyword names as in Ragas."""
        unknown = sorted(set(fields) - set(self.fields))
        missing = sorted(set(self.fields) - set(fields))
        if unknown or missing:
            raise TypeError(
                f"{type(self).__name__}.ascore takes {list(self.fields)}; "
                f"missing {missing}, unexpected {unknown}"
            )
        return await self._value(**fields)

    def score(self, **fields: Any) -> MetricResult:
        """Synchronous `ascore` (also inside a running event loop)."""

        return run_sync(self.ascore, **fields)

    async def abatch_score(
        self, inputs: Sequence[Mapping[str, Any]], concurrency: int = 16
    ) -> list[MetricResult]:
        """Score many samples, ``concurrency`` at a time; a failing sample gives a result
        with ``value`` NaN and ``error`` set instead of stopping the batch.

        Raises:
            JudgeSetupError: At the first sample that meets a broken setup (no or a
                rejected API key, an unknown model): every other sample would fail too.
        """

        async def one(fields: Mapping[str, Any]) -> MetricResult:
            try:
                return await self.ascore(**fields)
            except JudgeSetupError:
                raise
            except Exception as exc:
                return MetricResult(value=math.nan, error=f"{type(exc).__name__}: {exc}")

        return await map_bounded(one, list(inputs), concurrency)

    def batch_score(
        self, inputs: Sequence[Mapping[str, Any]], concurrency: int = 16
    ) -> list[MetricResult]:
        """Synchronous `abatch_score`."""

        return run_sync(self.abatch_score, inputs, concurrency)

    async def single_turn_ascore(self, sample: SingleTurnSample | Mapping[str, Any]) -> float:
        """Ragas' legacy API: a `SingleTurnSample` in, a float out."""
        if not isinstance(sample, SingleTurnSample):
            sample = SingleTurnSample.model_validate(dict(sample))
        return (await self.ascore(**{f: getattr(sample, f) for f in self.fields})).value

    def single_turn_score(self, sample: SingleTurnSample | Mapping[str, Any]) -> float:
        """Synchronous `single_turn_ascore`."""

        return run_sync(self.single_turn_ascore, sample)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def _result(value: float, native: ScoreResult, note: str = "") -> MetricResult:
    reason = f"{native.reason}\n{note}" if note and value != native.score else native.reason
    return MetricResult(value=value, reason=reason, native=native)


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
    return 0.0 if sims is None else ragas_average_precision(sims["matched"])


class ContextRecall(_Metric):
    """Ragas ``ContextRecall``: ``ascore(user_input, retrieved_contexts, reference)``."""

    name = "context_recall"
    fields = ("user_input", "retrieved_contexts", "reference")
    needs_llm = True

    def _build(self) -> Scorer:
        assert self.llm is not None
        return create_context_recall_scorer(self.llm)

    async def _value(self, **f: Any) -> MetricResult:
        native = await self._scorer.arun(
            input=_text("user_input", f["user_input"]),
            context=_strings("retrieved_contexts", f["retrieved_contexts"]),
            ground_truth=_text("reference", f["reference"]),
        )
        value = math.nan if native.status == "skipped" else native.score
        return _result(value, native)


class _LLMPrecision(_Metric):
    against = "reference"
    needs_llm = True

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
        text = _text(self.against, f[self.against])
        run = {
            "input": _text("user_input", f["user_input"]),
            "context": _strings("retrieved_contexts", f["retrieved_contexts"]),
        }
        run["ground_truth" if self.against == "reference" else "output"] = text
        native = await self._scorer.arun(**run)
        return _result(native.details["ragas"], native, _AP_NOTE)


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


class _NonLLM(_Metric):
    fields = ("retrieved_contexts", "reference_contexts")

    def __init__(self, name: str | None = None, threshold: float = 0.5):
        if not 0.0 <= threshold <= 1.0:
            raise ConfigError(f"threshold must be within [0, 1], got {threshold}")
        self.threshold = threshold
        super().__init__(None, name)

    async def _native(self, **f: Any) -> ScoreResult:
        return await self._scorer.arun(
            context=_strings("retrieved_contexts", f["retrieved_contexts"]),
            reference_contexts=_strings("reference_contexts", f["reference_contexts"]),
        )


class NonLLMContextRecall(_NonLLM):
    """Ragas ``NonLLMContextRecall``: a reference counts when its best Levenshtein
    similarity is strictly above ``threshold``."""

    name = "non_llm_context_recall"

    def _build(self) -> Scorer:
        threshold = self.threshold

        def ragas_recalled(run: Any, results: StepResults) -> list[bool]:
            """Ragas counts a reference when its best similarity is strictly above."""
            sims = results["similarities"]
            best = [] if sims is None else sims["best_per_reference"]
            return [float(s) > threshold for s in best]

        scorer = create_non_llm_context_recall_scorer({"threshold": threshold})
        return scorer.analyze(ragas_recalled, name="ragas")

    async def _value(self, **f: Any) -> MetricResult:
        native = await self._native(**f)
        recalled = native.details["ragas"]
        note = (
            f"Ragas value: {sum(recalled)} of {len(recalled)} references have a similarity "
            f"strictly above {self.threshold:g}."
        )
        return _result(sum(recalled) / len(recalled), native, note)


class NonLLMContextPrecisionWithReference(_NonLLM):
    """Ragas ``NonLLMContextPrecisionWithReference``: a chunk is relevant when its best
    similarity is ``>= threshold``; average precision with ``+ 1e-10``."""

    name = "non_llm_context_precision_with_reference"

    def _build(self) -> Scorer:
        scorer = create_non_llm_context_precision_scorer({"threshold": self.threshold})
        return scorer.analyze(_ragas_similarity_precision, name="ragas")

    async def _value(self, **f: Any) -> MetricResult:
        native = await self._native(**f)
        return _result(native.details["ragas"], native, _AP_NOTE)


class _IDBased(_Metric):
    fields = ("retrieved_context_ids", "reference_context_ids")

    def __init__(self, name: str | None = None):
        super().__init__(None, name)

    async def _value(self, **f: Any) -> MetricResult:
        retrieved = _strings("retrieved_context_ids", f["retrieved_context_ids"])
        reference = _strings("reference_context_ids", f["reference_context_ids"])
        native = await self._scorer.arun(
            context=[{"id": i, "text": ""} for i in retrieved], reference_context_ids=reference
        )
        return _result(native.score, native)


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


__all__ = [
    "QUIRKS",
    "ContextPrecision",
    "ContextPrecisionWithReference",
    "ContextPrecisionWithoutReference",
    "ContextRecall",
    "ContextUtilization",
    "IDBasedContextPrecision",
    "IDBasedContextRecall",
    "MetricResult",
    "NonLLMContextPrecisionWithReference",
    "NonLLMContextRecall",
    "SingleTurnSample",
    "llm_factory",
    "ragas_average_precision",
]
