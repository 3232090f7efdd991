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
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .._errors import ConfigError
from .._model._judge import Judge
from .._sync import run_sync
from ._base import MetricResult, RagasMetric

_LEGACY_NAMES = {
    "question": "user_input",
    "contexts": "retrieved_contexts",
    "answer": "response",
    "ground_truth": "reference",
}
"""Ragas 0.1's column names and the current ones."""


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


def _sample(row: Any, index: int) -> dict[str, Any]:
    if hasattr(row, "model_dump"):
        row = row.model_dump(exclude_none=True)
    if not isinstance(row, Mapping):
        raise ConfigError(f"sample {index}: expected a dict or SingleTurnSample, got {type(row)}")
    sample: dict[str, Any] = {}
    for key, value in row.items():
        if value is None or (isinstance(value, float) and math.isnan(value)):
            continue  # pandas' missing values
        if key == "ground_truths":  # Ragas 0.1: a list of answers, joined one per line
            key = "reference"
            value = value if isinstance(value, str) else "\n".join(map(str, value))
        sample[_LEGACY_NAMES.get(str(key), str(key))] = value
    return sample


def _samples(dataset: Any) -> list[dict[str, Any]]:
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
    return [_sample(row, i) for i, row in enumerate(dataset)]


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
    metrics: Sequence[Any],
    llm: Judge | str | None = None,
    *,
    concurrency: int = 16,
) -> EvaluationResult:
    """Async `evaluate`."""
    if not metrics:
        raise ConfigError("evaluate needs at least one metric")
    chosen = _metrics(metrics, llm)
    samples = _samples(dataset)
    results = {}
    for metric in chosen:
        inputs = [{field: s.get(field) for field in metric.fields} for s in samples]
        results[metric.name] = await metric.abatch_score(inputs, concurrency)
    return EvaluationResult(samples, results)


def evaluate(
    dataset: Any,
    metrics: Sequence[Any],
    llm: Judge | str | None = None,
    *,
    concurrency: int = 16,
) -> EvaluationResult:
    """Score every sample of ``dataset`` with each metric, as Ragas' ``evaluate`` does.

    Args:
        dataset: A list of dicts or `SingleTurnSample`s, a Hugging Face ``Dataset``, a
            pandas ``DataFrame`` or a Ragas ``EvaluationDataset``; Ragas' field names,
            0.1's included (``question``, ``contexts``, ``answer``, ``ground_truth``, and
            ``ground_truths`` joined one answer per line).
        metrics: `scorers.ragas` metrics (instances, or classes to build with ``llm``).
        llm: The judge of LLM metrics built without one (a `Judge` or a model string).
        concurrency: Samples in flight per metric.

    Returns:
        An `EvaluationResult`: a failing sample has value NaN and its error kept; a
        broken judge setup (a missing key, an unknown model) raises instead.

    Raises:
        ConfigError: For a bad dataset or metric, or an LLM metric without an llm.
        JudgeSetupError: At the first sample that meets a broken setup.
    """
    return run_sync(aevaluate, dataset, metrics, llm, concurrency=concurrency)
