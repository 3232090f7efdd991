"""``ragas.dataset_schema``: samples, data sets and results."""

from __future__ import annotations

from ._base import SingleTurnSample
from ._evaluate import EvaluationDataset, EvaluationResult

__all__ = ["EvaluationDataset", "EvaluationResult", "SingleTurnSample"]
