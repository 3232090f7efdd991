"""What resuming may keep of an earlier run's item, and what it must run again."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from scorers import ConfigError

from .._data import EvalItem
from .._file._header import RunHeader, stale_configurations
from .._file._jsonl import ResultsFile
from .._results import ItemResult
from ._options import RunOptions


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


def open_results(opts: RunOptions, ids: Sequence[str], header: RunHeader) -> ResultsFile | None:
    """The run's results file, opened (its earlier items indexed, when resuming; read
    whole unless the run streams) and checked before this run's header is written; None
    without ``results_path``."""
    if opts.results_path is None:
        return None
    path = Path(opts.results_path)
    results_file = ResultsFile(path, opts.resume, opts.store_prompts, header, not opts.keep_items)
    try:
        _refuse_another_run(results_file, header)
        _refuse_mixing(results_file, ids, header)
    except BaseException:
        results_file.close()
        raise
    results_file.begin()
    return results_file


def _refuse_another_run(results_file: ResultsFile, header: RunHeader) -> None:
    """A file written by a run of another target or another data set is not this run's
    to resume: its outputs and scores would be reported as this run's. Refused, naming
    what differs. The same data under another name (moved, copied) is the same data; the
    same file with edited rows is too (edited items run again from scratch)."""
    if not results_file.previous_headers:
        return
    earlier = results_file.previous_headers[-1]
    path = results_file.path
    advice = (
        "Resuming would report that run's outputs and scores as this run's. Write this run "
        "to a new file (--out), or resume with what made the file"
    )
    if earlier.target is not None and header.target is not None and earlier.target != header.target:
        raise ConfigError(
            f"{path} was written by a run of another target: {_target(earlier.target)}, this "
            f"run's is {_target(header.target)}. {advice}"
        )
    old, new = earlier.data, header.data
    if old is not None and new is not None and old.sha256 != new.sha256 and old.name != new.name:
        raise ConfigError(
            f"{path} was written by a run of another data set: {old.name or 'data in memory'} "
            f"(sha256 {old.sha256[:12]}), this run's is {new.name or 'data in memory'} "
            f"(sha256 {new.sha256[:12]}). {advice}"
        )


def _target(name: str) -> str:
    return name or "none (the items' own outputs)"


def _refuse_mixing(results_file: ResultsFile, ids: Sequence[str], header: RunHeader) -> None:
    """Resuming under another configuration re-scores the items of this run; items of
    the file that this run does not hold would keep the old one and leave two
    configurations in one file: refused before anything is written."""
    wanted = set(ids)
    previous = results_file.previous
    left = [previous[item_id] for item_id in previous if item_id not in wanted]
    problems = stale_configurations(left, results_file.previous_headers, header)
    if problems:
        raise ConfigError(
            f"{results_file.path} holds items that this run does not include, scored under "
            f"another configuration: {'; '.join(problems)}. Resuming would leave two "
            "configurations in one file. Resume with all of its items (the same data, "
            "no other shard) to re-score them, or write this run to a new file"
        )


def resume_plans(
    items: Sequence[EvalItem],
    results_file: ResultsFile | None,
    fingerprints: Mapping[str, str],
    has_target: bool,
) -> tuple[list[ItemResult], dict[str, ResumePlan]]:
    """Of ``items``: the earlier results resuming keeps whole, and the plans of those it
    re-scores in part, by id."""
    previous = results_file.previous if results_file else {}
    done: list[ItemResult] = []
    partial: dict[str, ResumePlan] = {}
    if not previous:
        return done, partial
    for item in items:
        plan = resume_plan(previous.get(item.id), item, fingerprints, has_target)
        if plan is None:
            continue
        if plan.rescore:
            partial[item.id] = plan
        else:
            done.append(plan.kept)
    return done, partial
