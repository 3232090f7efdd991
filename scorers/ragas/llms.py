"""``ragas.llms``: ``llm_factory``."""

from __future__ import annotations

from ._base import llm_factory

__all__ = ["llm_factory"]
