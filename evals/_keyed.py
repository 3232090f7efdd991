"""Scorers by the key their results go under: what a run, an agent's live scorers and an
estimate all start from."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorers import ConfigError, Scorer


def scorer_map(scorers: Sequence[Scorer] | Mapping[str, Scorer] | Scorer) -> dict[str, Scorer]:
    """Scorers by the key their results go under: their ids, or the given names (a
    `scorers.ragas` metric: its native scorer, under the metric's name).

    Raises:
        ConfigError: For no scorers, a value that is not a `Scorer`, or two sharing an id.
    """
    if isinstance(scorers, Scorer) or hasattr(scorers, "as_scorer"):
        scorers = [scorers]  # type: ignore[list-item]
    if isinstance(scorers, Mapping):
        mapping = {key: _native(value) for key, value in scorers.items()}
    else:
        mapping = {}
        for given in scorers:
            # a scorers.ragas metric runs as its native scorer, under its Ragas name
            key = getattr(given, "name", None) if hasattr(given, "as_scorer") else None
            scorer = _native(given)
            name = key or scorer.id
            if name in mapping:
                raise ConfigError(
                    f"two scorers share the id {name!r}; pass a dict {{name: scorer}} "
                    "to name them apart"
                )
            mapping[name] = scorer
    if not mapping:
        raise ConfigError("run_evals needs at least one scorer")
    return mapping


def _native(value: Any) -> Scorer:
    """A `Scorer`, or the native scorer of a `scorers.ragas` metric."""
    if hasattr(value, "as_scorer") and not isinstance(value, Scorer):
        value = value.as_scorer()
    if not isinstance(value, Scorer):
        raise ConfigError(
            f"scorers must be Scorer objects (or scorers.ragas metrics), got {type(value).__name__}"
        )
    return value
