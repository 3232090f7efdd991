"""``ragas.run_config``: ``RunConfig``."""

from __future__ import annotations

from ._evaluate import RunConfig

__all__ = ["RunConfig"]
