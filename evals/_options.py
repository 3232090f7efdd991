"""The checked options of a run: what `run_evals` validates before any work starts."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scorers import ConfigError, Scorer
from scorers._internal import finite, integer, positive

from ._progress import progress_mode
from ._shards import parse_shard


@dataclass(frozen=True)
class RunOptions:
    """`run_evals`' keyword options, each checked (the messages name the option, the
    allowed range and the value given). See `arun_evals` for their meaning."""

    concurrency: int = 8
    model_concurrency: int | None = None
    results_path: str | os.PathLike[str] | None = None
    resume: bool = False
    fail_fast: bool = False
    item_timeout: float | None = None
    thresholds: Mapping[str, float] | None = None
    min_scored: float | None = None
    item_thresholds: Mapping[str, float] | None = None
    store_prompts: bool = True
    shard: Any = None
    max_cost: float | None = None
    progress: bool | str | None = None
    keep_items: bool = True

    @classmethod
    def checked(cls, scorers: Mapping[str, Scorer], **options: Any) -> RunOptions:
        """The options with numbers checked, ``shard`` parsed and ``thresholds`` known.

        Raises:
            ConfigError: Naming the first option that is out of range.
        """
        given = cls(**options)
        progress_mode(given.progress)
        min_scored = given.min_scored
        if min_scored is not None and not 0 <= finite("min_scored", min_scored) <= 1:
            raise ConfigError(f"min_scored must be a share between 0 and 1; got {min_scored!r}")
        if given.results_path is None and given.resume:
            raise ConfigError("resume=True needs results_path")
        if given.results_path is None and not given.keep_items:
            raise ConfigError(
                "keep_items=False needs results_path: the items' results go there and nowhere else"
            )
        return cls(
            **{
                **options,
                "concurrency": integer("concurrency", given.concurrency),
                "model_concurrency": _maybe(integer, "model_concurrency", given.model_concurrency),
                "item_timeout": _maybe(positive, "item_timeout", given.item_timeout),
                "max_cost": _maybe(positive, "max_cost", given.max_cost),
                "shard": parse_shard(given.shard),
                "thresholds": _thresholds(given.thresholds, scorers),
                "item_thresholds": _thresholds(given.item_thresholds, scorers, "item_thresholds"),
            }
        )


def _maybe(check: Any, name: str, value: Any) -> Any:
    return None if value is None else check(name, value)


def _thresholds(
    thresholds: Mapping[str, float] | None,
    scorers: Mapping[str, Scorer],
    name: str = "thresholds",
) -> dict[str, float]:
    found = {sid: finite(f"{name}[{sid!r}]", v) for sid, v in (thresholds or {}).items()}
    unknown = sorted(set(found) - set(scorers))
    if unknown:
        raise ConfigError(f"{name} name unknown scorers {unknown}; scorers: {sorted(scorers)}")
    for sid, minimum in found.items():
        scale = scorers[sid].scale
        if not 0 <= minimum <= scale:
            raise ConfigError(
                f"{name}[{sid!r}] is {minimum:g}, outside the scorer's scores [0, {scale:g}]: "
                "it could never pass (or never fail)"
            )
    return found


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
