"""What resuming may keep of an earlier run's item, and what it must run again."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ._data import EvalItem
from ._results import ItemResult


@dataclass(frozen=True)
class ResumePlan:
    """An earlier result of an item, cut to what this run may keep.

    Attributes:
        kept: The earlier result holding only the scorer results that stay.
        rescore: Scorer ids to run again: new to the run, failed before, or with
            another fingerprint.
        config_changed: How many of ``rescore`` are there for a changed fingerprint.
    """

    kept: ItemResult
    rescore: tuple[str, ...]
    config_changed: int


def resume_plan(
    previous: ItemResult | None,
    item: EvalItem,
    fingerprints: Mapping[str, str],
    has_target: bool,
) -> ResumePlan | None:
    """What of ``previous`` this run keeps; None when the item must run from scratch.

    From scratch: no earlier result, the item's content changed (same id is not enough:
    an edited ground truth must be judged again), the item failed before or outside its
    scorers (target error, timeout, unwritable), or the run gained or lost a target
    since. Otherwise the target's output is kept and only the scorers in ``rescore`` run.
    A result without a fingerprint (an older file) counts as another configuration.
    """
    if previous is None or (previous.target_result is not None) != has_target:
        return None
    if previous.error is not None and previous.error.phase != "score":
        return None
    if previous.item.model_dump(mode="json") != item.model_dump(mode="json"):
        return None
    kept = {}
    rescore: list[str] = []
    changed = 0
    for sid, fingerprint in fingerprints.items():
        earlier = previous.scorer_results.get(sid)
        if earlier is None or earlier.status == "error":
            rescore.append(sid)
        elif previous.fingerprints.get(sid) != fingerprint:
            rescore.append(sid)
            changed += 1
        else:
            kept[sid] = earlier
    result = previous.model_copy(
        update={
            "scorer_results": kept,
            "fingerprints": {sid: fingerprints[sid] for sid in kept},
            "error": None,
        }
    )
    return ResumePlan(result, tuple(rescore), changed)
