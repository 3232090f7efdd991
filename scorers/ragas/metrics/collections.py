"""``ragas.metrics.collections``: Ragas 0.4's metrics (``llm=`` up front; empty inputs
are refused, as Ragas refuses them)."""

from __future__ import annotations

from .._metrics import (
    ContextPrecision,
    ContextPrecisionWithoutReference,
    ContextPrecisionWithReference,
    ContextRecall,
    ContextUtilization,
    DistanceMeasure,
)
from .._relevance import ContextEntityRecall, ContextRelevance

__all__ = [
    "ContextEntityRecall",
    "ContextPrecision",
    "ContextPrecisionWithReference",
    "ContextPrecisionWithoutReference",
    "ContextRecall",
    "ContextRelevance",
    "ContextUtilization",
    "DistanceMeasure",
]
