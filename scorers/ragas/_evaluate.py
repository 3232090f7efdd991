"""Ragas' ``evaluate``: samples and metrics in, per-sample values and means out.

```python
# from ragas import evaluate
from scorers.ragas import LLMContextRecall, evaluate

result = evaluate(dataset, metrics=[LLMContextRecall()], llm=llm)
result                # {'context_recall': 0.8333}
result.to_pandas()    # one row per sample, a column per metric
```
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from .._errors import ConfigError
from .._model._judge import Judge
from .._sync import run_sync
from ._base import MetricResult, RagasMetric, sample_fields, score_samples
from ._names import normalize_row


class RunConfig(BaseModel):
    """Ragas' ``RunConfig``: ``max_workers`` bounds the samples in flight; the other
    fields are accepted for compatibility (each `Judge`'s own timeout and retries apply)."""

    model_config = ConfigDict(extra="allow")

    timeout: float = 180
    max_retries: int = 10
    max_wait: float = 60
    max_workers: int = 16
    exception_types: Any = None
    log_tenacity: bool = False
    seed: int = 42


class TokenUsage(BaseModel):
    """Ragas' ``TokenUsage``: tokens the judge calls used (cache hits count 0)."""

    input_tokens: int = 0
    output_tokens: int = 0
    model: str = ""

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            model=self.model or other.model,
        )

    def cost(
        self, cost_per_input_token: float, cost_per_output_token: float | None = None
    ) -> float:
        """The cost at the given prices per token (output priced as input when omitted)."""
        output_price = (
            cost_per_input_token if cost_per_output_token is None else cost_per_output_token
        )
        return self.input_tokens * cost_per_input_token + self.output_tokens * output_price


class EvaluationDataset:
    """Ragas' ``EvaluationDataset``: a list of samples (dicts or `SingleTurnSample`s)."""

    def __init__(self, samples: Sequence[Any]):
        self.samples = list(samples)

    @classmethod
    def from_list(cls, data: Sequence[Mapping[str, Any]]) -> EvaluationDataset:
        """A dataset of dict rows (Ragas' field names)."""
        return cls(list(data))

    @classmethod
    def from_pandas(cls, frame: Any) -> EvaluationDataset:
        """A dataset of a pandas DataFrame's rows."""
        return cls(frame.to_dict("records"))

    def to_list(self) -> list[dict[str, Any]]:
        """The samples as dicts (unset fields left out)."""
        return [sample_fields(s) for s in self.samples]

    def to_pandas(self) -> Any:
        """A pandas DataFrame, one row per sample."""
        import pandas

        return pandas.DataFrame(self.to_list())

    def __len__(self) -> int:
        return len(self.samples)

    def __iter__(self) -> Any:
        return iter(self.samples)

    def __getitem__(self, index: int) -> Any:
        return self.samples[index]


class EvaluationResult:
    """What `evaluate` returns, shaped as Ragas': its repr is the per-metric means,
    ``result[name]`` the per-sample values, ``scores`` one dict per sample, and
    `to_pandas` one row per sample with a column per metric.

    Attributes:
        samples: The samples, with Ragas' current field names.
        results: Each metric's `MetricResult`s (``.native`` holds the verdicts).
    """

    def __init__(self, samples: list[dict[str, Any]], results: dict[str, list[MetricResult]]):
        self.samples = samples
        self.results = results

    @property
    def scores(self) -> list[dict[str, float]]:
        """One ``{metric: value}`` dict per sample (NaN where a sample failed)."""
        return [
            {name: found[i].value for name, found in self.results.items()}
            for i in range(len(self.samples))
        ]

    @property
    def means(self) -> dict[str, float]:
        """Each metric's mean over the samples it could score (NaN when none)."""
        means = {}
        for name, found in self.results.items():
            values = [r.value for r in found if not math.isnan(r.value)]
            means[name] = math.fsum(values) / len(values) if values else math.nan
        return means

    def errors(self) -> dict[str, list[tuple[int, str]]]:
        """``(sample index, error)`` of each failed sample, by metric."""
        return {
            name: [(i, r.error) for i, r in enumerate(found) if r.error is not None]
            for name, found in self.results.items()
        }

    def __getitem__(self, name: str) -> list[float]:
        if name not in self.results:
            raise KeyError(f"no metric {name!r}; metrics: {list(self.results)}")
        return [r.value for r in self.results[name]]

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{k!r}: {v:.4f}" for k, v in self.means.items()) + "}"

    def _calls(self) -> list[Any]:
        return [
            call
            for found in self.results.values()
            for result in found
            if result.native is not None
            for call in result.native.judge_calls
        ]

    def total_tokens(self) -> TokenUsage:
        """Tokens of every judge call the evaluation made (Ragas' ``total_tokens``)."""
        calls = self._calls()
        return TokenUsage(
            input_tokens=sum(c.prompt_tokens for c in calls),
            output_tokens=sum(c.completion_tokens for c in calls),
            model=next((c.model for c in calls if getattr(c, "model", "")), ""),
        )

    def total_cost(
        self,
        cost_per_input_token: float | None = None,
        cost_per_output_token: float | None = None,
    ) -> float:
        """The evaluation's cost in USD: at the given prices per token, as Ragas computes
        it, or (with no prices) as litellm priced each call (NaN when it knows no price)."""
        if cost_per_input_token is not None:
            return self.total_tokens().cost(cost_per_input_token, cost_per_output_token)
        costs = [c.cost for c in self._calls() if not c.cached]
        if any(c is None for c in costs):
            return math.nan
        return math.fsum(c for c in costs if c is not None)

    def to_pandas(self) -> Any:
        """A pandas DataFrame: the samples' fields, then one column per metric.

        Raises:
            ConfigError: When pandas is not installed (``pip install 'scorekit[pandas]'``).
        """
        try:
            import pandas
        except ImportError:
            raise ConfigError("to_pandas needs pandas: pip install 'scorekit[pandas]'") from None
        rows = [
            {**sample, **scores} for sample, scores in zip(self.samples, self.scores, strict=True)
        ]
        return pandas.DataFrame(rows)


def _sample(row: Any, index: int, column_map: Mapping[str, str]) -> dict[str, Any]:
    if hasattr(row, "model_dump"):
        row = row.model_dump(exclude_none=True)
    if not isinstance(row, Mapping):
        raise ConfigError(f"sample {index}: expected a dict or SingleTurnSample, got {type(row)}")
    renamed = {column: field for field, column in column_map.items()}
    present = {
        renamed.get(str(k), str(k)): v
        for k, v in row.items()
        if not (v is None or (isinstance(v, float) and math.isnan(v)))  # pandas' missing
    }
    sample, _ = normalize_row(present, "ragas", f"sample {index}")
    return sample


def _samples(dataset: Any, column_map: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """The samples of a list of dicts or `SingleTurnSample`s, a Hugging Face ``Dataset``,
    a pandas ``DataFrame`` or a Ragas ``EvaluationDataset``."""
    if isinstance(dataset, Mapping):
        if dataset and all(hasattr(v, "column_names") for v in dataset.values()):
            splits = list(dataset)
            raise ConfigError(
                f"dataset is a DatasetDict with splits {splits}; pass one split, e.g. "
                f"dataset[{splits[0]!r}]"
            )
        raise ConfigError("dataset must be a list of samples, not a single dict")
    if hasattr(dataset, "samples") and isinstance(dataset.samples, list):
        dataset = dataset.samples  # a Ragas EvaluationDataset
    elif hasattr(dataset, "to_dict") and hasattr(dataset, "columns"):
        dataset = dataset.to_dict("records")  # a pandas DataFrame
    if isinstance(dataset, (str, bytes)) or not isinstance(dataset, Iterable):
        raise ConfigError(f"dataset must be a list of samples, got {type(dataset).__name__}")
    return [_sample(row, i, column_map or {}) for i, row in enumerate(dataset)]


def _metrics(metrics: Sequence[Any], llm: Judge | str | None) -> list[RagasMetric]:
    chosen = []
    for metric in metrics:
        if isinstance(metric, type) and issubclass(metric, RagasMetric):
            metric = metric(llm) if metric.needs_llm else metric()
        if not isinstance(metric, RagasMetric):
            raise ConfigError(f"metrics must be scorers.ragas metrics, got {type(metric).__name__}")
        if metric.needs_llm and metric.llm is None:
            if llm is None:
                raise ConfigError(f"{type(metric).__name__} has no llm: pass evaluate(llm=...)")
            metric = metric.with_llm(llm)
        chosen.append(metric)
    names = [m.name for m in chosen]
    if len(set(names)) != len(names):
        raise ConfigError(f"two metrics share a name: {names}; give one a name=...")
    return chosen


async def aevaluate(
    dataset: Any,
    metrics: Sequence[Any] | None = None,
    llm: Judge | str | None = None,
    embeddings: Any = None,
    experiment_name: str | None = None,
    callbacks: Any = None,
    run_config: RunConfig | None = None,
    token_usage_parser: Any = None,
    raise_exceptions: bool = False,
    column_map: Mapping[str, str] | None = None,
    show_progress: bool = True,
    batch_size: int | None = None,
    *,
    concurrency: int = 16,
    **ragas_only: Any,
) -> EvaluationResult:
    """Async `evaluate` (Ragas' ``aevaluate``)."""
    unknown = set(ragas_only) - {"_run_id", "_pbar", "return_executor", "allow_nest_asyncio"}
    if unknown:
        raise TypeError(f"evaluate() got unexpected keyword arguments {sorted(unknown)}")
    if ragas_only.get("return_executor"):
        raise ConfigError("return_executor=True is not supported: evaluate returns the result")
    if not metrics:
        raise ConfigError(
            "evaluate needs metrics, e.g. metrics=[LLMContextRecall(), LLMContextPrecisionWithReference()] "
            "(Ragas' default set includes metrics this facade does not have)"
        )
    if run_config is not None:
        concurrency = min(concurrency, int(run_config.max_workers))
    if batch_size is not None:
        concurrency = min(concurrency, int(batch_size))
    chosen = _metrics(metrics, llm)
    samples = _samples(dataset, column_map)
    progress = _Progress(len(samples) * len(chosen), show_progress)
    # every (sample, metric) in one engine run: the metrics' calls interleave
    pairs = [(m, {field: s.get(field) for field in m.fields}) for s in samples for m in chosen]
    try:
        found = await score_samples(pairs, concurrency * len(chosen), progress.step)
    finally:
        progress.close()
    results = {m.name: found[i :: len(chosen)] for i, m in enumerate(chosen)}
    if raise_exceptions:
        for metric in chosen:
            failed = next((r for r in results[metric.name] if r.error is not None), None)
            if failed is not None:
                raise ValueError(f"{metric.name}: {failed.error}")
    return EvaluationResult(samples, results)


class _Progress:
    """Ragas' "Evaluating" counter on a terminal's stderr (nothing elsewhere)."""

    def __init__(self, total: int, show: bool):
        self.total, self.done = total, 0
        self.show = show and sys.stderr.isatty()

    def step(self) -> None:
        self.done += 1
        if self.show:
            print(f"\rEvaluating: {self.done}/{self.total}", end="", file=sys.stderr)

    def close(self) -> None:
        if self.show:
            print(file=sys.stderr)


def evaluate(
    dataset: Any,
    metrics: Sequence[Any] | None = None,
    llm: Judge | str | None = None,
    embeddings: Any = None,
    experiment_name: str | None = None,
    callbacks: Any = None,
    run_config: RunConfig | None = None,
    token_usage_parser: Any = None,
    raise_exceptions: bool = False,
    column_map: Mapping[str, str] | None = None,
    show_progress: bool = True,
    batch_size: int | None = None,
    *,
    concurrency: int = 16,
    **ragas_only: Any,
) -> EvaluationResult:
    """Score every sample of ``dataset`` with each metric, as Ragas' ``evaluate`` does.

    Args:
        dataset: A list of dicts or `SingleTurnSample`s (Ragas' own too), an
            `EvaluationDataset` (or Ragas'), a Hugging Face ``Dataset`` or a pandas
            ``DataFrame``; Ragas' field names, 0.1's included (``question``, ``contexts``,
            ``answer``, ``ground_truth``, and ``ground_truths`` joined one per line).
        metrics: `scorers.ragas` metrics (instances, or classes to build with ``llm``).
        llm: The judge of LLM metrics built without one (a `Judge` or a model string).
        embeddings: Accepted for Ragas compatibility (no metric here uses embeddings).
        experiment_name: Accepted for Ragas compatibility.
        callbacks: Accepted for Ragas compatibility.
        run_config: A `RunConfig`: ``max_workers`` bounds the samples in flight.
        token_usage_parser: Accepted: token usage is always recorded
            (`EvaluationResult.total_tokens`).
        raise_exceptions: Raise the first sample's error instead of recording NaN.
        column_map: ``{ragas_field: your_column}`` for datasets with other column names.
        show_progress: Show an "Evaluating: n/N" counter on a terminal.
        batch_size: Samples in flight at most (as Ragas' batches bound them).
        concurrency: Samples in flight per metric.
        **ragas_only: Ragas' private ``_run_id``, ``_pbar``, ``allow_nest_asyncio``
            (accepted) and ``return_executor`` (refused when True).

    Returns:
        An `EvaluationResult`: a failing sample has value NaN and its error kept; a
        broken judge setup (a missing key, an unknown model) raises instead.

    Raises:
        ConfigError: For a bad dataset or metric, or an LLM metric without an llm.
        JudgeSetupError: At the first sample that meets a broken setup.
    """
    return run_sync(
        aevaluate,
        dataset,
        metrics,
        llm,
        embeddings,
        experiment_name,
        callbacks,
        run_config,
        token_usage_parser,
        raise_exceptions,
        column_map,
        show_progress,
        batch_size,
        concurrency=concurrency,
        **ragas_only,
    )
