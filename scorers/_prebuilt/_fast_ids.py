"""The fast path of the ID recall and precision scorers: ranked ids once per block,
shared by both plug-ins through the block's memo."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from .._checks import clip_scaled
from .._engine import FastPath, Memo, Outcome, register_fast_path
from .._errors import ConfigError
from .._steps import detail_value
from .._types import ScorerRun
from ._options import run_languages
from ._ranked_ids import RankedIds, rank, relevance_grades


def _ranked(run: ScorerRun) -> RankedIds | None:
    """A run's ranked ids; None leaves the run to the steps (which also name a missing
    id)."""
    retrieved = run.context if run.retrieved_context_ids is None else run.retrieved_context_ids
    if not retrieved or not run.reference_context_ids:
        return None
    try:
        ranked = rank(relevance_grades(run), retrieved)
    except ConfigError:
        return None
    return ranked if ranked.relevant_ids else None


def shared_ranked(runs: Sequence[ScorerRun], memo: Memo) -> list[RankedIds | None]:
    """The block's ranked ids, computed once for every ID and ranking plug-in."""
    shared = memo.get("ranked_ids")
    if shared is None:
        shared = memo["ranked_ids"] = [_ranked(run) for run in runs]
    return shared


def shared_details(ids: RankedIds) -> dict[str, Any]:
    """The details every ID and ranking plug-in gives a run: one dict, made once per run
    (`as_results` gives each result its own copy)."""
    found: dict[str, Any] | None = ids.__dict__.get("_details")
    if found is None:
        found = ids.__dict__["_details"] = {"ids": detail_value(ids)}
    return found


@dataclass(frozen=True)
class IDFastPath:
    """ID ``"recall"`` or ``"precision"`` for the runs of a block that carry chunks (all
    with ids) and relevant reference ids."""

    what: str
    scale: float
    language: str
    inline: ClassVar[bool] = True  # linear in the ids: no thread needed

    def score(self, runs: Sequence[ScorerRun], memo: Memo) -> list[Outcome | None]:
        shared = shared_ranked(runs, memo)
        out: list[Outcome | None] = [None] * len(runs)
        languages = run_languages(runs, self.language, memo)
        for i, ids in enumerate(shared):
            if ids is not None:
                value = ids.recall() if self.what == "recall" else ids.precision()
                score = clip_scaled(value, self.scale)
                reason = ids.reason(self.what, score, languages[i])
                out[i] = (score, reason, shared_details(ids))
        return out


def _plugin(what: str) -> Any:
    def make(options: Any) -> FastPath:
        return IDFastPath(what, options.scale, options.language)

    return make


register_fast_path("id-context-recall")(_plugin("recall"))
register_fast_path("id-context-precision")(_plugin("precision"))
