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

__all__ = [
    "ContextPrecision",
    "ContextPrecisionWithReference",
    "ContextPrecisionWithoutReference",
    "ContextRecall",
    "ContextUtilization",
    "DistanceMeasure",
]
