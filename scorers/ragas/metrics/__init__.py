"""``ragas.metrics``: the legacy metrics ``evaluate`` runs, and Ragas 0.1's instances.

``ContextRecall``, ``ContextPrecision`` and ``ContextUtilization`` here are the legacy
classes (their llm may come from ``evaluate(llm=...)``; an empty retrieval or a blank
reference scores as in Ragas); ``scorers.ragas.metrics.collections`` has 0.4's.
"""

from __future__ import annotations

from .._metrics import (
    DistanceMeasure,
    IDBasedContextPrecision,
    IDBasedContextRecall,
    LLMContextPrecisionWithoutReference,
    LLMContextPrecisionWithReference,
    LLMContextRecall,
    NonLLMContextPrecisionWithReference,
    NonLLMContextRecall,
    NonLLMStringSimilarity,
)
from .._metrics import LegacyContextPrecision as ContextPrecision
from .._metrics import LegacyContextRecall as ContextRecall
from .._metrics import LegacyContextUtilization as ContextUtilization
from .._relevance import LegacyContextEntityRecall as ContextEntityRecall
from .._relevance import LegacyContextRelevance as ContextRelevance

context_recall = ContextRecall()
"""Ragas 0.1's ``context_recall`` instance (judged by ``evaluate(llm=...)``)."""
context_precision = ContextPrecision()
"""Ragas 0.1's ``context_precision`` instance (judged by ``evaluate(llm=...)``)."""
context_utilization = ContextUtilization()
"""Ragas' ``context_utilization`` instance (judged by ``evaluate(llm=...)``)."""
context_entity_recall = ContextEntityRecall()
"""Ragas' ``context_entity_recall`` instance (judged by ``evaluate(llm=...)``)."""

__all__ = [
    "ContextEntityRecall",
    "ContextPrecision",
    "ContextRecall",
    "ContextRelevance",
    "ContextUtilization",
    "DistanceMeasure",
    "IDBasedContextPrecision",
    "IDBasedContextRecall",
    "LLMContextPrecisionWithReference",
    "LLMContextPrecisionWithoutReference",
    "LLMContextRecall",
    "NonLLMContextPrecisionWithReference",
    "NonLLMContextRecall",
    "NonLLMStringSimilarity",
    "context_entity_recall",
    "context_precision",
    "context_recall",
    "context_utilization",
]
