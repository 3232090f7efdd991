"""The machinery behind `scorers.ragas`: results, samples, ``llm_factory``, the metric base."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from .._engine import Job, Scored, score_many
from .._errors import ConfigError, JudgeSetupError
from .._model._judge import Judge, as_judge
from .._pipeline import Scorer
from .._prebuilt._ranking import precision_sum
from .._sync import run_sync
from .._types import ScoreResult

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


def ragas_judge(llm: Judge | str | None) -> Judge | None:
    """The judge of a facade metric: a model string gets no judge cache, as in Ragas;
    a `Judge` keeps its own settings."""
    if isinstance(llm, str):
        return Judge(llm, cache=False)
    return as_judge(llm)


def sample_fields(sample: Any) -> dict[str, Any]:
    """The fields of a sample: a dict, this facade's `SingleTurnSample`, or any pydantic
    sample (Ragas' own ``SingleTurnSample`` included); unset fields are left out."""
    if hasattr(sample, "model_dump"):
        sample = sample.model_dump(exclude_none=True)
    if not isinstance(sample, Mapping):
        raise ConfigError(f"a sample is a dict or a SingleTurnSample, got {type(sample).__name__}")
    return {str(k): v for k, v in sample.items() if v is not None}


def llm_factory(
    model: str, provider: str | None = None, client: Any = None, **kwargs: Any
) -> Judge:
    """Ragas' ``llm_factory``: a `Judge` for ``model``, with no judge cache unless
    ``cache=True`` is passed (Ragas caches nothing by default either).

    Args:
        model: A model name (``"gpt-4o-mini"`` means ``"openai/gpt-4o-mini"``) or a litellm
            model string.
        provider: Ragas' provider name (``"openai"``, ``"anthropic"``...): the litellm
            prefix when ``model`` has none.
        client: Optionally an ``openai.AsyncOpenAI`` / ``OpenAI`` client; its base URL and
            API key are used.
        **kwargs: More `Judge` options (``temperature``, ``max_tokens``, ``cache``...).
    """
    kwargs.setdefault("cache", False)
    if provider and "/" not in model and client is None:
        model = f"{provider}/{model}"
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


def strings_field(field: str, value: Any, empty_ok: bool = False) -> list[str]:
    """A list of strings; empty only where Ragas' legacy metric takes one (``empty_ok``)."""
    if value is None:
        raise ValueError(f"{field} is None; pass a list of strings")
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise ValueError(f"{field} must be a list of strings, got {type(value).__name__}")
    items = list(value)
    if not items and not empty_ok:
        raise ValueError(f"{field} is empty; pass a non-empty list")
    return [str(v) for v in items]


def text_field(field: str, value: Any, blank_ok: bool = False) -> str:
    """A string; ``""`` only where Ragas' legacy metric takes one (``blank_ok``): Ragas
    0.4's metrics refuse the empty string alone, and take whitespace."""
    if value is None or (not blank_ok and str(value) == ""):
        raise ValueError(f"{field} is empty; pass a non-empty string")
    return str(value)


class RagasMetric:
    """Shared machinery: ``ascore`` / ``score`` / ``batch_score`` / ``single_turn_ascore``,
    and `as_scorer` for `run_evals` and `evaluate`."""

    name: str = ""
    fields: ClassVar[tuple[str, ...]] = ()
    needs_llm: ClassVar[bool] = False
    legacy: ClassVar[bool] = False
    """Ragas' legacy metrics (what ``evaluate`` runs) score empty lists and blank texts
    (0 or NaN, as Ragas); Ragas 0.4's ``collections`` metrics refuse them."""

    def __init__(self, llm: Judge | str | None = None, name: str | None = None):
        # a legacy metric without llm= takes ``evaluate(..., llm=...)``'s, as in Ragas
        # (scoring with neither is the error, `_scorer`); a collections metric refuses to
        # be built without one, as Ragas 0.4.3's do
        if llm is None and self.needs_llm and not self.legacy:
            raise ConfigError(
                f"{type(self).__name__} is a collections metric: it needs an llm when it is "
                "built, as in Ragas 0.4 (llm=llm_factory('gpt-4o-mini', ...), a Judge or a "
                "litellm model string); the legacy metrics (scorers.ragas.metrics) take "
                "evaluate(llm=...)'s"
            )
        self.llm = ragas_judge(llm)
        if name is not None:
            self.name = name
        self._built: Scorer | None = None

    @property
    def _scorer(self) -> Scorer:
        if self._built is None:
            if self.needs_llm and self.llm is None:
                raise ConfigError(
                    f"{type(self).__name__} has no llm: pass llm= to it (a Judge, a litellm "
                    "model string, or llm_factory(...)) or to evaluate()"
                )
            self._built = self._build()
        return self._built

    def with_llm(self, llm: Judge | str) -> RagasMetric:
        """A copy of this metric judged by ``llm``."""
        other = copy.copy(self)
        other.llm, other._built = ragas_judge(llm), None
        return other

    def as_scorer(self) -> Scorer:
        """The native scorer whose score is this metric's Ragas value: what `run_evals`
        runs for a facade metric (its results go under the metric's ``name``)."""
        scorer = self._scorer
        ragas = type(self).ragas_score
        return scorer if ragas is None else scorer.generate_score(ragas)

    ragas_score: ClassVar[Any] = None
    """``fn(run, results) -> float``: the Ragas value from the native steps' results,
    where it differs from the native score."""

    def _build(self) -> Scorer:
        raise NotImplementedError

    def _plan(self, **fields: Any) -> MetricResult | dict[str, Any]:
        """A sample's value without the scorer (Ragas' edge rules), or the `ScorerRun`
        fields the native scorer scores.

        Raises:
            ValueError: For a sample Ragas refuses too.
        """
        raise NotImplementedError

    def _finish(self, native: ScoreResult) -> MetricResult:
        """The Ragas value of the native scorer's result."""
        raise NotImplementedError

    async def _value(self, **fields: Any) -> MetricResult:
        plan = self._plan(**fields)
        if isinstance(plan, MetricResult):
            return plan
        return self._finish(await self._scorer.arun(**plan))

    async def ascore(self, *args: Any, **fields: Any) -> MetricResult:
        """Score one sample; arguments as in Ragas (positional in its order, or keywords)."""
        if len(args) > len(self.fields):
            raise TypeError(f"{type(self).__name__}.ascore takes {list(self.fields)}")
        for field, value in zip(self.fields, args, strict=False):
            if field in fields:
                raise TypeError(f"{type(self).__name__}.ascore got {field!r} twice")
            fields[field] = value
        self._check_fields(fields)
        return await self._value(**fields)

    def _check_fields(self, fields: dict[str, Any]) -> None:
        unknown = sorted(set(fields) - set(self.fields))
        missing = sorted(set(self.fields) - set(fields))
        if unknown or missing:
            raise TypeError(
                f"{type(self).__name__}.ascore takes {list(self.fields)}; "
                f"missing {missing}, unexpected {unknown}"
            )

    def score(self, *args: Any, **fields: Any) -> MetricResult:
        """Synchronous `ascore` (also inside a running event loop)."""

        return run_sync(self.ascore, *args, **fields)

    async def abatch_score(
        self,
        inputs: Sequence[Mapping[str, Any]],
        concurrency: int = 16,
        on_done: Callable[[], None] | None = None,
    ) -> list[MetricResult]:
        """Score many samples, ``concurrency`` at a time; a failing sample gives a result
        with ``value`` NaN and ``error`` set instead of stopping the batch.

        Raises:
            JudgeSetupError: At the first sample that meets a broken setup (no or a
                rejected API key, an unknown model): every other sample would fail too.
        """

        for fields in inputs:
            self._check_fields(dict(fields))
        pairs = [(self, dict(fields)) for fields in inputs]
        return await score_samples(pairs, concurrency, on_done)

    def batch_score(
        self, inputs: Sequence[Mapping[str, Any]], concurrency: int = 16
    ) -> list[MetricResult]:
        """Synchronous `abatch_score`."""

        return run_sync(self.abatch_score, inputs, concurrency)

    async def single_turn_ascore(self, sample: Any, callbacks: Any = None) -> float:
        """Ragas' legacy API: a `SingleTurnSample` (this facade's or Ragas' own) or a
        dict in, a float out."""
        fields = sample_fields(sample)
        return (await self.ascore(**{f: fields.get(f) for f in self.fields})).value

    def single_turn_score(self, sample: Any, callbacks: Any = None) -> float:
        """Synchronous `single_turn_ascore`."""

        return run_sync(self.single_turn_ascore, sample)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


async def score_samples(
    pairs: Sequence[tuple[RagasMetric, dict[str, Any]]],
    concurrency: int,
    on_done: Callable[[], None] | None = None,
) -> list[MetricResult]:
    """Each ``(metric, sample fields)``'s result, every scorer run of them in one
    `score_many`: the metrics' model calls interleave under one limiter, and model-free
    metrics take the engine's fast paths. A failing pair gives ``value`` NaN with its
    ``error``.

    Raises:
        JudgeSetupError: At the first pair that meets a broken judge setup.
    """
    found: list[MetricResult | None] = [None] * len(pairs)
    scorers: dict[str, Scorer] = {}
    jobs: list[Job] = []

    def settle(index: int, result: MetricResult) -> None:
        found[index] = result
        if on_done is not None:
            on_done()

    for index, (metric, fields) in enumerate(pairs):
        try:
            plan = metric._plan(**fields)
            if isinstance(plan, MetricResult):
                settle(index, plan)
                continue
            scorer = scorers.setdefault(metric.name, metric._scorer)
            jobs.append(Job(index, scorer._checked(None, plan), only=(metric.name,), label=index))
        except JudgeSetupError:
            raise
        except Exception as exc:
            settle(index, _failed(exc))

    async def finished(scored: Scored) -> None:
        metric = pairs[scored.job.key][0]
        native = scored.results[metric.name]
        try:
            if native.status == "error":
                raise _Recorded(native.error or "")
            result = metric._finish(native)
        except _Recorded as exc:
            result = MetricResult(value=math.nan, error=str(exc))
        except Exception as exc:
            result = _failed(exc)
        settle(scored.job.key, result)

    await score_many(scorers, jobs, finished, concurrency=concurrency)
    return [result for result in found if result is not None]


class _Recorded(Exception):
    """A scorer error the engine already recorded (its text is the result's error)."""


def _failed(exc: Exception) -> MetricResult:
    return MetricResult(value=math.nan, error=f"{type(exc).__name__}: {exc}")


def metric_result(value: float, native: ScoreResult, note: str = "") -> MetricResult:
    reason = f"{native.reason}\n{note}" if note and value != native.score else native.reason
    return MetricResult(value=value, reason=reason, native=native)
