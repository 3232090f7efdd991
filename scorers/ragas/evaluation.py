"""``ragas.evaluation``: ``evaluate`` and ``aevaluate``."""

from __future__ import annotations

from ._evaluate import EvaluationResult, aevaluate, evaluate

__all__ = ["EvaluationResult", "aevaluate", "evaluate"]
